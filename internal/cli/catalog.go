package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/platbench/platbench/catalog"
)

func runCatalog(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "catalog", "[--filter STR] [--catalog FILE] [--csv]",
		"List the instance catalog cost figures come from: provider, instance type, arch, vCPUs, RAM,\n"+
			"local storage, on-demand $/hour, region, the date of the price and its source. Prices are\n"+
			"dated and not fetched: override them with --catalog FILE, a CSV file with the columns\n"+
			"'platbench catalog --csv' prints (provider, instance_type and price_per_hour_usd are required;\n"+
			"a row whose instance_type is already known replaces it). Monthly cost uses 730 h.")
	filter := fs.String("filter", "", "show only rows whose provider, type, arch, region or aliases contain this text (case-insensitive)")
	file := fs.String("catalog", "", "CSV file overriding or extending the built-in catalog")
	asCSV := fs.Bool("csv", false, "print the rows as CSV (the format --catalog reads) with every column")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		if *filter != "" {
			return usagef("unexpected argument %q (give one --filter)", rest[0])
		}
		*filter = strings.Join(rest, " ")
	}
	c, err := catalog.Load(*file)
	if err != nil {
		return err
	}
	rows := c.Filter(*filter)
	if len(rows) == 0 {
		return fmt.Errorf("no instance type matches %q (fix: a shorter --filter, e.g. a family like i3 or a provider like gcp)", *filter)
	}
	if *asCSV {
		w := csv.NewWriter(env.Stdout)
		w.Write([]string{"provider", "instance_type", "arch", "vcpus", "ram_gib", "local_storage", "price_per_hour_usd", "region", "price_date", "source", "aliases"})
		for _, in := range rows {
			w.Write([]string{in.Provider, in.Type, in.Arch, strconv.Itoa(in.VCPUs), strconv.FormatFloat(in.RAMGiB, 'f', -1, 64), in.LocalStorage,
				strconv.FormatFloat(in.PricePerHourUSD, 'f', -1, 64), in.Region, in.PriceDate, in.Source, strings.Join(in.Aliases, "|")})
		}
		w.Flush()
		return w.Error()
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER\tTYPE\tARCH\tVCPUS\tRAM GiB\tLOCAL STORAGE\t$/HOUR\t$/MONTH\tREGION\tDATE\tSOURCE")
	for _, in := range rows {
		src := in.Source
		if len(src) > 80 {
			src = src[:77] + "..."
		}
		if in.File != "embedded" {
			src = "[" + in.File + "] " + src
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", in.Provider, in.Type, in.Arch, in.VCPUs,
			strconv.FormatFloat(in.RAMGiB, 'f', -1, 64), in.LocalStorage, strconv.FormatFloat(in.PricePerHourUSD, 'f', -1, 64),
			fmt.Sprintf("%.2f", catalog.MonthlyUSD(in.PricePerHourUSD, 1)), in.Region, in.PriceDate, src)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\n%d instance types; prices are on-demand US dollars per node, dated, and not fetched: check them ('platbench catalog --csv' shows full sources).\n", len(rows))
	return nil
}
