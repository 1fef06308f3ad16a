package report

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// ErrDifferentWorkloads is wrapped by Compare's error when the runs did not
// measure the same workload and Force is unset (analysis decides).
var ErrDifferentWorkloads = analysis.ErrDifferentWorkloads

// CompareOptions configure Compare.
type CompareOptions struct {
	// Files name the results in the order given, for labels and messages.
	Files []string
	// Baseline is the index of the run the others are compared to. Default 0.
	Baseline int
	// Force compares runs of different workloads anyway.
	Force bool
}

// Compare lines up the runs (analysis.Compare) and names and formats every
// figure. It refuses runs of different workloads unless opt.Force is set.
func Compare(rs []*result.Result, opt CompareOptions) (*analysis.CompareModel, error) {
	file := func(i int) string {
		if i < len(opt.Files) {
			return opt.Files[i]
		}
		return fmt.Sprintf("run %d", i+1)
	}
	an, err := analysis.Compare(rs, analysis.CompareOptions{Baseline: opt.Baseline, Force: opt.Force})
	var we *analysis.WorkloadError
	var re *analysis.RunError
	switch {
	case errors.As(err, &we):
		return nil, fmt.Errorf("%w: %s", ErrDifferentWorkloads, workloadsText(rs, we.Baseline, we.Runs, file))
	case errors.As(err, &re):
		return nil, fmt.Errorf("%s: %w", file(re.Run), re.Err)
	case err != nil:
		return nil, err
	}
	c := &analysis.CompareModel{Schema: analysis.CompareSchema, Baseline: opt.Baseline, Test: analysis.NoiseTest, Results: rs, Figures: an}
	if len(an.DifferentWorkloads) > 0 {
		c.Warnings = append(c.Warnings, "Different workloads compared (--force): "+workloadsText(rs, an.Baseline, an.DifferentWorkloads, file)+".")
	}
	if len(an.DifferentDatasets) > 0 {
		c.Warnings = append(c.Warnings, datasetsText(rs, an.Baseline, an.DifferentDatasets, file))
	}
	if an.MixedModes {
		c.Warnings = append(c.Warnings, "Some runs were closed-loop and some fixed-rate: their latencies measure different things.")
	}
	seen := map[string]int{}
	for i, r := range rs {
		lbl := Label(r)
		seen[lbl]++
		c.Runs = append(c.Runs, analysis.CompareModelRun{Label: lbl, File: fileOrEmpty(opt.Files, i), Platform: platformLine(r), Figures: an.Runs[i], Thresholds: r.Thresholds})
	}
	// Two runs on the same platform get their file names to tell them apart.
	for i := range c.Runs {
		if seen[c.Runs[i].Label] > 1 {
			if c.Runs[i].File != "" {
				c.Runs[i].Label += " (" + filepath.Base(c.Runs[i].File) + ")"
			} else {
				c.Runs[i].Label += fmt.Sprintf(" #%d", i+1)
			}
		}
	}
	for _, row := range an.Rows {
		c.Rows = append(c.Rows, compareRow(row, an.Runs, an.Baseline))
	}
	c.Rows = append(c.Rows, compareBillRows(c)...)
	c.Rows = append(c.Rows, compareHostRows(c)...)
	c.Rows = append(c.Rows, compareNodeRows(c)...)
	c.Rows = append(c.Rows, compareDBRows(c)...)
	return c, nil
}

// workloadsText is "a.json ran "ycsb-a" (READ 50%, UPDATE 50%) but g.json ran ...".
func workloadsText(rs []*result.Result, base int, runs []int, file func(int) string) string {
	diffs := make([]string, len(runs))
	for k, i := range runs {
		diffs[k] = fmt.Sprintf("%s ran %q (%s)", file(i), rs[i].Config.Workload.Name, MixString(rs[i]))
	}
	return fmt.Sprintf("%s ran %q (%s) but %s", file(base), rs[base].Config.Workload.Name, MixString(rs[base]), strings.Join(diffs, ", "))
}

func datasetsText(rs []*result.Result, base int, runs []int, file func(int) string) string {
	size := func(i int) string {
		d := rs[i].Dataset
		return fmt.Sprintf("%s records, %s", units.Int(float64(d.Records)), units.Bytes(float64(d.LogicalBytes)))
	}
	sizes := make([]string, len(runs))
	for k, i := range runs {
		sizes[k] = file(i) + ": " + size(i)
	}
	return fmt.Sprintf("Dataset sizes differ (%s: %s; %s): a dataset that fits in RAM is served from the page cache.",
		file(base), size(base), strings.Join(sizes, "; "))
}

func fileOrEmpty(fs []string, i int) string {
	if i < len(fs) {
		return fs[i]
	}
	return ""
}

// platformLine is instance type, architecture and CPU model in one line.
func platformLine(r *result.Result) string {
	p := r.Platform
	var parts []string
	for _, s := range []string{p.InstanceType, strings.TrimSpace(p.Arch + " " + p.Microarch), shortCPU(p.CPUModel)} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if p.Threads > 0 {
		parts = append(parts, fmt.Sprintf("%d threads", p.Threads))
	}
	if p.RAMBytes > 0 {
		parts = append(parts, units.Bytes(float64(p.RAMBytes))+" RAM")
	}
	return strings.Join(parts, ", ")
}

// compareRow names and formats one of the analysis' rows; runs are the
// figures of every run, base the baseline's index.
func compareRow(row analysis.CompareRow, runs []*analysis.Figures, base int) analysis.CompareModelRow {
	name, format := figureName(row)
	out := analysis.CompareModelRow{Figure: name, Values: row.Values, Text: make([]string, len(row.Values)), Cells: make([]analysis.RowVerdict, len(row.Values))}
	switch row.Better {
	case +1:
		out.Better = "higher"
	case -1:
		out.Better = "lower"
	}
	for i, v := range row.Verdicts {
		out.Text[i] = "-"
		if row.Measured[i] {
			out.Text[i] = format(row.Values[i])
		}
		// More runs means more runs of each side, as long as the longer one.
		secs := float64(max(runs[i].DurationNs, runs[base].DurationNs)) / 1e9
		out.Cells[i] = rowVerdict(v, secs)
	}
	return out
}

// figureName is a row's name and its value formatter.
func figureName(row analysis.CompareRow) (string, func(float64) string) {
	count := func(v float64) string { return units.Int(v) }
	switch row.Figure {
	case analysis.FigSustained:
		return "Sustained throughput", units.OpsPerSec
	case analysis.FigPeak:
		return "Peak throughput (best 1 s)", units.OpsPerSec
	case analysis.FigLatency:
		if row.Op != "" {
			return row.Op + " latency " + row.Stat, units.Latency
		}
		return "Latency " + row.Stat, units.Latency
	case analysis.FigLag:
		return "Schedule lag " + row.Stat, units.Latency
	case analysis.FigLateClient:
		return "Late starts (client)", count
	case analysis.FigStabilityCV:
		return "Stability: CV of the 1 s throughput", units.Percent
	case analysis.FigStalls:
		return "Stalls", count
	case analysis.FigStalledNs:
		return "Time stalled", units.Latency
	case analysis.FigErrors:
		return "Errors", count
	case analysis.FigPricePerHour:
		return "Price per hour", units.USD
	case analysis.FigUSDPerMillion:
		return "Cost per million ops", units.USD
	case analysis.FigOpsPerUSD:
		return "Ops per dollar", count
	}
	return string(row.Figure), units.Sig3
}

// rowVerdict phrases a verdict: "better by 4.0x", "different" (p=0.002);
// runSeconds is how long a run is, for the runs a conclusive comparison needs.
func rowVerdict(v analysis.Verdict, runSeconds float64) analysis.RowVerdict {
	out := analysis.RowVerdict{Ratio: v.Ratio, Noise: "-"}
	switch v.Outcome {
	case analysis.OutcomeNotMeasured:
		return analysis.RowVerdict{Missing: true, Phrase: string(v.Outcome), Noise: "-"}
	case analysis.OutcomeBaseline, analysis.OutcomeNoBaseline:
		return analysis.RowVerdict{Phrase: string(v.Outcome), Noise: "-"}
	case analysis.OutcomeSame:
		out.Phrase = "same"
	case analysis.OutcomeBetter, analysis.OutcomeWorse:
		out.Phrase = string(v.Outcome)
		switch {
		case math.IsInf(v.Ratio, 0) || v.Ratio == 0:
			out.Phrase += " (" + zeroWord(v.BaselineZero) + ")"
		case v.Ratio >= 1:
			out.Phrase += " by " + factor(v.Ratio)
		default:
			out.Phrase += " by " + factor(1/v.Ratio)
		}
	}
	switch {
	case v.NoTest != "":
		out.Noise = "no test: " + v.NoTest
	case v.Different:
		out.Noise, out.P = "different", v.P
	default:
		out.Noise, out.P = powerText(v.MDE, v.RunsNeeded, runSeconds), v.P
	}
	if v.NoTest == "" && v.MDE > 0 {
		out.Detectable, out.RunsNeeded, out.RunSeconds = v.MDE, v.RunsNeeded, runSeconds
	}
	return out
}

// powerText is what a noise test that found no difference can say: "same
// within 2.10%" when it could have seen a difference of analysis.DetectTarget
// or less, else "inconclusive: these runs could not see a difference smaller
// than 12.0%; 6 runs of 2 min each would".
func powerText(mde float64, runs int, runSeconds float64) string {
	switch {
	case mde <= 0:
		return "within noise"
	case mde <= analysis.DetectTarget:
		return "same within " + units.Percent(mde)
	}
	n := strconv.Itoa(runs)
	if runs > analysis.MaxRunsNeeded {
		n = "more than " + strconv.Itoa(analysis.MaxRunsNeeded)
	}
	return fmt.Sprintf("inconclusive: these runs could not see a difference smaller than %s; %s runs of %s each would",
		units.Percent(mde), n, units.Seconds(runSeconds))
}

// hostRows are the machine's figures next to throughput and latency (issue
// 9): what the host, the load generator and the server used while they ran.
// They explain a difference rather than rank it: no direction, no verdict.
func compareHostRows(c *analysis.CompareModel) []analysis.CompareModelRow {
	type host struct {
		analysis.HostFigures
		ok bool // host samples were recorded
	}
	sums := make([]host, len(c.Results))
	any := false
	for i, r := range c.Results {
		f, ok := analysis.Host(r)
		sums[i] = host{f, ok}
		any = any || ok
	}
	if !any {
		return nil
	}
	type ctx struct {
		name   string
		format func(float64) string
		get    func(s *host) (float64, bool)
	}
	cores := func(v float64) string { return units.Trim1(v) }
	sampled := func(get func(s *host) float64) func(s *host) (float64, bool) {
		return func(s *host) (float64, bool) { return get(s), s.ok }
	}
	serverCores := func(s *host) (float64, bool) {
		if s.Server == nil {
			return 0, false
		}
		return s.Server.CoresMean, true
	}
	ipc := func(s *host) (float64, bool) {
		if s.Counters == nil {
			return 0, false
		}
		return s.Counters.IPC, s.Counters.HasIPC
	}
	rows := []ctx{
		{"Host CPU busy (mean)", units.Percent, sampled(func(s *host) float64 { return s.CPUBusy })},
		{"Host CPU steal (mean)", units.Percent, sampled(func(s *host) float64 { return s.CPUSteal })},
		{"Busiest core (max)", units.Percent, sampled(func(s *host) float64 { return s.BusiestCoreMax })},
		{"platbench CPU (cores, mean)", cores, func(s *host) (float64, bool) { return s.SelfCores, s.SelfCores > 0 }},
		{"Host memory used (max)", units.Bytes, sampled(func(s *host) float64 { return s.MemUsedMax })},
	}
	anyServer, anyIPC := false, false
	for i := range sums {
		_, server := serverCores(&sums[i])
		_, counted := ipc(&sums[i])
		anyServer, anyIPC = anyServer || server, anyIPC || counted
	}
	if anyServer {
		rows = append(rows, ctx{"Server CPU (cores, mean)", cores, serverCores})
	}
	if anyIPC {
		rows = append(rows, ctx{"Instructions per cycle", cores, ipc})
	}
	out := make([]analysis.CompareModelRow, len(rows))
	for k, cr := range rows {
		out[k] = contextRow(cr.name, cr.format, len(sums), c.Baseline, func(i int) (float64, bool) { return cr.get(&sums[i]) })
	}
	return out
}

// contextRow is a row of figures that explain rather than rank: each run's
// value (get), no direction, no verdict, no noise test.
func contextRow(name string, format func(float64) string, runs, baseline int, get func(i int) (float64, bool)) analysis.CompareModelRow {
	row := analysis.CompareModelRow{Figure: name, Values: make([]float64, runs), Text: make([]string, runs), Cells: make([]analysis.RowVerdict, runs)}
	_, okBase := get(baseline)
	for i := 0; i < runs; i++ {
		v, ok := get(i)
		switch {
		case ok && !okBase:
			row.Values[i], row.Text[i], row.Cells[i] = v, format(v), analysis.RowVerdict{Phrase: "no baseline value", Noise: "-"}
		case !ok:
			row.Text[i], row.Cells[i] = "-", analysis.RowVerdict{Missing: true, Phrase: "not measured", Noise: "-"}
		case i == baseline:
			row.Values[i], row.Text[i], row.Cells[i] = v, format(v), analysis.RowVerdict{Phrase: "baseline", Noise: "-"}
		default:
			row.Values[i], row.Text[i], row.Cells[i] = v, format(v), analysis.RowVerdict{Noise: "no test: context"}
		}
	}
	return row
}

// nodeRows are the server nodes' figures (node_exporter, --server-metrics)
// beside the client's, like hostRows: context that explains a difference,
// with no direction and no verdict. Only when a run has node series.
func compareNodeRows(c *analysis.CompareModel) []analysis.CompareModelRow {
	type cluster struct {
		analysis.ClusterFigures
		ok bool
	}
	sums := make([]cluster, len(c.Results))
	any := false
	for i, r := range c.Results {
		_, f, ok := analysis.Nodes(r)
		sums[i] = cluster{f, ok}
		any = any || ok
	}
	if !any {
		return nil
	}
	rows := []struct {
		name   string
		format func(float64) string
		get    func(s *cluster) float64
	}{
		{"Server nodes", units.Int, func(s *cluster) float64 { return float64(s.Nodes) }},
		{"Server CPU busy (mean of nodes)", units.Percent, func(s *cluster) float64 { return s.CPUBusyMean }},
		{"Server CPU busy (busiest node)", units.Percent, func(s *cluster) float64 { return s.CPUBusyMax }},
		{"Server disk reads (all nodes, per s)", units.Bytes, func(s *cluster) float64 { return s.DiskReadBytesPerS }},
		{"Server disk writes (all nodes, per s)", units.Bytes, func(s *cluster) float64 { return s.DiskWriteBytesPerS }},
		{"Server disk IOPS (all nodes)", units.Int, func(s *cluster) float64 { return s.DiskIOPS }},
		{"Server network in (all nodes, per s)", units.Bytes, func(s *cluster) float64 { return s.NetRxBytesPerS }},
		{"Server nodes saturated", units.Int, func(s *cluster) float64 { return float64(s.SaturatedNodes) }},
	}
	out := make([]analysis.CompareModelRow, len(rows))
	for k, cr := range rows {
		out[k] = contextRow(cr.name, cr.format, len(sums), c.Baseline, func(i int) (float64, bool) { return cr.get(&sums[i]), sums[i].ok })
	}
	return out
}

// dbRows are the data systems' own figures (Redis INFO, the JMX exporter:
// analysis.DB) beside the client's, as context like nodeRows: the server-side
// time per operation or request over the main phase, the client's latency
// over the same seconds and the gap between them (network, client
// queueing), and how many operations the servers counted per operation
// platbench completed. Only when a run has them.
func compareDBRows(c *analysis.CompareModel) []analysis.CompareModelRow {
	type db struct {
		analysis.DBFigures
		ok bool
	}
	figs := make([]db, len(c.Results))
	var per, count string
	for i, r := range c.Results {
		f, ok := analysis.DB(r)
		figs[i] = db{f, ok}
		if ok && per == "" {
			per, count = f.Per, f.CountName
		}
	}
	if per == "" {
		return nil
	}
	timed := func(get func(f *db) float64) func(i int) (float64, bool) {
		return func(i int) (float64, bool) { return get(&figs[i]), figs[i].ok && len(figs[i].Timeline) > 0 }
	}
	rows := []analysis.CompareModelRow{
		contextRow("Server-side time per "+per+" (mean, main phase)", units.Latency, len(figs), c.Baseline,
			timed(func(f *db) float64 { return f.ServerMeanNs })),
		contextRow("Client latency, same seconds (mean)", units.Latency, len(figs), c.Baseline,
			timed(func(f *db) float64 { return f.ClientMeanNs })),
		contextRow("Gap: network and client queueing (mean)", units.Latency, len(figs), c.Baseline,
			timed(func(f *db) float64 { return f.GapMeanNs })),
		contextRow("Server "+count+" per client op", func(v float64) string { return fmt.Sprintf("%.2f", v) }, len(figs), c.Baseline,
			func(i int) (float64, bool) {
				f := &figs[i]
				return float64(f.ServerCount) / float64(max(f.ClientOps, 1)), f.ok && f.ClientOps > 0
			}),
	}
	return rows
}

func zeroWord(baselineZero bool) string {
	if baselineZero {
		return "baseline had none"
	}
	return "none"
}

// factor prints a ratio with two significant digits below 10: "1.3x", "4.0x", "12x".
func factor(r float64) string {
	switch {
	case r < 1.095:
		return fmt.Sprintf("%.2fx", r)
	case r < 10:
		return fmt.Sprintf("%.1fx", r)
	}
	return fmt.Sprintf("%.0fx", r)
}
