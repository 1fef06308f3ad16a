package cli

import (
	"flag"

	"github.com/platbench/platbench/analysis"
)

// addAnalysisFlags registers the flags every command that analyses a result
// shares (run, report, compare...) and returns the Options they fill.
func addAnalysisFlags(fs *flag.FlagSet) *analysis.Options {
	o := &analysis.Options{}
	fs.StringVar(&o.Warmup, "warmup", "auto", "warm-up to trim from the start of the run phase: auto (detected with MSER-5), a duration like 75s, or 0")
	fs.StringVar(&o.Platform, "platform", "", "instance type of the server nodes, for cost figures (see 'platbench catalog'; default: this host's, when the target ran on it)")
	fs.IntVar(&o.Nodes, "nodes", 0, "number of server nodes the price is multiplied by (default: the nodes the target reported, else 1)")
	fs.Float64Var(&o.PricePerHour, "price-per-hour", 0, "one node's on-demand price in US dollars per hour; overrides the catalog")
	fs.StringVar(&o.CatalogFile, "catalog", "", "CSV file of instance prices overriding or extending the built-in catalog (same columns as 'platbench catalog --csv')")
	addBillFlags(fs, &o.Bill, true)
	return o
}

// addBillFlags registers the flags of the bill beyond the instances
// (docs/cost.md); the plan has its own --rf and does not price loaders.
func addBillFlags(fs *flag.FlagSet, b *analysis.Bill, withLoaders bool) {
	fs.Var(&b.Storage, "storage", "each server node's block volume, priced with the instances: TYPE:SIZE[:IOPSiops][:MBPSMBps], e.g. gp3:2TiB:6000iops:250MBps (see 'platbench catalog --storage')")
	fs.IntVar(&b.Zones, "zones", 0, "zones the server nodes span, to price cross-zone traffic (replication and client payload; measured by --server-metrics when the run has it); default: not priced")
	if withLoaders {
		fs.IntVar(&b.RF, "rf", 0, "replication factor of the cross-zone traffic estimate (default 3, or the nodes when fewer)")
		fs.StringVar(&b.LoaderInstance, "loader-instance", "", "instance type of the load generators, priced with the servers (count: the loaders of a merged result, else 1)")
	}
}
