package cql

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// What the target reports beside the figures (adapter.Summarizer): the
// shape of a pipelined run, the native workers' connections and shards, and
// the nodes the driver saw go down and up during the run.

// Summary reports host up/down events seen by the driver during the run, with
// their time since Open, so that a node lost mid-run shows in the result.
func (t *Target) Summary(ctx context.Context) map[string]string {
	m := t.events.summary()
	t.stats.summary(m)
	why := "the nodes advertise no ScyllaDB sharding (Cassandra, or ScyllaDB with enable_shard_aware_drivers: false)"
	if !t.cfg.ShardAware {
		why = "shard_aware=false"
	}
	t.stats.shards.summary(m, why)
	if t.cfg.Driver != DriverNative {
		m["cql_shard_aware"] = "no: driver=gocql (the Apache driver) is not ScyllaDB shard-aware"
	}
	t.mu.Lock()
	if t.diskPerNode != "" {
		m["cql_disk_per_node"] = t.diskPerNode
	}
	if t.prof != nil {
		t.prof.Summary(m)
	}
	if t.shapeN > 0 {
		m["in_flight"] = fmt.Sprintf("up to %d requests per worker, %d workers (one goroutine and one connection per node, or per shard of each ScyllaDB node, each)", t.shapeDepth, t.shapeN)
	}
	t.mu.Unlock()
	return m
}

// hostEvents records the driver's host up/down notifications. The driver
// repeats "down" at every failed reconnection attempt: only changes count.
type hostEvents struct {
	start time.Time
	mu    sync.Mutex
	lines []string
	downs int
	state map[string]string
}

func (h *hostEvents) add(kind string, host *gocql.HostInfo) {
	h.mu.Lock()
	defer h.mu.Unlock()
	addr := host.ConnectAddressAndPort()
	if h.state == nil {
		h.state = map[string]string{}
	}
	if h.state[addr] == kind || (kind == "up" && h.state[addr] == "") {
		return
	}
	h.state[addr] = kind
	if kind == "down" {
		h.downs++
	}
	if len(h.lines) < 100 {
		h.lines = append(h.lines, fmt.Sprintf("%s %s at +%.1fs", addr, kind, time.Since(h.start).Seconds()))
	}
}

func (h *hostEvents) OnHostUp(e gocql.HostUpEvent) { h.add("up", e.Host) }

func (h *hostEvents) OnHostDown(e gocql.HostDownEvent) { h.add("down", e.Host) }

func (h *hostEvents) summary() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := map[string]string{"cql_host_down_events": fmt.Sprint(h.downs)}
	if len(h.lines) > 0 {
		m["cql_host_events"] = strings.Join(h.lines, "; ")
	}
	return m
}
