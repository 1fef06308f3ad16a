package kafka

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Many topics: topics=50 creates NAME-0..NAME-49, the workers' messages
// reach every one, the consumer group reads them all once, the creation
// time is reported, and Close deletes every topic.
func TestManyTopics(t *testing.T) {
	raw := brokerURL(t, "PLATBENCH_KAFKA_URL")
	const topics = 50
	tg := open(t, raw, map[string]string{"topics": strconv.Itoa(topics), "partitions": "2", "consumers": "2", "producers": "2"})
	ctx := context.Background()
	if err := tg.Setup(ctx, produceSpec()); err != nil {
		t.Fatal(err)
	}
	names := append([]string(nil), tg.topics...)
	if len(names) != topics || names[0] != tg.Topic() {
		t.Fatalf("topics %v, Topic %q", names, tg.Topic())
	}
	var s sink
	bctx, stop := context.WithCancel(ctx)
	bgErr := make(chan error, 1)
	go func() { bgErr <- tg.RunBackground(bctx, &s) }()
	const workers, per = 3, 100
	eachProducer(t, tg, workers, func(w adapter.Worker, req *workload.Request) {
		defer w.Close()
		for j := 0; j < per; j++ {
			if err := w.Do(ctx, req); err != nil {
				t.Errorf("produce: %v", err)
			}
		}
	})
	for deadline := time.Now().Add(30 * time.Second); s.count(vocab.OpConsume, vocab.ClassNone) < workers*per && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	if err := <-bgErr; err != nil {
		t.Fatal(err)
	}
	ends, err := tg.admin.ListEndOffsets(ctx, names...)
	if err != nil {
		t.Fatal(err)
	}
	perTopic := map[string]int64{}
	ends.Each(func(o kadm.ListedOffset) { perTopic[o.Topic] += o.Offset })
	for _, n := range names {
		if perTopic[n] == 0 {
			t.Errorf("topic %s got no message", n)
		}
	}
	sum := tg.Summary(ctx)
	t.Logf("summary: %v", sum)
	want := map[string]string{"kafka.lost": "0", "kafka.duplicated": "0",
		"kafka.consumed": strconv.Itoa(workers*per + redeliveries(t, sum)), "kafka.consumer_lag_end": "0",
		"kafka.topics": strconv.Itoa(topics), "kafka.topics_created": strconv.Itoa(topics)}
	for k, v := range want {
		if sum[k] != v {
			t.Errorf("summary %s = %q, want %q", k, sum[k], v)
		}
	}
	if ms, err := strconv.Atoi(sum["kafka.topic_create_ms"]); err != nil || ms < 0 {
		t.Errorf("kafka.topic_create_ms = %q", sum["kafka.topic_create_ms"])
	}
	if n, err := tg.DiskBytes(ctx); err != nil || n < workers*per*1000 {
		t.Errorf("DiskBytes = %d, %v; want the %d bytes of every topic", n, err, workers*per*1000)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	check := open(t, raw, nil).mustSetup(t)
	tds, err := check.admin.ListTopics(ctx, names...)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if td, ok := tds[n]; ok && td.Err == nil {
			t.Errorf("topic %s still exists after Close", n)
		}
	}
}
