package kafka

import (
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// brokerURL is the broker the integration tests use. Unset: skip locally,
// fail in CI (CI must run these tests, never skip them).
func brokerURL(t testing.TB, env string) string {
	t.Helper()
	return testenv.URL(t, env)
}

func open(t testing.TB, raw string, opts map[string]string) *Target {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := Open(context.Background(), u, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tg.(*Target)
}

// sink counts what the background consumers record.
type sink struct {
	mu     sync.Mutex
	n      [vocab.NumOps][vocab.NumClasses]int64
	bytes  uint64
	maxLat int64
	minLat int64
	msgs   []string // NoteAsyncError's
}

func (s *sink) RecordAsync(op vocab.Op, lat int64, bytes uint64, c vocab.Class) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n[op][c]++
	s.bytes += bytes
	if c == vocab.ClassNone {
		if s.n[op][c] == 1 || lat < s.minLat {
			s.minLat = lat
		}
		s.maxLat = max(s.maxLat, lat)
	}
}

func (s *sink) NoteAsyncError(op vocab.Op, c vocab.Class, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.msgs = append(s.msgs, op.String()+" "+c.String()+" "+err.Error())
	}
}

func (s *sink) messages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.msgs...)
}

func (s *sink) count(op vocab.Op, c vocab.Class) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[op][c]
}

func produceSpec() *workload.Spec {
	return &workload.Spec{Name: "produce", Records: 1000, FieldCount: 1, FieldLength: 1000,
		Mix: []vocab.Mix{{Op: vocab.OpProduce, Weight: 1}}}
}

func topicExists(t *testing.T, tg *Target, topic string) bool {
	t.Helper()
	tds, err := tg.admin.ListTopics(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	td, ok := tds[topic]
	return ok && td.Err == nil
}

// Streaming: producers and background consumers together; every acked
// message arrives exactly once and has an end-to-end latency.
func TestStreamProduceConsume(t *testing.T) {
	raw := brokerURL(t, "PLATBENCH_KAFKA_URL")
	tg := open(t, raw, map[string]string{"partitions": "6", "consumers": "2", "producers": "2", "key": "request"})
	ctx := context.Background()
	if err := tg.Setup(ctx, produceSpec()); err != nil {
		t.Fatal(err)
	}
	topic := tg.Topic()
	if !strings.HasPrefix(topic, DefaultTopicPrefix) || !topicExists(t, tg, topic) {
		t.Fatalf("topic %q not created with the default prefix", topic)
	}
	// A load phase: its worker produces 50 messages and is closed before the
	// run phase; they are backlog, consumed but not recorded as CONSUMEs.
	lw, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if err := lw.Do(ctx, &workload.Request{Op: vocab.OpInsert}); err != nil {
			t.Fatal(err)
		}
	}
	lw.Close()
	var s sink
	bctx, stop := context.WithCancel(ctx)
	bgErr := make(chan error, 1)
	go func() { bgErr <- tg.RunBackground(bctx, &s) }()
	time.Sleep(10 * time.Millisecond) // the runner starts workers and background together

	const workers, per = 4, 300
	var failed atomic.Int64
	eachProducer(t, tg, workers, func(w adapter.Worker, req *workload.Request) {
		defer w.Close()
		for j := 0; j < per; j++ {
			req.Key = strconv.AppendInt(req.Key[:0], int64(j%17), 10)
			if err := w.Do(ctx, req); err != nil {
				failed.Add(1)
				t.Errorf("produce: %v", err)
			}
		}
	})
	// Wait until the consumers have seen everything, then end the run.
	deadline := time.Now().Add(30 * time.Second)
	for s.count(vocab.OpConsume, vocab.ClassNone) < workers*per && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	if err := <-bgErr; err != nil {
		t.Fatal(err)
	}
	sum := tg.Summary(ctx)
	t.Logf("summary: %v; e2e latency min %v max %v", sum, time.Duration(s.minLat), time.Duration(s.maxLat))
	if got := s.count(vocab.OpConsume, vocab.ClassNone); got != workers*per {
		t.Errorf("consumed %d messages with latency, want %d", got, workers*per)
	}
	if s.bytes != workers*per*1000 {
		t.Errorf("consumed %d bytes, want %d", s.bytes, workers*per*1000)
	}
	if s.maxLat <= 0 || s.maxLat > int64(30*time.Second) {
		t.Errorf("end-to-end latency max %v is not plausible", time.Duration(s.maxLat))
	}
	want := map[string]string{"kafka.lost": "0", "kafka.duplicated": "0", "kafka.produced_acked": strconv.Itoa(workers*per + 50),
		"kafka.consumed": strconv.Itoa(workers*per + 50 + redeliveries(t, sum)), "kafka.consumer_lag_end": "0", "kafka.consumed_unacked": "0"}
	for k, v := range want {
		if sum[k] != v {
			t.Errorf("summary %s = %q, want %q", k, sum[k], v)
		}
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if topicExists(t, open(t, raw, nil).mustSetup(t), topic) {
		t.Errorf("topic %s still exists after Close", topic)
	}
}

func (tg *Target) mustSetup(t *testing.T) *Target {
	if err := tg.Setup(context.Background(), produceSpec()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// Backlog drain: the load phase's asynchronous INSERTs fill the topic, then
// workers of the same Target consume it all with CONSUME ops (the run phase).
func TestLoadThenDrain(t *testing.T) {
	raw := brokerURL(t, "PLATBENCH_KAFKA_URL")
	t.Run("plain", func(t *testing.T) { loadThenDrain(t, raw, map[string]string{"partitions": "4"}) })
	// The load phase's asynchronous INSERTs in transactions of 300 messages,
	// read by read_committed CONSUMEs.
	t.Run("transactions", func(t *testing.T) {
		loadThenDrain(t, raw, map[string]string{"partitions": "4", "txn_messages": "300"})
	})
}

func loadThenDrain(t *testing.T, raw string, opts map[string]string) {
	ctx := context.Background()
	const n = 5000
	spec := &workload.Spec{Name: "drain", Records: n, FieldCount: 1, FieldLength: 200,
		Mix: []vocab.Mix{{Op: vocab.OpConsume, Weight: 1}}}
	tg := open(t, raw, opts)
	if err := tg.Setup(ctx, spec); err != nil {
		t.Fatal(err)
	}
	// The load phase's asynchronous INSERTs of two workers (closed before the
	// run phase, as the runner does).
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		lw, err := tg.NewWorker(i)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer lw.Close()
			req := workload.Request{Op: vocab.OpInsert, Value: make([]byte, 200)}
			for j := 0; j < n/2; j++ {
				if err := lw.Do(ctx, &req); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if size, err := tg.DiskBytes(ctx); err != nil || size < n*200 {
		t.Errorf("DiskBytes = %d, %v; want >= %d", size, err, n*200)
	}
	var consumed atomic.Int64
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var workers []adapter.Worker
	for i := 0; i < 2; i++ {
		w, err := tg.NewWorker(i)
		if err != nil {
			t.Fatal(err)
		}
		workers = append(workers, w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := workload.Request{Op: vocab.OpConsume}
			for consumed.Load() < n && cctx.Err() == nil {
				req.Value = nil
				if err := w.Do(cctx, &req); err != nil {
					if cctx.Err() == nil {
						t.Errorf("consume: %v", err)
					}
					return
				}
				if len(req.Value) != 200 {
					t.Errorf("CONSUME left %d bytes in req.Value, want the message's 200", len(req.Value))
					return
				}
				if consumed.Add(1) == n {
					cancel() // wake the other worker's poll
				}
			}
		}()
	}
	wg.Wait()
	if consumed.Load() != n {
		t.Fatalf("consumed %d, want %d", consumed.Load(), n)
	}
	// Drained: the next CONSUME gives up after poll_timeout as not_found.
	start := time.Now()
	err := workers[0].Do(ctx, &workload.Request{Op: vocab.OpConsume})
	if adapter.Classify(err) != vocab.ClassNotFound || time.Since(start) > 5*time.Second {
		t.Errorf("CONSUME on a drained topic: %v after %v; want not_found after ~1s", err, time.Since(start))
	}
	for _, w := range workers {
		w.Close()
	}
	sum := tg.Summary(ctx)
	t.Logf("drain summary: %v", sum)
	want := map[string]string{"kafka.produced_acked": strconv.Itoa(n), "kafka.consumed": strconv.Itoa(n + redeliveries(t, sum)),
		"kafka.consumed_bytes": strconv.Itoa(n * 200), "kafka.lost": "0", "kafka.duplicated": "0",
		"kafka.foreign": "0", "kafka.consumer_lag_end": "0"}
	if opts["txn_messages"] != "" {
		// The workers stopped at the last message: a partition's last
		// commit marker, after it, may be unread (the lag counts offsets).
		if lag, err := strconv.Atoi(sum["kafka.consumer_lag_end"]); err != nil || lag > 4 {
			t.Errorf("consumer_lag_end %q, want at most one marker per partition", sum["kafka.consumer_lag_end"])
		}
		delete(want, "kafka.consumer_lag_end")
	}
	// A consumer group that rebalances while its members join re-reads
	// the offsets not yet committed (at-least-once): those reads are
	// counted as redelivered, and consumed counts them too.
	if re, err := strconv.Atoi(sum["kafka.redelivered"]); err == nil && re > 0 {
		want["kafka.consumed"] = strconv.Itoa(n + re)
		want["kafka.consumed_bytes"] = strconv.Itoa((n + re) * 200)
	}
	for k, v := range want {
		if sum[k] != v {
			t.Errorf("summary %s = %q, want %q", k, sum[k], v)
		}
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
}

// A topic named with topic= that already exists is used as it is and is
// never deleted; its old messages count as foreign, not lost or duplicated.
func TestExistingTopicIsKept(t *testing.T) {
	raw := brokerURL(t, "PLATBENCH_KAFKA_URL")
	ctx := context.Background()
	first := open(t, raw, map[string]string{"partitions": "1", "keep": "true"})
	if err := first.Setup(ctx, produceSpec()); err != nil {
		t.Fatal(err)
	}
	topic := first.Topic()
	w, _ := first.NewWorker(0)
	for i := 0; i < 10; i++ {
		if err := w.Do(ctx, &workload.Request{Op: vocab.OpProduce}); err != nil {
			t.Fatal(err)
		}
	}
	first.Close()

	second := open(t, raw, map[string]string{"topic": topic, "consumers": "1"})
	if err := second.Setup(ctx, produceSpec()); err != nil {
		t.Fatal(err)
	}
	var s sink
	bctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { second.RunBackground(bctx, &s); close(done) }()
	w2, _ := second.NewWorker(0)
	for i := 0; i < 5; i++ {
		if err := w2.Do(ctx, &workload.Request{Op: vocab.OpProduce}); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(20 * time.Second); s.count(vocab.OpConsume, vocab.ClassNone) < 5 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-done
	sum := second.Summary(ctx)
	if sum["kafka.foreign"] != "10" || sum["kafka.lost"] != "0" || sum["kafka.duplicated"] != "0" || s.count(vocab.OpConsume, vocab.ClassNone) != 5 {
		t.Errorf("summary %v, %d recorded: want 10 foreign, 0 lost, 0 duplicated, 5 recorded", sum, s.count(vocab.OpConsume, vocab.ClassNone))
	}
	second.Close()
	check := open(t, raw, nil).mustSetup(t)
	if !topicExists(t, check, topic) {
		t.Fatalf("named topic %s was deleted; only topics Setup created may be", topic)
	}
	if _, err := check.admin.DeleteTopics(ctx, topic); err != nil {
		t.Fatal(err)
	}
}

func TestUnreachableBroker(t *testing.T) {
	brokerURL(t, "PLATBENCH_KAFKA_URL") // an integration test: CI runs it with the others
	tg := open(t, "kafka://127.0.0.1:1", map[string]string{"dial_timeout": "1s"})
	start := time.Now()
	err := tg.Setup(context.Background(), produceSpec())
	if err == nil {
		t.Fatal("Setup against a closed port succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "cannot reach a broker at 127.0.0.1:1") || !strings.Contains(msg, "fix:") || strings.Contains(msg, "\n") {
		t.Errorf("error is not one clear line with the fix: %q", msg)
	}
	if adapter.Classify(err) != vocab.ClassUnavailable {
		t.Errorf("class %s, want unavailable", adapter.Classify(err))
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Setup took %v to give up", d)
	}
	_ = tg.Close()
}

// SASL: SCRAM and PLAIN users authenticate; a user without permission to
// create topics gets one clear error naming the fix.
func TestSASL(t *testing.T) {
	raw := brokerURL(t, "PLATBENCH_KAFKA_SASL_URL")
	host := strings.TrimPrefix(raw, "kafka://")
	ctx := context.Background()

	denied := open(t, "kafka://bench:bench-secret@"+host+"?sasl=scram-sha-256", map[string]string{"topic": "platbench-nope-" + strconv.FormatInt(time.Now().UnixNano(), 36)})
	err := denied.Setup(ctx, produceSpec())
	if err == nil || !strings.Contains(err.Error(), "may not create it") || !strings.Contains(err.Error(), "fix:") {
		t.Fatalf("want a clear permission error, got %v", err)
	}
	if adapter.Classify(err) != vocab.ClassRejected {
		t.Errorf("class %s, want rejected", adapter.Classify(err))
	}
	denied.Close()

	bad := open(t, "kafka://admin:wrong@"+host+"?sasl=plain", map[string]string{"dial_timeout": "2s"})
	err = bad.Setup(ctx, produceSpec())
	if err == nil || !strings.Contains(err.Error(), "authentication failed") {
		t.Fatalf("want an authentication error, got %v", err)
	}
	bad.Close()

	for _, mech := range []string{"plain", "scram-sha-256"} {
		tg := open(t, "kafka://admin:admin-secret@"+host+"?sasl="+mech, map[string]string{"partitions": "1"})
		if err := tg.Setup(ctx, produceSpec()); err != nil {
			t.Fatalf("%s: %v", mech, err)
		}
		w, err := tg.NewWorker(0)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Do(ctx, &workload.Request{Op: vocab.OpProduce}); err != nil {
			t.Errorf("%s: produce: %v", mech, err)
		}
		if info := tg.Describe(ctx); strings.Contains(info.URL, "admin-secret") || info.Version == "" {
			t.Errorf("%s: Describe = %+v (password must not show; version must)", mech, info)
		}
		if err := tg.Close(); err != nil {
			t.Error(err)
		}
	}
}

// A broker restart in the middle of a produce run: produces fail with a
// class while it is down, the run goes on, and resumes when it is back.
func TestBrokerRestart(t *testing.T) {
	raw := brokerURL(t, "PLATBENCH_KAFKA_URL")
	script := os.Getenv("PLATBENCH_KAFKA_SCRIPT")
	if script == "" {
		testenv.Skip(t, testenv.Server, "PLATBENCH_KAFKA_SCRIPT not set: cannot restart the broker (scripts/servers/kafka.sh env sets it)")
	}
	ctx := context.Background()
	tg := open(t, raw, map[string]string{"partitions": "2", "timeout": "1500ms", "consumers": "1"})
	if err := tg.Setup(ctx, produceSpec()); err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var s sink
	bctx, stopBg := context.WithCancel(ctx)
	bgDone := make(chan struct{})
	go func() { tg.RunBackground(bctx, &s); close(bgDone) }()
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	var before, after, errs int64
	var longest time.Duration
	classes := map[vocab.Class]int64{}
	restarted := make(chan error, 1)
	go func() {
		time.Sleep(time.Second)
		out, err := exec.Command("bash", script, "stop").CombinedOutput()
		if err == nil {
			time.Sleep(2 * time.Second)
			out, err = exec.Command("bash", script, "start").CombinedOutput()
		}
		if err != nil {
			err = errors.New(string(out) + err.Error())
		}
		restarted <- err
	}()
	req := workload.Request{Op: vocab.OpProduce}
	done := false
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		t0 := time.Now()
		err := w.Do(ctx, &req)
		longest = max(longest, time.Since(t0))
		switch {
		case err != nil:
			errs++
			classes[adapter.Classify(err)]++
		case done:
			after++
		default:
			before++
		}
		if !done {
			select {
			case rerr := <-restarted:
				if rerr != nil {
					t.Fatalf("restarting the broker: %v", rerr)
				}
				done = true
			default:
			}
		}
		if done && after >= 200 {
			break
		}
	}
	stopBg()
	<-bgDone
	sum := tg.Summary(ctx)
	t.Logf("restart: %d ok before, %d errors %v, %d ok after, longest produce %v; summary %v", before, errs, classes, after, longest, sum)
	// The outage shows as failed produces or, as the idempotent producer
	// fails a record past its timeout only when that is safe, as a produce
	// that waited through it (the broker is down for 2 s and more).
	if errs == 0 && longest < 2*time.Second {
		t.Errorf("the broker was down for over 2 s, yet no produce failed or waited that long (longest %v)", longest)
	}
	if errs > 0 && classes[vocab.ClassOther] == errs {
		t.Errorf("every error was unclassified: %v", classes)
	}
	if after < 200 {
		t.Errorf("only %d produces succeeded after the restart", after)
	}
	if sum["kafka.lost"] != "0" || sum["kafka.duplicated"] != "0" {
		t.Errorf("acknowledged messages lost or duplicated across a clean restart (idempotent producer): %v", sum)
	}
}

// BenchmarkProduce: 1000-byte produces, acks=all, one worker. Run with
// PLATBENCH_KAFKA_URL set: go test -bench Produce -benchmem ./adapter/kafka
func BenchmarkProduce(b *testing.B) {
	raw := brokerURL(b, "PLATBENCH_KAFKA_URL")
	tg := open(b, raw, map[string]string{"partitions": "1"})
	ctx := context.Background()
	if err := tg.Setup(ctx, produceSpec()); err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	w, _ := tg.NewWorker(0)
	req := workload.Request{Op: vocab.OpProduce}
	for i := 0; i < 100; i++ {
		_ = w.Do(ctx, &req)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.Do(ctx, &req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProduceParallel: 64 workers producing at once through one client,
// as a closed-loop run does; franz-go's per-request allocations are shared by
// the records of each batch, so allocs/op is per message.
func BenchmarkProduceParallel(b *testing.B) {
	raw := brokerURL(b, "PLATBENCH_KAFKA_URL")
	tg := open(b, raw, map[string]string{"partitions": "16"})
	ctx := context.Background()
	if err := tg.Setup(ctx, produceSpec()); err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	var id atomic.Int64
	b.SetParallelism(32) // x GOMAXPROCS goroutines
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w, err := tg.NewWorker(int(id.Add(1)))
		if err != nil {
			b.Error(err)
			return
		}
		req := workload.Request{Op: vocab.OpProduce}
		for pb.Next() {
			if err := w.Do(ctx, &req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// redeliveries is the summary's kafka.redelivered. A consumer group
// redelivers what was fetched and not committed when its partitions move
// (a rebalance on a loaded CI machine redelivered 178 in one test and 1 in
// another): kafka.consumed counts every delivery, so the tests expect the
// messages plus the redeliveries, with none lost or duplicated.
func redeliveries(t *testing.T, sum map[string]string) int {
	t.Helper()
	n, err := strconv.Atoi(sum["kafka.redelivered"])
	if err != nil || n < 0 {
		t.Fatalf("summary kafka.redelivered = %q", sum["kafka.redelivered"])
	}
	return n
}

// eachProducer runs body on workers new workers of tg, each on its own
// goroutine with its own PRODUCE request, and waits for all of them; body
// closes its worker.
func eachProducer(t *testing.T, tg *Target, workers int, body func(w adapter.Worker, req *workload.Request)) {
	t.Helper()
	startProducers(t, tg, workers, body)()
}

// startProducers is eachProducer that does not wait: it returns the wait.
func startProducers(t *testing.T, tg *Target, workers int, body func(w adapter.Worker, req *workload.Request)) (wait func()) {
	t.Helper()
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		w, err := tg.NewWorker(i)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(w, &workload.Request{Op: vocab.OpProduce})
		}()
	}
	return wg.Wait
}

// A consumer the broker refuses says why: its failed polls are recorded
// with the broker's own words (Sink.NoteAsyncError), as a producer's
// failures are. Provoked for real: a group member asking for a session
// timeout below the broker's group.min.session.timeout.ms (6 s by default)
// is refused at JoinGroup with INVALID_SESSION_TIMEOUT, which franz-go hands
// to every poll.
func TestRefusedConsumerSaysWhy(t *testing.T) {
	raw := brokerURL(t, "PLATBENCH_KAFKA_URL")
	tg := open(t, raw, map[string]string{"partitions": "1", "consumers": "1"}).mustSetup(t)
	cl, err := tg.consumer(kgo.SessionTimeout(200*time.Millisecond), kgo.HeartbeatInterval(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var s sink
	var recording atomic.Bool
	recording.Store(true)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); tg.consumeLoop(ctx, cl, &s, &recording, map[uint32]bool{}) }()
	// Not a timed assertion: wait for the refusal, up to a generous bound.
	for deadline := time.Now().Add(60 * time.Second); len(s.messages()) == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	<-done
	msgs := s.messages()
	t.Logf("messages: %q", msgs)
	if len(msgs) == 0 || !strings.Contains(msgs[0], "INVALID_SESSION_TIMEOUT") || !strings.HasPrefix(msgs[0], "CONSUME rejected ") {
		t.Fatalf("the broker's refusal did not reach the sink: %q", msgs)
	}
	var failed int64
	for c := vocab.Class(1); c < vocab.NumClasses; c++ {
		failed += s.count(vocab.OpConsume, c)
	}
	if failed < int64(len(msgs)) {
		t.Errorf("%d failed CONSUMEs recorded for %d messages", failed, len(msgs))
	}
}
