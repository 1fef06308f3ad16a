package recorder

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/target"
	"github.com/platbench/platbench/workload"
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
	// ServiceTime records service time separately from latency (open loop).
	// In closed loop they are the same figure and recording it twice would
	// only cost time on the hot path. Default false.
	ServiceTime bool
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
	lat, svc [workload.NumOps]*counts
	ok       [workload.NumOps]uint64
	errs     [workload.NumOps][target.NumClasses]uint64
	bytes    [workload.NumOps]uint64
}

// reset zeroes the totals; the collector zeroes the counts as it drains them.
func (s *hset) reset() {
	s.ok = [workload.NumOps]uint64{}
	s.errs = [workload.NumOps][target.NumClasses]uint64{}
	s.bytes = [workload.NumOps]uint64{}
}

// Shard is where workers record. Record takes the shard's mutex, which is
// uncontended unless two workers share the shard and finish at the same
// instant; the collector holds it only to swap histogram sets.
type Shard struct {
	mu      sync.Mutex
	svcTime bool
	cur     *hset
	spare   *hset
	// Cumulative completions (ok+errors) and bytes per op, for the fine
	// buckets: read under mu by the collector every bucket tick.
	done     [workload.NumOps]uint64
	doneB    [workload.NumOps]uint64
	finished uint64
	begun    uint64        // requests begun by RecordBegin, under mu
	started  atomic.Uint64 // requests begun by Begin
	_        [64]byte      // keep shards on separate cache lines
}

// Begin marks one more request in flight (for telling stalls from idleness).
func (s *Shard) Begin() { s.started.Add(1) }

// Record records one completed operation. Times are Now() readings:
// intended is when the schedule wanted it to start (= start in closed loop),
// start when it was sent, end when it completed. Only successful operations
// enter the latency histograms; errors are counted by class.
func (s *Shard) Record(op workload.Op, intended, start, end int64, bytes uint64, class target.Class) {
	s.mu.Lock()
	s.record(op, intended, start, end, bytes, class)
	s.mu.Unlock()
}

// RecordBegin is Record followed by Begin, for a worker that starts its next
// request right away (closed loop): one lock round trip instead of a lock
// round trip and an atomic add.
func (s *Shard) RecordBegin(op workload.Op, intended, start, end int64, bytes uint64, class target.Class) {
	s.mu.Lock()
	s.record(op, intended, start, end, bytes, class)
	s.begun++
	s.mu.Unlock()
}

// record is Record with mu held.
func (s *Shard) record(op workload.Op, intended, start, end int64, bytes uint64, class target.Class) {
	set := s.cur
	if class == target.ClassNone {
		c := set.lat[op]
		if c == nil {
			c = s.newHists(op)
		}
		c[index(clamp(end-intended))]++
		if s.svcTime {
			set.svc[op][index(clamp(end-start))]++
		}
		set.ok[op]++
	} else {
		set.errs[op][class]++
	}
	set.bytes[op] += bytes
	s.done[op]++
	s.doneB[op] += bytes
	s.finished++
}

// newHists allocates the histograms of an op the first time a shard sees it
// (once per op per shard, not per operation). Called with mu held.
func (s *Shard) newHists(op workload.Op) *counts {
	for _, set := range [2]*hset{s.cur, s.spare} {
		set.lat[op] = new(counts)
		if s.svcTime {
			set.svc[op] = new(counts)
		}
	}
	return s.cur.lat[op]
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

	mu        sync.Mutex // guards everything below
	total     [workload.NumOps]*opAcc
	intervals []result.Interval
	lastTick  int64 // Now() of the last interval tick
	buckets   [workload.NumOps][]uint32
	bucketB   [workload.NumOps][]uint64
	outst     []bool
	prevDone  [workload.NumOps]uint64
	prevDoneB [workload.NumOps]uint64
	scratch   *hset
	ivHist    [workload.NumOps]*hdr.Histogram
	live      Live
	stopped   bool
}

// opAcc accumulates one op over the whole phase.
type opAcc struct {
	lat, svc *hdr.Histogram
	ok       uint64
	errs     [target.NumClasses]uint64
	bytes    uint64
}

// New returns a recorder; call Start when the phase begins.
func New(cfg Config) *Recorder {
	cfg.ensureDefaults()
	r := &Recorder{cfg: cfg, scratch: &hset{}}
	for i := 0; i < cfg.Shards; i++ {
		r.shards = append(r.shards, &Shard{svcTime: cfg.ServiceTime, cur: &hset{}, spare: &hset{}})
	}
	r.async = &Shard{svcTime: false, cur: &hset{}, spare: &hset{}}
	return r
}

// Now returns monotonic nanoseconds since Start.
func (r *Recorder) Now() int64 { return nanotime() - r.base }

// StartTime is the wall-clock time of Start.
func (r *Recorder) StartTime() time.Time { return r.startAt }

// Shard returns the shard worker i records through.
func (r *Recorder) Shard(i int) *Shard { return r.shards[i%len(r.shards)] }

// RecordAsync implements target.Sink for operations completed outside
// workers (consumers): the latency is given, not measured here.
func (r *Recorder) RecordAsync(op workload.Op, latencyNs int64, bytes uint64, class target.Class) {
	r.async.Begin()
	r.async.Record(op, 0, 0, latencyNs, bytes, class)
}

var _ target.Sink = (*Recorder)(nil)

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
	nextBucket := bw
	nextInterval := iw
	timer := time.NewTimer(time.Duration(nextBucket))
	defer timer.Stop()
	for {
		select {
		case <-r.stopCh:
			return
		case <-timer.C:
		}
		r.mu.Lock()
		for r.Now() >= nextBucket {
			r.bucketTick()
			nextBucket += bw
		}
		if r.Now() >= nextInterval {
			r.intervalTick(nextInterval)
			nextInterval += iw
		}
		r.mu.Unlock()
		d := nextBucket - r.Now()
		if d < 0 {
			d = 0
		}
		timer.Reset(time.Duration(d))
	}
}

// bucketTick closes one fine bucket. Called with r.mu held.
func (r *Recorder) bucketTick() {
	var done, doneB [workload.NumOps]uint64
	var inflight bool
	for _, s := range r.allShards() {
		s.mu.Lock()
		for op := range done {
			done[op] += s.done[op]
			doneB[op] += s.doneB[op]
		}
		fin, begun := s.finished, s.begun
		s.mu.Unlock()
		if s.started.Load()+begun > fin {
			inflight = true
		}
	}
	n := len(r.outst)
	any := false
	for op := range done {
		c := done[op] - r.prevDone[op]
		b := doneB[op] - r.prevDoneB[op]
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
	r.outst = append(r.outst, inflight || any)
	r.prevDone, r.prevDoneB = done, doneB
}

// intervalTick closes the interval ending at `at`. Called with r.mu held.
func (r *Recorder) intervalTick(at int64) {
	iv := result.Interval{StartNs: r.lastTick, DurationNs: at - r.lastTick}
	r.lastTick = at
	for op := range r.ivHist {
		if r.ivHist[op] != nil {
			r.ivHist[op].Reset()
		}
	}
	var ok, bytes [workload.NumOps]uint64
	var errs [workload.NumOps][target.NumClasses]uint64
	for _, s := range r.allShards() {
		s.mu.Lock()
		s.cur, s.spare = s.spare, s.cur
		s.mu.Unlock()
		set := s.spare
		for op := range set.lat {
			ok[op] += set.ok[op]
			bytes[op] += set.bytes[op]
			for c := range errs[op] {
				errs[op][c] += set.errs[op][c]
			}
			if set.ok[op] == 0 {
				continue
			}
			acc := r.acc(op)
			if r.ivHist[op] == nil {
				r.ivHist[op] = result.NewHist()
			}
			set.lat[op].drainInto(r.ivHist[op], acc.lat)
			if s.svcTime {
				set.svc[op].drainInto(acc.svc, nil)
			}
		}
		// set is now drained; reset it outside the worker's way.
		set.reset()
	}
	live := Live{Phase: r.cfg.Phase, AtNs: at, IntervalNs: iv.DurationNs}
	for op := range ok {
		var errMap map[string]uint64
		var nerr uint64
		for c, n := range errs[op] {
			if n > 0 {
				if errMap == nil {
					errMap = map[string]uint64{}
				}
				errMap[target.Class(c).String()] = n
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
		io := result.IntervalOp{Op: workload.Op(op).String(), Count: ok[op], Errors: errMap, Bytes: bytes[op]}
		if h := r.ivHist[op]; h != nil && h.TotalCount() > 0 {
			io.Latency = result.Summarize(h)
			io.Hist = result.EncodeHist(h)
		}
		iv.Ops = append(iv.Ops, io)
		lo := LiveOp{Op: workload.Op(op), Count: ok[op], Errors: nerr, P50Ns: io.Latency.P50Ns, P99Ns: io.Latency.P99Ns, P999Ns: io.Latency.P999Ns, MaxNs: io.Latency.MaxNs, TotalCount: acc.ok}
		for c, n := range acc.errs {
			if n > 0 {
				if lo.TotalErrors == nil {
					lo.TotalErrors = map[string]uint64{}
				}
				lo.TotalErrors[target.Class(c).String()] = n
			}
		}
		live.Ops = append(live.Ops, lo)
		live.Count += ok[op]
		live.Errors += nerr
		if io.Latency.P99Ns > live.P99Ns {
			live.P99Ns = io.Latency.P99Ns
		}
	}
	r.intervals = append(r.intervals, iv)
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

func (r *Recorder) acc(op int) *opAcc {
	if r.total[op] == nil {
		r.total[op] = &opAcc{lat: result.NewHist()}
		if r.cfg.ServiceTime { // closed loop: service time is the latency
			r.total[op].svc = result.NewHist()
		}
	}
	return r.total[op]
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
	Op                          workload.Op
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
	// The final partial bucket, only when it has some length.
	if end > int64(len(r.outst))*bw {
		r.bucketTick()
	}
	if end > r.lastTick || len(r.intervals) == 0 {
		r.intervalTick(end)
	}
	p := &result.Phase{
		StartedAt:  r.startAt,
		DurationNs: end,
		Buckets: result.Buckets{
			WidthNs:     bw,
			Counts:      map[string][]uint32{},
			Outstanding: r.outst,
		},
		Intervals: r.intervals,
	}
	hasBytes := false
	for op, a := range r.total {
		if a == nil {
			continue
		}
		name := workload.Op(op).String()
		t := result.OpTotal{Op: name, Count: a.ok, Bytes: a.bytes}
		for c, n := range a.errs {
			if n > 0 {
				if t.Errors == nil {
					t.Errors = map[string]uint64{}
				}
				t.Errors[target.Class(c).String()] = n
			}
		}
		t.Latency = result.Summarize(a.lat)
		t.Hist = result.EncodeHist(a.lat)
		if r.cfg.ServiceTime && op != int(workload.OpConsume) {
			t.Service = result.Summarize(a.svc)
			t.ServiceHist = result.EncodeHist(a.svc)
		} else {
			// Closed loop: service time is the latency.
			t.Service, t.ServiceHist = t.Latency, t.Hist
		}
		p.Ops = append(p.Ops, t)
		if a.bytes > 0 {
			hasBytes = true
		}
	}
	for op := range r.buckets {
		if r.buckets[op] == nil {
			continue
		}
		name := workload.Op(op).String()
		p.Buckets.Counts[name] = pad32(r.buckets[op], len(r.outst))
		if hasBytes {
			if p.Buckets.Bytes == nil {
				p.Buckets.Bytes = map[string][]uint64{}
			}
			p.Buckets.Bytes[name] = pad64(r.bucketB[op], len(r.outst))
		}
	}
	sort.SliceStable(p.Ops, func(i, j int) bool {
		a, _ := workload.ParseOp(p.Ops[i].Op)
		b, _ := workload.ParseOp(p.Ops[j].Op)
		return a < b
	})
	r.stopped = true
	return p
}

func pad32(s []uint32, n int) []uint32 {
	for len(s) < n {
		s = append(s, 0)
	}
	return s
}

func pad64(s []uint64, n int) []uint64 {
	for len(s) < n {
		s = append(s, 0)
	}
	return s
}
