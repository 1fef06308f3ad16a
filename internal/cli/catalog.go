package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/internal/units"
)

func runCatalog(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "catalog", "[--filter STR] [--catalog FILE] [--nodes 3,6,9] [--csv]",
		"List the instance catalog cost figures come from: provider, instance type, arch, vCPUs, RAM,\n"+
			"local storage, on-demand $/hour, region, the date of the price and its source. Prices are\n"+
			"dated and not fetched: override them with --catalog FILE, a CSV file with the columns\n"+
			"'platbench catalog --csv' prints (provider, instance_type and price_per_hour_usd are required;\n"+
			"a row whose instance_type is already known replaces it). Monthly cost uses 730 h.")
	filter := fs.String("filter", "", "show only rows whose provider, type, arch, region or aliases contain this text (case-insensitive); more filters may follow as arguments")
	file := fs.String("catalog", "", "CSV file overriding or extending the built-in catalog")
	asCSV := fs.Bool("csv", false, "print the rows as CSV (the format --catalog reads) with every column")
	nodesList := fs.String("nodes", "", "add a monthly cost column for clusters of these sizes, e.g. 3,6,9 (730 h months)")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	// Positional arguments are more filters: a row matching any is listed.
	filters := rest
	if *filter != "" || len(filters) == 0 {
		filters = append([]string{*filter}, filters...)
	}
	var sizes []int
	if *nodesList != "" {
		for _, f := range strings.Split(*nodesList, ",") {
			n, err := units.ParseCount(f)
			if err != nil || n == 0 || n > 1<<20 {
				return usagef("--nodes %q: want positive whole numbers separated by commas, e.g. 3,6,9", *nodesList)
			}
			sizes = append(sizes, int(n))
		}
	}
	c, err := catalog.Load(*file)
	if err != nil {
		return err
	}
	var rows []catalog.Instance
	seen := map[string]bool{}
	for _, f := range filters {
		for _, in := range c.Filter(f) {
			if !seen[in.Type] {
				seen[in.Type] = true
				rows = append(rows, in)
			}
		}
	}
	if len(rows) == 0 {
		return fmt.Errorf("no instance type matches %q (fix: a shorter --filter, e.g. a family like i3 or a provider like gcp)", strings.Join(filters, " "))
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
	hdr := "PROVIDER\tTYPE\tARCH\tVCPUS\tRAM GiB\tLOCAL STORAGE\t$/HOUR\t$/MONTH\t"
	for _, n := range sizes {
		hdr += fmt.Sprintf("%d NODES/MONTH\t", n)
	}
	fmt.Fprintln(tw, hdr+"REGION\tDATE\tSOURCE")
	for _, in := range rows {
		src := in.Source
		if len(src) > 80 {
			src = src[:77] + "..."
		}
		if in.File != "embedded" {
			src = "[" + in.File + "] " + src
		}
		cols := ""
		for _, n := range sizes {
			cols += units.Fixed(catalog.MonthlyUSD(in.PricePerHourUSD, n), 2) + "\t"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s%s\t%s\t%s\n", in.Provider, in.Type, in.Arch, in.VCPUs,
			strconv.FormatFloat(in.RAMGiB, 'f', -1, 64), in.LocalStorage, strconv.FormatFloat(in.PricePerHourUSD, 'f', -1, 64),
			units.Fixed(catalog.MonthlyUSD(in.PricePerHourUSD, 1), 2), cols, in.Region, in.PriceDate, src)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\n%d instance types; prices are on-demand US dollars per node, dated, and not fetched: check them ('platbench catalog --csv' shows full sources).\n", len(rows))
	return nil
}
