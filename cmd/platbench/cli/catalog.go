package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
)

func runCatalog(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 && args[0] == "import" {
		return runCatalogImport(env, args[1:])
	}
	fs := newFlags(env, "catalog", "[--filter STR] [--catalog FILE] [--nodes 3,6,9] [--storage] [--csv] | import FILE [--region R] [--out PATH]",
		"List the instance catalog cost figures come from: provider, instance type, arch, vCPUs, RAM,\n"+
			"local storage, on-demand $/hour, region, the date of the price and its source. Prices are\n"+
			"dated and not fetched: override them with --catalog FILE, a CSV file with the columns\n"+
			"'platbench catalog --csv' prints (provider, instance_type and price_per_hour_usd are required;\n"+
			"a row whose instance_type is already known replaces it). Monthly cost uses 730 h.\n"+
			"--storage lists block volumes and cross-zone transfer prices instead (what --storage and --zones price).\n"+
			"'platbench catalog import FILE' writes a catalog file from a provider's published price file.")
	filter := fs.String("filter", "", "show only rows whose provider, type, arch, region or aliases contain this text (case-insensitive); more filters may follow as arguments")
	file := fs.String("catalog", "", "CSV file overriding or extending the built-in catalog")
	asCSV := fs.Bool("csv", false, "print the rows as CSV (the format --catalog reads) with every column")
	nodesList := fs.String("nodes", "", "add a monthly cost column for clusters of these sizes, e.g. 3,6,9 (730 h months)")
	storage := fs.Bool("storage", false, "list block volume types and cross-zone transfer prices instead of instance types")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	// Positional arguments are more filters: a row matching any is listed.
	filters := rest
	if *filter != "" || len(filters) == 0 {
		filters = append([]string{*filter}, filters...)
	}
	if *storage {
		return listStorage(env, *file, *asCSV, filters)
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

// listStorage prints the volumes and transfers matching any filter.
func listStorage(env *Env, file string, asCSV bool, filters []string) error {
	c, err := catalog.Load(file)
	if err != nil {
		return err
	}
	var vols []catalog.Volume
	var trs []catalog.Transfer
	seenV, seenT := map[string]bool{}, map[string]bool{}
	for _, f := range filters {
		vs, ts := c.FilterStorage(f)
		for _, v := range vs {
			if !seenV[v.Type] {
				seenV[v.Type] = true
				vols = append(vols, v)
			}
		}
		for _, t := range ts {
			if k := t.Provider + " " + t.Kind; !seenT[k] {
				seenT[k] = true
				trs = append(trs, t)
			}
		}
	}
	if len(vols)+len(trs) == 0 {
		return usagef("no volume or transfer matches %q (fix: a provider like aws or a type like gp3)", strings.Join(filters, " "))
	}
	if asCSV {
		return report.WriteStorageCatalogCSV(env.Stdout, vols, trs)
	}
	return report.WriteStorageCatalogText(env.Stdout, vols, trs)
}

// runCatalogImport writes a catalog file (the CSV --catalog reads) from a
// provider's price file.
func runCatalogImport(env *Env, args []string) error {
	fs := newFlags(env, "catalog import", "FILE [--region R] [--out PATH]",
		"Read a provider's published price file, saved by you, and write a catalog file --catalog reads:\n"+
			"AWS's Price List offer file (EC2 index.json: Linux on-demand instances, EBS volumes, intra-region\n"+
			"transfer), GCP's Cloud Billing Catalog SKU list (persistent disk and hyperdisk volumes, inter-zone\n"+
			"traffic) or Azure's Retail Prices API response (Linux pay-as-you-go VMs, Premium SSD v2). Each row\n"+
			"names the file, its SKU or meter, and the date of its price. See docs/cost.md.")
	region := fs.String("region", "", "the region to import from a file that prices several (e.g. us-east-1, us-central1, eastus)")
	out := fs.String("out", "", "write the catalog file here (default: standard output); an existing file is refused unless --force")
	force := fs.Bool("force", false, "replace the --out file when it exists")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return usagef("catalog import needs exactly one price file")
	}
	if err := checkOut(*out, "catalog file", *force); err != nil {
		return err
	}
	f, err := os.Open(files[0])
	if err != nil {
		return usagef("cannot read %s: %v (fix: the path of a price file you saved)", files[0], err)
	}
	defer f.Close()
	c, err := catalog.Import(f, files[0], *region)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# platbench catalog imported from %s (%d instance types, %d volume types, %d transfer prices); use it with --catalog FILE\n",
		files[0], len(c.Instances), len(c.Volumes), len(c.Transfers))
	if len(c.Instances) > 0 {
		if err := report.WriteCatalogCSV(&b, c.Instances); err != nil {
			return err
		}
	}
	if err := report.WriteStorageCatalogCSV(&b, c.Volumes, c.Transfers); err != nil {
		return err
	}
	if *out == "" {
		_, err := env.Stdout.Write(b.Bytes())
		return err
	}
	return result.WriteFileAtomic(*out, b.Bytes())
}
