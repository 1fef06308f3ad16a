package analysis

import (
	"errors"

	"github.com/platbench/platbench/result"
)

// SeedFigures are the figures the seed reports (../shared/seeds) state for
// one run, over its steady window: cassandra-stress's op rate and latency
// per op type ([READ: x, WRITE: y]), peak against sustained throughput,
// the min/max/mean/std-dev of the per-second throughput (Hazelcast CP),
// and the payload bytes written per second (Kafka ingestion; reads' bytes
// are not counted). report.WriteSeedTable draws it.
type SeedFigures struct {
	SustainedOpsPerS   float64
	PeakOpsPerS        float64
	SustainedBytesPerS float64
	// Stability is the per-second throughput's min, max, mean, std-dev.
	Stability result.Stability
	// Latency is every op's latency over the steady window.
	Latency result.Summary
	// Ops are the op types in the run's order, with their own figures.
	Ops []SeedOp
}

// SeedOp is one op type's share of SeedFigures.
type SeedOp struct {
	Op               string
	SustainedOpsPerS float64
	Latency          result.Summary
}

// SeedFiguresOf reads r's seed figures from its analysis (Analyze, or the
// analysis a result file stores) and its main phase.
func SeedFiguresOf(r *result.Result) (*SeedFigures, error) {
	a := r.Analysis
	if a == nil {
		return nil, errors.New("the result has no analysis (fix: run 'platbench report' on it once, or rerun the cell)")
	}
	p := r.MainPhase()
	if p == nil {
		return nil, errors.New("the result has no run phase")
	}
	first := a.SteadyState.WarmupIntervals
	s := &SeedFigures{
		SustainedOpsPerS: a.Steady.SustainedOpsPerS, PeakOpsPerS: a.Steady.PeakOpsPerS,
		SustainedBytesPerS: a.Steady.SustainedBytesPerS, Stability: a.Steady.Stability,
	}
	var err error
	if s.Latency, err = SteadyLatency(p, first); err != nil {
		return nil, err
	}
	for _, ow := range a.Steady.PerOp {
		lat, err := SteadyLatency(p, first, ow.Op)
		if err != nil {
			return nil, err
		}
		s.Ops = append(s.Ops, SeedOp{Op: ow.Op, SustainedOpsPerS: ow.SustainedOpsPerS, Latency: lat})
	}
	return s, nil
}
