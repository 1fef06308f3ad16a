package runner

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/platbench/platbench/internal/units"
)

// Profile is how an open loop's rate changes over the run phase: constant,
// a ramp, k6-style stages, a sine wave or repeating bursts. Cum and Inv let
// the schedule place arrivals exactly: the k-th evenly spaced arrival is due
// at Inv(k), and a Poisson process with this rate is a unit-rate one in the
// time scale Cum (the time-change theorem), so one mechanism serves both.
//
// A Profile is a value (its zero value is "no rate": closed loop); parse one
// with ParseProfile. Times are seconds from the phase start.
type Profile struct {
	segs []segment // piecewise linear rate; the last one holds forever
	sine *sineWave
	// period > 0: segs describe one cycle of that many seconds (all finite),
	// repeated; cycle is the expected arrivals per period.
	period, cycle float64
	text          string
}

// segment is a rate going linearly from r0 to r1 over [t0, t0+dur); c0 is
// the expected arrivals before t0. dur is +Inf for the final hold.
type segment struct {
	t0, dur, r0, r1, c0 float64
}

// sineWave is rate(t) = mean + amp*sin(2*pi*t/period), amp <= mean.
type sineWave struct{ mean, amp, period float64 }

// Constant returns the profile of a fixed rate (ops/s).
func Constant(rate float64) Profile {
	return Profile{segs: []segment{{dur: math.Inf(1), r0: rate, r1: rate}}, text: units.Compact(rate)}
}

// IsZero reports whether p is the zero Profile (no rate given).
func (p Profile) IsZero() bool { return p.segs == nil && p.sine == nil }

// String gives the profile as it was (or could have been) typed.
func (p Profile) String() string { return p.text }

// ConstantRate returns the rate and true when the profile never changes.
func (p Profile) ConstantRate() (float64, bool) {
	if len(p.segs) == 1 && p.segs[0].r0 == p.segs[0].r1 && p.sine == nil {
		return p.segs[0].r0, true
	}
	return 0, false
}

// Rate is the intended rate (ops/s) at t seconds.
func (p Profile) Rate(t float64) float64 {
	if p.sine != nil {
		w := p.sine
		return w.mean + w.amp*math.Sin(2*math.Pi*t/w.period)
	}
	if p.period > 0 {
		t = math.Mod(t, p.period)
	}
	s := p.seg(t)
	if math.IsInf(s.dur, 1) || s.dur == 0 {
		return s.r1
	}
	return s.r0 + (s.r1-s.r0)*(t-s.t0)/s.dur
}

// Cum is the expected number of arrivals in [0, t).
func (p Profile) Cum(t float64) float64 {
	if t <= 0 {
		return 0
	}
	if p.sine != nil {
		w := p.sine
		k := 2 * math.Pi / w.period
		return w.mean*t + w.amp/k*(1-math.Cos(k*t))
	}
	base := 0.0
	if p.period > 0 {
		n := math.Floor(t / p.period)
		base, t = n*p.cycle, t-n*p.period
	}
	s := p.seg(t)
	x := t - s.t0
	slope := 0.0
	if !math.IsInf(s.dur, 1) && s.dur > 0 {
		slope = (s.r1 - s.r0) / s.dur
	}
	return base + s.c0 + s.r0*x + slope*x*x/2
}

// Inv is the time t at which Cum(t) reaches u (the earliest such t), or +Inf
// when the profile never gets there (a rate that falls to 0 for good).
func (p Profile) Inv(u float64) float64 {
	if u <= 0 {
		return 0
	}
	if p.sine != nil {
		return p.sine.inv(u)
	}
	base := 0.0
	if p.period > 0 {
		n := math.Floor(u / p.cycle)
		base, u = n*p.period, u-n*p.cycle
		if u == 0 {
			return base
		}
	}
	i := len(p.segs) - 1
	for i > 0 && p.segs[i].c0 >= u {
		i--
	}
	s := p.segs[i]
	need := u - s.c0
	if math.IsInf(s.dur, 1) {
		if s.r1 <= 0 {
			return math.Inf(1)
		}
		return base + s.t0 + need/s.r1
	}
	a := (s.r1 - s.r0) / s.dur / 2 // need = r0*x + a*x^2
	var x float64
	switch {
	case math.Abs(a) < 1e-12:
		x = need / s.r0
	default:
		// The root in [0, dur]; written to avoid cancellation.
		d := s.r0*s.r0 + 4*a*need
		x = 2 * need / (s.r0 + math.Sqrt(max(d, 0)))
	}
	return base + s.t0 + min(x, s.dur)
}

// inv solves Cum(t) = u for the sine by bisection: Cum is non-decreasing
// (rate >= 0) and Cum(t) >= mean*t (1 - cos >= 0), so the root lies in
// [0, u/mean]. (Newton's method went backwards where the rate touches 0,
// an amplitude equal to the mean: found by FuzzParseStream.)
func (w *sineWave) inv(u float64) float64 {
	k := 2 * math.Pi / w.period
	lo, hi := 0.0, u/w.mean
	for range 200 {
		mid := (lo + hi) / 2
		if w.mean*mid+w.amp/k*(1-math.Cos(k*mid)) < u {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-12*hi {
			break
		}
	}
	return hi
}

// seg finds the segment t falls in.
func (p Profile) seg(t float64) segment {
	for i := len(p.segs) - 1; i > 0; i-- {
		if t >= p.segs[i].t0 {
			return p.segs[i]
		}
	}
	return p.segs[0]
}

// Scale returns the profile with every rate multiplied by f (a loader's share
// of a total rate, or a lane's share of a loader's).
func (p Profile) Scale(f float64) Profile {
	q := Profile{text: p.text, period: p.period, cycle: p.cycle * f}
	if p.sine != nil {
		w := *p.sine
		w.mean *= f
		w.amp *= f
		q.sine = &w
	}
	for _, s := range p.segs {
		s.r0 *= f
		s.r1 *= f
		s.c0 *= f
		q.segs = append(q.segs, s)
	}
	return q
}

// Peak is the highest rate the profile reaches.
func (p Profile) Peak() float64 {
	if p.sine != nil {
		return p.sine.mean + p.sine.amp
	}
	m := 0.0
	for _, s := range p.segs {
		m = max(m, s.r0, s.r1)
	}
	return m
}

// build fills c0 of every segment from the ones before it.
func build(text string, segs []segment) Profile {
	c := 0.0
	for i := range segs {
		segs[i].c0 = c
		if !math.IsInf(segs[i].dur, 1) {
			c += (segs[i].r0 + segs[i].r1) / 2 * segs[i].dur
		}
	}
	return Profile{segs: segs, text: text}
}

// ParseProfile reads a rate profile:
//
//	20k                          a constant 20,000 ops/s
//	ramp(1k, 50k, 60s)           1k/s rising linearly to 50k/s over 60 s, then held
//	stages(30s:10k, 1m:10k, 30s:0)  k6's ramping arrival rate: from 0 (or a
//	                             leading rate: stages(1k, 30s:10k)) linearly to each
//	                             stage's rate over its duration; the last is held
//	sine(10k, 5k, 1m)            mean 10k/s, amplitude 5k/s, period 1 min
//	bursts(50k, 10s, 5k, 50s)    50k/s for 10 s, then 5k/s for 50 s, repeated
//
// Rates and durations use the units grammar (20k, 1.5M/s; 500ms, 1m).
func ParseProfile(s string) (Profile, error) {
	text := strings.TrimSpace(s)
	open := strings.IndexByte(text, '(')
	if open < 0 {
		r, err := units.ParseRate(text)
		if err != nil {
			return Profile{}, err
		}
		if r <= 0 {
			return Profile{}, fmt.Errorf("rate %q must be above 0 (fix: e.g. 20k, or ramp(1k, 50k, 60s))", text)
		}
		return Constant(r), nil
	}
	if !strings.HasSuffix(text, ")") {
		return Profile{}, fmt.Errorf("rate profile %q has no closing parenthesis (fix: e.g. ramp(1k, 50k, 60s))", text)
	}
	kind := strings.ToLower(strings.TrimSpace(text[:open]))
	args := strings.Split(text[open+1:len(text)-1], ",")
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	var p Profile
	var err error
	switch kind {
	case "ramp":
		p, err = parseRamp(args)
	case "stages":
		p, err = parseStages(args)
	case "sine":
		p, err = parseSine(args)
	case "bursts":
		p, err = parseBursts(args)
	default:
		return Profile{}, fmt.Errorf("rate profile %q is not one of ramp, stages, sine, bursts (fix: e.g. ramp(1k, 50k, 60s))", kind)
	}
	if err != nil {
		return Profile{}, fmt.Errorf("rate profile %q: %w", text, err)
	}
	p.text = text
	return p, nil
}

// args reads a profile's arguments: r for a rate, d for a duration.
func parseArgs(args []string, kinds string, example string) ([]float64, error) {
	if len(args) != len(kinds) {
		return nil, fmt.Errorf("takes %d arguments, not %d (fix: e.g. %s)", len(kinds), len(args), example)
	}
	out := make([]float64, len(args))
	for i, a := range args {
		v, err := parseArg(a, kinds[i])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func parseArg(a string, kind byte) (float64, error) {
	if kind == 'd' {
		d, err := units.ParseDuration(a)
		if err != nil {
			return 0, err
		}
		if d <= 0 {
			return 0, fmt.Errorf("duration %q must be above 0", a)
		}
		return time.Duration(d).Seconds(), nil
	}
	r, err := units.ParseRate(a)
	if err != nil {
		return 0, err
	}
	if r < 0 || math.IsInf(r, 0) || math.IsNaN(r) {
		return 0, fmt.Errorf("rate %q must be 0 or more", a)
	}
	return r, nil
}

func parseRamp(args []string) (Profile, error) {
	v, err := parseArgs(args, "rrd", "ramp(1k, 50k, 60s)")
	if err != nil {
		return Profile{}, err
	}
	if v[0] == 0 && v[1] == 0 {
		return Profile{}, fmt.Errorf("a ramp from 0 to 0 sends nothing (fix: e.g. ramp(0, 50k, 60s))")
	}
	return build("", []segment{{t0: 0, dur: v[2], r0: v[0], r1: v[1]}, {t0: v[2], dur: math.Inf(1), r0: v[1], r1: v[1]}}), nil
}

func parseStages(args []string) (Profile, error) {
	const ex = "stages(30s:10k, 1m:10k, 30s:0)"
	if len(args) == 0 || (len(args) == 1 && args[0] == "") {
		return Profile{}, fmt.Errorf("needs at least one DURATION:RATE stage (fix: e.g. %s)", ex)
	}
	from := 0.0
	if !strings.Contains(args[0], ":") {
		r, err := parseArg(args[0], 'r')
		if err != nil {
			return Profile{}, fmt.Errorf("%q is neither a start rate nor a DURATION:RATE stage (fix: e.g. %s)", args[0], ex)
		}
		from, args = r, args[1:]
		if len(args) == 0 {
			return Profile{}, fmt.Errorf("needs at least one DURATION:RATE stage after the start rate (fix: e.g. stages(1k, 30s:10k))")
		}
	}
	var segs []segment
	t, peak := 0.0, from
	for _, a := range args {
		ds, rs, ok := strings.Cut(a, ":")
		if !ok {
			return Profile{}, fmt.Errorf("stage %q is not DURATION:RATE (fix: e.g. %s)", a, ex)
		}
		d, err := parseArg(strings.TrimSpace(ds), 'd')
		if err != nil {
			return Profile{}, err
		}
		r, err := parseArg(strings.TrimSpace(rs), 'r')
		if err != nil {
			return Profile{}, err
		}
		segs = append(segs, segment{t0: t, dur: d, r0: from, r1: r})
		t, from, peak = t+d, r, max(peak, r)
	}
	if peak == 0 {
		return Profile{}, fmt.Errorf("every stage's rate is 0: it sends nothing (fix: e.g. %s)", ex)
	}
	segs = append(segs, segment{t0: t, dur: math.Inf(1), r0: from, r1: from})
	return build("", segs), nil
}

func parseSine(args []string) (Profile, error) {
	v, err := parseArgs(args, "rrd", "sine(10k, 5k, 1m)")
	if err != nil {
		return Profile{}, err
	}
	if v[0] <= 0 {
		return Profile{}, fmt.Errorf("the mean rate must be above 0 (fix: e.g. sine(10k, 5k, 1m))")
	}
	if v[1] > v[0] {
		return Profile{}, fmt.Errorf("the amplitude %s is above the mean %s: the rate would go below 0 (fix: an amplitude up to the mean)", units.Compact(v[1]), units.Compact(v[0]))
	}
	return Profile{sine: &sineWave{mean: v[0], amp: v[1], period: v[2]}}, nil
}

func parseBursts(args []string) (Profile, error) {
	v, err := parseArgs(args, "rdrd", "bursts(50k, 10s, 5k, 50s)")
	if err != nil {
		return Profile{}, err
	}
	if v[0] == 0 && v[2] == 0 {
		return Profile{}, fmt.Errorf("both levels are 0: it sends nothing (fix: e.g. bursts(50k, 10s, 5k, 50s))")
	}
	p := build("", []segment{{t0: 0, dur: v[1], r0: v[0], r1: v[0]}, {t0: v[1], dur: v[3], r0: v[2], r1: v[2]}})
	p.period, p.cycle = v[1]+v[3], v[0]*v[1]+v[2]*v[3]
	return p, nil
}
