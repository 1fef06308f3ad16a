// Package report renders results for people: the terminal report (in the
// shape of the seed reports: cassandra-stress's summary lines with a per-op
// breakdown), Markdown, HTML and CSV, and comparisons of runs.
package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteTerm prints the terminal report of a result.
func WriteTerm(w io.Writer, r *result.Result) error {
	tw := &errWriter{w: w}
	writeHeader(tw, r)
	for i := range r.Phases {
		p := &r.Phases[i]
		if p.Name == "load" && r.MainPhase() != p {
			writeLoadLine(tw, p)
			continue
		}
		writePhase(tw, r, p)
	}
	writeDataset(tw, r)
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
	what := t.Kind
	if t.Version != "" {
		what += " (" + t.Version + ")"
	}
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
		parts = append(parts, units.Bytes(float64(p.RAMBytes))+" RAM")
	}
	if p.Kernel != "" {
		parts = append(parts, p.OS+" "+p.Kernel)
	}
	if p.Virtualization != "" && p.Virtualization != "none" {
		parts = append(parts, "virtualised: "+p.Virtualization)
	}
	return strings.Join(parts, " · ")
}

func writeLoadLine(w io.Writer, p *result.Phase) {
	var n uint64
	var p99 int64
	for _, o := range p.Ops {
		n += o.Count
		if o.Latency.P99Ns > p99 {
			p99 = o.Latency.P99Ns
		}
	}
	d := time.Duration(p.DurationNs)
	fmt.Fprintf(w, "load     : %s records in %s (%s, p99 %s, %d workers)%s\n", units.Int(float64(n)), units.Seconds(d.Seconds()), units.OpsPerSec(perSec(n, p.DurationNs)), units.Latency(float64(p99)), p.Concurrency, errSuffix(p))
}

func errSuffix(p *result.Phase) string {
	var e uint64
	for _, o := range p.Ops {
		for _, n := range o.Errors {
			e += n
		}
	}
	if e == 0 {
		return ""
	}
	return fmt.Sprintf(", %s errors", units.Int(float64(e)))
}

func perSec(n uint64, ns int64) float64 {
	if ns <= 0 {
		return 0
	}
	return float64(n) * 1e9 / float64(ns)
}

// writePhase prints the summary lines of a phase, cassandra-stress style.
func writePhase(w io.Writer, r *result.Result, p *result.Phase) {
	fmt.Fprintln(w)
	mode := fmt.Sprintf("closed loop, %d requests in flight at full speed", p.Concurrency)
	if p.Mode == "open" {
		mode = fmt.Sprintf("fixed rate %s, up to %d requests in flight", units.OpsPerSec(p.RateOpsPerS), p.Concurrency)
	}
	title := fmt.Sprintf("Results (%s phase, %s, %s)", p.Name, mode, units.Seconds(float64(p.DurationNs)/1e9))
	if p.Interrupted {
		title += " — interrupted before its end"
	}
	fmt.Fprintln(w, title+":")
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	var total uint64
	for _, o := range p.Ops {
		total += o.Count
	}
	line := func(name, all string, per func(o *result.OpTotal) string) {
		fmt.Fprintf(tw, "%s\t: %s%s\n", name, all, breakdown(p, per))
	}
	line("op rate", units.OpsPerSec(perSec(total, p.DurationNs)), func(o *result.OpTotal) string { return units.OpsPerSec(perSec(o.Count, p.DurationNs)) })
	if peak, ok := peakRate(p, ""); ok {
		line("peak throughput (1 s)", units.OpsPerSec(peak), func(o *result.OpTotal) string {
			v, _ := peakRate(p, o.Op)
			return units.OpsPerSec(v)
		})
	}
	if bytes := totalBytes(p); bytes > 0 {
		// Only ops that moved payload bytes: a READ whose size is not measured shows no figure.
		moving := *p
		moving.Ops = nil
		for _, o := range p.Ops {
			if o.Bytes > 0 {
				moving.Ops = append(moving.Ops, o)
			}
		}
		fmt.Fprintf(tw, "%s\t: %s%s\n", "bandwidth", units.Bytes(perSec(bytes, p.DurationNs))+"/s", breakdown(&moving, func(o *result.OpTotal) string { return units.Bytes(perSec(o.Bytes, p.DurationNs)) + "/s" }))
	}
	all := mergedSummary(p, false)
	lat := func(name string, f func(s *result.Summary) float64) {
		line(name, units.Latency(f(&all)), func(o *result.OpTotal) string { return units.Latency(f(&o.Latency)) })
	}
	lat("latency mean", func(s *result.Summary) float64 { return s.MeanNs })
	lat("latency median", func(s *result.Summary) float64 { return float64(s.P50Ns) })
	lat("latency 95th percentile", func(s *result.Summary) float64 { return float64(s.P95Ns) })
	lat("latency 99th percentile", func(s *result.Summary) float64 { return float64(s.P99Ns) })
	lat("latency 99.9th percentile", func(s *result.Summary) float64 { return float64(s.P999Ns) })
	lat("latency max", func(s *result.Summary) float64 { return float64(s.MaxNs) })
	if p.Mode == "open" {
		svc := mergedSummary(p, true)
		line("service time median", units.Latency(float64(svc.P50Ns)), func(o *result.OpTotal) string { return units.Latency(float64(o.Service.P50Ns)) })
		line("service time 99th percentile", units.Latency(float64(svc.P99Ns)), func(o *result.OpTotal) string { return units.Latency(float64(o.Service.P99Ns)) })
	}
	line("total operations", units.Int(float64(total)), func(o *result.OpTotal) string { return units.Int(float64(o.Count)) })
	errs := map[string]uint64{}
	var nerr uint64
	for _, o := range p.Ops {
		for c, n := range o.Errors {
			errs[c] += n
			nerr += n
		}
	}
	errLine := "0"
	if nerr > 0 {
		errLine = fmt.Sprintf("%s (%.3f%% of attempts; %s)", units.Int(float64(nerr)), 100*float64(nerr)/float64(nerr+total), classList(errs))
	}
	fmt.Fprintf(tw, "total errors\t: %s\n", errLine)
	if p.Mode == "open" {
		fmt.Fprintf(tw, "delayed operations\t: %s (started more than %s late: no worker or in-flight slot was free)\n", units.Int(float64(p.Delayed)), units.Latency(float64(p.DelayThresholdNs)))
	}
	fmt.Fprintf(tw, "total operation time\t: %s\n", units.Seconds(float64(p.DurationNs)/1e9))
	tw.Flush()
	if p.Mode == "closed" {
		fmt.Fprintln(w, "note: closed loop at full speed: latency is service time under saturation, not an SLO figure (use --rate for that).")
	} else if p.Delayed > 0 {
		fmt.Fprintf(w, "note: %s operations started late because all %d workers were busy: the rate was not met; raise --concurrency. Their queueing is included in latency (from the intended start).\n", units.Int(float64(p.Delayed)), p.Concurrency)
	}
}

// breakdown renders " [READ: x, UPDATE: y]" when there is more than one op,
// or the one op's name for a single op type as the seeds do.
func breakdown(p *result.Phase, per func(o *result.OpTotal) string) string {
	if len(p.Ops) == 0 {
		return ""
	}
	parts := make([]string, 0, len(p.Ops))
	for i := range p.Ops {
		parts = append(parts, p.Ops[i].Op+": "+per(&p.Ops[i]))
	}
	return " [" + strings.Join(parts, ", ") + "]"
}

func totalBytes(p *result.Phase) uint64 {
	var b uint64
	for _, o := range p.Ops {
		b += o.Bytes
	}
	return b
}

// peakRate is the highest throughput of a full 1 s interval (all ops when op
// is ""). Partial intervals (the last one) are left out: their rate is noise.
func peakRate(p *result.Phase, op string) (float64, bool) {
	best, found := 0.0, false
	for _, iv := range p.Intervals {
		if iv.DurationNs < int64(900*time.Millisecond) {
			continue
		}
		var n uint64
		for _, o := range iv.Ops {
			if op == "" || o.Op == op {
				n += o.Count
			}
		}
		if v := perSec(n, iv.DurationNs); v > best || !found {
			best, found = v, true
		}
	}
	return best, found
}

// mergedSummary merges the ops' total histograms (latency, or service time)
// into one summary for the "all ops" figure.
func mergedSummary(p *result.Phase, service bool) result.Summary {
	h := result.NewHist()
	for _, o := range p.Ops {
		enc := o.Hist
		if service {
			enc = o.ServiceHist
		}
		if oh, err := result.DecodeHist(enc); err == nil {
			h.Merge(oh)
		}
	}
	return result.Summarize(h)
}

func writeDataset(w io.Writer, r *result.Result) {
	d := r.Dataset
	if d.Records == 0 {
		return
	}
	fmt.Fprintln(w)
	s := fmt.Sprintf("dataset  : %s records x %s = %s logical", units.Int(float64(d.Records)), units.Bytes(float64(d.RecordBytes)), units.Bytes(float64(d.LogicalBytes)))
	if d.DiskBytes > 0 {
		s += fmt.Sprintf(", %s on disk", units.Bytes(float64(d.DiskBytes)))
	}
	if d.HostRAMBytes > 0 {
		s += fmt.Sprintf("; host RAM %s", units.Bytes(float64(d.HostRAMBytes)))
	}
	fmt.Fprintln(w, s)
}
