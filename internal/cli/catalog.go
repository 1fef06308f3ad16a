package cli

import (
	"context"
	"strings"

	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/report"
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
		return usagef("no instance type matches %q (fix: a shorter --filter, e.g. a family like i3 or a provider like gcp)", strings.Join(filters, " "))
	}
	if *asCSV {
		return report.WriteCatalogCSV(env.Stdout, rows)
	}
	return report.WriteCatalogText(env.Stdout, rows, sizes)
}
