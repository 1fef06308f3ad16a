package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// Figures are the numbers every renderer shows for one run, computed once
// from a result. A figure that was not measured stays at its zero value and
// the renderers leave it out.
type Figures struct {
	Label       string  `json:"label"`
	Phase       string  `json:"phase"`
	Mode        string  `json:"mode"` // closed or open
	DurationS   float64 `json:"duration_s"`
	Concurrency int     `json:"concurrency"`
	RateOpsPerS float64 `json:"rate_ops_per_s,omitempty"` // target rate of an open-loop run
	Workload    string  `json:"workload"`
	Mix         string  `json:"mix"`
	Interrupted bool    `json:"interrupted,omitempty"`

	TotalOps   uint64            `json:"total_ops"`
	ErrorTotal uint64            `json:"error_total"`
	Errors     map[string]uint64 `json:"errors,omitempty"` // by class
	Delayed    uint64            `json:"delayed,omitempty"`

	// PeakOpsPerS is the highest full 1 s interval of the window.
	PeakOpsPerS float64 `json:"peak_ops_per_s"`
	// MeanOpsPerS is completions over the whole phase (warm-up included).
	MeanOpsPerS float64 `json:"mean_ops_per_s"`
	// SustainedOpsPerS is completions in the steady-state window over its length.
	SustainedOpsPerS float64   `json:"sustained_ops_per_s"`
	Window           Window    `json:"window"`
	Stability        Stability `json:"stability"`
	Stalls           Stalls    `json:"stalls"`

	// Latency and Service merge every op type's histogram.
	Latency result.Summary `json:"latency"`
	Service result.Summary `json:"service"`
	Ops     []OpFigures    `json:"ops"`

	Cost *Cost `json:"cost,omitempty"`
	// PageCache is the analysis' verdict on dataset size against RAM.
	PageCache string   `json:"page_cache,omitempty"`
	Notes     []string `json:"notes,omitempty"`
}

// Window is the steady-state window the sustained figures use.
type Window struct {
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
	// Source says how the start was chosen ("MSER-5", "--warmup 75s", "none").
	Source string `json:"source"`
	// Reason is the analysis' sentence on why (empty without analysis).
	Reason string `json:"reason,omitempty"`
}

// Stability is the spread of the 1 s throughput over the window.
type Stability struct {
	N      int     `json:"n"`
	Min    float64 `json:"min_ops_per_s"`
	Max    float64 `json:"max_ops_per_s"`
	Mean   float64 `json:"mean_ops_per_s"`
	StdDev float64 `json:"stddev_ops_per_s"`
	CV     float64 `json:"cv"` // StdDev / Mean
}

// Stalls are fine buckets with no completion while requests were in flight.
type Stalls struct {
	Count     int    `json:"count"`
	LongestNs int64  `json:"longest_ns"`
	TotalNs   int64  `json:"total_ns"`
	Period    string `json:"period,omitempty"` // e.g. "repeats every 1 s"
}

// OpFigures is one op type.
type OpFigures struct {
	Op         string            `json:"op"`
	Count      uint64            `json:"count"`
	Errors     map[string]uint64 `json:"errors,omitempty"`
	ErrorTotal uint64            `json:"error_total"`
	OpsPerS    float64           `json:"ops_per_s"`
	BytesPerS  float64           `json:"bytes_per_s,omitempty"`
	Latency    result.Summary    `json:"latency"`
	Service    result.Summary    `json:"service"`
}

// Cost is the price normalisation of the sustained throughput.
type Cost struct {
	Instance      string  `json:"instance"`
	USDPerHour    float64 `json:"usd_per_hour"`
	Nodes         int     `json:"nodes"`
	OpsPerUSD     float64 `json:"ops_per_usd"`
	USDPerMillion float64 `json:"usd_per_million_ops"`
	GBPerUSD      float64 `json:"gb_per_usd,omitempty"`
	MonthlyUSD    float64 `json:"monthly_usd"`
	PriceSource   string  `json:"price_source,omitempty"`
	PriceDate     string  `json:"price_date,omitempty"`
	Note          string  `json:"note,omitempty"`
}

// Compute derives the figures of r's main phase. It fails only when the file
// holds no phase to report on.
func Compute(r *result.Result) (*Figures, error) {
	p := r.MainPhase()
	if p == nil {
		return nil, fmt.Errorf("%w: no phase to report", result.ErrMalformed)
	}
	f := &Figures{
		Label:       Label(r),
		Phase:       p.Name,
		Mode:        p.Mode,
		DurationS:   float64(p.DurationNs) / 1e9,
		Concurrency: p.Concurrency,
		RateOpsPerS: p.RateOpsPerS,
		Workload:    r.Config.Workload.Name,
		Mix:         MixString(r),
		Interrupted: p.Interrupted,
		Delayed:     p.Delayed,
		Notes:       append([]string(nil), r.Notes...),
	}
	lat, svc := hdrOrNil(), hdrOrNil()
	for _, o := range p.Ops {
		of := OpFigures{Op: o.Op, Count: o.Count, Errors: o.Errors, Latency: o.Latency, Service: o.Service}
		for c, n := range o.Errors {
			of.ErrorTotal += n
			if f.Errors == nil {
				f.Errors = map[string]uint64{}
			}
			f.Errors[c] += n
		}
		if f.DurationS > 0 {
			of.OpsPerS = float64(o.Count) / f.DurationS
			of.BytesPerS = float64(o.Bytes) / f.DurationS
		}
		f.TotalOps += o.Count
		f.ErrorTotal += of.ErrorTotal
		f.Ops = append(f.Ops, of)
		if h, err := result.DecodeHist(o.Hist); err == nil {
			lat.Merge(h)
		} else {
			return nil, fmt.Errorf("op %s: %w", o.Op, err)
		}
		if h, err := result.DecodeHist(o.ServiceHist); err == nil {
			svc.Merge(h)
		} else {
			return nil, fmt.Errorf("op %s: %w", o.Op, err)
		}
	}
	f.Latency = result.Summarize(lat)
	f.Service = result.Summarize(svc)
	if len(p.Ops) == 1 {
		// One op: its own precomputed summary is the overall one.
		f.Latency, f.Service = p.Ops[0].Latency, p.Ops[0].Service
	}
	if f.DurationS > 0 {
		f.MeanOpsPerS = float64(f.TotalOps) / f.DurationS
	}
	f.Window = Window{StartS: 0, EndS: f.DurationS, Source: "whole phase: no steady-state analysis in the file"}
	if w, src, ok := forcedWarmup(r); ok && w < f.DurationS {
		f.Window = Window{StartS: w, EndS: f.DurationS, Source: src}
	}
	analysed := applyAnalysis(f, r)
	rates := IntervalRates(p)
	var inWin []float64
	var winOps, winLen, peak float64
	for i, in := range p.Intervals {
		s := float64(in.StartNs) / 1e9
		d := float64(in.DurationNs) / 1e9
		if s+1e-9 < f.Window.StartS || s >= f.Window.EndS {
			continue
		}
		winOps += rates[i] * d
		winLen += d
		if d >= 0.5 { // a short last interval is too noisy for peak and spread
			inWin = append(inWin, rates[i])
			peak = math.Max(peak, rates[i])
		}
	}
	if analysed {
		return f, nil
	}
	f.PeakOpsPerS = peak
	if winLen > 0 {
		f.SustainedOpsPerS = winOps / winLen
	}
	f.Stability = stabilityOf(inWin)
	f.Stalls = stallsOf(p)
	if winLen > 0 {
		// Per-op rates over the same window as the sustained figure.
		for k := range f.Ops {
			var n, b uint64
			for _, in := range p.Intervals {
				s := float64(in.StartNs) / 1e9
				if s+1e-9 < f.Window.StartS || s >= f.Window.EndS {
					continue
				}
				for _, o := range in.Ops {
					if o.Op == f.Ops[k].Op {
						n += o.Count
						b += o.Bytes
					}
				}
			}
			f.Ops[k].OpsPerS = float64(n) / winLen
			if b > 0 {
				f.Ops[k].BytesPerS = float64(b) / winLen
			}
		}
	}
	if f.Stability.N == 0 {
		f.Stability = stabilityOf(inWin)
	}
	if f.Stalls.Count == 0 && f.Stalls.TotalNs == 0 {
		f.Stalls = stallsOf(p)
	}
	return f, nil
}

func hdrOrNil() *hdr.Histogram { return result.NewHist() }

// IntervalRates is the completed ops/s of each 1 s interval (all op types).
func IntervalRates(p *result.Phase) []float64 {
	out := make([]float64, len(p.Intervals))
	for i, in := range p.Intervals {
		var n uint64
		for _, o := range in.Ops {
			n += o.Count
		}
		if in.DurationNs > 0 {
			out[i] = float64(n) / (float64(in.DurationNs) / 1e9)
		}
	}
	return out
}

func stabilityOf(xs []float64) Stability {
	if len(xs) == 0 {
		return Stability{}
	}
	s := Stability{N: len(xs), Min: xs[0], Max: xs[0]}
	var sum float64
	for _, x := range xs {
		sum += x
		s.Min = math.Min(s.Min, x)
		s.Max = math.Max(s.Max, x)
	}
	s.Mean = sum / float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.StdDev = math.Sqrt(ss / float64(len(xs)-1))
	}
	if s.Mean > 0 {
		s.CV = s.StdDev / s.Mean
	}
	return s
}

// stallsOf finds runs of fine buckets with no completion while requests were
// outstanding (METHOD.md). The period check is left to package analysis.
func stallsOf(p *result.Phase) Stalls {
	b := p.Buckets
	if b.WidthNs <= 0 || len(b.Outstanding) == 0 {
		return Stalls{}
	}
	var st Stalls
	run := int64(0)
	flush := func() {
		if run > 0 {
			st.Count++
			st.TotalNs += run * b.WidthNs
			st.LongestNs = max(st.LongestNs, run*b.WidthNs)
		}
		run = 0
	}
	tot := make([]uint64, len(b.Outstanding))
	for _, cs := range b.Counts {
		for i, c := range cs[:min(len(cs), len(tot))] {
			tot[i] += uint64(c)
		}
	}
	for i, out := range b.Outstanding {
		if out && tot[i] == 0 {
			run++
		} else {
			flush()
		}
	}
	flush()
	return st
}

// forcedWarmup reads a user-forced warm-up ("75s") from the config.
func forcedWarmup(r *result.Result) (float64, string, bool) {
	w := strings.TrimSpace(r.Config.Warmup)
	if w == "" || w == "auto" {
		return 0, "", false
	}
	d, err := units.ParseDuration(w)
	if err != nil || d <= 0 {
		return 0, "", false
	}
	return d.Seconds(), "--warmup " + w, true
}

// Label names a run in comparisons: the result's label, else the instance
// type, else the architecture and CPU model.
func Label(r *result.Result) string {
	switch {
	case r.Label != "":
		return r.Label
	case r.Platform.InstanceType != "":
		return r.Platform.InstanceType
	}
	parts := []string{}
	if r.Platform.Arch != "" {
		parts = append(parts, r.Platform.Arch)
	}
	if r.Platform.CPUModel != "" {
		parts = append(parts, shortCPU(r.Platform.CPUModel))
	}
	if len(parts) == 0 {
		if r.Platform.Hostname != "" {
			return r.Platform.Hostname
		}
		return "run"
	}
	return strings.Join(parts, " ")
}

// shortCPU drops the noise from a CPU model string.
func shortCPU(m string) string {
	for _, junk := range []string{"(R)", "(TM)", "(tm)", " CPU", " Processor", "-Core"} {
		m = strings.ReplaceAll(m, junk, "")
	}
	return strings.Join(strings.Fields(m), " ")
}

// MixString is the op mix in percent, e.g. "READ 50%, UPDATE 50%".
func MixString(r *result.Result) string {
	mix := r.Config.Workload.Mix
	var sum float64
	for _, m := range mix {
		sum += m.Weight
	}
	if sum <= 0 {
		return ""
	}
	parts := make([]string, 0, len(mix))
	for _, m := range mix {
		parts = append(parts, fmt.Sprintf("%s %s%%", m.Op, units.Trim1(100*m.Weight/sum)))
	}
	return strings.Join(parts, ", ")
}

// opNames lists the op types of a phase in the result's order.
func opNames(p *result.Phase) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range p.Ops {
		if !seen[o.Op] {
			seen[o.Op] = true
			out = append(out, o.Op)
		}
	}
	var extra []string
	for op := range p.Buckets.Counts {
		if !seen[op] {
			seen[op] = true
			extra = append(extra, op)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}
