package recorder

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// Config sets up a Recorder. Zero values take the defaults.
type Config struct {
	// Phase names the phase being recorded (shown in Live snapshots).
	Phase string
	// Shards is the number of independently locked histogram sets. Workers
	// share shards (worker i uses shard i%Shards), so memory depends on cores,
	// not on concurrency. Default 2 x GOMAXPROCS.
	Shards int
	// BucketWidth is the fine completion bucket. Default 100 ms.
	BucketWidth time.Duration
	// IntervalWidth is the histogram interval. Default 1 s.
	IntervalWidth time.Duration
	// ServiceTime records service time separately from latency, and the
	// schedule lag (intended start to send) of every operation (open loop).
	// In closed loop latency and service time are the same figure, the lag is
	// 0, and recording them would only cost time on the hot path. Default false.
	ServiceTime bool
	// OnInterval, if set, is called with each 1 s interval as it closes (on
	// the collector's goroutine, outside the recorder's lock): the run's
	// journal writes it to disk at once.
	//
	// With it the recorder streams: it keeps no interval series (the
	// phase it returns has none: runner.Config.Series makes it from what
	// OnInterval wrote, result.Journal.Series), only fine buckets of all op
	// types together (Buckets.All), and those on disk with FinePath (13
	// bytes a bucket in memory without it: about 0.5 MB an hour). A live
	// check's window (KeepWindow) keeps the stored series (result.Coarsener:
	// the first hour's seconds without histograms, then 10 s ones), which the
	// checks read. Without OnInterval (tests) it keeps every second whole, as
	// files of schema v1 had.
	OnInterval func(result.Interval)
	// FinePath, with OnInterval, is the file where the fine buckets wait
	// while the phase runs (result.FinePath of the run's journal:
	// fineSpill), flushed every interval, read back and removed by Stop, so
	// that they do not grow in memory with the phase's length and a killed
	// loader leaves them beside its journal. Empty, or a file that cannot
	// be made: they stay in memory.
	FinePath string
}

func (c *Config) ensureDefaults() {
	if c.Shards <= 0 {
		c.Shards = 2 * runtime.GOMAXPROCS(0)
	}
	if c.BucketWidth <= 0 {
		c.BucketWidth = 100 * time.Millisecond
	}
	if c.IntervalWidth <= 0 {
		c.IntervalWidth = time.Second
	}
}

// hset is what one shard records between two interval ticks.
type hset struct {
	lat, svc [vocab.NumOps]*counts
	lag      [vocab.NumOps]*counts // open loop: intended start to send
	// attr is the open loop's server-attributable latency: latency less the
	// client's own lateness (from the moment the op could have started, a
	// worker or slot being free, to its send).
	attr  [vocab.NumOps]*counts
	ok    [vocab.NumOps]uint64
	errs  [vocab.NumOps][vocab.NumClasses]uint64
	bytes [vocab.NumOps]uint64
}

// reset zeroes the totals; the collector zeroes the counts as it drains them.
func (s *hset) reset() {
	s.ok = [vocab.NumOps]uint64{}
	s.errs = [vocab.NumOps][vocab.NumClasses]uint64{}
	s.bytes = [vocab.NumOps]uint64{}
}

// Shard is where workers record. Record takes the shard's mutex, which is
// uncontended unless two workers share the shard and finish at the same
// instant; the collector holds it only to swap histogram sets.
type Shard struct {
	mu      sync.Mutex
	svcTime bool
	cur     *hset
	spare   *hset
	// Fine buckets by completion time: completions (ok+errors) and bytes per
	// op go into the ring slot of the bucket their end time falls in, so a
	// collector that runs late (a starved CPU) still puts them in the right
	// bucket. bw is the bucket width; [bLo, bHi) the bucket of the current
	// slot (the division happens only when a completion leaves it); closed is
	// the first bucket the collector has not harvested yet: completions of an
	// already harvested bucket go to late and into the next one harvested.
	bw       int64
	bLo, bHi int64
	bIdx     int64
	slot     *bucketSlot
	closed   int64
	ring     [bucketRing]bucketSlot
	late     [vocab.NumOps]uint32
	lateB    [vocab.NumOps]uint64
	finished uint64
	reserve  *blockReserve // blocks for its histograms' bursts, under mu
	errs     *errorSampler // the recorder's, shared by its shards
	begun    uint64        // requests begun by RecordBegin, under mu
	started  atomic.Uint64 // requests begun by Begin
	_        [64]byte      // keep shards on separate cache lines
}

// Begin marks one more request in flight (for telling stalls from idleness).
func (s *Shard) Begin() { s.started.Add(1) }

// BeginN marks n more requests in flight: Begin for a batch submitted at once.
func (s *Shard) BeginN(n int) { s.started.Add(uint64(n)) }

// Record records one completed operation. Times are Now() readings:
// intended is when the schedule wanted it to start (= start in closed loop),
// start when it was sent, end when it completed. Only successful operations
// enter the latency histograms; errors are counted by class.
func (s *Shard) Record(op vocab.Op, intended, start, end int64, bytes uint64, class vocab.Class) {
	s.mu.Lock()
	s.record(op, intended, intended, start, end, bytes, class)
	s.mu.Unlock()
}

// RecordOpen is Record for the open loop, with could: when the operation
// could have started, the later of intended and the moment a worker or
// in-flight slot became free for it. start - could is the client's own
// lateness (pacer, scheduler, CPU), which the server-attributable latency
// leaves out; could - intended is the wait for a slot the target held, which
// it keeps (so a stalled target still pays for its whole queue).
func (s *Shard) RecordOpen(op vocab.Op, intended, could, start, end int64, bytes uint64, class vocab.Class) {
	s.mu.Lock()
	s.record(op, intended, could, start, end, bytes, class)
	s.mu.Unlock()
}

// RecordBegin is Record followed by Begin, for a worker that starts its next
// request right away (closed loop): one lock round trip instead of a lock
// round trip and an atomic add.
func (s *Shard) RecordBegin(op vocab.Op, intended, start, end int64, bytes uint64, class vocab.Class) {
	s.mu.Lock()
	s.record(op, intended, intended, start, end, bytes, class)
	s.begun++
	s.mu.Unlock()
}

// Attributable is the server-attributable latency of an open-loop operation:
// its latency (end - intended) less the client's own lateness (start -
// could), i.e. its service time plus any wait for a worker or slot the
// target held (could - intended).
func Attributable(intended, could, start, end int64) int64 {
	return end - intended - max(start-could, 0)
}

// record is Record with mu held.
func (s *Shard) record(op vocab.Op, intended, could, start, end int64, bytes uint64, class vocab.Class) {
	set := s.cur
	if class == vocab.ClassNone {
		c := set.lat[op]
		if c == nil {
			c = s.newHists(op)
		}
		c.add(clamp(end - intended))
		if s.svcTime {
			set.svc[op].add(clamp(end - start))
			set.lag[op].add(clamp(start - intended))
			set.attr[op].add(clamp(Attributable(intended, could, start, end)))
		}
		set.ok[op]++
	} else {
		set.errs[op][class]++
	}
	set.bytes[op] += bytes
	if end < s.bLo || end >= s.bHi {
		s.moveBucket(end)
	}
	if start < s.bLo {
		s.markSpan(start)
	}
	if s.bIdx < s.closed {
		s.late[op]++
		s.lateB[op] += bytes
	} else {
		s.slot.n[op]++
		s.slot.b[op] += bytes
	}
	s.finished++
}

// bucketRing is how many fine buckets a shard keeps until the collector
// harvests them: 25.6 s of 100 ms buckets, 2.56 s of 10 ms ones.
const bucketRing = 256

// bucketSlot is one fine bucket of a shard; epoch is its bucket index.
// spanned is set when an op that completed later was in flight during it.
type bucketSlot struct {
	epoch   int64
	spanned bool
	n       [vocab.NumOps]uint32
	b       [vocab.NumOps]uint64
}

// markSpan marks the buckets from the one start falls in up to (not
// including) the current one as having had a request in flight, so that a
// bucket with no completion during a long request counts as a stall even when
// the collector samples late. Buckets already harvested were sampled while
// the request was in flight. Called with mu held, after moveBucket.
func (s *Shard) markSpan(start int64) {
	if start < 0 {
		start = 0
	}
	from := max(start/s.bw, s.closed, s.bIdx-bucketRing+1)
	for b := from; b < s.bIdx; b++ {
		sl := &s.ring[b%bucketRing]
		if sl.epoch != b {
			for op := range sl.n {
				s.late[op] += sl.n[op]
				s.lateB[op] += sl.b[op]
			}
			*sl = bucketSlot{epoch: b}
		}
		sl.spanned = true
	}
}

// moveBucket points the shard at the bucket of time end. A slot still holding
// a bucket one ring ago (the collector fell that far behind) is emptied into
// late rather than lost. Called with mu held.
func (s *Shard) moveBucket(end int64) {
	if end < 0 {
		end = 0
	}
	bi := end / s.bw
	s.bIdx, s.bLo, s.bHi = bi, bi*s.bw, (bi+1)*s.bw
	sl := &s.ring[bi%bucketRing]
	if sl.epoch != bi {
		for op := range sl.n {
			s.late[op] += sl.n[op]
			s.lateB[op] += sl.b[op]
		}
		*sl = bucketSlot{epoch: bi}
	}
	s.slot = sl
}

// harvest takes bucket k's completions (and any late ones) out of the shard
// and marks k closed. Called with mu held.
func (s *Shard) harvest(k int64, n *[vocab.NumOps]uint64, b *[vocab.NumOps]uint64, spanned *bool) {
	sl := &s.ring[k%bucketRing]
	if sl.epoch == k && sl.spanned {
		*spanned = true
		sl.spanned = false
	}
	for op := range n {
		if sl.epoch == k {
			n[op] += uint64(sl.n[op])
			b[op] += sl.b[op]
			sl.n[op], sl.b[op] = 0, 0
		}
		n[op] += uint64(s.late[op])
		b[op] += s.lateB[op]
		s.late[op], s.lateB[op] = 0, 0
	}
	s.closed = k + 1
}

// newHists allocates the histograms of an op the first time a shard sees it
// (once per op per shard, not per operation). Called with mu held.
func (s *Shard) newHists(op vocab.Op) *counts {
	a, b := s.cur, s.spare
	twins := func(x, y *[vocab.NumOps]*counts) {
		x[op], y[op] = &counts{reserve: s.reserve}, &counts{reserve: s.reserve}
		x[op].twin, y[op].twin = y[op], x[op]
	}
	twins(&a.lat, &b.lat)
	if s.svcTime {
		twins(&a.svc, &b.svc)
		twins(&a.lag, &b.lag)
		twins(&a.attr, &b.attr)
	}
	return a.lat[op]
}

func clamp(v int64) int64 {
	if v < 0 {
		return 0
	}
	if v > result.HistHighestNs {
		return result.HistHighestNs
	}
	return v
}

// Recorder collects the shards into intervals, buckets and totals.
type Recorder struct {
	cfg    Config
	shards []*Shard
	async  *Shard // RecordAsync: ops completed outside workers

	base    int64 // nanotime at Start
	startAt time.Time
	stopCh  chan struct{}
	doneCh  chan struct{}

	mu         sync.Mutex // guards everything below
	total      [vocab.NumOps]*opAcc
	intervals  []result.Interval
	nIntervals int
	lastIv     result.Interval // the last interval closed
	lastTick   int64           // Now() of the last interval tick
	buckets    [vocab.NumOps][]uint32
	bucketB    [vocab.NumOps][]uint64
	outst      []bool
	inflightAt []bool // requests in flight at the ends of the buckets not yet closed
	// stream: the series kept when streaming (Config.OnInterval): the
	// stored intervals, and fine buckets of all ops together.
	stream bool
	coarse result.Coarsener
	all    []uint32
	allB   []uint64
	fine   *fineSpill // the fine buckets on disk (Config.FinePath)
	nb     int64      // fine buckets closed
	err    error      // the spill failed: Err
	// A window kept for live checks (KeepWindow): every op's latency
	// from winFrom on.
	winOn    bool
	winFrom  int64
	win      [vocab.NumOps]*hdr.Histogram
	scratch  *hset
	ivCounts [vocab.NumOps]*dense // an interval's latencies of every shard, merged
	enc      *result.Encoder      // encodes the intervals' latencies, kept for the run
	live     Live
	stopped  bool
	errs     errorSampler
}

// opAcc accumulates one op over the whole phase.
type opAcc struct {
	lat, svc, lag, attr *phaseCounts
	ok                  uint64
	errs                [vocab.NumClasses]uint64
	bytes               uint64
}

// New returns a recorder; call Start when the phase begins.
func New(cfg Config) *Recorder {
	cfg.ensureDefaults()
	r := &Recorder{cfg: cfg, scratch: &hset{}, stream: cfg.OnInterval != nil, enc: result.NewEncoder()}
	if r.stream && cfg.FinePath != "" {
		r.fine, _ = newFineSpill(cfg.FinePath, cfg.Phase, int64(cfg.BucketWidth)) // none: the buckets stay in memory
	}
	bw := int64(cfg.BucketWidth)
	for i := 0; i < cfg.Shards; i++ {
		r.shards = append(r.shards, newShard(cfg.ServiceTime, bw))
	}
	r.async = newShard(false, bw)
	for _, s := range append(r.shards, r.async) {
		s.errs = &r.errs
	}
	return r
}

// refill puts n blocks back in the reserve, made outside the shard's lock.
func (s *Shard) refill(n int) {
	fresh := make([]*block, n)
	for i := range fresh {
		fresh[i] = new(block)
	}
	s.mu.Lock()
	for _, b := range fresh {
		if len(s.reserve.free) < cap(s.reserve.free) {
			s.reserve.free = append(s.reserve.free, b)
		}
	}
	s.mu.Unlock()
}

func newShard(svcTime bool, bw int64) *Shard {
	s := &Shard{svcTime: svcTime, cur: &hset{}, spare: &hset{}, bw: bw, reserve: newReserve()}
	for i := range s.ring {
		s.ring[i].epoch = int64(i) // slot i first holds bucket i
	}
	s.moveBucket(0)
	return s
}

// Now returns monotonic nanoseconds since Start.
func (r *Recorder) Now() int64 { return nanotime() - r.base }

// Mono turns a Now reading into the monotonic clock's own reading
// (CLOCK_MONOTONIC, the clock of timerfd and of the Go runtime's timers).
func (r *Recorder) Mono(t int64) int64 { return t + r.base }

// StartTime is the wall-clock time of Start.
func (r *Recorder) StartTime() time.Time { return r.startAt }

// Shard returns the shard worker i records through.
func (r *Recorder) Shard(i int) *Shard { return r.shards[i%len(r.shards)] }

// RecordAsync implements adapter.Sink for operations completed outside
// workers (consumers): the latency is given, not measured here.
func (r *Recorder) RecordAsync(op vocab.Op, latencyNs int64, bytes uint64, class vocab.Class) {
	now := r.Now()
	r.async.Begin()
	r.async.Record(op, now-latencyNs, now-latencyNs, now, bytes, class)
}

// Start sets t=0 and starts the collector.
func (r *Recorder) Start() {
	r.startAt = time.Now()
	r.base = nanotime()
	r.stopCh = make(chan struct{})
	r.doneCh = make(chan struct{})
	go r.collect()
}

func (r *Recorder) allShards() []*Shard {
	return append(r.shards[:len(r.shards):len(r.shards)], r.async)
}

// collect ticks every bucket width; every interval width worth of buckets it
// also closes an interval.
func (r *Recorder) collect() {
	defer close(r.doneCh)
	bw := int64(r.cfg.BucketWidth)
	iw := int64(r.cfg.IntervalWidth)
	// A bucket is harvested half a bucket after it ends, so that completions
	// timed just before its end have been recorded.
	grace := bw / 2
	nextSample := bw // end of the next bucket whose in-flight state to sample
	nextBucket := bw // end of the next bucket to harvest (at nextBucket+grace)
	nextInterval := iw
	timer := time.NewTimer(time.Duration(nextSample))
	defer timer.Stop()
	for {
		select {
		case <-r.stopCh:
			return
		case <-timer.C:
		}
		r.mu.Lock()
		for r.Now() >= nextSample {
			r.inflightAt = append(r.inflightAt, r.inflight())
			nextSample += bw
		}
		for r.Now() >= nextBucket+grace {
			r.bucketTick()
			nextBucket += bw
		}
		closed := false
		if r.Now() >= nextInterval {
			r.intervalTick(nextInterval)
			nextInterval += iw
			closed = true
			if r.fine != nil {
				r.fine.flush() // on disk with the interval's second
			}
		}
		var iv result.Interval
		if closed && r.cfg.OnInterval != nil {
			iv = r.lastIv
		}
		r.mu.Unlock()
		if closed && r.cfg.OnInterval != nil {
			r.cfg.OnInterval(iv)
		}
		d := min(nextSample, nextBucket+grace) - r.Now()
		if d < 0 {
			d = 0
		}
		timer.Reset(time.Duration(d))
	}
}

// inflight tells whether any request is in flight now. Called with r.mu held.
func (r *Recorder) inflight() bool {
	for _, s := range r.allShards() {
		s.mu.Lock()
		fin, begun := s.finished, s.begun
		s.mu.Unlock()
		if s.started.Load()+begun > fin {
			return true
		}
	}
	return false
}

// bucketTick closes one fine bucket. Called with r.mu held.
func (r *Recorder) bucketTick() {
	var done, doneB [vocab.NumOps]uint64
	var spanned bool
	k := r.nb
	r.nb++
	for _, s := range r.allShards() {
		s.mu.Lock()
		s.harvest(k, &done, &doneB, &spanned)
		s.mu.Unlock()
	}
	// Requests in flight at the bucket's end (sampled then; at Stop, now):
	// samples are taken in bucket order, one per bucket, and dropped once
	// used.
	var inflight bool
	if len(r.inflightAt) > 0 {
		inflight = r.inflightAt[0]
		r.inflightAt = r.inflightAt[1:]
	} else {
		inflight = r.inflight()
	}
	if r.stream {
		r.addAll(&done, &doneB, inflight || spanned)
		return
	}
	n := int(k)
	any := false
	for op := range done {
		c, b := done[op], doneB[op]
		if c > 0 || r.buckets[op] != nil {
			if r.buckets[op] == nil {
				r.buckets[op] = make([]uint32, n, n+64)
				r.bucketB[op] = make([]uint64, n, n+64)
			}
			r.buckets[op] = append(r.buckets[op], uint32(c))
			r.bucketB[op] = append(r.bucketB[op], b)
		}
		if c > 0 {
			any = true
		}
	}
	r.outst = append(r.outst, inflight || spanned || any)
}

// addAll adds a bucket's completions of every op to the streamed series
// (on disk with a spill); the bucket had a request outstanding when busy is
// set or any completed.
func (r *Recorder) addAll(done, doneB *[vocab.NumOps]uint64, busy bool) {
	var c, b uint64
	for op := range done {
		c += done[op]
		b += doneB[op]
	}
	n := uint32(min(c, 1<<32-1))
	if r.fine != nil {
		r.fine.add(n, b, busy || c > 0)
		return
	}
	r.all = append(r.all, n)
	if b > 0 || r.allB != nil { // no bytes series until a byte moved
		r.allB = append(result.Grow(r.allB, len(r.all)-1), b)
	}
	r.outst = append(r.outst, busy || c > 0)
}

// Err is why the phase Stop returned has no fine buckets: the spill
// (Config.FinePath) could not be written or read back.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// intervalTick closes the interval ending at `at`. Called with r.mu held.
func (r *Recorder) intervalTick(at int64) {
	iv := result.Interval{StartNs: r.lastTick, DurationNs: at - r.lastTick}
	r.lastTick = at
	// Keeping the stored series past the first hour, the stored interval's
	// histograms take the second's counts directly (no encoding and
	// decoding between).
	coarse := r.keepsCoarse() && !r.coarse.Open(iv.StartNs)
	var sums ivSums
	r.swapShards(&sums)
	ok, bytes, errs := &sums.ok, &sums.bytes, &sums.errs
	live := Live{Phase: r.cfg.Phase, AtNs: at, IntervalNs: iv.DurationNs}
	for op := range ok {
		var errMap map[string]uint64
		var nerr uint64
		for c, n := range errs[op] {
			if n > 0 {
				if errMap == nil {
					errMap = map[string]uint64{}
				}
				errMap[vocab.Class(c).String()] = n
				nerr += n
			}
		}
		if ok[op] == 0 && nerr == 0 && r.total[op] == nil {
			continue
		}
		acc := r.acc(op)
		acc.ok += ok[op]
		acc.bytes += bytes[op]
		for c := range errs[op] {
			acc.errs[c] += errs[op][c]
		}
		io := result.IntervalOp{Op: vocab.Op(op).String(), Count: ok[op], Errors: errMap, Bytes: bytes[op]}
		if c := r.ivCounts[op]; c != nil && ok[op] > 0 {
			r.latencyOf(op, c, &io, iv.StartNs, coarse)
		}
		iv.Ops = append(iv.Ops, io)
		lo := LiveOp{Op: vocab.Op(op), Count: ok[op], Errors: nerr, P50Ns: io.Latency.P50Ns, P99Ns: io.Latency.P99Ns, P999Ns: io.Latency.P999Ns, MaxNs: io.Latency.MaxNs, TotalCount: acc.ok}
		for c, n := range acc.errs {
			if n > 0 {
				if lo.TotalErrors == nil {
					lo.TotalErrors = map[string]uint64{}
				}
				lo.TotalErrors[vocab.Class(c).String()] = n
			}
		}
		live.Ops = append(live.Ops, lo)
		live.Count += ok[op]
		live.Errors += nerr
		if io.Latency.P99Ns > live.P99Ns {
			live.P99Ns = io.Latency.P99Ns
		}
	}
	r.lastIv = iv
	r.nIntervals++
	switch {
	case r.keepsCoarse():
		r.coarse.AddCounted(iv)
	case !r.stream:
		r.intervals = append(r.intervals, iv)
	}
	for _, a := range r.total {
		if a != nil {
			live.TotalCount += a.ok
			for _, n := range a.errs {
				live.TotalErrors += n
			}
		}
	}
	r.live = live
}

// keepsCoarse says whether the recorder keeps the stored series: streaming,
// for a live check's window (KeepWindow). Called with r.mu held.
func (r *Recorder) keepsCoarse() bool { return r.stream && r.winOn }

// ivSums are an interval's counts of every shard.
type ivSums struct {
	ok, bytes [vocab.NumOps]uint64
	errs      [vocab.NumOps][vocab.NumClasses]uint64
}

// swapShards swaps every shard's histogram sets, drains the set the
// interval filled, takes back its blocks long empty and tops up the block
// reserve: counts into t, latencies into ivCounts, service time,
// lag and attributable latency into the phase's. Called with r.mu held.
func (r *Recorder) swapShards(t *ivSums) {
	for _, s := range r.allShards() {
		s.mu.Lock()
		s.cur, s.spare = s.spare, s.cur
		s.mu.Unlock()
		set := s.spare
		for op := range set.lat {
			t.ok[op] += set.ok[op]
			t.bytes[op] += set.bytes[op]
			for c := range t.errs[op] {
				t.errs[op][c] += set.errs[op][c]
			}
			if set.ok[op] == 0 {
				continue
			}
			acc := r.acc(op)
			if r.ivCounts[op] == nil {
				r.ivCounts[op] = new(dense)
			}
			set.lat[op].moveInto(r.ivCounts[op])
			if s.svcTime {
				set.svc[op].moveTo(acc.svc)
				set.lag[op].moveTo(acc.lag)
				set.attr[op].moveTo(acc.attr)
			}
		}
		// set is now drained; reset it outside the worker's way.
		set.reset()
		// Blocks a burst grew and nothing uses now go back to the
		// reserve, which is topped up for the next burst.
		s.mu.Lock()
		set.dropIdle(s.reserve)
		used := reserveLen - len(s.reserve.free)
		s.mu.Unlock()
		if used > 0 {
			s.refill(used)
		}
	}
}

// dropIdle is counts.dropIdle for every histogram of the set. Called with
// the shard's mutex held.
func (h *hset) dropIdle(r *blockReserve) {
	for _, cs := range []*[vocab.NumOps]*counts{&h.lat, &h.svc, &h.lag, &h.attr} {
		for _, c := range cs {
			if c != nil {
				c.dropIdle(r)
			}
		}
	}
}

// latencyOf summarizes and encodes an interval's latencies of op (c, the
// counts of every shard) in one pass each, then adds them to the phase's
// histogram, to the stored interval's when it is wider than the second
// (coarse), and to the live window's. Called with r.mu held.
func (r *Recorder) latencyOf(op int, c *dense, io *result.IntervalOp, startNs int64, coarse bool) {
	io.Latency = result.SummarizeCounts(c.n[:])
	io.Hist = r.enc.Counts(c.n[:])
	var also []uint64
	var win *hdr.Histogram
	if coarse {
		also = r.coarse.Counts(io.Op)
	}
	if r.winOn && startNs >= r.winFrom {
		if r.win[op] == nil {
			r.win[op] = result.NewHist()
		}
		win = r.win[op]
	}
	c.drainTo(r.total[op].lat, also, win)
}

func (r *Recorder) acc(op int) *opAcc {
	if r.total[op] == nil {
		r.total[op] = &opAcc{lat: new(phaseCounts)}
		if r.cfg.ServiceTime { // closed loop: service time is the latency
			r.total[op].svc = new(phaseCounts)
			r.total[op].lag = new(phaseCounts)
			r.total[op].attr = new(phaseCounts)
		}
	}
	return r.total[op]
}

// fillBuckets puts the fine series in b: per op, or of all ops together
// when streaming. Called with r.mu held.
func (r *Recorder) fillBuckets(b *result.Buckets, hasBytes bool) {
	for op := range r.buckets {
		if r.buckets[op] == nil {
			continue
		}
		name := vocab.Op(op).String()
		b.Counts[name] = r.buckets[op]
		if hasBytes {
			if b.Bytes == nil {
				b.Bytes = map[string][]uint64{}
			}
			b.Bytes[name] = r.bucketB[op]
		}
	}
	if r.stream {
		b.All, b.AllBytes = r.all, r.allB
	}
	b.Pad(len(r.outst))
}

// Live is a snapshot of the last closed interval, for progress lines and
// the Prometheus endpoint.
type Live struct {
	Phase       string // set by the runner
	AtNs        int64  // end of the interval since Start
	IntervalNs  int64
	Count       uint64 // successful ops in the interval
	Errors      uint64
	P99Ns       int64 // highest per-op p99 of the interval
	TotalCount  uint64
	TotalErrors uint64
	Ops         []LiveOp
}

// LiveOp is one op type of a Live snapshot: the last interval's figures,
// and totals since the phase began (for Prometheus counters).
type LiveOp struct {
	Op                          vocab.Op
	Count                       uint64            // successful ops in the interval
	Errors                      uint64            // failed ops in the interval
	P50Ns, P99Ns, P999Ns, MaxNs int64             // latency of the interval
	TotalCount                  uint64            // successful ops since the phase began
	TotalErrors                 map[string]uint64 // failed ops since the phase began, by class
}

// OpsPerSec is the throughput of the interval.
func (l Live) OpsPerSec() float64 {
	if l.IntervalNs <= 0 {
		return 0
	}
	return float64(l.Count) * 1e9 / float64(l.IntervalNs)
}

// Intervals returns a copy of the 1 s intervals closed so far (live
// threshold checks read them while the phase runs; off the hot path); when
// streaming, the stored series, kept only with KeepWindow (none without).
func (r *Recorder) Intervals() []result.Interval {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stream {
		return r.coarse.Snapshot()
	}
	return append([]result.Interval(nil), r.intervals...)
}

// Streams says whether the recorder streams (Config.OnInterval): its
// intervals carry no histograms.
func (r *Recorder) Streams() bool { return r.stream }

// KeepWindow makes the recorder keep every op's latency from offset fromNs
// of the phase on (a live check's window past its warm-up), so that Window
// need not merge the seconds again every time it is asked, and, streaming,
// keep the stored series the checks read (Config.OnInterval). Call it as
// the phase starts, before its first interval closes.
func (r *Recorder) KeepWindow(fromNs int64) {
	r.mu.Lock()
	r.winOn, r.winFrom = true, fromNs
	r.mu.Unlock()
}

// Window returns the intervals that start in the window KeepWindow set
// (the stored series: see Config.OnInterval) and each op's totals over
// them, with the latency histogram (OpTotal.Hist). Off the hot path: it
// encodes a histogram per op.
func (r *Recorder) Window() ([]result.Interval, []result.OpTotal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := r.intervals
	if r.stream {
		all = r.coarse.Snapshot()
	}
	var ivs []result.Interval
	for _, iv := range all {
		if iv.StartNs >= r.winFrom {
			ivs = append(ivs, iv)
		}
	}
	var ops []result.OpTotal
	idx := map[string]int{}
	for _, iv := range ivs {
		for _, o := range iv.Ops {
			k, ok := idx[o.Op]
			if !ok {
				k = len(ops)
				idx[o.Op] = k
				ops = append(ops, result.OpTotal{Op: o.Op})
			}
			t := &ops[k]
			t.Count += o.Count
			for c, n := range o.Errors {
				if t.Errors == nil {
					t.Errors = map[string]uint64{}
				}
				t.Errors[c] += n
			}
		}
	}
	for op, h := range r.win {
		if k, ok := idx[vocab.Op(op).String()]; ok && h != nil {
			ops[k].Hist = result.EncodeHist(h)
			ops[k].Latency = result.Summarize(h)
		}
	}
	return ivs, ops
}

// Live returns the latest snapshot.
func (r *Recorder) Live() Live {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.live
}

// Stop closes the last (partial) bucket and interval and returns the phase.
// The caller fills Name, Mode, Concurrency and rate.
func (r *Recorder) Stop() *result.Phase {
	close(r.stopCh)
	<-r.doneCh
	r.mu.Lock()
	defer r.mu.Unlock()
	end := r.Now()
	bw := int64(r.cfg.BucketWidth)
	// Every bucket up to the end, the last one partial: the workers are done,
	// so every completion is in.
	for r.nb*bw < end {
		r.bucketTick()
	}
	if r.fine != nil {
		r.all, r.allB, r.outst, r.err = r.fine.read()
		r.fine = nil
	}
	if end > r.lastTick || r.nIntervals == 0 {
		r.intervalTick(end)
		if r.cfg.OnInterval != nil {
			// The last, partial interval goes out as the others did: the
			// seconds file and the .hlog hold every second of the phase.
			r.cfg.OnInterval(r.lastIv)
		}
	}
	if r.keepsCoarse() {
		r.intervals = r.coarse.Finish()
	}
	p := &result.Phase{
		StartedAt:  r.startAt,
		DurationNs: end,
		Buckets: result.Buckets{
			WidthNs:     bw,
			Counts:      map[string][]uint32{},
			Outstanding: r.outst,
		},
		Intervals:     r.intervals,
		ErrorMessages: r.errs.messages(),
	}
	hasBytes := false
	for op, a := range r.total {
		if a == nil {
			continue
		}
		name := vocab.Op(op).String()
		t := result.OpTotal{Op: name, Count: a.ok, Bytes: a.bytes}
		for c, n := range a.errs {
			if n > 0 {
				if t.Errors == nil {
					t.Errors = map[string]uint64{}
				}
				t.Errors[vocab.Class(c).String()] = n
			}
		}
		lat := a.lat.hist()
		t.Latency = result.Summarize(lat)
		t.Hist = result.EncodeHist(lat)
		if r.cfg.ServiceTime && op != int(vocab.OpConsume) {
			svc, lagH, attrH := a.svc.hist(), a.lag.hist(), a.attr.hist()
			t.Service = result.Summarize(svc)
			t.ServiceHist = result.EncodeHist(svc)
			lag := result.Summarize(lagH)
			t.Lag, t.LagHist = &lag, result.EncodeHist(lagH)
			attr := result.Summarize(attrH)
			t.Attributable, t.AttributableHist = &attr, result.EncodeHist(attrH)
		} else {
			// Closed loop: service time is the latency.
			t.Service, t.ServiceHist = t.Latency, t.Hist
		}
		p.Ops = append(p.Ops, t)
		if a.bytes > 0 {
			hasBytes = true
		}
	}
	r.fillBuckets(&p.Buckets, hasBytes)
	p.SortOps()
	r.stopped = true
	return p
}
