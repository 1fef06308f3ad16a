package hazelcast

import (
	"context"
	"strconv"
)

// What the target reports beside the figures (adapter.Summarizer).

// Summary adds the compare-and-set calls that did not apply and the members
// that left the cluster during the run.
func (t *Target) Summary(ctx context.Context) map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]string{
		"cas_failed":   strconv.FormatInt(t.casFailed.Load(), 10),
		"members_left": strconv.Itoa(t.left),
		"members_now":  strconv.Itoa(len(t.members)),
	}
	if t.locks != nil {
		out["lock_busy"] = strconv.FormatInt(t.locks.busy.Load(), 10)
		out["sessions_expired"] = strconv.FormatInt(t.locks.expired.Load(), 10)
	}
	return out
}
