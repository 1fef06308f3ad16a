package cql

import (
	"math"
	"strings"
	"testing"

	"github.com/platbench/platbench/adapter/cql/scylla"
)

// TestShardLayout: a sharded node with a shard-aware port, a node that
// did not answer, a sharded node without the port, a Cassandra node.
func TestShardLayout(t *testing.T) {
	hosts := []string{"10.0.0.1:9042", "10.0.0.2:9042", "10.0.0.3:9042", "10.0.0.4:9042"}
	four := &scylla.Supported{NrShards: 4, IgnoreMSB: 12, ShardAwarePort: 19042}
	two := &scylla.Supported{NrShards: 2, IgnoreMSB: 12}
	l := newShardLayout(hosts, []*scylla.Supported{four, nil, two, {}}, true)
	if l.slots() != 4+1+2+1 {
		t.Fatalf("%d slots, want 8", l.slots())
	}
	if l.aware[0] != "10.0.0.1:19042" || l.aware[2] != "" {
		t.Errorf("shard-aware addresses %q", l.aware)
	}
	// Token -1 is shard 3 of 4 and shard 1 of 2 (ignore_msb 12: the biased
	// token shifted is 2^64-4096, just under the whole range).
	for _, c := range []struct {
		node  int
		token int64
		slot  int
	}{{0, -1, 3}, {0, math.MinInt64, 0}, {1, -1, 4}, {2, -1, 6}, {2, math.MinInt64, 5}, {3, -1, 7}} {
		if got := l.slotOf(c.node, c.token); got != c.slot {
			t.Errorf("node %d token %d: slot %d, want %d", c.node, c.token, got, c.slot)
		}
	}
	if got := l.home(0, &scylla.Supported{Shard: 2, NrShards: 4, Partitioner: scylla.Murmur3}); got != 2 {
		t.Errorf("home of node 0 shard 2: %d", got)
	}
	if got := l.home(0, &scylla.Supported{Shard: 2, NrShards: 8}); got != -1 {
		t.Errorf("a connection reporting another shard count has a home: %d", got)
	}
	if off := newShardLayout(hosts, []*scylla.Supported{four, nil, two, {}}, false); off.slots() != 4 {
		t.Errorf("shard_aware=false: %d slots, want one per node", off.slots())
	}
	var st shardStats
	st.fold(hosts, &l, []int64{1, 2, 3, 4, 9, 5, 6, 7}, []int{3, 0, 0, 0}, []int{1, 1, 2, 1}, []int{0, 0, 1, 0}, nil)
	m := map[string]string{}
	st.summary(m, "")
	if !strings.HasPrefix(m["cql_shard_aware"], "partly: 2 of 4") || m["cql_requests_per_shard"] != "10.0.0.1:9042 1/2/3/4; 10.0.0.3:9042 5/6" {
		t.Errorf("summary %q", m)
	}
}
