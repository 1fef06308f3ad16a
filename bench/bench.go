// Package bench runs one benchmark end to end: open the target, load the
// dataset, run the workload, and assemble the result file's content. It is
// the library call behind `platbench run` and `platbench load`, and each
// cell of a suite; it writes no result files and prints nothing (the CLI
// does both; the recorder keeps a phase's fine buckets in the fine-bucket file
// beside the journal while it runs, result.FinePath of Config.Journal).
//
// Types that matter: Config, whose defaults (the Default* constants,
// EnsureDefaults) are those of every command, and whose Validate reports
// every problem at once; Run; and Session (Open, Load, RunPhase, Finish)
// for commands that run several phases against one target (sweeps).
package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/analysis"
	redactpkg "github.com/platbench/platbench/internal/redact"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/telemetry"
	"github.com/platbench/platbench/telemetry/platform"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Version is written into results; the CLI sets it.
var Version = "dev"

// Run runs the benchmark (defaults applied, see Config). On Ctrl-C (ctx
// cancelled) it stops the current phase and still returns the result of
// what ran, with the phase marked interrupted. A nil result comes with an
// error that says what to fix; a verification (Config.Verify) that could not
// complete returns the result and its error.
func Run(ctx context.Context, cfg Config) (r *result.Result, err error) {
	cfg.EnsureDefaults()
	s, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	// What becomes of the dataset (kept, or removed when this run loaded
	// it) is decided however the run ends, before Close.
	defer func() { s.endDataset(ctx, r) }()
	if cfg.Load {
		if err := s.Load(ctx); err != nil {
			return s.failedLoad(ctx, err)
		}
	}
	if cfg.Run && ctx.Err() == nil {
		if cfg.Gate != nil {
			at, err := cfg.Gate(ctx)
			if err != nil {
				return nil, err
			}
			cfg.StartAt = at
		}
		if !cfg.StartAt.IsZero() {
			if err := sleepUntil(ctx, cfg.StartAt); err != nil {
				return nil, err
			}
		}
		rc := s.cfg.Runner
		runCtx, stop := s.abortOnFail(ctx, &rc)
		_, err := s.RunPhase(runCtx, "run", rc)
		stop()
		if err != nil {
			return nil, err
		}
	}
	var verr error
	if cfg.Verify && ctx.Err() == nil {
		verr = s.Verify(ctx)
	}
	r, err = s.Finish(ctx)
	if err == nil && verr != nil {
		// The result of what ran is kept, with the verification's error.
		r.Notes = append(r.Notes, "the verification of acknowledged writes did not complete: "+verr.Error())
		return r, verr
	}
	return r, err
}

// Session is an open target with a result being built: the steps of Run, for
// commands that run several phases against one target (sweeps).
type Session struct {
	cfg  Config
	spec workload.Spec
	t    adapter.Target
	ks   *workload.Keyspace
	r    *result.Result
	tel  *telemetry.Session
	// loadID is the load that wrote the dataset: this run's, or the
	// earlier one the dataset's manifest names.
	loadID string
	// ds is the dataset's manifest (dataset.go).
	ds *dataset
	// acks records the acknowledged writes when the run is verified; rt
	// is then the target the runner drives (t, its workers recording).
	acks *ackLog
	rt   adapter.Target
	// plan is the load phase's size estimate (nil without a load).
	plan *analysis.LoadPlan
}

// Open applies cfg's defaults, validates it, opens and sets up the target,
// and fingerprints the platform.
func Open(ctx context.Context, cfg Config) (*Session, error) {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	spec := cfg.Workload
	// Each loader of a distributed run takes its share of the total rate.
	if cfg.Shards > 1 {
		cfg.Runner.Rate /= float64(cfg.Shards)
		streams := make([]runner.Stream, len(cfg.Runner.Streams))
		for i, st := range cfg.Runner.Streams {
			st.Profile = st.Profile.Scale(1 / float64(cfg.Shards))
			streams[i] = st
		}
		cfg.Runner.Streams = streams
	}

	t, err := openWith(ctx, cfg.Open, cfg.Target, cfg.TargetOpts)
	if err != nil {
		return nil, err
	}
	ds, err := setUp(ctx, t, &cfg, &spec)
	if err != nil {
		t.Close()
		return nil, err
	}
	r, err := newResult(ctx, t, &cfg, &spec)
	if err != nil {
		t.Close()
		return nil, err
	}
	plan, err := planLoad(ctx, t, &cfg, &spec, r)
	if err != nil {
		t.Close()
		return nil, err
	}
	cfg.noteConcurrency(r)
	tc := cfg.Telemetry
	tc.InProcess = r.Target.Kind == "embedded"
	tc.TargetNodes = r.Target.Nodes
	if sr, ok := t.(adapter.StatusReader); ok {
		tc.Status = sr // the servers' own figures (Redis INFO), telemetry/dbmetrics
	}
	// The journal's header first: telemetry writes samples after it.
	cfg.Runner.OnInterval = namedIntervals(cfg.Journal.Start(r), &spec) // nil without a journal
	if cfg.Journal != nil {
		cfg.Runner.Series = journalSeries(cfg.Journal, r)
		cfg.Runner.FinePath = result.FinePath(cfg.Journal.Path())
	}
	if cfg.Journal != nil {
		tc.OnSample = cfg.Journal.Sample // every sample to disk as it is taken
		tc.Samples = cfg.Journal.Telemetry
	}
	tel, err := telemetry.Start(context.WithoutCancel(ctx), tc)
	if err != nil {
		t.Close()
		return nil, err
	}
	if cfg.OnTelemetry != nil {
		cfg.OnTelemetry(tel)
	}
	s := &Session{cfg: cfg, spec: spec, t: t, rt: t, ks: workload.NewKeyspace(&spec, cfg.Shard, cfg.Shards), r: r, tel: tel, loadID: ds.loadID(), ds: ds, plan: plan}
	s.startWrites(ctx) // a write-only run's own dataset gets a manifest (dataset.go)
	s.recordAcks()
	return s, nil
}

// journalSeries reads a phase's interval series back from the journal
// (result.Journal.Series). The journal is insurance, the result file the
// contract: a journal that could not be written whole (a full disk) leaves
// the phase without its series, said in a note, and its totals whole.
func journalSeries(j *result.Journal, r *result.Result) func(string) ([]result.Interval, error) {
	return func(phase string) ([]result.Interval, error) {
		ivs, err := j.Series(phase)
		if err != nil {
			r.Notes = append(r.Notes, fmt.Sprintf("phase %s has no interval series: %v", phase, err))
			return nil, nil
		}
		return ivs, nil
	}
}

// setUp sets the target up for spec and reads its dataset's manifest (the
// load a run without a load phase reads; the dataset a load extends).
//
// Datasets stay put: a run that loads nothing but reads records works on
// what is there (Setup creates nothing, Close removes nothing), and checks
// it first. A write-only run needs no dataset: Setup may create its table or
// topic (and Close removes what it created).
func setUp(ctx context.Context, t adapter.Target, cfg *Config, spec *workload.Spec) (*dataset, error) {
	if err := checksReads(t, cfg.Target, spec); err != nil {
		return nil, verifyRefused(err, cfg.Verify)
	}
	dc, checks := t.(adapter.DatasetChecker)
	checks = checks && !cfg.Load && spec.ReadsRecords()
	if checks {
		dc.UseExisting()
	}
	if err := t.Setup(ctx, spec); err != nil {
		return nil, fmt.Errorf("set up %s: %w", redact(cfg.Target), err)
	}
	if checks && cfg.Run {
		if err := dc.CheckDataset(ctx, spec); err != nil {
			return nil, fmt.Errorf("%s: %w", redact(cfg.Target), err)
		}
	}
	return readManifest(ctx, t, spec), nil
}

// newResult is the result being built: the tool, the effective
// configuration (passwords removed), the platform and what the target is.
func newResult(ctx context.Context, t adapter.Target, cfg *Config, spec *workload.Spec) (*result.Result, error) {
	recorded, err := spec.Record()
	if err != nil {
		return nil, err
	}
	r := &result.Result{
		Schema:    result.SchemaVersion,
		Tool:      result.Tool{Name: "platbench", Version: Version, GoVersion: runtime.Version()},
		StartedAt: time.Now().UTC(),
		Label:     cfg.Label, Commit: cfg.Commit,
		Platform: platform.Fingerprint(),
		Config: result.Config{
			Target:      redact(cfg.Target),
			TargetOpts:  redactOpts(cfg.TargetOpts),
			Workload:    recorded,
			DurationNs:  int64(cfg.Runner.Duration),
			Ops:         cfg.Runner.Ops,
			Concurrency: cfg.Runner.Concurrency,
			RateOpsPerS: cfg.Runner.Rate,
			Seed:        cfg.Runner.Seed,
			Load:        cfg.Load,
			Warmup:      cfg.Warmup,
			Extra:       cfg.Extra,
		},
	}
	r.Like = cfg.Like
	if cfg.Shards > 1 {
		r.Config.Shard = fmt.Sprintf("%d/%d", cfg.Shard, cfg.Shards)
	}
	r.Target = vocab.Info{Kind: schemeOf(cfg.Target), URL: redact(cfg.Target)}
	if d, ok := t.(adapter.Describer); ok {
		r.Target = d.Describe(ctx)
		r.Target.URL = redact(r.Target.URL)
	}
	return r, nil
}

// planLoad says what the load phase will write before it starts: the
// records (lowered to cfg.DatasetBytes when a budget is given; the target is
// told), the rows and bytes of a record as the target has it set up, beside
// the host's RAM and the target's free disk where known. A load that cannot
// fit is refused. Nil without a load phase.
func planLoad(ctx context.Context, t adapter.Target, cfg *Config, spec *workload.Spec, r *result.Result) (*analysis.LoadPlan, error) {
	if !cfg.Load {
		return nil, nil
	}
	rows, bytes := 1.0, float64(spec.RecordBytes())
	rs, sized := t.(adapter.RecordSizer)
	if sized {
		rows, bytes = rs.RecordSize(spec)
	}
	var free int64
	if fd, ok := t.(adapter.FreeDisker); ok {
		free, _ = fd.FreeDiskBytes(ctx) // unknown: nothing to refuse on
	}
	records := spec.Records
	if cfg.Shards > 1 {
		// This loader's share.
		records = (records + uint64(cfg.Shards) - 1) / uint64(cfg.Shards)
	}
	p, err := analysis.PlanLoad(records, rows, bytes, cfg.DatasetBytes, r.Platform.UsableRAM(), free)
	if err != nil {
		return nil, err
	}
	if p.BoundedFrom > 0 {
		spec.Records = p.Records * uint64(max(cfg.Shards, 1))
		r.Config.Workload.Records = spec.Records
		if sized {
			rs.Resize(spec)
		}
	}
	if cfg.OnLoadPlan != nil {
		cfg.OnLoadPlan(p)
	}
	return &p, nil
}

// Load runs the load phase. The dataset's manifest is written before its
// first record and marked complete after its last (dataset.go).
func (s *Session) Load(ctx context.Context) error {
	s.loadID = newLoadID(time.Now())
	s.startLoad(ctx, s.loadID)
	p, err := runner.Load(ctx, s.rt, &s.spec, s.ks, s.cfg.Runner)
	if err != nil {
		return err
	}
	nameOps(p, &s.spec)
	s.addPhase(p)
	if err := failedLoad(p, s.cfg.loadAllowance()); err != nil && ctx.Err() == nil {
		return err
	}
	if !p.Interrupted {
		s.completeLoad(ctx)
	}
	return nil
}

// newLoadID names a load: its start (UTC) and 4 random bytes.
func newLoadID(t time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// RunPhase runs one run phase with rc (duration, rate...) and names it.
func (s *Session) RunPhase(ctx context.Context, name string, rc runner.Config) (*result.Phase, error) {
	rc.Phase = name
	// The session's journal takes the phase's seconds, whatever rc the
	// caller made (a sweep's step copies its config before Open sets it).
	rc.OnInterval, rc.Series, rc.FinePath = s.cfg.Runner.OnInterval, s.cfg.Runner.Series, s.cfg.Runner.FinePath
	raised := s.raiseForRun(ctx, rc) // the manifest covers what the run writes
	p, evs, err := runner.Run(ctx, s.rt, &s.spec, s.ks, rc)
	raised()
	if err != nil {
		return nil, err
	}
	nameOps(p, &s.spec)
	s.noteOverrun(p, rc)
	s.addPhase(p)
	s.r.Events = append(s.r.Events, evs...)
	return &s.r.Phases[len(s.r.Phases)-1], nil
}

// addPhase adds a finished phase to the result and to the journal, and
// points it at its seconds there (a streamed phase keeps no interval
// histograms in memory: result.Phase.MergedHist reads them back).
func (s *Session) addPhase(p *result.Phase) {
	s.cfg.Journal.PhaseDone(p)
	nth := 0
	for i := range s.r.Phases {
		if s.r.Phases[i].Name == p.Name {
			nth++
		}
	}
	s.r.Phases = append(s.r.Phases, *p)
	if sf := s.cfg.Journal.Seconds(); sf != nil {
		s.r.Phases[len(s.r.Phases)-1].UseSeconds(sf, nth, 0)
	}
}

// Close stops the telemetry (if Finish did not), decides what becomes of
// the dataset if Run did not (a sweep's: endDataset), and closes the
// target (dropping what Setup made unless kept).
func (s *Session) Close() error {
	s.tel.Stop(nil)
	s.endDataset(context.Background(), nil)
	return s.t.Close()
}

// Finish fills the dataset and target figures and returns the result.
func (s *Session) Finish(ctx context.Context) (*result.Result, error) {
	r, t, spec, ks, cfg := s.r, s.t, &s.spec, s.ks, s.cfg
	if len(r.Phases) == 0 {
		return nil, errors.New("interrupted before any phase ran: no result written")
	}
	r.EndedAt = time.Now().UTC()
	r.Dataset = result.Dataset{
		Records:      spec.Records,
		RecordBytes:  spec.RecordBytes(),
		LogicalBytes: spec.DatasetBytes(),
		HostRAMBytes: r.Platform.UsableRAM(),
		Source:       result.DatasetLoaded,
		LoadID:       s.loadID,
	}
	if !cfg.Load {
		r.Dataset.Source = result.DatasetExisting
	}
	if cfg.Shards > 1 {
		// This loader's slice of the dataset.
		from, to := ks.Shard()
		r.Dataset.Records = to - from
		r.Dataset.LogicalBytes = int64(to-from) * int64(spec.RecordBytes())
	}
	if p := s.plan; p != nil && spec.CQL != nil {
		// A profile's record is a partition: its rows and bytes as the
		// target has them.
		r.Dataset.RowsPerRecord = p.RowsPerRecord
		r.Dataset.RecordBytes = int(min(p.BytesPerRecord, math.MaxInt32))
		r.Dataset.LogicalBytes = int64(float64(r.Dataset.Records) * p.BytesPerRecord)
	}
	if p := s.plan; p != nil {
		r.Dataset.FreeDiskBytes = p.FreeDiskBytes
	}
	if sz, ok := t.(adapter.Sizer); ok {
		if b, err := sz.DiskBytes(ctx); err == nil {
			r.Dataset.DiskBytes = b
		}
	}

	if sz, ok := t.(adapter.Sizer); ok {
		if b, err := sz.DiskBytes(ctx); err == nil {
			r.Dataset.DiskBytes = b
		}
	}
	// Telemetry fills the host series, counters, self-check notes and the page cache figure.
	s.tel.Stop(r)
	if sm, ok := t.(adapter.Summarizer); ok {
		for k, v := range sm.Summary(ctx) {
			if r.Target.Details == nil {
				r.Target.Details = map[string]string{}
			}
			r.Target.Details[k] = v
		}
	}
	return r, nil
}

// errLoadFailed is a load phase that failed too much to run on: Run
// returns the result of the load with it.
var errLoadFailed = errors.New("the load phase failed")

// failedLoad turns a load phase in which nothing completed, or more than
// maxErrors of the inserts failed, into an error that says how many failed
// and what the target said first: running the workload on a dataset with
// holes would only mislead.
func failedLoad(p *result.Phase, maxErrors float64) error {
	var ok, bad uint64
	for _, o := range p.Ops {
		ok += o.Count
		for _, n := range o.Errors {
			bad += n
		}
	}
	if bad == 0 || (ok > 0 && float64(bad) <= maxErrors*float64(ok+bad)) {
		return nil
	}
	what := fmt.Sprintf("%d of %d inserts of the load phase failed", bad, ok+bad)
	if ok == 0 {
		what = fmt.Sprintf("every insert of the load phase failed (%d errors)", bad)
	}
	first := ""
	if len(p.ErrorMessages) > 0 {
		m := p.ErrorMessages[0]
		first = fmt.Sprintf(", first error: %s: %s", m.Class, m.Message)
	}
	return fmt.Errorf("%w: %s%s (fix: check the target, its options and the workload; the run phase did not run)", errLoadFailed, what, first)
}

// failedLoad ends a Run whose load failed: the result of what ran (the
// load phase, with the target's messages) is returned with err, so it is
// written and can be read.
func (s *Session) failedLoad(ctx context.Context, err error) (*result.Result, error) {
	if !errors.Is(err, errLoadFailed) {
		return nil, err
	}
	r, ferr := s.Finish(ctx)
	if ferr != nil {
		return nil, err
	}
	r.Notes = append(r.Notes, err.Error())
	return r, err
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

func schemeOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" {
		return u.Scheme
	}
	return raw
}

// redact removes every secret from a URL before it goes into a result or
// a message (package redact).
func redact(raw string) string { return redactpkg.URL(raw) }

// redactOpts masks the secret target options.
func redactOpts(o map[string]string) map[string]string { return redactpkg.Opts(o) }

// abortOnFail arms the live threshold checks of cfg.AbortOnFail on the run
// phase rc describes: once a second, from the end of the warm-up, the
// intervals so far are checked; the first measured failure is written to
// Result.Aborted and cancels the returned context (the phase stops and is
// marked interrupted). stop ends the checks.
func (s *Session) abortOnFail(ctx context.Context, rc *runner.Config) (context.Context, func()) {
	ths := s.cfg.AbortOnFail
	if len(ths) == 0 {
		return ctx, func() {}
	}
	warm, err := analysis.LiveWarmup(s.cfg.Warmup, rc.Duration)
	if err != nil { // Validate refused it already
		return ctx, func() {}
	}
	runCtx, cancel := context.WithCancel(ctx)
	mode := "closed"
	if rc.Open() {
		mode = "open"
	}
	var mu sync.Mutex
	var stops []func()
	prev := rc.OnRecorder
	rc.OnRecorder = func(rec *recorder.Recorder) {
		if prev != nil {
			prev(rec)
		}
		if rec.Streams() {
			rec.KeepWindow(int64(warm))
		}
		stop := runner.Every(runCtx, time.Second, func() bool {
			var o *result.ThresholdOutcome
			var err error
			if rec.Streams() {
				ivs, ops := rec.Window()
				o, err = analysis.LiveWindowThresholds("run", mode, ivs, ops, ths)
			} else {
				o, err = analysis.LiveThresholds("run", mode, rec.Intervals(), warm, ths)
			}
			if err != nil || o == nil {
				return true
			}
			s.r.Aborted = &result.Abort{Threshold: *o, AtNs: rec.Now(), WarmupNs: int64(warm)}
			cancel()
			return false
		})
		mu.Lock()
		stops = append(stops, stop)
		mu.Unlock()
	}
	return runCtx, func() {
		mu.Lock()
		defer mu.Unlock()
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// checksReads refuses a checked workload (validate) on a target that cannot
// check what its reads return.
func checksReads(t adapter.Target, url string, spec *workload.Spec) error {
	if !spec.CheckValues {
		return nil
	}
	rc, ok := t.(adapter.ReadChecker)
	if !ok {
		return adapter.RefuseValidate(redact(url))
	}
	return rc.ChecksReads(spec)
}

// verifyRefused names --verify in the refusal of a checked workload when
// the user asked for verify (which implies validate).
func verifyRefused(err error, verify bool) error {
	var ue *usererr.Error
	if verify && errors.As(err, &ue) && ue.Field == "validate" {
		// The fix names the option the user gave.
		msg := strings.ReplaceAll(ue.Msg, "drop validate", "drop verify")
		return &usererr.Error{Field: "verify", Msg: msg + " (verify reads back with checked reads)"}
	}
	return err
}
