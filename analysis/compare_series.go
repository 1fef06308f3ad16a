package analysis

import "github.com/platbench/platbench/result"

// compareSeries are the noise test's samples: the per-second values of each
// run's steady window, full intervals only (ThroughputSeries).
type compareSeries struct {
	phases []*result.Phase
	figs   []*Figures
	idx    [][]int            // the steady window's full intervals of each run
	rate   [][]float64        // their throughput
	all    [][]result.Summary // their latency, every op merged (runs of several ops)
}

func newCompareSeries(rs []*result.Result, figs []*Figures) (*compareSeries, error) {
	s := &compareSeries{figs: figs}
	for i, r := range rs {
		p := r.MainPhase()
		ops, full := ThroughputSeries(p, "")
		var idx []int
		var rate []float64
		for j := figs[i].Analysis.SteadyState.WarmupIntervals; j < len(p.Intervals); j++ {
			if full[j] {
				idx = append(idx, j)
				rate = append(rate, ops[j])
			}
		}
		all, err := mergedPerInterval(p, idx, len(figs[i].PerOp) != 1)
		if err != nil {
			return nil, &RunError{Run: i, Err: err}
		}
		s.phases = append(s.phases, p)
		s.idx = append(s.idx, idx)
		s.rate = append(s.rate, rate)
		s.all = append(s.all, all)
	}
	return s, nil
}

// mergedPerInterval summarises every op of each interval idx together, when
// need is set. An interval whose histograms do not hold all its completions
// (some op has none) gets an empty summary: a partial merge would be biased.
func mergedPerInterval(p *result.Phase, idx []int, need bool) ([]result.Summary, error) {
	if !need {
		return nil, nil
	}
	out := make([]result.Summary, len(idx))
	for k, j := range idx {
		h, err := p.MergedHist(j, j+1, result.HistLatency)
		if err != nil {
			return nil, err
		}
		var n uint64
		for _, o := range p.Intervals[j].Ops {
			n += o.Count
		}
		if n > 0 && uint64(h.TotalCount()) == n {
			out[k] = result.Summarize(h)
		}
	}
	return out, nil
}

func (s *compareSeries) rates(i int) []float64 { return s.rate[i] }

// opLatency is statistic k of op's latency in each interval of run i's window.
func (s *compareSeries) opLatency(i int, op string, k int) []float64 {
	var out []float64
	for _, j := range s.idx[i] {
		for _, o := range s.phases[i].Intervals[j].Ops {
			if o.Op == op && o.Latency.Count > 0 {
				out = append(out, latencyStat(o.Latency, k))
			}
		}
	}
	return out
}

// allLatency is statistic k of every op's latency together in each interval
// of run i's window; empty when the file keeps no interval histograms.
func (s *compareSeries) allLatency(i, k int) []float64 {
	if ops := s.figs[i].PerOp; len(ops) == 1 {
		return s.opLatency(i, ops[0].Op, k)
	}
	var out []float64
	for _, sum := range s.all[i] {
		if sum.Count > 0 {
			out = append(out, latencyStat(sum, k))
		}
	}
	return out
}
