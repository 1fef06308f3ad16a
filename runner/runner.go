// Package runner drives a target with a workload: a load phase (parallel
// inserts of the dataset) and a run phase, closed loop (N workers at full
// speed) or open loop at a fixed rate. In open loop the schedule decides when
// each request should start, and latency is measured from that intended start
// (no coordinated omission); service time is kept too.
//
// The runner times and records; it does not know what a target does, and it
// does not print anything: progress goes to Config.Progress.
package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Config is how to run a phase. Zero values take the defaults.
type Config struct {
	// Duration bounds the run phase; 0 means run until Ops operations.
	Duration time.Duration
	// Ops bounds the run phase by operation count; 0 means run for Duration.
	Ops uint64
	// Concurrency is the number of workers (goroutines, each with its own
	// adapter.Worker). Default 16.
	Concurrency int
	// Rate is the total fixed rate in ops/s (open loop); 0 means closed loop.
	// Streams, when given, replace it.
	Rate float64
	// Streams are the open loop's arrival processes: a rate profile each, and
	// optionally the one operation type a stream sends. Empty: one constant
	// stream at Rate (if Rate > 0).
	Streams []Stream
	// Poisson spaces arrivals by exponential gaps (a Poisson process at the
	// profile's rate) instead of evenly.
	Poisson bool
	// PaceTick is the shortest time between two wakeups of a pacer. Default
	// DefaultPaceTick.
	PaceTick time.Duration
	// Seed makes the op sequence reproducible. Worker i uses Seed and i.
	Seed int64
	// DelayThreshold is how late an open-loop op may start before it counts
	// as delayed (no worker or in-flight slot was free) or late (the client
	// was). Default 1 ms, plus PaceTick when that is over DefaultPaceTick.
	DelayThreshold time.Duration
	// BucketWidth of the fine completion series. Default 100 ms.
	BucketWidth time.Duration
	// Progress, if set, is called about once a second with the latest interval.
	Progress func(phase string, live recorder.Live, elapsed time.Duration)
	// OnInterval, if set, is called with each 1 s interval of a phase as it
	// closes (the run's journal: result.Journal).
	OnInterval func(phase string, iv result.Interval)
	// Series, set with OnInterval, makes the interval series of a phase
	// once it ended from what OnInterval wrote (result.Journal.Series):
	// the recorder streams and keeps no per-second data in memory.
	Series func(phase string) ([]result.Interval, error)
	// FinePath, with OnInterval, is the file where a phase's fine buckets
	// wait on disk until it ends (recorder.Config.FinePath): the journal's
	// (result.FinePath).
	FinePath string
	// Phase names the run phase. Default "run".
	Phase string
	// Events run at offsets into the run phase (fault injection).
	Events []Event
	// OnRecorder, if set, is called with each phase's recorder once it has
	// started (the Prometheus endpoint reads its live figures).
	OnRecorder func(*recorder.Recorder)
}

// Event is something done to the system under test at a time in the run phase.
type Event struct {
	At   time.Duration
	Kind string // exec, kill, stop, cont
	Arg  string
	// Do performs the event; its output and error are recorded.
	Do func(ctx context.Context) (output string, err error)
}

// DefaultConcurrency is the worker count when none is given.
const DefaultConcurrency = 16

func (c *Config) ensureDefaults() {
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.PaceTick <= 0 {
		c.PaceTick = DefaultPaceTick
	}
	if c.DelayThreshold <= 0 {
		c.DelayThreshold = time.Millisecond
		if c.PaceTick > DefaultPaceTick {
			// A chosen tick's lateness is by design: only what comes on
			// top of it is the client's being late.
			c.DelayThreshold += c.PaceTick
		}
	}
	if c.BucketWidth <= 0 {
		c.BucketWidth = 100 * time.Millisecond
	}
	if c.Phase == "" {
		c.Phase = "run"
	}
	if len(c.Streams) == 0 && c.Rate > 0 {
		c.Streams = []Stream{{Profile: Constant(c.Rate)}}
	}
}

// onInterval is OnInterval bound to a phase, or nil.
func (c *Config) onInterval(phase string) func(result.Interval) {
	if c.OnInterval == nil {
		return nil
	}
	return func(iv result.Interval) { c.OnInterval(phase, iv) }
}

// series gives a streamed phase its interval series (Series), read back
// from what OnInterval wrote.
func (c *Config) series(phase string, p *result.Phase) error {
	if c.OnInterval == nil || c.Series == nil {
		return nil
	}
	ivs, err := c.Series(phase)
	if err != nil {
		return err
	}
	p.Intervals = ivs
	return nil
}

// Open reports whether the run phase is an open loop (a rate was given).
func (c *Config) Open() bool { return c.Rate > 0 || len(c.Streams) > 0 }

// Validate reports every problem of c at once.
func (c *Config) Validate() error {
	var errs []error
	if c.Duration < 0 {
		errs = append(errs, errors.New("duration must not be negative"))
	}
	if c.Rate < 0 {
		errs = append(errs, errors.New("rate must not be negative"))
	}
	if c.Concurrency < 0 {
		errs = append(errs, errors.New("concurrency must not be negative"))
	}
	for _, st := range c.Streams {
		if st.Profile.IsZero() {
			errs = append(errs, errors.New("an arrival stream has no rate"))
		}
		if st.OpName != "" && !st.HasOp {
			errs = append(errs, fmt.Errorf("arrival stream %s: operation %q not resolved against the workload", st, st.OpName))
		}
	}
	if c.Duration == 0 && c.Ops == 0 {
		errs = append(errs, errors.New("give a duration or an op count"))
	}
	return errors.Join(errs...)
}

// Load inserts the records of this shard of the keyspace with Concurrency
// workers in parallel, recording each insert, and returns the "load" phase.
func Load(ctx context.Context, t adapter.Target, spec *workload.Spec, ks *workload.Keyspace, cfg Config) (*result.Phase, error) {
	cfg.ensureDefaults()
	rec := recorder.New(recorder.Config{Phase: "load", BucketWidth: cfg.BucketWidth, OnInterval: cfg.onInterval("load"), FinePath: cfg.FinePath})
	workers, depths, err := newRunWorkers(t, cfg.Concurrency)
	if err != nil {
		return nil, err
	}
	defer closeWorkers(workers)
	rec.Start()
	if cfg.OnRecorder != nil {
		cfg.OnRecorder(rec)
	}
	stopProgress := progress(ctx, "load", rec, cfg.Progress)
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Add(1)
		go func(i int, w adapter.Worker) {
			defer wg.Done()
			gen := workload.NewGenerator(spec, ks, cfg.Seed, i)
			from, to := ks.LoadRange(i, len(workers))
			if depths != nil { // pipelined: runner/async.go
				asyncLoad(ctx, w.(adapter.Pipeliner), depths[i], gen, rec, rec.Shard(i), from, to)
				return
			}
			loadLoop(ctx, w, gen, rec, rec.Shard(i), from, to)
		}(i, w)
	}
	wg.Wait()
	stopProgress()
	p := rec.Stop()
	if err := rec.Err(); err != nil {
		return nil, err
	}
	if err := cfg.series("load", p); err != nil {
		return nil, err
	}
	p.Name, p.Mode, p.Concurrency = "load", "closed", cfg.Concurrency
	if depths != nil {
		p.Concurrency = inFlight(depths)
	}
	p.Interrupted = ctx.Err() != nil
	return p, nil
}

func loadLoop(ctx context.Context, w adapter.Worker, gen *workload.Generator, rec *recorder.Recorder, sh *recorder.Shard, from, to uint64) {
	if from >= to || ctx.Err() != nil {
		return
	}
	var req workload.Request
	gen.Load(&req, from)
	sh.Begin()
	for k := from; ; {
		t0 := rec.Now()
		err := w.Do(ctx, &req)
		t1 := rec.Now()
		op, n := req.Op, uint64(len(req.Value))
		k++
		if k >= to || (k&63 == 0 && ctx.Err() != nil) {
			sh.Record(op, t0, t0, t1, n, adapter.Classify(err))
			noteErr(sh, op, err)
			return
		}
		// The next insert is in flight from here (see closedLoop).
		sh.RecordBegin(op, t0, t0, t1, n, adapter.Classify(err))
		noteErr(sh, op, err)
		gen.Load(&req, k)
	}
}

// Run runs the run phase and returns it, with the events that ran.
func Run(ctx context.Context, t adapter.Target, spec *workload.Spec, ks *workload.Keyspace, cfg Config) (*result.Phase, []result.Event, error) {
	cfg.ensureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	open := cfg.Open()
	rec := recorder.New(recorder.Config{Phase: cfg.Phase, BucketWidth: cfg.BucketWidth, ServiceTime: open, OnInterval: cfg.onInterval(cfg.Phase), FinePath: cfg.FinePath})
	workers, depths, err := newRunWorkers(t, cfg.Concurrency)
	if err != nil {
		return nil, nil, err
	}
	defer closeWorkers(workers)

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &sched{maxOps: cfg.Ops}
	rec.Start()
	if cfg.OnRecorder != nil {
		cfg.OnRecorder(rec)
	}
	if cfg.Duration > 0 {
		s.endNs = int64(cfg.Duration)
		timer := time.AfterFunc(cfg.Duration, func() { s.stop.Store(true) })
		defer timer.Stop()
	}
	go func() {
		<-runCtx.Done()
		s.stop.Store(true)
	}()

	stopBackground := startBackground(runCtx, t, rec)
	defer stopBackground()
	evCtx, evCancel := context.WithCancel(runCtx)
	defer evCancel()
	events := startEvents(evCtx, cfg.Events, rec)
	stopProgress := progress(ctx, cfg.Phase, rec, cfg.Progress)

	late := runWorkers(runCtx, workers, depths, spec, ks, &cfg, rec, s)
	stopBackground()
	evCancel()
	evs := events.wait()
	stopProgress()
	p := rec.Stop()
	if err := rec.Err(); err != nil {
		return nil, evs, err
	}
	if err := cfg.series(cfg.Phase, p); err != nil {
		return nil, evs, err
	}
	describePhase(p, &cfg, depths, late)
	p.Interrupted = ctx.Err() != nil
	return p, evs, nil
}

// startBackground runs the target's own loops (consumers) while the phase
// runs; stop cancels them and waits (it may be called more than once).
func startBackground(ctx context.Context, t adapter.Target, rec *recorder.Recorder) (stop func()) {
	bg, ok := t.(adapter.Background)
	if !ok {
		return func() {}
	}
	var wg sync.WaitGroup
	bgCtx, cancel := context.WithCancel(ctx)
	wg.Add(1)
	go func() {
		defer wg.Done()
		bg.RunBackground(bgCtx, rec)
	}()
	return func() { cancel(); wg.Wait() }
}

// runWorkers runs every worker in the loop its target and mode call for
// (and the pacer of an unpipelined open loop) until the schedule stops,
// and returns each worker's lateness (open loop).
func runWorkers(ctx context.Context, workers []adapter.Worker, depths []int, spec *workload.Spec, ks *workload.Keyspace, cfg *Config, rec *recorder.Recorder, s *sched) []lateness {
	open := cfg.Open()
	late := make([]lateness, len(workers))
	var wg sync.WaitGroup
	var pc *pacer
	if open && depths == nil {
		pc = newPacer(len(workers))
		wg.Add(1)
		go func() {
			defer wg.Done()
			pc.run(ctx, rec, newSchedule(cfg.Streams, cfg.Poisson, 0, 1, cfg.Seed), s, int64(cfg.PaceTick))
		}()
	}
	threshold, tick := int64(cfg.DelayThreshold), int64(cfg.PaceTick)
	for i, w := range workers {
		wg.Add(1)
		go func(i int, w adapter.Worker) {
			defer wg.Done()
			gen := workload.NewGenerator(spec, ks, cfg.Seed, i)
			switch {
			case depths != nil && open: // pipelined: runner/async.go
				sch := newSchedule(cfg.Streams, cfg.Poisson, i, len(workers), cfg.Seed)
				late[i] = asyncOpenLoop(ctx, w.(adapter.Pipeliner), depths[i], gen, rec, rec.Shard(i), s, sch, threshold, tick)
			case depths != nil:
				asyncClosedLoop(ctx, w.(adapter.Pipeliner), depths[i], gen, rec, rec.Shard(i), s)
			case open: // runner/pacer.go
				late[i] = pc.work(ctx, w, gen, rec, rec.Shard(i), threshold)
			default:
				closedLoop(ctx, w, gen, rec, rec.Shard(i), s)
			}
		}(i, w)
	}
	wg.Wait()
	return late
}

// describePhase records how the phase ran: its name, concurrency (in
// flight when pipelined), mode, and in open loop the rate, the thresholds
// and the operations that started late.
func describePhase(p *result.Phase, cfg *Config, depths []int, late []lateness) {
	p.Name, p.Concurrency = cfg.Phase, cfg.Concurrency
	if depths != nil {
		p.Concurrency = inFlight(depths)
	}
	p.Mode = "closed"
	if cfg.Open() {
		p.Mode, p.RateOpsPerS = "open", cfg.Rate
		p.DelayThresholdNs, p.PaceTickNs = int64(cfg.DelayThreshold), int64(cfg.PaceTick)
		var l lateness
		for _, d := range late {
			l.add(d)
		}
		p.Delayed, p.LateClient = l.slots, l.client
		p.DelayedWaitNs, p.DelayedWaitMaxNs = l.waitNs, l.waitMaxNs
		describeStreams(p, *cfg)
	}
}

// sched is shared by the workers of a phase.
type sched struct {
	stop   atomic.Bool
	full   atomic.Bool   // stopped by the op-count bound: the ops handed out are all still to run
	issued atomic.Uint64 // ops handed out (op-count bound and open-loop slots)
	maxOps uint64        // 0: unbounded
	endNs  int64         // 0: unbounded
}

// claim takes the next op number for a closed-loop worker holding *left of
// them: against an op-count bound it takes numbers from the shared counter
// in blocks (one atomic add per 64 ops rather than per op; the last block
// is cut to the bound, so the total stays exact); against a duration it
// only reads the stop flag. False: the phase is over.
func (s *sched) claim(left *uint64) bool {
	const block = 64
	if s.stop.Load() {
		return false
	}
	if s.maxOps == 0 {
		return true
	}
	if *left == 0 {
		n := s.issued.Add(block) - block
		if n >= s.maxOps {
			return false
		}
		*left = min(block, s.maxOps-n)
	}
	*left--
	return true
}

// closedLoop runs ops back to back until the phase stops (sched.claim).
func closedLoop(ctx context.Context, w adapter.Worker, gen *workload.Generator, rec *recorder.Recorder, sh *recorder.Shard, s *sched) {
	var left uint64 // op numbers this worker holds (see sched.claim)
	var req workload.Request
	if !s.claim(&left) {
		return
	}
	gen.Next(&req)
	sh.Begin()
	for {
		t0 := rec.Now()
		err := w.Do(ctx, &req)
		t1 := rec.Now()
		op, n := req.Op, uint64(len(req.Value))
		// The next request is in flight from here: one lock round trip
		// records this op and begins the next (RecordBegin).
		if !s.claim(&left) {
			sh.Record(op, t0, t0, t1, n, adapter.Classify(err))
			noteErr(sh, op, err)
			return
		}
		sh.RecordBegin(op, t0, t0, t1, n, adapter.Classify(err))
		noteErr(sh, op, err)
		gen.Next(&req)
	}
}

func newWorkers(t adapter.Target, n int) ([]adapter.Worker, error) {
	ws := make([]adapter.Worker, 0, n)
	for i := 0; i < n; i++ {
		w, err := t.NewWorker(i)
		if err != nil {
			closeWorkers(ws)
			return nil, fmt.Errorf("start worker %d: %w", i, err)
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// noteErr keeps the message of a failed operation for the phase's result
// (recorder.Shard.NoteError), after it was recorded: never timed, and
// nothing at all for an operation that succeeded.
func noteErr(sh *recorder.Shard, op vocab.Op, err error) {
	if err != nil {
		sh.NoteError(op, adapter.Classify(err), err)
	}
}

func closeWorkers(ws []adapter.Worker) {
	for _, w := range ws {
		w.Close()
	}
}

// progress calls fn once a second until the returned stop is called.
func progress(ctx context.Context, phase string, rec *recorder.Recorder, fn func(string, recorder.Live, time.Duration)) (stop func()) {
	if fn == nil {
		return func() {}
	}
	return Every(ctx, time.Second, func() bool {
		fn(phase, rec.Live(), time.Duration(rec.Now()))
		return true
	})
}

// Every calls fn every period, on a goroutine of its own, until fn returns
// false, ctx ends or stop is called; stop waits for the goroutine. It is
// the one ticker of a running phase: progress lines, live threshold checks.
func Every(ctx context.Context, period time.Duration, fn func() bool) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tk := time.NewTicker(period)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tk.C:
				if !fn() {
					return
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// openLoopSleeper returns the worker's timerfd sleeper, or nil after
// locking the worker's thread with a 1 µs timer slack (instead of the
// kernel's default 50 µs) for nanosleep where timerfd is missing (the
// thread ends with the worker).
func openLoopSleeper() *sleeper {
	if slp := newSleeper(); slp != nil {
		return slp
	}
	runtime.LockOSThread()
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0)
	return nil
}
