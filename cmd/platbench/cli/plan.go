package cli

import (
	"context"
	"os"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
)

// planFormats are the --format values of `platbench plan`.
var planFormats = []string{"term", "json", "html"}

func runPlan(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "plan", "RESULT[=INSTANCE]... --throughput OPS --p99 DURATION [--rf 3] [--step 3]",
		"Capacity plan: for each measured platform, how many nodes reach --throughput while meeting the\n"+
			"--p99 objective, and their monthly on-demand cost, ranked cheapest first. Per-node throughput is\n"+
			"the steady sustained throughput of the best phase (run or sweep step) whose p99 met the\n"+
			"objective, divided by the nodes measured. A platform measured at two or more cluster sizes is\n"+
			"planned from the Universal Scalability Law fitted to them (contention σ, coherency κ, peak N*);\n"+
			"with one size scale-out is assumed linear. Nodes are added in sets of --step. RESULT=INSTANCE names the servers' instance type when the file does not.")
	var thr units.Rate
	fs.Var(&thr, "throughput", "target throughput of the whole cluster in ops/s (e.g. 500000 or 500k)")
	p99 := fs.Duration("p99", 0, "latency objective: p99 of every op from its intended start (e.g. 10ms)")
	rf := fs.Int("rf", 3, "replication factor: the smallest cluster has this many nodes")
	step := fs.Int("step", 0, "nodes are added this many at a time, for quorum across racks or zones (default: --rf)")
	nodes := fs.Int("nodes", 0, "server nodes each result measured (default: the nodes the target reported, else 1)")
	price := fs.Float64("price-per-hour", 0, "one node's on-demand US dollars per hour, for every result (overrides the catalog)")
	cat := fs.String("catalog", "", "CSV file overriding or extending the built-in catalog")
	maxErr := fs.Float64("max-error-ratio", 0.01, "leave out phases that failed more than this share of their ops (failures are often fast and would flatter the p99); 0 allows none")
	warmup := fs.String("warmup", "auto", "warm-up to trim from each phase: auto (MSER-5), a duration, or 0")
	format := fs.String("format", "term", "output format: term, json or html (a page with each platform's scalability chart)")
	var bill analysis.Bill
	addBillFlags(fs, &bill, false)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("plan needs at least one result file")
	}
	if err := checkFormat(*format, planFormats); err != nil {
		return err
	}
	opt := analysis.PlanOptions{ThroughputOpsPerS: float64(thr), P99: *p99, RF: *rf, Step: *step, Nodes: *nodes,
		PricePerHour: *price, CatalogFile: *cat, Warmup: *warmup, MaxErrorRatio: *maxErr, Bill: bill}
	if *maxErr == 0 {
		opt.MaxErrorRatio = -1 // no failures allowed
	}
	if err := opt.Validate(); err != nil {
		return usage(err)
	}
	var in []analysis.PlanInput
	for _, arg := range files {
		path, platform := arg, ""
		if _, err := os.Stat(arg); err != nil {
			if i := strings.LastIndex(arg, "="); i > 0 {
				path, platform = arg[:i], arg[i+1:]
			}
		}
		r, err := result.Read(path)
		if err != nil {
			return err
		}
		in = append(in, analysis.PlanInput{File: path, Result: r, Platform: platform})
	}
	rep, err := analysis.Plan(in, opt)
	if err != nil {
		return err
	}
	switch *format {
	case "json":
		return report.WritePlanJSON(env.Stdout, rep)
	case "html":
		return report.WritePlanHTML(env.Stdout, rep)
	}
	return report.WritePlanText(env.Stdout, rep)
}
