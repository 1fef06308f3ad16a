package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteAnalysisText writes the analysis sections of the terminal report:
// steady state (raw and trimmed side by side), peak and sustained throughput
// overall and per op, the stability table, stalls and regulation, page cache
// and cost. a is usually r.Analysis; nil writes nothing.
func WriteAnalysisText(w io.Writer, r *result.Result, a *result.Analysis) error {
	if a == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := writeAnalysisText(&buf, r, a); err != nil {
		return err
	}
	_, err := io.WriteString(w, fitWidth(buf.String(), termWidth)) // table rows: table.text splits them
	return err
}

func writeAnalysisText(w io.Writer, r *result.Result, a *result.Analysis) error {
	ew := &errWriter{w: w}
	anSteady(ew, a)
	anThroughput(ew, a)
	anStability(ew, a)
	anStalls(ew, a)
	if pc := a.PageCache; pc != nil {
		fmt.Fprintf(ew, "\nPage cache\n  %s\n", pageCacheVerdict(pc))
	}
	anCost(ew, a)
	if len(a.Notes) > 0 {
		fmt.Fprintf(ew, "\nAnalysis notes\n")
		for _, n := range a.Notes {
			fmt.Fprintf(ew, "  - %s\n", n)
		}
	}
	return ew.err
}

func anSteady(w io.Writer, a *result.Analysis) {
	ss := a.SteadyState
	fmt.Fprintf(w, "\nSteady state (phase %q)\n", a.Phase)
	used := "none"
	if ss.WarmupNs > 0 {
		used = fmt.Sprintf("first %s trimmed (%d intervals)", secs(ss.WarmupNs), ss.WarmupIntervals)
	}
	fmt.Fprintf(w, "  warm-up   : %s [--warmup %s, method %s]\n", used, ss.Requested, ss.Method)
	fmt.Fprintf(w, "  why       : %s\n", ss.Reason)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\t\traw (whole phase)\tsteady (used)\t\n")
	fmt.Fprintf(tw, "\twindow\t%s\t%s\t\n", anSpan(a.Raw), anSpan(a.Steady))
	fmt.Fprintf(tw, "\tsustained\t%s\t%s\t\n", units.OpsPerSec(a.Raw.SustainedOpsPerS), units.OpsPerSec(a.Steady.SustainedOpsPerS))
	fmt.Fprintf(tw, "\tpeak 1 s\t%s\t%s\t\n", anPeak(a.Raw), anPeak(a.Steady))
	if a.Raw.Bytes > 0 {
		fmt.Fprintf(tw, "\tsustained bytes\t%s/s\t%s/s\t\n", units.Bytes(a.Raw.SustainedBytesPerS), units.Bytes(a.Steady.SustainedBytesPerS))
	}
	fmt.Fprintf(tw, "\tCV of 1 s\t%s\t%s\t\n", anCV(a.Raw.Stability), anCV(a.Steady.Stability))
	fmt.Fprintf(tw, "\terrors\t%s\t%s\t\n", units.Int(float64(a.Raw.Errors)), units.Int(float64(a.Steady.Errors)))
	tw.Flush()
}

func anThroughput(w io.Writer, a *result.Analysis) {
	s := a.Steady
	fmt.Fprintf(w, "\nThroughput (steady window)\n")
	var peak, sus, bpeak, bsus []string
	for _, o := range s.PerOp {
		peak = append(peak, fmt.Sprintf("%s: %s", o.Op, units.OpsPerSec(o.PeakOpsPerS)))
		sus = append(sus, fmt.Sprintf("%s: %s", o.Op, units.OpsPerSec(o.SustainedOpsPerS)))
		if o.Bytes > 0 {
			bpeak = append(bpeak, fmt.Sprintf("%s: %s/s", o.Op, units.Bytes(o.PeakBytesPerS)))
			bsus = append(bsus, fmt.Sprintf("%s: %s/s", o.Op, units.Bytes(o.SustainedBytesPerS)))
		}
	}
	if s.Stability.Intervals > 0 {
		fmt.Fprintf(w, "  peak        : %s%s (highest 1 s interval, at %s)\n", units.OpsPerSec(s.PeakOpsPerS), anList(peak), secs(s.PeakAtNs))
	} else {
		fmt.Fprintf(w, "  peak        : not measured (no full 1 s interval)\n")
	}
	fmt.Fprintf(w, "  sustained   : %s%s (%s ops / %s)\n", units.OpsPerSec(s.SustainedOpsPerS), anList(sus), units.Int(float64(s.Ops)), secs(s.LengthNs))
	if s.Bytes > 0 {
		fmt.Fprintf(w, "  peak bytes  : %s/s%s\n", units.Bytes(s.PeakBytesPerS), anList(bpeak))
		fmt.Fprintf(w, "  sust. bytes : %s/s%s\n", units.Bytes(s.SustainedBytesPerS), anList(bsus))
	}
	if s.Errors > 0 {
		fmt.Fprintf(w, "  errors      : %s in the steady window (%.2f%% of attempts)\n", units.Int(float64(s.Errors)), 100*float64(s.Errors)/float64(s.Errors+s.Ops))
	}
}

func anStability(w io.Writer, a *result.Analysis) {
	fmt.Fprintf(w, "\nStability of the 1 s throughput\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\twindow\tintervals\tmin\tmax\tmean\tstd-dev\tCV\t\n")
	for _, row := range []struct {
		name string
		s    result.Stability
	}{{"raw ops/s", a.Raw.Stability}, {"steady ops/s", a.Steady.Stability}} {
		s := row.s
		if s.Intervals == 0 {
			fmt.Fprintf(tw, "\t%s\t0\t-\t-\t-\t-\t-\t\n", row.name)
			continue
		}
		fmt.Fprintf(tw, "\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", row.name, s.Intervals, units.Int(s.MinOpsPerS), units.Int(s.MaxOpsPerS), units.Int(s.MeanOpsPerS), units.Int(s.StdDevOpsPerS), anCV(s))
	}
	for _, row := range []struct {
		name string
		s    result.Stability
	}{{"raw bytes/s", a.Raw.Stability}, {"steady bytes/s", a.Steady.Stability}} {
		if b := row.s.Bytes; b != nil && row.s.Intervals > 0 {
			cv := "-"
			if row.s.Intervals > 1 {
				cv = fmt.Sprintf("%.1f%%", b.CVPercent)
			}
			fmt.Fprintf(tw, "\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", row.name, row.s.Intervals, units.Bytes(b.MinBytesPerS)+"/s", units.Bytes(b.MaxBytesPerS)+"/s", units.Bytes(b.MeanBytesPerS)+"/s", units.Bytes(b.StdDevBytesPerS)+"/s", cv)
		}
	}
	tw.Flush()
}

func anStalls(w io.Writer, a *result.Analysis) {
	s := a.Stalls
	if s.BucketWidthNs <= 0 || s.Buckets == 0 {
		fmt.Fprintf(w, "\nStalls\n  not measured: %s\n", s.Regulation.Reason)
		return
	}
	fmt.Fprintf(w, "\nStalls (%s buckets with no completion while requests were outstanding, whole phase)\n", durNs(s.BucketWidthNs))
	if s.Count == 0 {
		fmt.Fprintf(w, "  none in %d buckets\n", s.Buckets)
	} else {
		fmt.Fprintf(w, "  %d stall(s), longest %s at %s, total %s (%.1f%% of the phase)\n",
			s.Count, durNs(s.LongestNs), secs(s.LongestAtNs), durNs(s.TotalNs), 100*float64(s.TotalNs)/float64(int64(s.Buckets)*s.BucketWidthNs))
	}
	fmt.Fprintf(w, "  regulation: %s\n", s.Regulation.Reason)
}

func anCost(w io.Writer, a *result.Analysis) {
	c := a.Cost
	if c == nil {
		return
	}
	fmt.Fprintf(w, "\nCost (steady sustained throughput, over the whole bill)\n")
	what := "node"
	if c.InstanceType != "" {
		what = c.InstanceType
		if c.Provider != "" {
			what = c.Provider + " " + what
		}
	}
	src := c.PriceSource
	if c.PriceDate != "" {
		src += ", " + c.PriceDate
	}
	fmt.Fprintf(w, "  cluster     : %d x %s at %s/h = %s/h, %s/month (%.0f h) [%s]\n",
		c.Nodes, what, units.Price(c.PricePerHourUSD), units.Price(c.ClusterPerHourUSD), units.Cents(c.MonthlyUSD), c.HoursPerMonth, src)
	for _, it := range billItems(c) {
		if it.Component == result.CostInstances {
			continue
		}
		name, unit, how := billItemText(it)
		fmt.Fprintf(w, "  %-12s: %d x %s at %s = %s/h, %s/month; %s [%s, %s]\n", it.Component, it.Count, name, unit,
			units.Price(roundMicro(it.PerHourUSD)), units.Cents(it.MonthlyUSD), how, it.Source, it.Date)
	}
	fmt.Fprintf(w, "  bill        : %s/h, %s/month\n", units.Price(roundMicro(billPerHour(c))), units.Cents(billMonthly(c)))
	if c.OpsPerUSD > 0 {
		fmt.Fprintf(w, "  ops per $   : %s\n", units.Int(c.OpsPerUSD))
		fmt.Fprintf(w, "  $ per M ops : %s\n", units.Cents(c.USDPerMillionOps))
	} else {
		fmt.Fprintf(w, "  ops per $   : not measured (no throughput)\n")
	}
	if c.GBPerUSD > 0 {
		fmt.Fprintf(w, "  GB per $    : %s\n", units.Sig3Grouped(c.GBPerUSD))
	}
	if c.Note != "" {
		fmt.Fprintf(w, "  note        : %s\n", c.Note)
	}
	if len(c.NotPriced) > 0 {
		fmt.Fprintf(w, "  not priced  : %s\n", strings.Join(c.NotPriced, "; "))
	}
}

func anSpan(win result.Window) string {
	if win.LengthNs == 0 {
		return "-"
	}
	return fmt.Sprintf("%s-%s", secs(win.StartNs), secs(win.StartNs+win.LengthNs))
}

func anPeak(win result.Window) string {
	if win.Stability.Intervals == 0 {
		return "-"
	}
	return units.OpsPerSec(win.PeakOpsPerS)
}

func anCV(s result.Stability) string {
	if s.Intervals < 2 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", s.CVPercent)
}

func anList(xs []string) string {
	if len(xs) < 2 {
		return ""
	}
	return " [" + strings.Join(xs, ", ") + "]"
}

// secs formats a nanosecond offset as seconds: "13 s", "2 min 5 s".
func secs(ns int64) string { return units.Seconds(float64(ns) / 1e9) }

// durNs formats a nanosecond span as a latency: "800 ms".
func durNs(ns int64) string { return units.Latency(float64(ns)) }
