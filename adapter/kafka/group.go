package kafka

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// tp is a topic partition.
type tp struct {
	topic string
	part  int32
}

// groupWatch follows which background consumer owns which partition, from
// the group's assignment callbacks, to time rebalances: a member joining
// (join_after) until it is assigned partitions, a member leaving
// (leave_after) until the others own all of its partitions.
type groupWatch struct {
	mu    sync.Mutex
	owner map[tp]int // partition -> member index

	joinIdx  int // member that joined; -1: none
	joinAt   time.Time
	joinTook time.Duration // 0: not assigned yet

	leaveIdx   int // member that left; -1: none
	leaveAt    time.Time
	leaving    map[tp]bool // its partitions no other member owns yet
	leaveTook  time.Duration
	leaveEmpty bool // it owned no partition: nothing to hand over
}

func newGroupWatch() *groupWatch {
	return &groupWatch{owner: map[tp]int{}, joinIdx: -1, leaveIdx: -1}
}

// opts are the callbacks of member idx.
func (g *groupWatch) opts(idx int) []kgo.Opt {
	gone := func(_ context.Context, _ *kgo.Client, m map[string][]int32) { g.revoked(idx, m) }
	return []kgo.Opt{
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { g.assigned(idx, m) }),
		kgo.OnPartitionsRevoked(gone), kgo.OnPartitionsLost(gone),
	}
}

func (g *groupWatch) assigned(idx int, m map[string][]int32) {
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for topic, parts := range m {
		for _, p := range parts {
			k := tp{topic, p}
			g.owner[k] = idx
			if idx != g.leaveIdx {
				delete(g.leaving, k)
			}
			n++
		}
	}
	if idx == g.joinIdx && g.joinTook == 0 && n > 0 {
		g.joinTook = max(now.Sub(g.joinAt), time.Nanosecond)
	}
	if g.leaving != nil && len(g.leaving) == 0 && g.leaveTook == 0 {
		g.leaveTook = max(now.Sub(g.leaveAt), time.Nanosecond)
	}
}

func (g *groupWatch) revoked(idx int, m map[string][]int32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for topic, parts := range m {
		for _, p := range parts {
			if k := (tp{topic, p}); g.owner[k] == idx {
				delete(g.owner, k)
			}
		}
	}
}

// joining notes that member idx is about to join.
func (g *groupWatch) joining(idx int) {
	g.mu.Lock()
	g.joinIdx, g.joinAt = idx, time.Now()
	g.mu.Unlock()
}

// leavingNow notes that member idx is about to leave, with the partitions
// it owns.
func (g *groupWatch) leavingNow(idx int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.leaveIdx, g.leaveAt, g.leaving = idx, time.Now(), map[tp]bool{}
	for k, o := range g.owner {
		if o == idx {
			g.leaving[k] = true
		}
	}
	g.leaveEmpty = len(g.leaving) == 0
}

// busiest is the member, of the first n, that owns the most partitions, and
// how many it owns.
func (g *groupWatch) busiest(n int) (idx, owns int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	owned := make([]int, n)
	for _, o := range g.owner {
		if o < n {
			owned[o]++
		}
	}
	best := 0
	for i, c := range owned {
		if c > owned[best] {
			best = i
		}
	}
	return best, owned[best]
}

// member is a background consumer that can be stopped on its own.
type member struct {
	cl   *kgo.Client
	stop context.CancelFunc
	done chan struct{} // its consume loop returned
}

// churn makes the group change during the run phase (ctx): one consumer
// joins at join_after; at leave_after (or as soon after it as a member owns
// partitions) the member owning the most partitions leaves (members: the others, by index; a member that owns none would hand
// nothing over). consume runs the loop of the member that joined, until dctx
// ends.
func (t *Target) churn(ctx, dctx context.Context, members []*member, consume func(*kgo.Client)) {
	var inner sync.WaitGroup
	defer inner.Wait()
	type event struct {
		at   time.Duration
		join bool
	}
	var evs []event
	if t.cfg.JoinAfter > 0 {
		evs = append(evs, event{t.cfg.JoinAfter, true})
	}
	if t.cfg.LeaveAfter > 0 {
		evs = append(evs, event{t.cfg.LeaveAfter, false})
	}
	slices.SortFunc(evs, func(a, b event) int { return int(a.at - b.at) })
	start := time.Now()
	for _, e := range evs {
		select {
		case <-time.After(time.Until(start.Add(e.at))):
		case <-ctx.Done():
			return
		}
		if e.join {
			idx := t.cfg.Consumers
			t.watch.joining(idx)
			cl, err := t.consumer(t.watch.opts(idx)...)
			if err != nil {
				continue // reported as no rebalance_join_ms
			}
			t.mu.Lock()
			t.bg = append(t.bg, cl)
			t.mu.Unlock()
			inner.Add(1)
			go func() { defer inner.Done(); consume(cl) }()
			continue
		}
		// A group still rebalancing at leave_after (its members revoked, a
		// slow first assignment) has no member with partitions to hand over:
		// the leave waits until one owns some, or the run ends.
		idx, owns := t.watch.busiest(len(members))
		for owns == 0 {
			select {
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
				return
			}
			idx, owns = t.watch.busiest(len(members))
		}
		leaver := members[idx]
		leaver.stop()
		<-leaver.done
		cctx, cancel := context.WithTimeout(dctx, 5*time.Second)
		_ = leaver.cl.CommitUncommittedOffsets(cctx)
		cancel()
		t.watch.leavingNow(idx)
		t.mu.Lock()
		t.bg = slices.DeleteFunc(t.bg, func(c *kgo.Client) bool { return c == leaver.cl })
		t.mu.Unlock()
		leaver.cl.Close() // leaves the group
	}
}

// noteGroupType asks the broker which protocol the background consumers'
// group runs: "consumer" (KIP-848) or "classic".
func (t *Target) noteGroupType() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	gs, err := t.admin.ListGroupsByType(ctx, []string{"consumer"})
	typ := "classic"
	if err != nil {
		typ = "unknown: " + err.Error()
	} else if _, ok := gs[t.group]; ok {
		typ = "consumer"
	}
	t.mu.Lock()
	t.groupType = typ
	t.mu.Unlock()
}

// groupSummary adds the group's protocol and the rebalance times to out.
func (t *Target) groupSummary(out map[string]string) {
	t.mu.Lock()
	typ, g := t.groupType, t.watch
	t.mu.Unlock()
	if typ != "" {
		out["kafka.group_protocol"] = typ
	}
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	ms := func(d time.Duration, started bool) string {
		switch {
		case d > 0:
			return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64)
		case started:
			return "not done by the end of the run"
		}
		return "not started (the run ended first)"
	}
	if t.cfg.JoinAfter > 0 {
		out["kafka.rebalance_join_ms"] = ms(g.joinTook, g.joinIdx >= 0)
	}
	if t.cfg.LeaveAfter > 0 {
		out["kafka.rebalance_leave_ms"] = ms(g.leaveTook, g.leaveIdx >= 0)
		if g.leaveEmpty {
			out["kafka.rebalance_leave_ms"] = "none: the member owned no partition"
		}
	}
}
