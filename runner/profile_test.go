package runner

import (
	"math"
	"strings"
	"testing"

	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

func mustProfile(t testing.TB, s string) Profile {
	t.Helper()
	p, err := ParseProfile(s)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return p
}

// Each profile's rate, integrated by hand: Cum at chosen times, and Inv as
// its inverse.
func TestProfileCumAndInv(t *testing.T) {
	cases := []struct {
		spec string
		at   []float64 // seconds
		cum  []float64 // hand-computed Cum(at)
		rate []float64 // hand-computed Rate(at)
	}{
		{"20k", []float64{0, 1, 2.5}, []float64{0, 20000, 50000}, []float64{20000, 20000, 20000}},
		// 1k rising to 5k over 4 s (mean 3k: 12k ops), then 5k held.
		{"ramp(1k, 5k, 4s)", []float64{2, 4, 6}, []float64{2000 + 1000*2, 12000, 22000}, []float64{3000, 5000, 5000}},
		// From 0 to 10k over 10 s (50k), 10k for 10 s (100k), down to 0 over 10 s (50k), 0 after.
		{"stages(10s:10k, 10s:10k, 10s:0)", []float64{10, 20, 30, 40}, []float64{50000, 150000, 200000, 200000}, []float64{10000, 10000, 0, 0}},
		{"stages(1k, 10s:1k)", []float64{5, 20}, []float64{5000, 20000}, []float64{1000, 1000}},
		// Mean 10k, amplitude 5k, period 4 s: a whole period is 40k; at a
		// quarter period the integral is 10k + 5k*4/(2pi).
		{"sine(10k, 5k, 4s)", []float64{1, 4}, []float64{10000 + 5000*4/(2*math.Pi), 40000}, []float64{15000, 10000}},
		// 50k for 1 s then 5k for 4 s, repeated: 70k per 5 s cycle.
		{"bursts(50k, 1s, 5k, 4s)", []float64{0.5, 1, 5, 10.5, 12}, []float64{25000, 50000, 70000, 140000 + 25000, 140000 + 50000 + 5000}, []float64{50000, 5000, 50000, 50000, 5000}},
	}
	for _, c := range cases {
		p := mustProfile(t, c.spec)
		for i, at := range c.at {
			if got := p.Cum(at); math.Abs(got-c.cum[i]) > 1e-6*max(1, c.cum[i]) {
				t.Errorf("%s: Cum(%g) = %.3f, want %.3f", c.spec, at, got, c.cum[i])
			}
			if got := p.Rate(at); math.Abs(got-c.rate[i]) > 1e-6*max(1, c.rate[i]) {
				t.Errorf("%s: Rate(%g) = %.3f, want %.3f", c.spec, at, got, c.rate[i])
			}
			// Inv undoes Cum wherever the rate is not zero.
			if c.rate[i] > 0 && at > 0 {
				if back := p.Inv(c.cum[i]); math.Abs(back-at) > 1e-6 {
					t.Errorf("%s: Inv(Cum(%g)) = %g", c.spec, at, back)
				}
			}
		}
	}
	// A rate that falls to 0 for good never reaches more arrivals.
	if got := mustProfile(t, "stages(10s:10k, 10s:0)").Inv(100001); !math.IsInf(got, 1) {
		t.Errorf("Inv past the last arrival = %g, want +Inf", got)
	}
}

// Evenly spaced arrivals follow the profile second by second: the count in
// every second is the integral of the rate over it, to one arrival; and the
// lanes together make the same schedule as one lane.
func TestArrivalsPerSecondFollowTheProfile(t *testing.T) {
	for _, spec := range []string{"ramp(100, 5k, 10s)", "stages(2s:1k, 3s:4k, 2s:500)", "sine(3k, 2k, 4s)", "bursts(6k, 500ms, 1k, 1500ms)", "2k"} {
		p := mustProfile(t, spec)
		const secs = 10
		for _, lanes := range []int{1, 3} {
			var counts [secs]float64
			for lane := range lanes {
				a := newArrival(Stream{Profile: p}, false, lane, lanes, 1)
				for a.next < secs*1e9 {
					counts[a.next/1e9]++
					a.advance()
				}
			}
			for s := range secs {
				want := p.Cum(float64(s+1)) - p.Cum(float64(s))
				if math.Abs(counts[s]-want) > float64(lanes)+0.5 {
					t.Errorf("%s over %d lanes: second %d has %.0f arrivals, want %.1f", spec, lanes, s, counts[s], want)
				}
			}
		}
	}
}

// A Poisson stream's gaps are exponential with the profile's mean: the
// chi-square of 20 equal-probability bins of 100k gaps against Exp(rate), and
// the count per second against the rate.
func TestPoissonGapsAreExponential(t *testing.T) {
	const rate, n, bins = 10000.0, 100000, 20
	a := newArrival(Stream{Profile: Constant(rate)}, true, 0, 1, 42)
	var hist [bins]float64
	prev := int64(0)
	for range n {
		gap := float64(a.next-prev) / 1e9
		prev = a.next
		// Bin by the exponential CDF: each bin holds 1/bins of the mass.
		b := int(float64(bins) * (1 - math.Exp(-rate*gap)))
		hist[min(b, bins-1)]++
		a.advance()
	}
	chi := 0.0
	for _, o := range hist {
		e := float64(n) / bins
		chi += (o - e) * (o - e) / e
	}
	// 19 degrees of freedom: the 99.9% point is 43.8.
	if chi > 43.8 {
		t.Errorf("chi-square of the gaps = %.1f over %d bins, want < 43.8 (p = 0.001): %v", chi, bins, hist)
	}
	// n arrivals at 10k/s take about 10 s (sd of the sum: sqrt(n)/rate).
	if got := float64(prev) / 1e9; math.Abs(got-n/rate) > 5*math.Sqrt(n)/rate {
		t.Errorf("%d arrivals took %.3f s, want about %.1f", n, got, n/rate)
	}
	// Under a ramp, the count per second still follows the profile (within
	// 5 standard deviations of a Poisson count).
	p := mustProfile(t, "ramp(1k, 9k, 8s)")
	var counts [8]float64
	for lane := range 2 {
		a := newArrival(Stream{Profile: p}, true, lane, 2, 7)
		for a.next < 8e9 {
			counts[a.next/1e9]++
			a.advance()
		}
	}
	for s, c := range counts {
		want := p.Cum(float64(s+1)) - p.Cum(float64(s))
		if math.Abs(c-want) > 5*math.Sqrt(want) {
			t.Errorf("poisson ramp: second %d has %.0f arrivals, want %.0f ± %.0f", s, c, want, 5*math.Sqrt(want))
		}
	}
}

// Streams with their own operation merge in time order, each on its own schedule.
func TestScheduleMergesStreamsByIntendedStart(t *testing.T) {
	var ss Streams
	for _, v := range []string{"read=3k", "update=1k"} {
		if err := ss.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	sch := newSchedule(ss, false, 0, 1, 1)
	var n [vocab.NumOps]int
	last := int64(-1)
	for {
		a, at := sch.peek()
		if at >= 1e9 {
			break
		}
		if at < last {
			t.Fatalf("arrival at %d after one at %d", at, last)
		}
		last = at
		n[a.op]++
		a.advance()
	}
	if n[vocab.OpRead] != 3000 || n[vocab.OpUpdate] != 1000 {
		t.Errorf("one second: %d reads, %d updates; want 3000 and 1000", n[vocab.OpRead], n[vocab.OpUpdate])
	}
	if got := ss.String(); got != "read=3k; update=1k" {
		t.Errorf("String() = %q", got)
	}
	if _, ok := ss.Rate(); ok {
		t.Error("per-op streams reported as one constant rate")
	}
}

func TestParseProfileRefusesNonsense(t *testing.T) {
	for _, c := range []struct{ in, say string }{
		{"ramp(1k, 5k)", "takes 3 arguments"},
		{"ramp(0, 0, 10s)", "sends nothing"},
		{"ramp(1k, 5k, 0s)", "must be above 0"},
		{"sine(1k, 2k, 10s)", "below 0"},
		{"stages()", "at least one"},
		{"stages(10s:0)", "sends nothing"},
		{"stages(10s)", "DURATION:RATE"},
		{"zigzag(1k)", "not one of"},
		{"ramp(1k, 5k, 10s", "closing parenthesis"},
		{"-5", ""},
		{"fast", ""},
		{"bursts(0, 1s, 0, 1s)", "sends nothing"},
	} {
		_, err := ParseProfile(c.in)
		if err == nil {
			t.Errorf("%q: accepted", c.in)
			continue
		}
		if !strings.Contains(err.Error(), c.say) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %q, want one line containing %q", c.in, err, c.say)
		}
	}
	// An operation the workload does not have is refused once the workload
	// is known; one of its named operations resolves.
	var named Streams
	if err := named.Set("reed=1k"); err != nil {
		t.Fatal(err)
	}
	spec := workload.Spec{Name: "ycsb-a", Mix: []vocab.Mix{{Op: vocab.OpRead, Weight: 1}, {Op: vocab.OpUpdate, Weight: 1}}}
	if err := named.Resolve(&spec); err == nil || !strings.Contains(err.Error(), "not an operation of workload ycsb-a (fix: one of read, update)") {
		t.Errorf("unknown op: %v", err)
	}
	spec.NamedOps = []string{"reed"}
	if err := named.Resolve(&spec); err != nil || named[0].Op != vocab.OpNamed0 || !named[0].HasOp {
		t.Errorf("named op: %v %+v", err, named[0])
	}
	if _, err := ParseStream("=1k"); err == nil {
		t.Error("an empty operation name was accepted")
	}
	var ss Streams
	if err := ss.Set("1k"); err != nil {
		t.Fatal(err)
	}
	if err := ss.Set("0"); err != nil || len(ss) != 0 {
		t.Errorf("--rate 0 should mean closed loop: %v %v", ss, err)
	}
}

// The grammar never panics, and whatever it accepts has a finite, increasing
// schedule start.
func FuzzParseStream(f *testing.F) {
	for _, s := range []string{"20k", "read=ramp(1k, 5k, 30s)", "stages(1k, 30s:10k, 1m:0)", "sine(10k, 5k, 1m)", "bursts(50k, 10s, 5k, 50s)", "update=0.5", "ramp(,,)", "stages(:)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStream(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error for %q: %v", s, err)
			}
			return
		}
		for _, poisson := range []bool{false, true} {
			a := newArrival(st, poisson, 0, 2, 1)
			prev := int64(-1)
			for range 50 {
				if a.next < prev || a.next < 0 {
					t.Fatalf("%q: arrival at %d after %d", s, a.next, prev)
				}
				prev = a.next
				a.advance()
			}
		}
	})
}
