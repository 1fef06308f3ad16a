package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Stream is one arrival process of an open loop: its rate profile and, when
// HasOp is set, the one operation type it sends (reads at 20k/s and writes at
// 5k/s are two streams, each charged from its own schedule). Without HasOp
// the workload's mix picks each operation.
type Stream struct {
	// OpName is the operation as typed ("" for the mix): a built-in type or
	// one of the workload's named operations (a profile's query), which
	// Streams.Resolve turns into Op once the workload is known.
	OpName  string
	Op      vocab.Op
	HasOp   bool
	Profile Profile
}

// String gives the stream as typed: "20k", "read=ramp(1k, 5k, 30s)".
func (s Stream) String() string {
	if s.OpName != "" {
		return s.OpName + "=" + s.Profile.String()
	}
	return s.Profile.String()
}

// ParseStream reads one stream: PROFILE or OP=PROFILE (see ParseProfile).
func ParseStream(s string) (Stream, error) {
	var st Stream
	text := strings.TrimSpace(s)
	if i := strings.IndexByte(text, '='); i >= 0 && !strings.Contains(text[:i], "(") {
		name := strings.TrimSpace(text[:i])
		if name == "" || strings.ContainsAny(name, " \t,;") {
			return Stream{}, fmt.Errorf("%q names no operation (fix: OP=RATE, e.g. read=20k, update=5k)", name)
		}
		st.OpName, text = name, text[i+1:]
		// A built-in type resolves now; a workload's named operation when
		// the workload is known (Streams.Resolve).
		st.Op, st.HasOp = vocab.ParseOp(name)
	}
	p, err := ParseProfile(text)
	if err != nil {
		return Stream{}, err
	}
	st.Profile = p
	return st, nil
}

// arrival is one stream's schedule within a lane: the lane's share of the
// stream's profile, stepped in the profile's time scale (u), so that evenly
// spaced arrivals fall at Inv(k + offset) and Poisson ones at the partial
// sums of unit exponential gaps.
type arrival struct {
	prof    Profile
	op      vocab.Op
	hasOp   bool
	poisson bool
	rng     *rand.Rand
	u       float64 // arrivals so far, in the profile's scale
	// constant, evenly spaced: intended = (k*lanes + lane) * intervalNs,
	// exact at any k (no accumulated rounding).
	constant   bool
	intervalNs float64
	lanes, k   uint64
	lane       uint64
	next       int64 // intended start of the next arrival, ns; MaxInt64: none
}

// newArrival is lane `lane` of `lanes` of stream st: an evenly spaced stream
// is interleaved over the lanes (together they are evenly spaced at the full
// rate); a Poisson stream becomes `lanes` independent Poisson streams of a
// share each (their superposition is the full-rate Poisson process).
func newArrival(st Stream, poisson bool, lane, lanes int, seed uint64) *arrival {
	a := &arrival{op: st.Op, hasOp: st.HasOp, poisson: poisson, lanes: uint64(lanes), lane: uint64(lane)}
	if r, ok := st.Profile.ConstantRate(); ok && !poisson {
		a.constant, a.intervalNs = true, 1e9/r
	} else {
		a.prof = st.Profile.Scale(1 / float64(lanes))
		a.rng = rand.New(rand.NewPCG(seed, uint64(lane)+1))
		if !poisson {
			a.u = float64(lane) / float64(lanes)
		}
	}
	a.advance()
	return a
}

// advance computes the next arrival's intended start.
func (a *arrival) advance() {
	if a.constant {
		at := float64(a.k*a.lanes+a.lane) * a.intervalNs
		a.k++
		if at >= math.MaxInt64/2 { // a rate so low the next start is centuries away: never
			a.next = math.MaxInt64
			return
		}
		a.next = int64(at)
		return
	}
	var t float64
	if a.poisson {
		a.u += a.rng.ExpFloat64()
		t = a.prof.Inv(a.u)
	} else {
		t = a.prof.Inv(a.u)
		a.u++
	}
	if t*1e9 >= math.MaxInt64/2 || math.IsInf(t, 1) {
		a.next = math.MaxInt64
		return
	}
	a.next = int64(t * 1e9)
}

// schedule merges a lane's streams: the earliest next arrival goes first.
type schedule struct {
	arr []*arrival
}

func newSchedule(streams []Stream, poisson bool, lane, lanes int, seed int64) *schedule {
	s := &schedule{}
	for i, st := range streams {
		s.arr = append(s.arr, newArrival(st, poisson, lane, lanes, uint64(seed)+uint64(i)*0x9e3779b97f4a7c15))
	}
	return s
}

// peek returns the stream whose arrival is next and its intended start.
func (s *schedule) peek() (*arrival, int64) {
	best := s.arr[0]
	for _, a := range s.arr[1:] {
		if a.next < best.next {
			best = a
		}
	}
	return best, best.next
}

// describeStreams records an open-loop phase's arrival processes: the streams
// as typed, their spacing, the intended rate of every interval and the mean
// intended rate over the phase.
func describeStreams(p *result.Phase, cfg Config) {
	p.Arrival = "uniform"
	if cfg.Poisson {
		p.Arrival = "poisson"
	}
	cum := func(t float64) float64 {
		n := 0.0
		for _, st := range cfg.Streams {
			n += st.Profile.Cum(t)
		}
		return n
	}
	for _, st := range cfg.Streams {
		p.Streams = append(p.Streams, st.String())
	}
	for i := range p.Intervals {
		iv := &p.Intervals[i]
		if iv.DurationNs <= 0 {
			continue
		}
		t0 := float64(iv.StartNs) / 1e9
		t1 := t0 + float64(iv.DurationNs)/1e9
		iv.IntendedOpsPerS = (cum(t1) - cum(t0)) / (t1 - t0)
	}
	constant, sum := true, 0.0
	for _, st := range cfg.Streams {
		r, ok := st.Profile.ConstantRate()
		constant, sum = constant && ok, sum+r
	}
	if d := float64(p.DurationNs) / 1e9; constant {
		p.RateOpsPerS = sum
	} else if d > 0 {
		p.RateOpsPerS = cum(d) / d
	}
}

// Streams is the open loop's arrival processes as a person types them: one
// `[OP=]PROFILE` per Set (a repeatable flag), e.g. "20k", or "read=20k" then
// "update=ramp(1k, 5k, 30s)". "0" alone means no rate (closed loop).
type Streams []Stream

// Set parses one stream and adds it (flag.Value).
func (s *Streams) Set(v string) error {
	if r, err := units.ParseRate(strings.TrimSpace(v)); err == nil && r == 0 {
		*s = nil
		return nil
	}
	st, err := ParseStream(v)
	if err != nil {
		return err
	}
	*s = append(*s, st)
	return nil
}

// String lists the streams as typed, separated by "; ".
func (s *Streams) String() string {
	if s == nil {
		return ""
	}
	out := make([]string, len(*s))
	for i, st := range *s {
		out[i] = st.String()
	}
	return strings.Join(out, "; ")
}

// Resolve names each stream's operation in spec's terms: its named
// operations (a profile's queries) first, then the built-in types. An
// operation the workload does not know is an error listing the ones it does.
func (s Streams) Resolve(spec *workload.Spec) error {
	for i := range s {
		if s[i].OpName == "" {
			continue
		}
		op, ok := spec.ParseOpName(s[i].OpName)
		if !ok {
			known := make([]string, 0, len(spec.Mix))
			for _, m := range spec.Mix {
				known = append(known, strings.ToLower(spec.OpName(m.Op)))
			}
			return fmt.Errorf("rate %q: %q is not an operation of workload %s (fix: one of %s)", s[i].String(), s[i].OpName, spec.Name, strings.Join(known, ", "))
		}
		s[i].Op, s[i].HasOp = op, true
	}
	return nil
}

// UnmarshalYAML reads a suite file's rate: one stream ("20k",
// "ramp(1k, 50k, 60s)") or a list of them (["read=20k", "update=5k"]).
func (s *Streams) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		return s.Set(n.Value)
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: a rate is a string such as 20k or read=ramp(1k, 5k, 30s)", c.Line)
			}
			if err := s.Set(c.Value); err != nil {
				return fmt.Errorf("line %d: %w", c.Line, err)
			}
		}
		return nil
	}
	return fmt.Errorf("line %d: rate is a rate, a profile or a list of OP=RATE (e.g. 20k, ramp(1k, 50k, 60s), [read=20k, update=5k])", n.Line)
}

// Rate returns the constant total rate when the streams are one constant
// stream of the workload's mix, which is how most runs are paced.
func (s Streams) Rate() (float64, bool) {
	if len(s) != 1 || s[0].OpName != "" {
		return 0, false
	}
	return s[0].Profile.ConstantRate()
}
