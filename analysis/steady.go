package analysis

import (
	"fmt"
	"math"
	"time"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// Steady is the warm-up decision plus the index of the first steady interval.
type Steady struct {
	result.SteadyState
	// First is the index in Phase.Intervals of the first steady interval.
	First int
}

// MSER batch size and the shortest series each variant accepts.
const (
	mserBatch       = 5
	mserMinBatches  = 10   // MSER-5 needs at least 50 full intervals
	mserMinSingle   = 10   // below that, no automatic truncation at all
	warmupMinEffect = 0.03 // smallest warm-up effect worth trimming: 3% of the steady mean
)

// SteadyStateOf decides where p's steady state begins. warmup is "auto"
// (or ""), a duration, or "0"; see Options.Warmup.
func SteadyStateOf(p *result.Phase, warmup string) (Steady, error) {
	auto, forced, perr := parseWarmup(warmup)
	if perr != nil {
		return Steady{}, perr
	}
	req := warmup
	if req == "" {
		req = "auto"
	}
	st := Steady{SteadyState: result.SteadyState{Requested: req}}
	n := len(p.Intervals)
	if !auto {
		if forced == 0 {
			st.Method = "none"
			st.Reason = "warmup 0: no warm-up trimmed"
			return st, nil
		}
		var phaseNs int64
		if n > 0 {
			phaseNs = p.Intervals[n-1].StartNs + durOf(&p.Intervals[n-1])
		} else {
			phaseNs = p.DurationNs
		}
		if int64(forced) >= phaseNs {
			return Steady{}, usererr.Field("warmup", "%s is not shorter than the %s phase %q (fix: a shorter warmup, or a warmup of 0)",
				forced, time.Duration(phaseNs).Round(time.Millisecond), p.Name)
		}
		first := n
		for i := range p.Intervals {
			if p.Intervals[i].StartNs >= int64(forced) {
				first = i
				break
			}
		}
		st.Method = "forced"
		st.First = first
		st.WarmupIntervals = first
		if first < n {
			st.WarmupNs = p.Intervals[first].StartNs
		}
		st.Reason = fmt.Sprintf("warmup %s: the first %s trimmed as asked", forced, time.Duration(st.WarmupNs))
		return st, nil
	}

	// Automatic: the 1 s throughput series of the full intervals.
	rs := rates(p, "")
	var ys []float64
	var idx []int // index in p.Intervals of each ys element
	for i, ir := range rs {
		if ir.full {
			ys = append(ys, ir.opsPerS())
			idx = append(idx, i)
		}
	}
	c := autoCut(p, ys, idx, throughputSeries)
	if p.Mode == "open" {
		// At a fixed rate the throughput is the schedule's, so a warm-up
		// (cold caches, JIT, connection set-up) shows in latency instead:
		// examine the 1 s mean latency series too and keep the later cut.
		lys, lidx := latencySeries(p, rs)
		if lc := autoCut(p, lys, lidx, latencyMeanSeries); lc.first > c.first {
			lc.reason += " (open loop: at a fixed rate a warm-up shows in latency, not in throughput)"
			c = lc
		}
	}
	st.Method, st.Reason, st.First = c.method, c.reason, c.first
	if c.first > 0 {
		st.WarmupIntervals = c.first
		st.WarmupNs = p.Intervals[c.first].StartNs
	}
	return st, nil
}

// series says what a series is, for the reason sentence.
type series struct {
	name  string // "throughput"
	value func(float64) string
}

var (
	throughputSeries  = series{"throughput", func(v float64) string { return fmt.Sprintf("%.0f ops/s", v) }}
	latencyMeanSeries = series{"mean latency", func(v float64) string { return time.Duration(v).Round(time.Microsecond).String() }}
)

// latencySeries is the 1 s mean latency over every op, for the full
// intervals that completed any op.
func latencySeries(p *result.Phase, rs []intervalRate) ([]float64, []int) {
	var ys []float64
	var idx []int
	for i, ir := range rs {
		if !ir.full {
			continue
		}
		var sum, n float64
		for _, o := range p.Intervals[i].Ops {
			if o.Count > 0 && o.Latency.MeanNs > 0 {
				sum += o.Latency.MeanNs * float64(o.Count)
				n += float64(o.Count)
			}
		}
		if n > 0 {
			ys = append(ys, sum/n)
			idx = append(idx, i)
		}
	}
	return ys, idx
}

// cut is an automatic warm-up decision on one series.
type cut struct {
	method, reason string
	first          int // index in Phase.Intervals of the first steady interval
}

// autoCut runs MSER-5 (or MSER on short series) on ys, whose elements are the
// intervals idx, with the guards described below.
func autoCut(p *result.Phase, ys []float64, idx []int, sr series) cut {
	batch := mserBatch
	c := cut{method: "mser-5"}
	switch {
	case len(ys) >= mserBatch*mserMinBatches:
	case len(ys) >= mserMinSingle:
		batch = 1
		c.method = "mser"
	default:
		c.method = "none"
		c.reason = fmt.Sprintf("the phase has %d full 1 s intervals, too few to detect a warm-up (MSER needs %d); nothing trimmed (fix: a longer run, or a warmup duration)", len(ys), mserMinSingle)
		return c
	}
	d, boundary := MSER(ys, batch)
	name := "MSER-5"
	if batch == 1 {
		name = "MSER (batches of 1 s: the run is shorter than 50 s)"
	}
	if d == 0 {
		c.reason = name + " found no warm-up: the series is as steady from its first second as after any truncation"
		if boundary {
			c.reason = fmt.Sprintf("%s found no steady state in the first half of the run (the %s keeps drifting); nothing trimmed: treat sustained figures with care or run longer", name, sr.name)
		}
		return c
	}
	// MSER minimises a statistic that, on a stationary but noisy series, is
	// sometimes smallest after dropping a batch that merely happened to be
	// low or high. Keep the truncation only when the trimmed part differs from
	// the rest by more than noise: 4 standard errors of the batch means (MSER
	// picks the most extreme start, so 2 or 3 would flag noise), and
	// at least 3% of the steady mean (a smaller difference barely moves the
	// sustained figure, and on noisy series it is mostly chance).
	zs := batchMeans(ys, batch)
	db := d / batch
	warmMean := mean(zs[:db])
	restMean, restSD := meanSD(zs[db:])
	diff := math.Abs(warmMean - restMean)
	se := restSD / math.Sqrt(float64(db))
	if diff <= warmupMinEffect*math.Abs(restMean) {
		c.reason = fmt.Sprintf("%s would trim %d s, but their mean differs from the rest by only %.1f%% (less than the %.0f%% worth trimming): no warm-up", name, d, pct(diff, restMean), warmupMinEffect*100)
		return c
	}
	if diff <= 4*se {
		c.reason = fmt.Sprintf("%s would trim %d s, but their mean differs from the rest by %.0f%%, within the run's noise (4 standard errors of the batch means: %.0f%%): no warm-up; the %s is too irregular to tell",
			name, d, pct(diff, restMean), pct(4*se, restMean), sr.name)
		return c
	}
	// MSER also over-truncates now and then: past the real warm-up it may
	// drop a few more batches whose removal happens to shrink the variance
	// (on 300 s runs with a 30 s ramp, by 30 s or more in 5% of seeds). Give
	// back, from the cut towards the start, every batch that is already as
	// steady as the rest: within 3 standard deviations of the batch means,
	// or 3% of the mean.
	for db > 0 {
		z := zs[db-1]
		if math.Abs(z-restMean) > math.Max(3*restSD, warmupMinEffect*math.Abs(restMean)) {
			break
		}
		db--
	}
	if db == 0 {
		c.reason = fmt.Sprintf("%s would trim %d s, but every trimmed batch is as steady as the rest: no warm-up", name, d)
		return c
	}
	if db*batch < d {
		warmMean = mean(zs[:db])
		d = db * batch
	}
	c.first = idx[d]
	c.reason = fmt.Sprintf("%s detected a warm-up of %s: its %s averaged %s against %s after it (%+.0f%%)",
		name, time.Duration(p.Intervals[c.first].StartNs), sr.name, sr.value(warmMean), sr.value(restMean), pct(warmMean-restMean, restMean))
	if boundary {
		c.reason += "; the cut is at the half-way limit, so the run may still be warming up: run longer"
	}
	return c
}

// MSER returns the number of leading observations of ys to delete, by the
// Marginal Standard Error Rule on batch means of size batch (batch 5 is
// MSER-5): the truncation d (in whole batches) minimising
//
//	MSER(d) = 1/(k-d)^2 * sum_{j=d..k-1} (z_j - mean(z_d..z_{k-1}))^2
//
// over d < k/2, where z_j are the k batch means. boundary is true when the
// minimum sits at the last allowed d, the rule's sign that the series had not
// settled within its first half.
//
// References: K. P. White Jr., "An effective truncation heuristic for bias
// reduction in simulation output", Simulation 69(6):323-334, 1997; K. P.
// White Jr., M. J. Cobb and S. C. Spratt, "A comparison of five steady-state
// truncation heuristics for simulation", Proc. 2000 Winter Simulation
// Conference, pp. 755-760 (where MSER-5 performs best).
func MSER(ys []float64, batch int) (d int, boundary bool) {
	if batch < 1 {
		batch = 1
	}
	zs := batchMeans(ys, batch)
	k := len(zs)
	if k < 2 {
		return 0, false
	}
	best, bestD := math.Inf(1), 0
	limit := (k - 1) / 2 // d < k/2 keeps at least half the batches
	if limit < 1 {
		limit = 1
	}
	for d := 0; d <= limit && d < k-1; d++ {
		m, ss := mean(zs[d:]), 0.0
		for _, z := range zs[d:] {
			ss += (z - m) * (z - m)
		}
		n := float64(k - d)
		v := ss / (n * n)
		// Strictly smaller (with a relative tolerance for float noise): ties
		// go to the shorter truncation, so a flat series keeps everything.
		if v < best*(1-1e-12) {
			best, bestD = v, d
		}
	}
	return bestD * batch, bestD == limit && bestD > 0
}

// batchMeans averages ys in batches of size b, dropping an incomplete last batch.
func batchMeans(ys []float64, b int) []float64 {
	if b == 1 {
		return ys
	}
	k := len(ys) / b
	zs := make([]float64, k)
	for j := 0; j < k; j++ {
		zs[j] = mean(ys[j*b : (j+1)*b])
	}
	return zs
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func meanSD(xs []float64) (float64, float64) {
	m := mean(xs)
	if len(xs) < 2 {
		return m, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(xs)-1))
}

func pct(x, of float64) float64 {
	if of == 0 {
		return 0
	}
	return x / of * 100
}
