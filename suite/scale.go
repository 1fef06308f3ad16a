package suite

import (
	"fmt"
	"math"
	"time"

	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/runner"
)

// Scale: one number that sizes a whole suite, so that the file that states
// a study at its published size (100M operations, 40 minutes, 250k reads/s
// on a cluster) also runs on a laptop in minutes (scale: 0.001, or
// 'platbench suite --scale 0.001'). It multiplies what grows with the
// experiment:
//   - records (each dataset size of the axis), at least MinScaledRecords;
//   - ops, at least MinScaledOps;
//   - duration, at least MinScaledDuration, whole seconds;
//   - a warm-up given as a duration, at least 1 s (auto and 0 stay);
//   - fault events' offsets, as the run phase's length is (they keep their
//     place in it);
//   - a fixed rate (one number, not a profile or per-op streams), at
//     least MinScaledRate: the load a smaller system is offered shrinks
//     with it.
//
// Concurrency, the record shape and the mix are the experiment's design,
// not its size: they stay.

// Bounds of a scaled suite: a run shorter or smaller than these measures
// nothing a steady state can be found in.
const (
	MinScaledRecords  = 100
	MinScaledOps      = 1000
	MinScaledDuration = 5 * time.Second
	// MinScaledRate: below some 100 op/s a short run has too few samples
	// for a p99 (250k reads/s at scale 0.00001 would be 3 a second).
	MinScaledRate = 100
	// MaxScale bounds the factor: past it a typo (scale: 1000 for 0.001)
	// would start a run of years.
	MaxScale = 1000
)

// scale is the file's factor (1 when absent).
func (f *File) scale() float64 {
	if f.Scale == nil {
		return 1
	}
	return *f.Scale
}

// validScale says what is wrong with a scale factor, "" if nothing.
func validScale(s float64) string {
	if math.IsNaN(s) || s <= 0 || s > MaxScale {
		return fmt.Sprintf("%g is not a factor in (0, %d] (fix: 1 for the size the file states, 0.01 for a hundredth)", s, MaxScale)
	}
	return ""
}

// SetScale overrides the file's scale (the --scale flag); it checks the
// factor as the file's is.
func (f *File) SetScale(s float64) error {
	if msg := validScale(s); msg != "" {
		return usererr.New("scale %s", msg)
	}
	f.Scale = &s
	return nil
}

// scaledCount is n times s, rounded, at least lo (n itself when smaller).
func scaledCount(n uint64, s float64, lo uint64) uint64 {
	if s == 1 {
		return n
	}
	v := math.Round(float64(n) * s)
	if v > math.MaxUint64/2 {
		v = math.MaxUint64 / 2
	}
	return max(uint64(v), min(n, lo))
}

// scaledDuration is d times s in whole seconds, at least lo (d when smaller).
func scaledDuration(d time.Duration, s float64, lo time.Duration) time.Duration {
	if s == 1 {
		return d
	}
	v := float64(d) * s
	if v > float64(math.MaxInt64/2) {
		v = float64(math.MaxInt64 / 2)
	}
	return max(time.Duration(v).Round(time.Second), min(d, lo))
}

// scaleConfig applies the file's scale to the settings of c that come from
// the file (duration, ops, a fixed rate, a warm-up duration).
func (f *File) scaleConfig(c *bench.Config) {
	s := f.scale()
	if s == 1 {
		return
	}
	d := c.Runner.Duration
	c.Runner.Duration = scaledDuration(d, s, MinScaledDuration)
	// A fault event keeps its place in the run: its offset shrinks as the
	// run phase did (floors included).
	at := s
	if d > 0 {
		at = float64(c.Runner.Duration) / float64(d)
	}
	for i := range c.Runner.Events {
		c.Runner.Events[i].At = time.Duration(float64(c.Runner.Events[i].At) * at).Round(time.Millisecond)
	}
	c.Runner.Ops = scaledCount(c.Runner.Ops, s, MinScaledOps)
	c.Runner.Rate = scaledRate(c.Runner.Rate, s)
	if d, err := units.ParseDuration(c.Warmup); err == nil && d > 0 {
		c.Warmup = scaledDuration(d, s, time.Second).String()
	}
}

// workloadRate sets c's rate to a workload's own (Workload.Rate), scaled
// as the file's is.
func (f *File) workloadRate(c *bench.Config, rate runner.Streams) {
	c.Runner.Rate, c.Runner.Streams = 0, nil
	if r, ok := rate.Rate(); ok {
		c.Runner.Rate = scaledRate(r, f.scale())
		return
	}
	c.Runner.Streams = rate
}

// distinctScaled refuses a scale at which two dataset sizes of the axis
// become one (both under the floor): their cells would share a name and
// a result file.
func (f *File) distinctScaled(cells []Cell) error {
	seen := map[string]bool{}
	for _, c := range cells {
		if seen[c.Name] {
			return usererr.New("at scale %g two dataset sizes of records become %d (cell %s) (fix: a larger scale, or fewer sizes)", f.scale(), c.Records, c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

// scaledRate is a fixed rate r (0: none) times s, at least MinScaledRate
// (r when smaller).
func scaledRate(r, s float64) float64 {
	if r <= 0 || s == 1 {
		return r
	}
	return max(math.Round(r*s), min(r, MinScaledRate))
}
