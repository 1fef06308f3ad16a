package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// section is one titled table of a report; Markdown and HTML render the same
// sections so the two never disagree.
type section struct {
	id    string
	title string
	notes []string // plain sentences shown under the title
	t     *table
}

// markdown writes the section as a ### heading, its notes as paragraphs,
// then its table.
func (s section) markdown(w io.Writer) {
	fmt.Fprintf(w, "\n### %s\n\n", s.title)
	for _, n := range s.notes {
		fmt.Fprintf(w, "%s\n\n", n)
	}
	s.t.markdown(w)
}

// textHead writes the section's title and its notes, indented, as the
// terminal report shows them above the table.
func (s section) textHead(w io.Writer) {
	fmt.Fprintln(w, s.title)
	for _, n := range s.notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
}

// sections lists the report's tables in reading order.
func sections(u *run) []section {
	f, a := u.f, u.a
	var out []section
	out = append(out, throughputSection(u))
	out = append(out, latencySection(f, result.HistLatency))
	if f.Mode == "open" && f.Attributable.Count > 0 {
		out = append(out, latencySection(f, result.HistAttributable))
	}
	if f.Mode == "open" && f.Service.Count > 0 {
		out = append(out, latencySection(f, result.HistService))
	}
	if f.Mode == "open" && f.Lag.Count > 0 {
		out = append(out, latencySection(f, result.HistLag))
	}
	if s := a.Steady.Stability; s.Intervals > 0 {
		t := &table{head: []string{"intervals", "min", "max", "mean", "std dev", "CV"}, right: []bool{true, true, true, true, true, true}}
		t.add(fmt.Sprint(s.Intervals), units.OpsPerSec(s.MinOpsPerS), units.OpsPerSec(s.MaxOpsPerS), units.OpsPerSec(s.MeanOpsPerS),
			units.OpsPerSec(s.StdDevOpsPerS), units.Percent(s.CVPercent/100))
		start, end := u.windowSecs()
		out = append(out, section{id: "stability", title: "Stability of the 1 s throughput", t: t,
			notes: []string{fmt.Sprintf("Over the steady-state window %s to %s.", units.Seconds(start), units.Seconds(end))}})
	}
	{
		t := &table{head: []string{"stalls", "longest", "total stalled", "period"}, right: []bool{true, true, true, false}}
		st := a.Stalls
		t.add(fmt.Sprint(st.Count), units.Latency(float64(st.LongestNs)), units.Latency(float64(st.TotalNs)), periodText(st.Regulation))
		out = append(out, section{id: "stalls", title: "Stalls", t: t,
			notes: []string{"A stall is a fine bucket with no completion while requests were in flight."}})
	}
	if f.Errors > 0 {
		out = append(out, errorSection(f))
	}
	if s, ok := errorMessagesSection(u.r); ok {
		out = append(out, s)
	}
	if v := analysis.VerificationOf(u.r); v != nil {
		out = append(out, verificationSection(v))
	}
	if c := a.Cost; c != nil {
		out = append(out, costSection(c), billSection(c))
	}
	out = append(out, platformSection(u.r))
	out = append(out, runSection(u))
	return out
}

// periodText is the stalls table's period cell: the regulation's cycle.
func periodText(rg result.Regulation) string {
	if !rg.Periodic {
		return "none found"
	}
	return fmt.Sprintf("every %s: %s on, %s off (%d cycles)", units.Latency(float64(rg.PeriodNs)), units.Latency(float64(rg.OnNs)), units.Latency(float64(rg.OffNs)), rg.Cycles)
}

func throughputSection(u *run) section {
	f, a := u.f, u.a
	t := &table{head: []string{"figure", "value"}}
	perOp := func(get func(o result.OpWindow) string) string {
		if len(f.PerOp) < 1 {
			return ""
		}
		parts := make([]string, len(f.PerOp))
		for i, o := range f.PerOp {
			parts[i] = o.Op + ": " + get(f.SteadyOp(o.Op))
		}
		return " [" + strings.Join(parts, ", ") + "]"
	}
	t.add("Op rate (sustained)", units.OpsPerSec(a.Steady.SustainedOpsPerS)+perOp(func(o result.OpWindow) string { return units.OpsPerSec(o.SustainedOpsPerS) }))
	if rr := f.RowRates; rr != nil {
		t.add("Partition rate (whole phase)", units.Int(rr.PartitionsPerS)+"/s ("+units.Int(float64(rr.Partitions))+" partitions written)")
		t.add("Row rate (whole phase)", units.Int(rr.RowsPerS)+"/s ("+units.Int(float64(rr.Rows))+" rows written)")
	}
	if a.Steady.PeakOpsPerS > 0 {
		t.add("Peak (best 1 s)", units.OpsPerSec(a.Steady.PeakOpsPerS))
	}
	t.add("Mean over the whole phase", units.OpsPerSec(a.Raw.SustainedOpsPerS))
	if bps := a.Steady.SustainedBytesPerS; bps > 0 {
		var parts []string
		for _, o := range f.PerOp {
			if w := f.SteadyOp(o.Op); w.SustainedBytesPerS > 0 {
				parts = append(parts, o.Op+": "+units.Bytes(w.SustainedBytesPerS)+"/s")
			}
		}
		t.add("Payload", units.Bytes(bps)+"/s ["+strings.Join(parts, ", ")+"]")
	}
	start, end := u.windowSecs()
	t.add("Steady-state window", fmt.Sprintf("%s to %s (%s)", units.Seconds(start), units.Seconds(end), steadySource(a.SteadyState)))
	t.add("Completed ops", units.Int(float64(f.Ops)))
	errs := "none"
	if f.Errors > 0 {
		errs = fmt.Sprintf("%s (%s of attempts: %s)", units.Int(float64(f.Errors)),
			units.Percent(float64(f.Errors)/float64(f.Errors+f.Ops)), classList(f.ErrorsByClass))
	}
	t.add("Errors", errs)
	if f.Mode == "open" {
		t.add("Target rate", units.OpsPerSec(f.RateOpsPerS))
		if f.PaceTickNs > 0 {
			t.add("Pace tick (ops due within it start together)", units.Latency(float64(f.PaceTickNs)))
		}
		if f.Delayed > 0 {
			t.add("Late starts: target held every worker", units.Int(float64(f.Delayed)))
		}
		if f.LateClient > 0 {
			t.add("Late starts: client late", units.Int(float64(f.LateClient)))
		}
	}
	var notes []string
	if a.SteadyState.Reason != "" {
		notes = append(notes, "Steady state: "+a.SteadyState.Reason)
	}
	if f.Interrupted {
		notes = append(notes, "The phase was interrupted before its planned end.")
	}
	return section{id: "throughput", title: "Throughput", t: t, notes: notes}
}

func latencySection(f *analysis.Figures, kind result.HistKind) section {
	t := &table{head: []string{"op", "count", "mean", "median", "p95", "p99", "p99.9", "max"}, right: []bool{false, true, true, true, true, true, true, true}}
	row := func(name string, s result.Summary) {
		t.add(name, units.Int(float64(s.Count)), units.Latency(s.MeanNs), units.Latency(float64(s.P50Ns)), units.Latency(float64(s.P95Ns)),
			units.Latency(float64(s.P99Ns)), units.Latency(float64(s.P999Ns)), units.Latency(float64(s.MaxNs)))
	}
	pick := func(o analysis.OpFigures) result.Summary {
		switch kind {
		case result.HistService:
			return o.Service
		case result.HistLag:
			return o.Lag
		case result.HistAttributable:
			return o.Attributable
		}
		return o.Latency
	}
	if len(f.PerOp) > 1 {
		switch kind {
		case result.HistService:
			row("all", f.Service)
		case result.HistLag:
			row("all", f.Lag)
		case result.HistAttributable:
			row("all", f.Attributable)
		default:
			row("all", f.Latency)
		}
	}
	for _, o := range f.PerOp {
		row(o.Op, pick(o))
	}
	s := section{id: "latency", title: "Latency", t: t}
	switch {
	case kind == result.HistLag:
		s.id, s.title = "lag", "Schedule lag"
		s.notes = []string{"From each request's intended start to its actual send: the client's own lateness plus any wait for a free worker or in-flight slot."}
	case kind == result.HistAttributable:
		s.id, s.title = "attributable", "Server-attributable latency"
		s.notes = []string{"Latency less the client's own lateness: from the moment each request could have started (its intended start, or later when every worker or in-flight slot was held by the target) to its completion. A stall keeps its whole queue; the loader waking late does not count."}
	case kind == result.HistService:
		s.id, s.title = "service", "Service time"
		s.notes = []string{"From the actual send to the completion: what the server took, without the queueing."}
	case f.Mode == "open":
		s.notes = []string{"Fixed-rate run: latency is measured from each request's intended start, so a stall is charged to every request it delayed."}
	default:
		s.notes = []string{"Closed-loop run at saturation: latency is service time, and percentiles at saturation are not an SLO figure."}
	}
	return s
}

func errorSection(f *analysis.Figures) section {
	classes := classNames(f.ErrorsByClass)
	t := &table{head: append([]string{"op"}, classes...)}
	t.right = make([]bool, len(t.head))
	for i := 1; i < len(t.right); i++ {
		t.right[i] = true
	}
	for _, o := range f.PerOp {
		if o.Errors == 0 {
			continue
		}
		row := []string{o.Op}
		for _, c := range classes {
			row = append(row, units.Int(float64(o.ErrorsByClass[c])))
		}
		t.add(row...)
	}
	return section{id: "errors", title: "Errors by class", t: t}
}

// errorMessagesSection lists what the target said when operations failed,
// phase by phase (result.Phase.ErrorMessages); false when nothing was kept.
func errorMessagesSection(r *result.Result) (section, bool) {
	t := &table{head: []string{"phase", "class", "op", "message"}, foreign: []bool{false, false, false, true}}
	for _, p := range r.Phases {
		for _, m := range p.ErrorMessages {
			t.add(p.Name, m.Class, m.Op, m.Message)
		}
	}
	if len(t.rows) == 0 {
		return section{}, false
	}
	return section{id: "error-messages", title: "Errors, in the target's words", t: t,
		notes: []string{"The first few distinct messages of each error class in each phase, as the target gave them (cut to a few hundred bytes); the counts are above."}}, true
}

func platformSection(r *result.Result) section {
	p := r.Platform
	t := &table{head: []string{"platform", ""}}
	add := func(k, v string) {
		if strings.TrimSpace(v) != "" && v != "0" {
			t.add(k, v)
		}
	}
	add("Instance type", p.InstanceType)
	add("Cloud", p.Cloud)
	add("CPU", p.CPUModel)
	add("Architecture", strings.TrimSpace(p.Arch+" "+p.Microarch))
	if p.Cores > 0 || p.Threads > 0 {
		add("Cores / threads", fmt.Sprintf("%d / %d", p.Cores, p.Threads))
	}
	if p.Sockets > 0 {
		add("Sockets / NUMA nodes", fmt.Sprintf("%d / %d", p.Sockets, p.NUMANodes))
	}
	if p.RAMBytes > 0 {
		add("RAM", units.Bytes(float64(p.RAMBytes))+memLimit(p))
	}
	add("Kernel", p.Kernel)
	add("Virtualization", p.Virtualization)
	add("Host", p.Hostname)
	for _, d := range p.Disks {
		kind := "SSD"
		if d.Rotational {
			kind = "HDD"
		}
		add("Disk "+d.Name, strings.TrimSpace(fmt.Sprintf("%s %s %s", units.Bytes(float64(d.SizeBytes)), kind, d.Model)))
	}
	return section{id: "platform", title: "Platform", t: t}
}

func runSection(u *run) section {
	r, f := u.r, u.f
	t := &table{head: []string{"run", ""}}
	add := func(k, v string) {
		if strings.TrimSpace(v) != "" {
			t.add(k, v)
		}
	}
	tg := r.Target
	tgt := tg.Kind
	if tg.URL != "" && tg.URL != tg.Kind {
		tgt = strings.TrimSpace(tgt + " " + tg.URL)
	}
	add("Target", tgt)
	add("Target version", tg.Version)
	if len(tg.Nodes) > 0 {
		add("Nodes", fmt.Sprintf("%d (%s)", len(tg.Nodes), strings.Join(tg.Nodes, ", ")))
	}
	add("Workload", strings.TrimSpace(r.Config.Workload.Name+" ("+MixString(r)+")"))
	mode := fmt.Sprintf("closed loop, %d workers", f.Concurrency)
	if f.Mode == "open" {
		mode = fmt.Sprintf("%s, %d workers", rateMode(&f.PhaseFigures), f.Concurrency)
	}
	add("Mode", mode)
	add("Phase", fmt.Sprintf("%s, %s", f.Phase, units.Seconds(float64(f.DurationNs)/1e9)))
	add("Dataset", datasetLine(&r.Dataset))
	add("Page cache", pageCacheVerdict(u.a.PageCache))
	if u.load != nil {
		add("Load phase", loadLine(u.load))
	}
	for _, e := range r.Events {
		ev := fmt.Sprintf("at %s: %s %s", units.Seconds(float64(e.AtNs)/1e9), e.Kind, e.Arg)
		if e.Error != "" {
			ev += " (failed: " + e.Error + ")"
		}
		add("Fault event", ev)
	}
	if !r.StartedAt.IsZero() {
		add("Started", r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	add("Tool", strings.TrimSpace(r.Tool.Name+" "+r.Tool.Version+" "+r.Tool.GoVersion))
	return section{id: "run", title: "Run", t: t}
}

// datasetLine is "1,000,000 records x 1.00 KiB = 977 MiB logical, 1.20 GiB
// on disk; host RAM 64.0 GiB" ("" without records).
func datasetLine(d *result.Dataset) string {
	if d.Records == 0 {
		return ""
	}
	s := fmt.Sprintf("%s records x %s = %s logical", units.Int(float64(d.Records)), units.Bytes(float64(d.RecordBytes)), units.Bytes(float64(d.LogicalBytes)))
	if d.RowsPerRecord > 1 {
		// A profile's record is a partition.
		s = fmt.Sprintf("%s partitions x %s rows (%s) = %s logical", units.Int(float64(d.Records)), units.Sig3(d.RowsPerRecord),
			units.Bytes(float64(d.RecordBytes)), units.Bytes(float64(d.LogicalBytes)))
	}
	if d.DiskBytes > 0 {
		s += fmt.Sprintf(", %s on disk", units.Bytes(float64(d.DiskBytes)))
	}
	if d.HostRAMBytes > 0 {
		s += fmt.Sprintf("; host RAM %s", units.Bytes(float64(d.HostRAMBytes)))
	}
	return s
}

// loadLine is the load phase in a few words: ops, time, rate, errors.
func loadLine(f *analysis.PhaseFigures) string {
	s := fmt.Sprintf("%s ops in %s", units.Int(float64(f.Ops)), units.Seconds(float64(f.DurationNs)/1e9))
	if f.Whole.SustainedOpsPerS > 0 {
		s += fmt.Sprintf(" (%s)", units.OpsPerSec(f.Whole.SustainedOpsPerS))
	}
	if f.Errors > 0 {
		s += fmt.Sprintf(", %s errors", units.Int(float64(f.Errors)))
	}
	return s
}

func classNames(m map[string]uint64) []string {
	out := make([]string, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// classList is "other 3, timeout 12": counts by error class.
func classList(m map[string]uint64) string {
	cs := classNames(m)
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %s", c, units.Int(float64(m[c])))
	}
	return strings.Join(parts, ", ")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pageCacheVerdict phrases the analysis' page-cache verdict ("" without one).
func pageCacheVerdict(pc *result.PageCache) string {
	if pc == nil {
		return ""
	}
	b := func(n int64) string { return units.Bytes(float64(n)) }
	ram := b(pc.HostRAMBytes)
	what := b(pc.LogicalBytes) + " logical"
	size := pc.LogicalBytes
	if pc.DiskBytes > 0 {
		what += ", " + b(pc.DiskBytes) + " on disk"
		size = pc.DiskBytes
	}
	host := "this host's"
	if pc.LoadHostRAM {
		host = "the load generator's (the servers' RAM is not recorded; compare with theirs)"
	}
	var s string
	switch pc.Case {
	case "":
		return pc.Verdict // a file from before the cases: its own sentence
	case result.PageCacheDirectIO:
		return fmt.Sprintf("Direct I/O (O_DIRECT) bypasses the page cache: the figures are the storage's, whatever the host's RAM (%s).", ram)
	case result.PageCacheInMemory:
		return fmt.Sprintf("The dataset (%s logical) lives in the servers' memory by design (%s is an in-memory store): the page cache does not apply.", b(pc.LogicalBytes), pc.Target)
	case result.PageCacheRAMUnknown:
		return fmt.Sprintf("The dataset is %s; the host's RAM is not recorded, so whether it fits in the page cache is unknown.", what)
	case result.PageCacheFits:
		if pc.Reads {
			s = fmt.Sprintf("The dataset (%s) fits in %s RAM (%s): reads were likely served from the page cache, not from the storage. To measure the storage, load more data than RAM holds (more records or larger values) or drop the page cache between load and run (sync; echo 3 > /proc/sys/vm/drop_caches, as root).", what, host, ram)
		} else {
			s = fmt.Sprintf("The dataset (%s) fits in %s RAM (%s); this phase has no reads, so the page cache does not flatter it.", what, host, ram)
		}
	default:
		s = fmt.Sprintf("The dataset (%s) is %.1fx %s RAM (%s): at most %.0f%% of it can be cached, so most reads reach the storage.",
			what, float64(size)/float64(pc.HostRAMBytes), host, ram, 100*float64(pc.HostRAMBytes)/float64(size))
	}
	if pc.PageCacheBytes > 0 {
		s += fmt.Sprintf(" The page cache held %s at the end of the run.", b(pc.PageCacheBytes))
	}
	return s
}
