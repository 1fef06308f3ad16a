package analysis

import (
	"sort"
	"time"

	"github.com/platbench/platbench/result"
)

// serverVsClient lines the server samples up with the main phase's 1 s
// intervals by wall-clock time. The clocks are independent: each server
// sample takes the client operations of every interval it overlaps, in
// proportion to the overlap. Samples are summed over the nodes per span of
// the first node's clock; a span without client operations is left out.
func serverVsClient(r *result.Result, side dbSide) []ServerClientPoint {
	p := r.MainPhase()
	if p == nil || p.StartedAt.IsZero() || len(r.DBMetrics.Nodes) == 0 {
		return nil
	}
	type span struct {
		from, to        time.Time
		serverNs, calls float64
	}
	var spans []span
	ref := r.DBMetrics.Nodes[0]
	for _, x := range ref.Samples {
		if x.Missing || x.DurationNs <= 0 {
			continue
		}
		from := ref.StartedAt.Add(time.Duration(x.OffsetNs))
		spans = append(spans, span{from: from, to: from.Add(time.Duration(x.DurationNs))})
	}
	// Every node's data-command time goes to the reference span holding the
	// middle of its sample.
	for _, s := range r.DBMetrics.Nodes {
		for _, x := range s.Samples {
			if x.Missing || x.DurationNs <= 0 {
				continue
			}
			mid := s.StartedAt.Add(time.Duration(x.OffsetNs + x.DurationNs/2))
			i := sort.Search(len(spans), func(i int) bool { return spans[i].to.After(mid) })
			if i == len(spans) || spans[i].from.After(mid) {
				continue
			}
			for name, c := range x.Commands {
				if side.counts(name) {
					spans[i].serverNs += c.TimeNs
					spans[i].calls += float64(c.Calls)
				}
			}
		}
	}
	var out []ServerClientPoint
	for _, sp := range spans {
		ops, sum := clientIn(p, sp.from, sp.to, side)
		per := ops
		if side.per == "request" {
			per = sp.calls
		}
		if ops < 0.5 || per < 0.5 {
			continue
		}
		pt := ServerClientPoint{AtS: max(0, sp.from.Sub(p.StartedAt).Seconds()), Ops: ops, ServerNs: sp.serverNs / per, ClientNs: sum / ops}
		pt.GapNs = pt.ClientNs - pt.ServerNs
		out = append(out, pt)
	}
	return out
}

// clientIn is the client operations completed in [from, to) and the sum
// of their latencies, taking each 1 s interval in proportion to its
// overlap with the span.
func clientIn(p *result.Phase, from, to time.Time, side dbSide) (ops, latencySum float64) {
	for _, in := range p.Intervals {
		a := p.StartedAt.Add(time.Duration(in.StartNs))
		b := a.Add(time.Duration(in.DurationNs))
		lo, hi := later(a, from), earlier(b, to)
		if !hi.After(lo) || in.DurationNs <= 0 {
			continue
		}
		share := float64(hi.Sub(lo)) / float64(in.DurationNs)
		for _, o := range in.Ops {
			if !side.clientOp(o.Op) {
				continue
			}
			ops += float64(o.Latency.Count) * share
			latencySum += float64(o.Latency.Count) * o.Latency.MeanNs * share
		}
	}
	return ops, latencySum
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
