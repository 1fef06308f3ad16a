package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

func runPlan(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "plan", "RESULT[=INSTANCE]... --throughput OPS --p99 DURATION [--rf 3] [--step 3]",
		"Capacity plan: for each measured platform, how many nodes reach --throughput while meeting the\n"+
			"--p99 objective, and their monthly on-demand cost, ranked cheapest first. Per-node throughput is\n"+
			"the steady sustained throughput of the best phase (run or sweep step) whose p99 met the\n"+
			"objective, divided by the nodes measured; scale-out is assumed linear; nodes are added in sets\n"+
			"of --step. RESULT=INSTANCE names the servers' instance type when the file does not.")
	var thr rateFlag
	fs.Var(&thr, "throughput", "target throughput of the whole cluster in ops/s (e.g. 500000 or 500k)")
	p99 := fs.Duration("p99", 0, "latency objective: p99 of every op from its intended start (e.g. 10ms)")
	rf := fs.Int("rf", 3, "replication factor: the smallest cluster has this many nodes")
	step := fs.Int("step", 0, "nodes are added this many at a time, for quorum across racks or zones (default: --rf)")
	nodes := fs.Int("nodes", 0, "server nodes each result measured (default: the nodes the target reported, else 1)")
	price := fs.Float64("price-per-hour", 0, "one node's on-demand US dollars per hour, for every result (overrides the catalog)")
	cat := fs.String("catalog", "", "CSV file overriding or extending the built-in catalog")
	maxErr := fs.Float64("max-error-ratio", 0.01, "leave out phases that failed more than this share of their ops (failures are often fast and would flatter the p99); 0 allows none")
	warmup := fs.String("warmup", "auto", "warm-up to trim from each phase: auto (MSER-5), a duration, or 0")
	format := fs.String("format", "term", "output format: term or json")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("plan needs at least one result file")
	}
	if *format != "term" && *format != "json" {
		return usagef("unknown --format %q (use term or json)", *format)
	}
	opt := analysis.PlanOptions{ThroughputOpsPerS: thr.v, P99: *p99, RF: *rf, Step: *step, Nodes: *nodes,
		PricePerHour: *price, CatalogFile: *cat, Warmup: *warmup, MaxErrorRatio: *maxErr}
	if *maxErr == 0 {
		opt.MaxErrorRatio = -1 // no failures allowed
	}
	if err := opt.Validate(); err != nil {
		return usagef("%v", err)
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
	if *format == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", " ")
		return enc.Encode(rep)
	}
	return writePlan(env.Stdout, rep)
}

func writePlan(w io.Writer, rep *analysis.PlanReport) error {
	fmt.Fprintf(w, "Capacity plan: %s ops/s with p99 <= %s (replication factor %d, nodes added in sets of %d)\n\n",
		grouped(rep.ThroughputOpsPerS), time.Duration(rep.P99Ns), rep.RF, rep.Step)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tPLATFORM\tFILE\tPHASE\tMEASURED\tP99\tPER NODE\tNODES\t$/NODE-HOUR\tMONTHLY")
	for _, r := range rep.Rows {
		label := r.Label
		if label == "" {
			label = "-"
		}
		if !r.Feasible {
			fmt.Fprintf(tw, "%d\t%s\t%s\t-\t-\t-\t-\t-\t-\t-\n", r.Rank, label, r.File)
			continue
		}
		measured := fmt.Sprintf("%s ops/s on %d", grouped(r.MeasuredOps), r.MeasuredNodes)
		priceS, monthly := "-", "-"
		if r.PriceKnown {
			priceS = fmt.Sprintf("$%g", r.PricePerH)
			monthly = "$" + grouped2(r.MonthlyUSD)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Rank, label, r.File, r.Phase, measured,
			time.Duration(r.MeasuredP99Ns).Round(10*time.Microsecond), grouped(r.PerNodeOps), r.Nodes, priceS, monthly)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var notes []string
	for _, r := range rep.Rows {
		if r.Reason != "" {
			notes = append(notes, fmt.Sprintf("  %s (%s): %s", r.Label, r.File, r.Reason))
		}
		if r.PriceKnown && r.PriceSource != "" {
			notes = append(notes, fmt.Sprintf("  %s price: %s", r.Label, r.PriceSource))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nNotes\n%s\n", strings.Join(notes, "\n"))
	}
	fmt.Fprintf(w, "\nAssumptions\n")
	for _, a := range rep.Assumptions {
		fmt.Fprintf(w, "  - %s\n", a)
	}
	return nil
}

// grouped formats v rounded to a whole number with thousands separators.
func grouped(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// grouped2 is grouped with cents.
func grouped2(v float64) string {
	c := math.Round(v * 100)
	return grouped(math.Trunc(c/100)) + fmt.Sprintf(".%02d", int64(math.Abs(math.Mod(c, 100))))
}
