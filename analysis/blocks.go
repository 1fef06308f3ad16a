package analysis

import (
	"time"

	"github.com/platbench/platbench/result"
)

// Block is a group of two or more runs that did not interleave with the
// baseline group's two or more: every one of its runs started after every
// baseline run had ended, or ended before any had started. The between-run
// interval of such a pair covers how runs of one stretch of time differ,
// not how the two stretches do: a change between them (load beside the
// runs, a server warming up, the time of day in a cloud) counts in the
// ratio as if the setups made it. Abedi and Brecht (2017) interleave the
// alternatives in random rounds for this; a suite's repeat: does.
type Block struct {
	Group int
	// After is true when the group ran after the baseline, false before.
	After bool
	// BaseFrom and BaseTo span the baseline group's runs (its first start,
	// its last end), From and To this group's.
	BaseFrom, BaseTo, From, To time.Time
}

// blocksOf are the groups of g that ran in a block apart from group base's
// runs. Groups of one run, and runs without their times (old files), are
// passed over: there is nothing to interleave or nothing to tell.
func blocksOf(rs []*result.Result, g Grouping, base int) []Block {
	span := func(runs []int) (from, to time.Time, ok bool) {
		if len(runs) < 2 {
			return from, to, false
		}
		for _, i := range runs {
			s, e := rs[i].StartedAt, rs[i].EndedAt
			if s.IsZero() || e.IsZero() {
				return from, to, false
			}
			if from.IsZero() || s.Before(from) {
				from = s
			}
			if e.After(to) {
				to = e
			}
		}
		return from, to, true
	}
	bf, bt, ok := span(g.Groups[base].Runs)
	if !ok {
		return nil
	}
	var out []Block
	for gi, gr := range g.Groups {
		f, t, ok := span(gr.Runs)
		if gi == base || !ok {
			continue
		}
		if after, before := !f.Before(bt), !t.After(bf); after || before {
			out = append(out, Block{Group: gi, After: after, BaseFrom: bf, BaseTo: bt, From: f, To: t})
		}
	}
	return out
}

// blocked reports whether group gi ran in a block apart from the baseline's.
func (c *GroupComparison) blocked(gi int) bool {
	for _, b := range c.Blocks {
		if b.Group == gi {
			return true
		}
	}
	return false
}
