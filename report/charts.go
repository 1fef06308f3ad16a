package report

import (
	"math"
	"regexp"
	"sort"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// charts builds the charts of one run, in page order. A chart with nothing
// measured is left out rather than drawn empty.
func charts(u *run) ([]*chart, error) {
	r := u.r
	p := r.MainPhase()
	var out []*chart
	ops := opNames(p)
	add := func(c *chart) {
		if c != nil && c.has() {
			out = append(out, c)
		}
	}
	marks := eventMarks(r)
	if c := throughput1s(p, u.a, ops, 0, ""); c != nil {
		c.marks = marks
		add(c)
	}
	if c := throughputFine(p, u.a); c != nil {
		c.marks = marks
		add(c)
	}
	_, full := analysis.ThroughputSeries(p, "")
	for i, op := range ops {
		add(latencyOverTime(p, full, op, i))
	}
	dist, err := distribution(p, ops)
	if err != nil {
		return nil, err
	}
	add(dist)
	add(errorsOverTime(p))
	if r.Host != nil && len(r.Host.Samples) > 0 {
		add(hostCPU(r))
		add(hostMem(r))
		add(hostIO(r))
	}
	add(serverLatencyChart(r))
	for _, c := range nodeCharts(r) {
		add(c)
	}
	return out, nil
}

// nodeCharts are the server nodes' series (node_exporter), one chart per
// figure with a line per node: CPU busy, the busiest core, disk reads and
// writes. A missing scrape leaves a gap rather than a zero.
func nodeCharts(r *result.Result) []*chart {
	if len(r.Nodes) == 0 {
		return nil
	}
	p := r.MainPhase()
	off := func(s result.NodeSeries) float64 {
		if p == nil || p.StartedAt.IsZero() || s.StartedAt.IsZero() {
			return 0
		}
		return s.StartedAt.Sub(p.StartedAt).Seconds()
	}
	figs := []struct {
		id, title, yLabel string
		y                 yAxis
		get               func(x result.NodeSample) float64
	}{
		{"nodes-cpu", "Server nodes: CPU busy", "share of the node's CPUs", yPercent, func(x result.NodeSample) float64 { return 1 - x.CPUIdle - x.CPUIOWait }},
		{"nodes-core", "Server nodes: busiest core", "busy share of one core", yPercent, func(x result.NodeSample) float64 { return x.CPUMaxCore }},
		{"nodes-disk-read", "Server nodes: disk reads", "bytes/s (all devices)", yBytes, func(x result.NodeSample) float64 { return nodeDiskRate(x, true) }},
		{"nodes-disk-write", "Server nodes: disk writes", "bytes/s (all devices)", yBytes, func(x result.NodeSample) float64 { return nodeDiskRate(x, false) }},
	}
	var out []*chart
	for _, f := range figs {
		c := &chart{id: f.id, title: f.title, x: xSeconds, y: f.y, xLabel: "time since the start of the run phase", yLabel: f.yLabel}
		for k, ns := range r.Nodes {
			s := series{name: ns.Node, color: k}
			o := off(ns)
			for _, x := range ns.Samples {
				if x.Missing {
					continue
				}
				s.xs = append(s.xs, o+float64(x.OffsetNs+x.DurationNs)/1e9)
				s.ys = append(s.ys, f.get(x))
			}
			c.series = append(c.series, s)
		}
		out = append(out, c)
	}
	return out
}

// nodeDiskRate is a node sample's disk read (or write) bytes per second,
// all devices.
func nodeDiskRate(x result.NodeSample, read bool) float64 {
	d := float64(x.DurationNs) / 1e9
	if d <= 0 {
		return 0
	}
	var n uint64
	for _, io := range x.Disks {
		if read {
			n += io.ReadBytes
		} else {
			n += io.WriteBytes
		}
	}
	return float64(n) / d
}

var idUnsafe = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

func chartID(s string) string {
	return strings.Trim(idUnsafe.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// warmupBand shades the warm-up the analysis trimmed.
func warmupBand(a *result.Analysis) []band {
	if a == nil || a.Steady.StartNs <= 0 {
		return nil
	}
	return []band{{0, float64(a.Steady.StartNs) / 1e9, "warm-up (" + steadySource(a.SteadyState) + ")"}}
}

// perSecond is the points of a per-interval series: full intervals only
// (analysis.ThroughputSeries says which), at their start.
func perSecond(p *result.Phase, ys []float64, full []bool) (xs, out []float64) {
	for i, in := range p.Intervals {
		if full[i] {
			xs = append(xs, float64(in.StartNs)/1e9)
			out = append(out, ys[i])
		}
	}
	return xs, out
}

// throughput1s is the 1 s series: all ops, and each op when there are several.
func throughput1s(p *result.Phase, a *result.Analysis, ops []string, color int, prefix string) *chart {
	c := &chart{id: "throughput-1s", title: "Throughput per second", x: xSeconds, y: yCount,
		xLabel: "time since the start of the " + p.Name + " phase", yLabel: "ops/s", bands: warmupBand(a)}
	rates, full := analysis.ThroughputSeries(p, "")
	all := series{name: prefix + "all ops", color: color}
	all.xs, all.ys = perSecond(p, rates, full)
	c.series = append(c.series, all)
	if p.Mode == "open" && len(p.Streams) > 0 {
		// The schedule's own rate, beside what was achieved.
		intended := make([]float64, len(p.Intervals))
		for i, in := range p.Intervals {
			intended[i] = in.IntendedOpsPerS
		}
		s := series{name: prefix + "intended rate", color: color, dashed: true}
		s.xs, s.ys = perSecond(p, intended, full)
		c.series = append(c.series, s)
	}
	if len(ops) > 1 {
		for k, op := range ops {
			s := series{name: op, color: k + 1}
			rates, _ := analysis.ThroughputSeries(p, op)
			s.xs, s.ys = perSecond(p, rates, full)
			c.series = append(c.series, s)
		}
	}
	return c
}

// throughputFine is the fine-bucket series (100 ms by default), in ops/s,
// with stalls (analysis.StalledBuckets) marked.
func throughputFine(p *result.Phase, a *result.Analysis) *chart {
	b := p.Buckets
	if b.WidthNs <= 0 {
		return nil
	}
	n := len(b.All)
	for _, cs := range b.Counts {
		n = max(n, len(cs))
	}
	if n == 0 {
		return nil
	}
	w := float64(b.WidthNs) / 1e9
	tot := make([]float64, n)
	for i := range tot {
		tot[i] = float64(b.CountAt(i))
	}
	s := series{name: "all ops", color: 0, xs: make([]float64, n), ys: make([]float64, n)}
	for i := range tot {
		s.xs[i] = float64(i) * w
		s.ys[i] = tot[i] / w
	}
	var ticks []float64
	for i, st := range analysis.StalledBuckets(p) {
		if st {
			ticks = append(ticks, float64(i)*w)
		}
	}
	c := &chart{id: "throughput-fine", title: "Throughput per " + units.Latency(float64(b.WidthNs)) + " bucket", x: xSeconds, y: yCount,
		xLabel: "time since the start of the " + p.Name + " phase", yLabel: "ops/s", series: []series{s},
		bands: warmupBand(a), ticks: ticks, tickLabel: "stall (no completion while requests were in flight)"}
	if n > maxPoints {
		c.note = "Drawn as the minimum and maximum of each pixel column, so single-bucket stalls stay visible."
	}
	return c
}

// latencyOverTime is one op's per-second percentiles on a log scale, over
// the full intervals.
func latencyOverTime(p *result.Phase, full []bool, op string, k int) *chart {
	c := &chart{id: "latency-" + chartID(op), title: op + " latency per second", x: xSeconds, y: yLatency,
		xLabel: "time since the start of the " + p.Name + " phase", yLabel: "latency (log)"}
	pick := []struct {
		name string
		get  func(s result.Summary) int64
	}{
		{"median", func(s result.Summary) int64 { return s.P50Ns }},
		{"p99", func(s result.Summary) int64 { return s.P99Ns }},
		{"p99.9", func(s result.Summary) int64 { return s.P999Ns }},
		{"max", func(s result.Summary) int64 { return s.MaxNs }},
	}
	for i, pk := range pick {
		s := series{name: pk.name, color: i}
		for i, in := range p.Intervals {
			if !full[i] {
				continue
			}
			for _, o := range in.Ops {
				if o.Op == op && o.Latency.Count > 0 {
					s.xs = append(s.xs, float64(in.StartNs)/1e9)
					s.ys = append(s.ys, float64(pk.get(o.Latency)))
				}
			}
		}
		c.series = append(c.series, s)
	}
	return c
}

// percentileXs are the x positions of the distribution plot: log10(1/(1-q)).
var percentileXs = func() []float64 {
	var xs []float64
	for x := 0.0; x <= 6.0001; x += 0.05 {
		xs = append(xs, x)
	}
	return xs
}()

// percentileCurve samples h at percentileXs, as HdrHistogram's plotter does.
func percentileCurve(h *hdr.Histogram) (xs, ys []float64) {
	if h == nil || h.TotalCount() == 0 {
		return nil, nil
	}
	// Beyond 1/count the percentiles only repeat the maximum.
	limit := math.Log10(float64(h.TotalCount()))
	var qs []float64
	for _, x := range percentileXs {
		if x > limit+0.05 {
			break
		}
		xs = append(xs, x)
		qs = append(qs, 100*(1-math.Pow(10, -x)))
	}
	// One pass over the histogram for every percentile (ValueAtQuantile
	// would scan it once per point). The map is keyed by the same floats.
	vals := h.ValueAtPercentiles(append([]float64(nil), qs...))
	for i, q := range qs {
		if i == 0 {
			ys = append(ys, float64(h.Min()))
			continue
		}
		ys = append(ys, float64(vals[q]))
	}
	xs = append(xs, math.Min(6, math.Max(limit, xs[len(xs)-1])))
	ys = append(ys, float64(h.Max()))
	return xs, ys
}

// distribution is the HDR percentile plot of every op's latency (and service time when it differs).
func distribution(p *result.Phase, ops []string) (*chart, error) {
	c := &chart{id: "distribution", title: "Latency by percentile (HDR)", x: xPercentile, y: yLatency,
		xLabel: "percentile (log scale of 1/(1-p))", yLabel: "latency (log)"}
	n := len(p.Intervals)
	for k, op := range ops {
		kinds := []result.HistKind{result.HistLatency}
		if p.Mode == "open" {
			kinds = append(kinds, result.HistService)
		}
		for _, kind := range kinds {
			h, err := p.MergedHist(0, n, kind, op)
			if err != nil {
				return nil, err
			}
			xs, ys := percentileCurve(h)
			if kind == result.HistService {
				c.series = append(c.series, series{name: op + " service time", color: k, dashed: true, xs: xs, ys: ys})
			} else {
				c.series = append(c.series, series{name: op, color: k, xs: xs, ys: ys})
			}
		}
	}
	c.note = "Each curve reads like HdrHistogram's plotter: x is the percentile on a log scale of 1/(1-p), y the latency at that percentile."
	return c, nil
}

// errorsOverTime is the errors per second by class; nil when there were none.
func errorsOverTime(p *result.Phase) *chart {
	per := map[string][]float64{}
	for i, in := range p.Intervals {
		for _, o := range in.Ops {
			for cl, n := range o.Errors {
				if per[cl] == nil {
					per[cl] = make([]float64, len(p.Intervals))
				}
				per[cl][i] += float64(n)
			}
		}
	}
	if len(per) == 0 {
		return nil
	}
	classes := make([]string, 0, len(per))
	for cl := range per {
		classes = append(classes, cl)
	}
	sort.Strings(classes)
	c := &chart{id: "errors", title: "Errors per second by class", x: xSeconds, y: yCount,
		xLabel: "time since the start of the " + p.Name + " phase", yLabel: "errors/s"}
	for k, cl := range classes {
		s := series{name: cl, color: k + 3, bars: true}
		for i, in := range p.Intervals {
			s.xs = append(s.xs, float64(in.StartNs)/1e9)
			d := float64(in.DurationNs) / 1e9
			if d <= 0 {
				d = 1
			}
			s.ys = append(s.ys, per[cl][i]/d)
		}
		c.series = append(c.series, s)
	}
	return c
}

// hostOffset is where the host series starts, in seconds from the main
// phase's start (0 when either start is unknown).
func hostOffset(r *result.Result) float64 {
	h, p := r.Host, r.MainPhase()
	if p.StartedAt.IsZero() || h.StartedAt.IsZero() {
		return 0
	}
	return h.StartedAt.Sub(p.StartedAt).Seconds()
}

func hostCPU(r *result.Result) *chart {
	h, off := r.Host, hostOffset(r)
	c := &chart{id: "host-cpu", title: "Host CPU", x: xSeconds, y: yPercent,
		xLabel: "time since the start of the run phase", yLabel: "share of all CPUs"}
	fields := []struct {
		name string
		get  func(s result.HostSample) float64
	}{
		{"user", func(s result.HostSample) float64 { return s.CPUUser }},
		{"system", func(s result.HostSample) float64 { return s.CPUSystem }},
		{"iowait", func(s result.HostSample) float64 { return s.CPUIOWait }},
		{"steal", func(s result.HostSample) float64 { return s.CPUSteal }},
		{"busiest core", func(s result.HostSample) float64 { return s.CPUMaxCore }},
	}
	for k, fl := range fields {
		s := series{name: fl.name, color: k, dashed: fl.name == "busiest core"}
		any := false
		for i, smp := range h.Samples {
			v := fl.get(smp)
			any = any || v > 0
			s.xs = append(s.xs, off+float64(i))
			s.ys = append(s.ys, v)
		}
		if any {
			c.series = append(c.series, s)
		}
	}
	return c
}

func hostMem(r *result.Result) *chart {
	h, off := r.Host, hostOffset(r)
	c := &chart{id: "host-mem", title: "Host memory", x: xSeconds, y: yBytes,
		xLabel: "time since the start of the run phase", yLabel: "bytes"}
	used := series{name: "used", color: 0}
	cache := series{name: "page cache", color: 1}
	dirty := series{name: "dirty", color: 2}
	for i, smp := range h.Samples {
		x := off + float64(i)
		used.xs, used.ys = append(used.xs, x), append(used.ys, float64(smp.MemUsedBytes))
		cache.xs, cache.ys = append(cache.xs, x), append(cache.ys, float64(smp.PageCacheBytes))
		dirty.xs, dirty.ys = append(dirty.xs, x), append(dirty.ys, float64(smp.DirtyBytes))
	}
	for _, s := range []series{used, cache, dirty} {
		for _, y := range s.ys {
			if y > 0 {
				c.series = append(c.series, s)
				break
			}
		}
	}
	if r.Dataset.LogicalBytes > 0 {
		c.note = "Dataset: " + units.Bytes(float64(r.Dataset.LogicalBytes)) + " logical" +
			func() string {
				if r.Dataset.DiskBytes > 0 {
					return ", " + units.Bytes(float64(r.Dataset.DiskBytes)) + " on disk"
				}
				return ""
			}() + "."
	}
	return c
}

// eventMarks are the fault events of the run phase ("kill 1234 at 60 s").
func eventMarks(r *result.Result) []mark {
	if r.MainPhase().Name != "run" {
		return nil // event offsets are from the run phase's start
	}
	var out []mark
	for _, e := range r.Events {
		lbl := strings.TrimSpace(e.Kind + " " + e.Arg)
		if len(lbl) > 40 {
			lbl = lbl[:37] + "..."
		}
		if e.Error != "" {
			lbl += " (failed)"
		}
		out = append(out, mark{x: float64(e.AtNs) / 1e9, label: lbl})
	}
	return out
}

// hostIO is the disk and network traffic of the host, summed over devices.
func hostIO(r *result.Result) *chart {
	h, off := r.Host, hostOffset(r)
	c := &chart{id: "host-io", title: "Host disk and network traffic", x: xSeconds, y: yBytes,
		xLabel: "time since the start of the run phase", yLabel: "bytes/s"}
	names := []string{"disk read", "disk write", "network in", "network out"}
	ss := make([]series, len(names))
	for k := range ss {
		ss[k] = series{name: names[k], color: k, dashed: k >= 2}
	}
	for i, smp := range h.Samples {
		var v [4]float64
		for _, d := range smp.Disks {
			v[0] += float64(d.ReadBytes)
			v[1] += float64(d.WriteBytes)
		}
		for _, n := range smp.Nets {
			v[2] += float64(n.RxBytes)
			v[3] += float64(n.TxBytes)
		}
		for k := range ss {
			ss[k].xs = append(ss[k].xs, off+float64(i))
			ss[k].ys = append(ss[k].ys, v[k]) // samples are 1 s apart: bytes are bytes/s
		}
	}
	for _, sr := range ss {
		for _, y := range sr.ys {
			if y > 0 {
				c.series = append(c.series, sr)
				break
			}
		}
	}
	return c
}
