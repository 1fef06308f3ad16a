package report

import (
	"fmt"
	"sort"
	"strings"

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

// sections lists the report's tables in reading order.
func sections(r *result.Result, f *Figures) []section {
	var out []section
	out = append(out, throughputSection(f))
	out = append(out, latencySection(f, false))
	if f.Mode == "open" && f.Service.Count > 0 {
		out = append(out, latencySection(f, true))
	}
	if f.Stability.N > 0 {
		t := &table{head: []string{"intervals", "min", "max", "mean", "std dev", "CV"}, right: []bool{true, true, true, true, true, true}}
		s := f.Stability
		t.add(fmt.Sprint(s.N), units.OpsPerSec(s.Min), units.OpsPerSec(s.Max), units.OpsPerSec(s.Mean), units.OpsPerSec(s.StdDev), units.Percent(s.CV))
		out = append(out, section{id: "stability", title: "Stability of the 1 s throughput", t: t,
			notes: []string{fmt.Sprintf("Over the steady-state window %s to %s.", units.Seconds(f.Window.StartS), units.Seconds(f.Window.EndS))}})
	}
	{
		t := &table{head: []string{"stalls", "longest", "total stalled", "period"}, right: []bool{true, true, true, false}}
		st := f.Stalls
		period := st.Period
		if period == "" {
			period = "-"
		}
		t.add(fmt.Sprint(st.Count), units.Latency(float64(st.LongestNs)), units.Latency(float64(st.TotalNs)), period)
		out = append(out, section{id: "stalls", title: "Stalls", t: t,
			notes: []string{"A stall is a fine bucket with no completion while requests were in flight."}})
	}
	if f.ErrorTotal > 0 {
		out = append(out, errorSection(f))
	}
	if c := f.Cost; c != nil {
		t := &table{head: []string{"instance", "$/hour", "nodes", "ops per $", "$ per million ops", "monthly cost"}, right: []bool{false, true, true, true, true, true}}
		t.add(c.Instance, units.USD(c.USDPerHour), fmt.Sprint(c.Nodes), units.Int(c.OpsPerUSD), units.USD(c.USDPerMillion), units.USD(c.MonthlyUSD))
		var notes []string
		switch {
		case c.PriceSource != "" && c.PriceDate != "":
			notes = append(notes, fmt.Sprintf("Price from %s (%s).", c.PriceSource, c.PriceDate))
		case c.PriceSource != "":
			notes = append(notes, fmt.Sprintf("Price from %s.", c.PriceSource))
		}
		if c.Note != "" {
			notes = append(notes, upperFirst(c.Note)+".")
		}
		if c.GBPerUSD > 0 {
			notes = append(notes, fmt.Sprintf("%s GB per dollar.", units.Sig3(c.GBPerUSD)))
		}
		out = append(out, section{id: "cost", title: "Cost", t: t, notes: notes})
	}
	out = append(out, platformSection(r))
	out = append(out, runSection(r, f))
	return out
}

func throughputSection(f *Figures) section {
	t := &table{head: []string{"figure", "value"}}
	perOp := func(get func(o OpFigures) string) string {
		if len(f.Ops) < 1 {
			return ""
		}
		parts := make([]string, len(f.Ops))
		for i, o := range f.Ops {
			parts[i] = o.Op + ": " + get(o)
		}
		return " [" + strings.Join(parts, ", ") + "]"
	}
	t.add("Op rate (sustained)", units.OpsPerSec(f.SustainedOpsPerS)+perOp(func(o OpFigures) string { return units.OpsPerSec(o.OpsPerS) }))
	if f.PeakOpsPerS > 0 {
		t.add("Peak (best 1 s)", units.OpsPerSec(f.PeakOpsPerS))
	}
	t.add("Mean over the whole phase", units.OpsPerSec(f.MeanOpsPerS))
	var bps float64
	for _, o := range f.Ops {
		bps += o.BytesPerS
	}
	if bps > 0 {
		var parts []string
		for _, o := range f.Ops {
			if o.BytesPerS > 0 {
				parts = append(parts, o.Op+": "+units.Bytes(o.BytesPerS)+"/s")
			}
		}
		t.add("Payload", units.Bytes(bps)+"/s ["+strings.Join(parts, ", ")+"]")
	}
	t.add("Steady-state window", fmt.Sprintf("%s to %s (%s)", units.Seconds(f.Window.StartS), units.Seconds(f.Window.EndS), f.Window.Source))
	t.add("Completed ops", units.Int(float64(f.TotalOps)))
	errs := "none"
	if f.ErrorTotal > 0 {
		errs = fmt.Sprintf("%s (%s of attempts: %s)", units.Int(float64(f.ErrorTotal)),
			units.Percent(float64(f.ErrorTotal)/float64(f.ErrorTotal+f.TotalOps)), classList(f.Errors))
	}
	t.add("Errors", errs)
	if f.Mode == "open" {
		t.add("Target rate", units.OpsPerSec(f.RateOpsPerS))
		if f.Delayed > 0 {
			t.add("Delayed starts", units.Int(float64(f.Delayed)))
		}
	}
	var notes []string
	if f.Window.Reason != "" {
		notes = append(notes, "Steady state: "+f.Window.Reason)
	}
	if f.Interrupted {
		notes = append(notes, "The phase was interrupted before its planned end.")
	}
	return section{id: "throughput", title: "Throughput", t: t, notes: notes}
}

func latencySection(f *Figures, service bool) section {
	t := &table{head: []string{"op", "count", "mean", "median", "p95", "p99", "p99.9", "max"}, right: []bool{false, true, true, true, true, true, true, true}}
	row := func(name string, s result.Summary) {
		t.add(name, units.Int(float64(s.Count)), units.Latency(s.MeanNs), units.Latency(float64(s.P50Ns)), units.Latency(float64(s.P95Ns)),
			units.Latency(float64(s.P99Ns)), units.Latency(float64(s.P999Ns)), units.Latency(float64(s.MaxNs)))
	}
	pick := func(o OpFigures) result.Summary {
		if service {
			return o.Service
		}
		return o.Latency
	}
	if len(f.Ops) > 1 {
		if service {
			row("all", f.Service)
		} else {
			row("all", f.Latency)
		}
	}
	for _, o := range f.Ops {
		row(o.Op, pick(o))
	}
	s := section{id: "latency", title: "Latency", t: t}
	switch {
	case service:
		s.id, s.title = "service", "Service time"
		s.notes = []string{"From the actual send to the completion: what the server took, without the queueing."}
	case f.Mode == "open":
		s.notes = []string{"Fixed-rate run: latency is measured from each request's intended start, so a stall is charged to every request it delayed."}
	default:
		s.notes = []string{"Closed-loop run at saturation: latency is service time, and percentiles at saturation are not an SLO figure."}
	}
	return s
}

func errorSection(f *Figures) section {
	classes := classNames(f.Errors)
	t := &table{head: append([]string{"op"}, classes...)}
	t.right = make([]bool, len(t.head))
	for i := 1; i < len(t.right); i++ {
		t.right[i] = true
	}
	for _, o := range f.Ops {
		if o.ErrorTotal == 0 {
			continue
		}
		row := []string{o.Op}
		for _, c := range classes {
			row = append(row, units.Int(float64(o.Errors[c])))
		}
		t.add(row...)
	}
	return section{id: "errors", title: "Errors by class", t: t}
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
		add("RAM", units.Bytes(float64(p.RAMBytes)))
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

func runSection(r *result.Result, f *Figures) section {
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
	add("Workload", strings.TrimSpace(f.Workload+" ("+f.Mix+")"))
	mode := fmt.Sprintf("closed loop, %d workers", f.Concurrency)
	if f.Mode == "open" {
		mode = fmt.Sprintf("fixed rate %s, %d workers", units.OpsPerSec(f.RateOpsPerS), f.Concurrency)
	}
	add("Mode", mode)
	add("Phase", fmt.Sprintf("%s, %s", f.Phase, units.Seconds(f.DurationS)))
	d := r.Dataset
	if d.Records > 0 {
		ds := fmt.Sprintf("%s records x %s = %s", units.Int(float64(d.Records)), units.Bytes(float64(d.RecordBytes)), units.Bytes(float64(d.LogicalBytes)))
		if d.DiskBytes > 0 {
			ds += fmt.Sprintf(", %s on disk", units.Bytes(float64(d.DiskBytes)))
		}
		if d.HostRAMBytes > 0 {
			ds += fmt.Sprintf("; host RAM %s", units.Bytes(float64(d.HostRAMBytes)))
		}
		add("Dataset", ds)
	}
	add("Page cache", f.PageCache)
	if lp := r.Phase("load"); lp != nil && lp != r.MainPhase() {
		var n, errs uint64
		for _, o := range lp.Ops {
			n += o.Count
			for _, e := range o.Errors {
				errs += e
			}
		}
		ls := fmt.Sprintf("%s ops in %s", units.Int(float64(n)), units.Seconds(float64(lp.DurationNs)/1e9))
		if lp.DurationNs > 0 {
			ls += fmt.Sprintf(" (%s)", units.OpsPerSec(float64(n)/(float64(lp.DurationNs)/1e9)))
		}
		if errs > 0 {
			ls += fmt.Sprintf(", %s errors", units.Int(float64(errs)))
		}
		add("Load phase", ls)
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

func classNames(m map[string]uint64) []string {
	out := make([]string, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

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
