package kafka

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/platbench/platbench/target"
	"github.com/platbench/platbench/workload"
)

// Transactions: producers commit every 20 messages and abort every third
// transaction; the background consumers read committed messages only. No
// aborted message is read, every committed one is read exactly once, and the
// aborted ones are in the log (a read_uncommitted reader sees them) but are
// not counted as lost.
func TestTransactions(t *testing.T) {
	raw := brokerURL(t, "PLATBENCH_KAFKA_URL")
	tg := open(t, raw, map[string]string{"partitions": "3", "consumers": "2", "producers": "2",
		"txn_messages": "20", "txn_abort_every": "3"})
	ctx := context.Background()
	if err := tg.Setup(ctx, produceSpec()); err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var s sink
	bctx, stop := context.WithCancel(ctx)
	bgErr := make(chan error, 1)
	go func() { bgErr <- tg.RunBackground(bctx, &s) }()

	const workers, per = 4, 250
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		w, err := tg.NewWorker(i)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := workload.Request{Op: workload.OpProduce}
			for j := 0; j < per; j++ {
				if err := w.Do(ctx, &req); err != nil {
					t.Errorf("produce: %v", err)
				}
			}
			if err := w.Close(); err != nil { // commits the open transaction
				t.Errorf("close: %v", err)
			}
		}()
	}
	wg.Wait()
	_, committed := tg.expected()
	for deadline := time.Now().Add(30 * time.Second); s.count(workload.OpConsume, target.ClassNone) < int64(committed) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	if err := <-bgErr; err != nil {
		t.Fatal(err)
	}
	sum := tg.Summary(ctx)
	t.Logf("summary: %v", sum)
	aborted, _ := strconv.Atoi(sum["kafka.txn_aborted_messages"])
	if aborted == 0 || sum["kafka.txn_aborted"] == "0" || sum["kafka.txn_committed"] == "0" || sum["kafka.txn_failed"] != "0" {
		t.Errorf("want committed and aborted transactions and no failed one: %v", sum)
	}
	if int(committed)+aborted != workers*per {
		t.Errorf("committed %d + aborted %d messages != %d produced", committed, aborted, workers*per)
	}
	want := map[string]string{"kafka.lost": "0", "kafka.duplicated": "0", "kafka.consumed_unacked": "0",
		"kafka.redelivered": "0", "kafka.foreign": "0", "kafka.consumed": strconv.Itoa(int(committed)),
		"kafka.produced_acked": strconv.Itoa(int(committed)), "kafka.consumer_lag_end": "0"}
	for k, v := range want {
		if sum[k] != v {
			t.Errorf("summary %s = %q, want %q", k, sum[k], v)
		}
	}
	if got := s.count(workload.OpConsume, target.ClassNone); got != int64(committed) {
		t.Errorf("recorded %d CONSUMEs, want the %d committed messages", got, committed)
	}
	if n := readAll(t, tg, workers*per); n != workers*per {
		t.Errorf("a read_uncommitted reader found %d messages in the log, want all %d produced (aborted ones included)", n, workers*per)
	}
	if d := tg.Describe(ctx).Details; d["isolation"] != "read_committed" || d["txn_messages"] != "20" {
		t.Errorf("Describe details %v", d)
	}
}

// readAll reads the topic from the start, uncommitted messages included,
// until it has want data records or nothing comes for 3 s.
func readAll(t *testing.T, tg *Target, want int) int {
	t.Helper()
	opts := append(append([]kgo.Opt{}, tg.conn...), kgo.ConsumeTopics(tg.topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	n := 0
	for n < want {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		got := 0
		fs.EachRecord(func(r *kgo.Record) {
			if !r.Attrs.IsControl() {
				got++
			}
		})
		if got == 0 {
			break
		}
		n += got
	}
	return n
}
