package report

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// ErrDifferentWorkloads is wrapped by Compare's error when the runs did not
// measure the same workload and Force is unset (analysis decides).
var ErrDifferentWorkloads = analysis.ErrDifferentWorkloads

// RunKeys are what grouping knows of each run (analysis.CompareRuns): its
// label, platform, target and address as the report names them, and its
// file (files name the results in the order given).
func RunKeys(rs []*result.Result, files []string) []analysis.RunKey {
	keys := make([]analysis.RunKey, len(rs))
	for i, r := range rs {
		keys[i] = analysis.RunKey{Label: r.Label, Platform: platformName(r), Target: targetName(r), File: fileOrEmpty(files, i), Where: targetAddress(r)}
	}
	return keys
}

// targetAddress is the host:port part of a run's target URL, without
// credentials ("" when it has none or does not parse).
func targetAddress(r *result.Result) string {
	u, err := url.Parse(r.Target.URL)
	if err != nil {
		return ""
	}
	return u.Host
}

// targetName is the system a run measured: "redis 7.0.15", or "redis valkey
// 8.1.8" when the redis target was answered by Valkey.
func targetName(r *result.Result) string {
	return strings.TrimSpace(targetWhat(r.Target, " ", ""))
}

// targetWhat names a target and the server that answered it: its kind, then
// between open and close its version, preceded by the server's own name when
// that is not the kind's (the redis target answered by Valkey: "redis (valkey
// 8.1.8)").
func targetWhat(t vocab.Info, open, close string) string {
	v := t.Version
	if v == "" {
		return t.Kind
	}
	if sv := t.Details["server"]; sv != "" && sv != t.Kind {
		v = sv + " " + v
	}
	return t.Kind + open + v + close
}

// CompareError words an error of analysis.CompareRuns on rs (files name
// them, in the order given): runs of different workloads
// (ErrDifferentWorkloads, naming what each ran), a run that could not be
// compared (naming its file); any other error as it is.
func CompareError(rs []*result.Result, files []string, err error) error {
	file := fileName(files)
	var we *analysis.WorkloadError
	var re *analysis.RunError
	switch {
	case errors.As(err, &we):
		return fmt.Errorf("%w: %s", ErrDifferentWorkloads, workloadsText(rs, we.Baseline, we.Runs, file))
	case errors.As(err, &re):
		return fmt.Errorf("%s: %w", file(re.Run), re.Err)
	}
	return err
}

// fileName names run i: its file, else "run i+1".
func fileName(files []string) func(int) string {
	return func(i int) string {
		if i < len(files) {
			return files[i]
		}
		return fmt.Sprintf("run %d", i+1)
	}
}

// CompareModelOf names and formats every figure of the comparison an of
// the runs rs (analysis.CompareRuns; files name them, in the order given):
// the model the Write*Compare* functions render, less its answer
// (analysis.AnswerOf, which reads the rows this fills in).
func CompareModelOf(rs []*result.Result, an *analysis.GroupComparison, files []string) *analysis.CompareModel {
	file, base := fileName(files), an.Baseline
	c := &analysis.CompareModel{Schema: analysis.CompareSchema, GroupedBy: an.By, Grouping: an.How, Baseline: base,
		Method: analysis.MethodText, MinEffect: an.MinEffect, RunSpreadRuns: an.SpreadFrom,
		RunSpreadGroups: an.SpreadGroups, Results: rs, Figures: an}
	if an.Spread != nil && an.SpreadFrom == 0 {
		c.RunSpread = an.Spread.SD
	}
	baseRun := an.Groups[base].Runs[0]
	if len(an.DifferentWorkloads) > 0 {
		c.Warnings = append(c.Warnings, "Different workloads compared (--force): "+workloadsText(rs, baseRun, an.DifferentWorkloads, file)+".")
	}
	if len(an.DifferentDatasets) > 0 {
		c.Warnings = append(c.Warnings, datasetsText(rs, baseRun, an.DifferentDatasets, file))
	}
	if an.MixedModes {
		c.Warnings = append(c.Warnings, "Some runs were closed-loop and some fixed-rate: their latencies measure different things.")
	}
	for _, b := range an.Blocks {
		c.Warnings = append(c.Warnings, blockText(an, b, apartHosts(rs, an.Groups[base].Runs, an.Groups[b.Group].Runs)))
	}
	if len(an.ClientBound) > 0 {
		c.Warnings = append(c.Warnings, clientBoundText(an))
	}
	group := make([]int, len(rs))
	for gi, gr := range an.Groups {
		c.Groups = append(c.Groups, analysis.CompareModelGroup(gr))
		for _, ri := range gr.Runs {
			group[ri] = gi
		}
	}
	for i, r := range rs {
		c.Runs = append(c.Runs, analysis.CompareModelRun{Label: Label(r), File: fileOrEmpty(files, i), Group: group[i],
			Platform: platformLine(r), Target: targetName(r), Figures: an.Runs[i], Thresholds: r.Thresholds})
	}
	for _, row := range an.Rows {
		c.Rows = append(c.Rows, compareRow(row))
	}
	c.Rows = append(c.Rows, compareBillRows(c)...)
	c.Rows = append(c.Rows, compareHostRows(c)...)
	c.Rows = append(c.Rows, compareNodeRows(c)...)
	c.Rows = append(c.Rows, compareDBRows(c)...)
	c.Notes = compareNotes(an, func(gi int) string { return an.Groups[gi].Name })
	return c
}

// workloadsText is "a.json ran "ycsb-a" (READ 50%, UPDATE 50%) but g.json ran ...".
func workloadsText(rs []*result.Result, base int, runs []int, file func(int) string) string {
	diffs := make([]string, len(runs))
	for k, i := range runs {
		diffs[k] = fmt.Sprintf("%s ran %q (%s)", file(i), rs[i].Config.Workload.Name, MixString(rs[i]))
	}
	return fmt.Sprintf("%s ran %q (%s) but %s", file(base), rs[base].Config.Workload.Name, MixString(rs[base]), strings.Join(diffs, ", "))
}

// apartHosts tells whether two groups' runs ran on different hosts (no
// host in common: host name, CPU, threads and RAM; VMs are often all
// named "vm"): a suite cannot interleave them, a person can.
func apartHosts(rs []*result.Result, a, b []int) bool {
	host := func(i int) string {
		p := rs[i].Platform
		return fmt.Sprintf("%s|%s|%d|%d", p.Hostname, p.CPUModel, p.Threads, p.RAMBytes)
	}
	hosts := map[string]bool{}
	for _, i := range a {
		hosts[host(i)] = true
	}
	for _, i := range b {
		if hosts[host(i)] {
			return false
		}
	}
	return true
}

// blockText says that a group's runs did not interleave with the
// baseline's, when each ran, and the fix: a suite's interleaved rounds on
// one host, alternating rounds in time on two.
func blockText(an *analysis.GroupComparison, b analysis.Block, apart bool) string {
	base, other := an.Groups[an.Baseline], an.Groups[b.Group]
	when := "after"
	if !b.After {
		when = "before"
	}
	layout := "15:04:05"
	first, last := b.BaseFrom, b.To // the baseline first, the other group last
	if !b.After {
		first, last = b.From, b.BaseTo
	}
	if first.UTC().Format(time.DateOnly) != last.UTC().Format(time.DateOnly) {
		layout = "2006-01-02 15:04:05" // the runs span two days
	}
	fix := "run the setups in interleaved rounds: a suite's repeat:, or alternate the runs by hand"
	if apart {
		fix = "the two hosts ran at different times: alternate rounds in time, a run on one host, then one on the other, and again, so each side's runs span the same stretch"
	}
	span := func(from, to time.Time) string {
		return from.UTC().Format(layout) + "–" + to.UTC().Format(layout)
	}
	return fmt.Sprintf("%s's %d runs all ran %s %s's %d (%s %s, %s %s UTC), not interleaved: a change between those stretches of time "+
		"(load beside the runs, a server warming up, the time of day) counts in their ratios, and no interval covers it "+
		"(fix: %s).",
		other.Name, len(other.Runs), when, base.Name, len(base.Runs), base.Name, span(b.BaseFrom, b.BaseTo), other.Name, span(b.From, b.To), fix)
}

// clientBoundText names, per group, how many of its runs were client-bound.
func clientBoundText(an *analysis.GroupComparison) string {
	var parts []string
	for _, g := range an.Groups {
		n := 0
		for _, ri := range g.Runs {
			if slices.Contains(an.ClientBound, ri) {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d of %d", g.Name, n, len(g.Runs)))
		}
	}
	return "Client-bound runs (" + strings.Join(parts, "; ") + "): platbench, not only the target, limited their figures, " +
		"so a ratio that rests on them can be the loader's (each run's report gives the reason and the fix)."
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

// compareRow names and formats one of the analysis' rows.
func compareRow(row analysis.GroupRow) analysis.CompareModelRow {
	name, format := figureName(row)
	n := len(row.Centres)
	out := analysis.CompareModelRow{Figure: name, Values: row.Centres, RunValues: row.Values, Text: make([]string, n), Cells: make([]analysis.CompareVerdict, n)}
	switch row.Better {
	case +1:
		out.Better = "higher"
	case -1:
		out.Better = "lower"
	}
	for i, v := range row.Verdicts {
		out.Text[i] = "-"
		if row.Measured[i] {
			out.Text[i] = format(row.Centres[i])
		}
		out.Cells[i] = compareVerdict(v)
	}
	return out
}

// compareVerdict is a verdict of the analysis in the model's terms.
func compareVerdict(v analysis.GroupVerdict) analysis.CompareVerdict {
	out := analysis.CompareVerdict{Phrase: string(v.Outcome), Text: changeCell(v)}
	switch v.Outcome {
	case analysis.OutcomeNotMeasured:
		out.Missing = true
		return out
	case analysis.OutcomeBaseline, analysis.OutcomeNoBaseline:
		return out
	}
	if r := v.Ratio.Ratio; !math.IsInf(r, 0) && !math.IsNaN(r) {
		out.Ratio = r
	}
	if v.NoTest != "" {
		out.NoTest = v.NoTest
		return out
	}
	out.Low, out.High, out.Verdict, out.Basis = v.Lo, v.Hi, v.Call, v.Basis
	if !math.IsInf(v.DF, 0) {
		out.DF = v.DF
	}
	out.RunsNeeded, out.AtLeast = v.RunsNeeded, v.AtLeast
	return out
}

// figureName is a row's name and its value formatter.
func figureName(row analysis.GroupRow) (string, func(float64) string) {
	count := func(v float64) string { return units.Int(v) }
	switch row.Figure {
	case analysis.FigSustained:
		return "Sustained throughput", units.OpsPerSec
	case analysis.FigPeak:
		return "Peak throughput (1 s)", units.OpsPerSec
	case analysis.FigLatency:
		if row.Op != "" {
			return row.Op + " latency " + row.Stat, units.Latency
		}
		return "Latency " + row.Stat, units.Latency
	case analysis.FigLag:
		return "Schedule lag " + row.Stat, units.Latency
	case analysis.FigAttributable:
		return "Server-attributable " + row.Stat, units.Latency
	case analysis.FigLateClient:
		return "Late starts (client)", count
	case analysis.FigStabilityCV:
		return "Throughput CV (1 s)", units.Percent
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
		out[k] = contextRow(c, cr.name, cr.format, func(i int) (float64, bool) { return cr.get(&sums[i]) })
	}
	return out
}

// noTestContext marks the cells of context rows: figures that explain a
// difference rather than rank it.
const noTestContext = "context"

// contextRow is a row of figures that explain rather than rank: each
// group's mean of its runs' values (get), no direction, no verdict.
func contextRow(c *analysis.CompareModel, name string, format func(float64) string, get func(i int) (float64, bool)) analysis.CompareModelRow {
	n := len(c.Groups)
	row := analysis.CompareModelRow{Figure: name, Values: make([]float64, n), RunValues: make([][]float64, n), Text: make([]string, n), Cells: make([]analysis.CompareVerdict, n)}
	for gi, g := range c.Groups {
		row.RunValues[gi] = []float64{}
		for _, ri := range g.Runs {
			if v, ok := get(ri); ok {
				row.RunValues[gi] = append(row.RunValues[gi], v)
			}
		}
		if k := len(row.RunValues[gi]); k > 0 {
			for _, v := range row.RunValues[gi] {
				row.Values[gi] += v / float64(k)
			}
		}
	}
	okBase := len(row.RunValues[c.Baseline]) > 0
	for gi := range c.Groups {
		ok := len(row.RunValues[gi]) > 0
		v := row.Values[gi]
		switch {
		case !ok:
			row.Text[gi], row.Cells[gi] = "-", analysis.CompareVerdict{Missing: true, Phrase: "not measured", Text: "-"}
		case gi == c.Baseline:
			row.Text[gi], row.Cells[gi] = format(v), analysis.CompareVerdict{Phrase: "baseline", Text: "baseline"}
		case !okBase:
			row.Text[gi], row.Cells[gi] = format(v), analysis.CompareVerdict{Phrase: "no baseline value", Text: "-"}
		default:
			row.Text[gi], row.Cells[gi] = format(v), analysis.CompareVerdict{NoTest: noTestContext, Text: "-"}
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
		out[k] = contextRow(c, cr.name, cr.format, func(i int) (float64, bool) { return cr.get(&sums[i]), sums[i].ok })
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
		contextRow(c, "Server time per "+per+" (mean)", units.Latency,
			timed(func(f *db) float64 { return f.ServerMeanNs })),
		contextRow(c, "Client latency (mean, same s)", units.Latency,
			timed(func(f *db) float64 { return f.ClientMeanNs })),
		contextRow(c, "Gap: network, client queueing", units.Latency,
			timed(func(f *db) float64 { return f.GapMeanNs })),
		contextRow(c, "Server "+count+" per client op", func(v float64) string { return fmt.Sprintf("%.2f", v) },
			func(i int) (float64, bool) {
				f := &figs[i]
				return float64(f.ServerCount) / float64(max(f.ClientOps, 1)), f.ok && f.ClientOps > 0
			}),
	}
	return rows
}

// zeroWord says which side of a ratio was zero.
func zeroWord(baselineZero bool) string {
	if baselineZero {
		return "baseline had none"
	}
	return "none"
}
