// Package report renders results for people, and is the only package that
// does: the terminal report (in the shape of the seed reports:
// cassandra-stress's summary lines with a per-op breakdown), Markdown, one
// self-contained HTML page (html/template files and a style sheet embedded
// from assets/, inline SVG charts), CSV and JSON; comparisons of runs; the
// capacity plan's table.
//
// It computes no figure: every number comes from package analysis
// (analysis.Figures, analysis.Compare, analysis.Plan, analysis.EventImpacts)
// and is formatted with internal/units. A result without an analysis is
// analysed by the same code (analysis.FiguresOf), never by a fallback here.
package report

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteTerm prints the terminal report of a result: a summary per phase
// (the load phase in one line), the dataset and the run's notes, each line
// within the terminal's width (termWidth: a long one wrapped under its
// value). The analysis sections follow from WriteAnalysisText.
func WriteTerm(w io.Writer, r *result.Result) error {
	var buf bytes.Buffer
	if err := writeTerm(&buf, r); err != nil {
		return err
	}
	_, err := io.WriteString(w, fitWidth(buf.String(), termWidth))
	return err
}

func writeTerm(w io.Writer, r *result.Result) error {
	tw := &errWriter{w: w}
	writeHeader(tw, r)
	if h := analysis.HealthOf(r); h.Outage != nil {
		// Before any figure: the figures describe an outage, not the system.
		errs := "none"
		if len(h.ErrorsByClass) > 0 {
			errs = classList(h.ErrorsByClass)
		}
		fmt.Fprintf(tw, "\nTARGET STOPPED SERVING: %s; errors: %s\n", OutageText(h.Outage), errs)
	}
	if v := analysis.VerificationOf(r); v != nil && v.Lost > 0 {
		fmt.Fprintf(tw, "\nACKNOWLEDGED WRITES LOST: %s\n", verificationText(v))
	}
	// The analysis' limit, computed for a file analysed before limits were
	// kept (analysis.FiguresOf adds it), as Markdown and HTML show it.
	if f, err := analysis.FiguresOf(r); err == nil {
		writeLimitsText(tw, f.Analysis)
	}
	for i := range r.Phases {
		p := &r.Phases[i]
		f, err := analysis.PhaseFiguresOf(p)
		if err != nil {
			return err
		}
		if p.Name == "load" && r.MainPhase() != p {
			writeLoadLine(tw, f)
			continue
		}
		if rr, ok := analysis.RowRatesOf(r, p); ok {
			f.RowRates = &rr
		}
		if a := r.Analysis; a != nil && a.Phase == p.Name {
			if rc := analysis.RateCheckOf(p, a.Steady); rc != nil {
				f.Rate = rc // over the steady window
			}
		}
		// A sweep's steps have their notes in one table (WriteSweepText),
		// not a paragraph each.
		writePhase(tw, f, r.Sweep == nil || !isSweepStep(r.Sweep, p.Name))
	}
	writeErrorMessages(tw, r)
	if ds := datasetLine(&r.Dataset); ds != "" {
		fmt.Fprintf(tw, "\ndataset  : %s\n", ds)
	}
	if v := analysis.VerificationOf(r); v != nil {
		fmt.Fprintf(tw, "verified : %s\n", verificationText(v))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(tw, "note: %s\n", n)
	}
	return tw.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func writeHeader(w io.Writer, r *result.Result) {
	t := r.Target
	what := targetWhat(t, " (", ")")
	fmt.Fprintf(w, "platbench %s · %s · workload %s · %s\n", r.Tool.Version, what, r.Config.Workload.Name, r.StartedAt.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "platform : %s\n", PlatformLine(&r.Platform))
	if len(t.Details) > 0 {
		keys := make([]string, 0, len(t.Details))
		for k := range t.Details {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + t.Details[k]
		}
		fmt.Fprintf(w, "target   : %s\n", strings.Join(parts, " · "))
	}
}

// PlatformLine is the one-line description of where a run happened.
func PlatformLine(p *result.Platform) string {
	var parts []string
	if p.InstanceType != "" {
		parts = append(parts, p.InstanceType)
	}
	if p.CPUModel != "" {
		parts = append(parts, p.CPUModel)
	}
	parts = append(parts, p.Arch)
	if p.Threads > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", p.Threads))
	}
	if p.RAMBytes > 0 {
		parts = append(parts, units.Bytes(float64(p.RAMBytes))+" RAM"+memLimit(*p))
	}
	if p.Kernel != "" {
		parts = append(parts, p.OS+" "+p.Kernel)
	}
	if p.Virtualization != "" && p.Virtualization != "none" {
		parts = append(parts, "virtualised: "+p.Virtualization)
	}
	return strings.Join(parts, " · ")
}

func writeLoadLine(w io.Writer, f *analysis.PhaseFigures) {
	errs := ""
	if f.Errors > 0 {
		errs = fmt.Sprintf(", %s errors", units.Int(float64(f.Errors)))
	}
	fmt.Fprintf(w, "load     : %s records in %s (%s, p99 %s, %d workers)%s\n", units.Int(float64(f.Ops)), units.Seconds(float64(f.DurationNs)/1e9),
		units.OpsPerSec(f.Whole.SustainedOpsPerS), units.Latency(float64(f.Latency.P99Ns)), f.Concurrency, errs)
}

// writePhase prints the summary lines of a phase, cassandra-stress style:
// whole-phase figures, each with its per-op breakdown.
func writePhase(w io.Writer, f *analysis.PhaseFigures, notes bool) {
	fmt.Fprintln(w)
	mode := fmt.Sprintf("closed loop, %d requests in flight at full speed", f.Concurrency)
	if f.Mode == "open" {
		mode = fmt.Sprintf("%s, up to %d requests in flight", rateMode(f), f.Concurrency)
	}
	title := fmt.Sprintf("Results (%s phase, %s, %s)", f.Phase, mode, units.Seconds(float64(f.DurationNs)/1e9))
	if f.Interrupted {
		title += " — interrupted before its end"
	}
	fmt.Fprintln(w, title+":")
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	whole := f.Whole
	line := func(name, all string, per func(k int) string) {
		fmt.Fprintf(tw, "%s\t: %s%s\n", name, all, breakdown(f, per))
	}
	line("op rate", units.OpsPerSec(whole.SustainedOpsPerS), func(k int) string { return units.OpsPerSec(whole.PerOp[k].SustainedOpsPerS) })
	if rr := f.RowRates; rr != nil {
		fmt.Fprintf(tw, "partition rate\t: %s/s (%s partitions written)\n", units.Int(rr.PartitionsPerS), units.Int(float64(rr.Partitions)))
		fmt.Fprintf(tw, "row rate\t: %s/s (%s rows written)\n", units.Int(rr.RowsPerS), units.Int(float64(rr.Rows)))
	}
	if whole.Stability.Intervals > 0 {
		line("peak throughput (1 s)", units.OpsPerSec(whole.PeakOpsPerS), func(k int) string { return units.OpsPerSec(whole.PerOp[k].PeakOpsPerS) })
	}
	if whole.Bytes > 0 {
		// Only ops that moved payload bytes: a READ whose size is not measured shows no figure.
		var parts []string
		for _, o := range whole.PerOp {
			if o.Bytes > 0 {
				parts = append(parts, o.Op+": "+units.Bytes(o.SustainedBytesPerS)+"/s")
			}
		}
		fmt.Fprintf(tw, "bandwidth\t: %s/s [%s]\n", units.Bytes(whole.SustainedBytesPerS), strings.Join(parts, ", "))
	}
	lat := func(name string, get func(s *result.Summary) int64) {
		line(name, units.Latency(float64(get(&f.Latency))), func(k int) string { return units.Latency(float64(get(&f.PerOp[k].Latency))) })
	}
	line("latency mean", units.Latency(f.Latency.MeanNs), func(k int) string { return units.Latency(f.PerOp[k].Latency.MeanNs) })
	lat("latency median", func(s *result.Summary) int64 { return s.P50Ns })
	lat("latency 95th percentile", func(s *result.Summary) int64 { return s.P95Ns })
	lat("latency 99th percentile", func(s *result.Summary) int64 { return s.P99Ns })
	lat("latency 99.9th percentile", func(s *result.Summary) int64 { return s.P999Ns })
	lat("latency max", func(s *result.Summary) int64 { return s.MaxNs })
	if f.Mode == "open" {
		if f.Attributable.Count > 0 {
			attr := func(name string, get func(s *result.Summary) int64) {
				line(name, units.Latency(float64(get(&f.Attributable))), func(k int) string { return units.Latency(float64(get(&f.PerOp[k].Attributable))) })
			}
			attr("server-attributable median", func(s *result.Summary) int64 { return s.P50Ns })
			attr("server-attributable 99th percentile", func(s *result.Summary) int64 { return s.P99Ns })
		}
		if f.Service.Count > 0 { // a phase cut short (a journal) has none
			line("service time median", units.Latency(float64(f.Service.P50Ns)), func(k int) string { return units.Latency(float64(f.PerOp[k].Service.P50Ns)) })
			line("service time 99th percentile", units.Latency(float64(f.Service.P99Ns)), func(k int) string { return units.Latency(float64(f.PerOp[k].Service.P99Ns)) })
		}
		if f.Lag.Count > 0 {
			lag := func(name string, get func(s *result.Summary) int64) {
				line(name, units.Latency(float64(get(&f.Lag))), func(k int) string { return units.Latency(float64(get(&f.PerOp[k].Lag))) })
			}
			lag("schedule lag median", func(s *result.Summary) int64 { return s.P50Ns })
			lag("schedule lag 99th percentile", func(s *result.Summary) int64 { return s.P99Ns })
			lag("schedule lag 99.9th percentile", func(s *result.Summary) int64 { return s.P999Ns })
			lag("schedule lag max", func(s *result.Summary) int64 { return s.MaxNs })
		}
	}
	line("total operations", units.Int(float64(f.Ops)), func(k int) string { return units.Int(float64(f.PerOp[k].Count)) })
	errLine := "0"
	if f.Errors > 0 {
		errLine = fmt.Sprintf("%s (%s of attempts; %s)", units.Int(float64(f.Errors)), units.Percent(float64(f.Errors)/float64(f.Errors+f.Ops)), classList(f.ErrorsByClass))
	}
	fmt.Fprintf(tw, "total errors\t: %s\n", errLine)
	if f.Mode == "open" {
		if f.DelayThresholdNs > 0 || f.Delayed+f.LateClient > 0 { // a phase cut short (a journal) counts none
			fmt.Fprintf(tw, "delayed operations\t: %s (started more than %s late: no worker or in-flight slot was free)\n", units.Int(float64(f.Delayed)), units.Latency(float64(f.DelayThresholdNs)))
			fmt.Fprintf(tw, "late starts (client)\t: %s (started more than %s late with a worker free: the client itself was late)\n", units.Int(float64(f.LateClient)), units.Latency(float64(f.DelayThresholdNs)))
		}
		if f.PaceTickNs > 0 {
			fmt.Fprintf(tw, "pace tick\t: %s (operations due within it of each other start together, each charged from its own intended start)\n", units.Latency(float64(f.PaceTickNs)))
		}
	}
	fmt.Fprintf(tw, "total operation time\t: %s\n", units.Seconds(float64(f.DurationNs)/1e9))
	tw.Flush()
	if !notes {
		return
	}
	if f.Mode == "closed" {
		fmt.Fprintln(w, "note: closed loop at full speed: latency is service time under saturation, not an SLO figure (use --rate for that).")
	} else {
		writeRateNote(w, f)
		if f.LateClient > 0 {
			fmt.Fprintf(w, "note: %s operations started late although a worker was free: the load generator itself was late (its pacer, or the CPU it runs on); their lateness is included in latency and shown as schedule lag.\n", units.Int(float64(f.LateClient)))
		}
	}
}

// isSweepStep reports whether phase is one of sw's steps.
func isSweepStep(sw *result.Sweep, phase string) bool {
	for _, st := range sw.Steps {
		if st.Phase == phase {
			return true
		}
	}
	return false
}

// queuedFor is how long the ops queued behind the target waited:
// ", waiting 4.20 s in all, 12.0 ms at the longest" ("" in files from
// before it was kept).
func queuedFor(f *analysis.PhaseFigures) string {
	if f.Delayed == 0 || f.DelayedWaitNs == 0 {
		return ""
	}
	return fmt.Sprintf(", waiting %s in all (mean %s, longest %s)", units.Latency(float64(f.DelayedWaitNs)),
		units.Latency(f.DelayedWaitMeanNs()), units.Latency(float64(f.DelayedWaitMaxNs)))
}

// writeRateNote says whether an open-loop phase met its rate, and what the
// operations that waited for a worker were: bursts queued behind the target
// at a met rate, or the sign of a missed one.
func writeRateNote(w io.Writer, f *analysis.PhaseFigures) {
	switch rc := f.Rate; {
	case rc != nil && rc.Met && f.Delayed > 0:
		fmt.Fprintf(w, "note: the rate was met (%s of %s sustained); %s operations queued in bursts behind the target (all %d workers or in-flight slots busy)%s: their wait is in latency and in the server-attributable latency.\n",
			units.OpsPerSec(rc.SustainedOpsPerS), units.OpsPerSec(rc.IntendedOpsPerS), units.Int(float64(f.Delayed)), f.Concurrency, queuedFor(f))
	case rc != nil && !rc.Met:
		fmt.Fprintf(w, "note: the rate was not met: %s of %s sustained (%s); %s operations started late because all %d workers were busy with the target%s. Their queueing is included in latency (from the intended start).\n",
			units.OpsPerSec(rc.SustainedOpsPerS), units.OpsPerSec(rc.IntendedOpsPerS), units.Percent(rc.Achieved()), units.Int(float64(f.Delayed)), f.Concurrency, queuedFor(f))
	case f.Delayed > 0:
		fmt.Fprintf(w, "note: %s operations started late because all %d workers were busy with the target%s. Their queueing is included in latency (from the intended start).\n", units.Int(float64(f.Delayed)), f.Concurrency, queuedFor(f))
	}
}

// breakdown renders " [READ: x, UPDATE: y]": per(k) is op k's figure.
func breakdown(f *analysis.PhaseFigures, per func(k int) string) string {
	if len(f.PerOp) == 0 {
		return ""
	}
	parts := make([]string, len(f.PerOp))
	for k, o := range f.PerOp {
		parts[k] = o.Op + ": " + per(k)
	}
	return " [" + strings.Join(parts, ", ") + "]"
}

// rateMode names an open loop's pacing: "fixed rate 20k op/s", or its
// streams with their mean intended rate and a Poisson spacing when used.
func rateMode(f *analysis.PhaseFigures) string {
	mode := "fixed rate " + units.OpsPerSec(f.RateOpsPerS)
	if len(f.Streams) > 1 || (len(f.Streams) == 1 && f.Streams[0] != units.Compact(f.RateOpsPerS)) {
		mode = fmt.Sprintf("rate %s (mean %s)", strings.Join(f.Streams, "; "), units.OpsPerSec(f.RateOpsPerS))
	}
	if f.Arrival == "poisson" {
		mode += ", Poisson arrivals"
	}
	return mode
}

// writeErrorMessages lists what the target said when operations failed:
// the messages each phase kept, one line each.
func writeErrorMessages(w io.Writer, r *result.Result) {
	first := true
	for _, p := range r.Phases {
		for _, m := range p.ErrorMessages {
			if first {
				fmt.Fprintf(w, "\nerrors, in the target's words:\n")
				first = false
			}
			fmt.Fprintf(w, "  %s %s %s: %s\n", p.Name, m.Op, m.Class, m.Message)
		}
	}
}

// memLimit words the memory platbench's cgroup allowed, when less than the
// RAM: " (platbench's cgroup allows 128 MiB)".
func memLimit(p result.Platform) string {
	if p.MemLimitBytes <= 0 {
		return ""
	}
	return " (platbench's cgroup allows " + units.Bytes(float64(p.MemLimitBytes)) + ")"
}
