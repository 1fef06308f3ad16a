package redis

import (
	"context"
	"errors"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/platbench/platbench/adapter/redis/resp"
)

// What the target reports beside the figures: the pipelined shape
// (adapter.Summarizer) and the servers' INFO during the run
// (adapter.StatusReader).

// Summary adds to the result what was in flight when the run was pipelined
// (Describe runs before the runner has chosen the shape).
func (t *Target) Summary(ctx context.Context) map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.async {
		return nil
	}
	return map[string]string{"in_flight": t.inFlightText()}
}

// StatusNodes lists the servers INFO is read from: the URL's address in
// standalone mode, every shard's master in cluster mode.
func (t *Target) StatusNodes(ctx context.Context) []string {
	if t.cluster == nil {
		return t.cfg.Addrs[:1]
	}
	var nodes []string
	_ = t.cluster.ForEachMaster(ctx, func(ctx context.Context, c *goredis.Client) error {
		t.mu.Lock()
		nodes = append(nodes, c.Options().Addr)
		t.mu.Unlock()
		return nil
	})
	return nodes
}

// ReadStatus runs INFO everything on node over a connection of its own
// (kept between calls, dialled again after an error), with the target's
// credentials.
func (t *Target) ReadStatus(ctx context.Context, node string) (string, error) {
	return t.statusCmd(ctx, node, "INFO", "everything")
}

// ResetStatus runs CONFIG RESETSTAT on node.
func (t *Target) ResetStatus(ctx context.Context, node string) error {
	_, err := t.statusCmd(ctx, node, "CONFIG", "RESETSTAT")
	return err
}

func (t *Target) statusCmd(ctx context.Context, node string, args ...string) (string, error) {
	t.mu.Lock()
	c := t.status[node]
	t.mu.Unlock()
	if c == nil {
		o := t.dial
		o.addr = node
		if deadline, ok := ctx.Deadline(); ok {
			o.timeout = time.Until(deadline)
		}
		var err error
		if c, err = dial(ctx, &o); err != nil {
			return "", err
		}
		t.mu.Lock()
		if t.status == nil {
			t.status = map[string]*conn{}
		}
		t.status[node] = c
		t.mu.Unlock()
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = c.nc.SetDeadline(deadline)
		c.rdl, c.wdl = deadline, deadline
		c.timeout = 0 // the deadline above bounds this command; refresh would extend it
	}
	s, err := c.text(args...)
	if err != nil && !resp.IsServerError(err) {
		// A broken or timed-out connection may hold half a reply: start afresh.
		c.Close()
		t.mu.Lock()
		delete(t.status, node)
		t.mu.Unlock()
		if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "i/o timeout") {
			return "", errors.New("no answer in time")
		}
	}
	return s, err
}

// closeStatus closes the status connections (from Close).
func (t *Target) closeStatus() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for n, c := range t.status {
		c.Close()
		delete(t.status, n)
	}
}
