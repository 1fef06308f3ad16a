package kafka

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// A consumer joins the group during the run and another leaves later, on the
// classic protocol and on KIP-848's: both rebalance times are reported, the
// broker says which protocol the group ran, and no message is lost. (On
// KIP-848 the members of a new group get their first partitions about 5 s
// in, the broker's heartbeat interval: the changes come after that.)
func TestGroupRebalance(t *testing.T) {
	raw := brokerURL(t, "PLATBENCH_KAFKA_URL")
	for _, c := range []struct{ proto, join, leave string }{{"classic", "1s", "2s"}, {"consumer", "6s", "8s"}} {
		proto := c.proto
		t.Run(proto, func(t *testing.T) {
			tg := open(t, raw, map[string]string{"partitions": "4", "consumers": "2", "group_protocol": proto,
				"join_after": c.join, "leave_after": c.leave})
			ctx := context.Background()
			if err := tg.Setup(ctx, produceSpec()); err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			var s sink
			bctx, stop := context.WithCancel(ctx)
			bgErr := make(chan error, 1)
			go func() { bgErr <- tg.RunBackground(bctx, &s) }()
			var n atomic.Int64
			wait := startProducers(t, tg, 2, func(w adapter.Worker, req *workload.Request) {
				defer w.Close()
				for bctx.Err() == nil {
					if err := w.Do(ctx, req); err != nil {
						t.Errorf("produce: %v", err)
						return
					}
					n.Add(1)
					time.Sleep(2 * time.Millisecond)
				}
			})
			// The run lasts until both rebalances are done (or 30 s).
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				sum := map[string]string{}
				tg.groupSummary(sum)
				_, e1 := strconv.ParseFloat(sum["kafka.rebalance_join_ms"], 64)
				_, e2 := strconv.ParseFloat(sum["kafka.rebalance_leave_ms"], 64)
				if e1 == nil && e2 == nil {
					break
				}
			}
			stop()
			wait()
			if err := <-bgErr; err != nil {
				t.Fatal(err)
			}
			sum := tg.Summary(ctx)
			t.Logf("%d produced; summary %v", n.Load(), sum)
			for _, k := range []string{"kafka.rebalance_join_ms", "kafka.rebalance_leave_ms"} {
				if v, err := strconv.ParseFloat(sum[k], 64); err != nil || v <= 0 {
					t.Errorf("%s = %q, want a time in ms", k, sum[k])
				}
			}
			if sum["kafka.group_protocol"] != proto {
				t.Errorf("kafka.group_protocol = %q, want %q", sum["kafka.group_protocol"], proto)
			}
			if sum["kafka.lost"] != "0" || sum["kafka.duplicated"] != "0" {
				t.Errorf("lost or duplicated across the rebalances: %v", sum)
			}
		})
	}
}
