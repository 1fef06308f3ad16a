package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platbench/platbench/adapter"
	redactpkg "github.com/platbench/platbench/internal/redact"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Sample is how many of the acknowledged keys a verification reads back:
// every one (the zero Sample), a count, or a fraction. It is a flag.Value
// and reads the units grammar: "all", a count ("10k") or a fraction ("10%",
// "0.1").
type Sample struct {
	Keys     uint64  // a count of keys (0: see Fraction)
	Fraction float64 // a fraction of them, in (0, 1] (0: every key unless Keys)
}

// ParseSample reads a Sample: "" or "all" (every key), a count, or a fraction.
func ParseSample(s string) (Sample, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" || t == "all" {
		return Sample{}, nil
	}
	if n, err := units.ParseCount(t); err == nil && n > 0 && !strings.Contains(t, ".") {
		return Sample{Keys: n}, nil
	}
	if f, err := units.ParseFraction(t); err == nil {
		if f == 1 {
			return Sample{}, nil
		}
		return Sample{Fraction: f}, nil
	}
	return Sample{}, usererr.Field("verify_sample", "%s", sampleMsg(s))
}

func sampleMsg(s string) string {
	return fmt.Sprintf("%q is not all, a count of keys or a fraction (fix: e.g. 10k, 10%% or 0.1)", s)
}

// Set implements flag.Value.
func (s *Sample) Set(v string) error {
	p, err := ParseSample(v)
	if err != nil {
		return errors.New(sampleMsg(v)) // the flag package names the flag
	}
	*s = p
	return nil
}

// String is the sample as it is parsed back: "" for every key.
func (s Sample) String() string {
	switch {
	case s.Keys > 0:
		return strconv.FormatUint(s.Keys, 10)
	case s.Fraction > 0:
		return strconv.FormatFloat(s.Fraction*100, 'f', -1, 64) + "%"
	}
	return ""
}

// of is how many of n keys the sample reads.
func (s Sample) of(n uint64) uint64 {
	switch {
	case s.Keys > 0:
		return min(s.Keys, n)
	case s.Fraction > 0:
		return min(n, uint64(math.Ceil(float64(n)*s.Fraction)))
	}
	return n
}

// verifyAttempts is how often a read that fails with an error other than a
// verdict (a timeout, a node unavailable) is tried before the key counts as
// unreadable.
const verifyAttempts = 3

// maxExamples bounds the key numbers a verification keeps as examples.
const maxExamples = 10

// recordAcks makes the record of acknowledged writes of a verified run and
// the target the runner drives, whose workers keep it.
func (s *Session) recordAcks() {
	if s.cfg.Verify {
		s.acks = newAckLog(s.spec.Records)
		s.rt = withAcks(s.t, s.acks)
	}
}

// Verify reads back the acknowledged writes of this session's phases (the
// record its workers kept: Config.Verify) and stores the outcome in the
// result (Result.Verification).
func (s *Session) Verify(ctx context.Context) error {
	if s.acks == nil {
		return nil
	}
	rs, n, deleted := s.acks.ranges()
	v := &result.Verification{Version: result.VerificationVersion, Acked: rs, AckedKeys: n,
		Deleted: deleted, Untracked: s.acks.untracked.Load(), Sample: s.cfg.VerifySample.String(),
		Consistency: s.r.Target.Details["read_consistency"]}
	err := verifyKeys(ctx, s.t, &s.spec, v, s.cfg.VerifySample, s.cfg.Runner.Concurrency)
	s.r.Verification = v
	return err
}

// VerifyConfig is `platbench verify RESULT`: a result's record of
// acknowledged writes checked again on the target.
type VerifyConfig struct {
	// Target and TargetOpts override the result's (a password the result
	// file does not hold, a host that moved). Default: the result's.
	Target     string
	TargetOpts map[string]string
	// Open opens the target (see Config.Open). Required.
	Open OpenFunc
	// Sample is how many keys to read. Default every acknowledged key.
	Sample Sample
	// Concurrency is how many reads are in flight. Default DefaultConcurrency.
	Concurrency int
}

// VerifyResult reads back the keys r's verification record lists (a run
// made with Config.Verify) and returns the new verification; r is not
// changed. The dataset is used as it is: nothing is created or removed.
func VerifyResult(ctx context.Context, r *result.Result, cfg VerifyConfig) (*result.Verification, error) {
	if r.Verification == nil {
		return nil, usererr.Field("verify", "the result has no record of acknowledged writes (fix: a result of a run made with verify)")
	}
	url := r.Config.Target
	if cfg.Target != "" {
		url = cfg.Target
	}
	opts := map[string]string{}
	for k, val := range r.Config.TargetOpts {
		opts[k] = val
	}
	for k, val := range cfg.TargetOpts {
		opts[k] = val
	}
	if err := redacted(url, opts); err != nil {
		return nil, err
	}
	spec, err := workload.FromRecord(r.Config.Workload)
	if err != nil {
		return nil, err
	}
	spec.CheckValues = true
	spec.EnsureDefaults()
	t, err := openWith(ctx, cfg.Open, url, opts)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	if err := checksReads(t, url, &spec); err != nil {
		return nil, err
	}
	if dc, ok := t.(adapter.DatasetChecker); ok {
		dc.UseExisting()
	}
	if rt, ok := t.(adapter.Retainer); ok {
		rt.Retain()
	}
	if err := t.Setup(ctx, &spec); err != nil {
		return nil, fmt.Errorf("set up %s: %w", redact(url), err)
	}
	old := r.Verification
	v := &result.Verification{Version: result.VerificationVersion, Acked: old.Acked, AckedKeys: old.AckedKeys,
		Deleted: old.Deleted, Untracked: old.Untracked, Sample: cfg.Sample.String(), Consistency: old.Consistency}
	if d, ok := t.(adapter.Describer); ok {
		if c := d.Describe(ctx).Details["read_consistency"]; c != "" {
			v.Consistency = c
		}
	}
	err = verifyKeys(ctx, t, &spec, v, cfg.Sample, max(cfg.Concurrency, 1))
	return v, err
}

// verifyKeys reads the sample of v's acknowledged keys with up to
// concurrency workers of t and fills v's counts.
func verifyKeys(ctx context.Context, t adapter.Target, spec *workload.Spec, v *result.Verification, sample Sample, concurrency int) error {
	start := time.Now()
	want := sample.of(v.AckedKeys)
	ix := newRangeIndex(v.Acked)
	n := int(min(uint64(max(concurrency, 1)), max(want, 1), 64))
	ks := workload.NewKeyspace(spec, 0, 1)
	var st verifyState
	var wg sync.WaitGroup
	ws := make([]adapter.Worker, 0, n)
	for i := range n {
		w, err := t.NewWorker(i)
		if err != nil {
			for _, w := range ws {
				w.Close()
			}
			return fmt.Errorf("verify: worker %d: %w", i, err)
		}
		ws = append(ws, w)
	}
	for i, w := range ws {
		from, to := want*uint64(i)/uint64(n), want*uint64(i+1)/uint64(n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.Close()
			g := workload.NewGenerator(spec, ks, 1, i)
			var req workload.Request
			for j := from; j < to && ctx.Err() == nil; j++ {
				// Evenly spread over the acknowledged keys when sampled.
				k := ix.key(spread(j, v.AckedKeys, want))
				st.check(ctx, w, g, &req, k)
			}
		}()
	}
	wg.Wait()
	st.fill(v)
	v.At, v.DurationNs = time.Now().UTC(), time.Since(start).Nanoseconds()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("verification interrupted after %d of %d keys: %w", v.Checked, want, err)
	}
	return nil
}

// spread is j*n/want without overflow: the j-th of want keys evenly
// spread over n (j < want <= n).
func spread(j, n, want uint64) uint64 {
	hi, lo := bits.Mul64(j, n)
	q, _ := bits.Div64(hi, lo, max(want, 1))
	return q
}

// verifyState is what the verification's workers found.
type verifyState struct {
	checked, missing, wrong, unreadable atomic.Uint64
	mu                                  sync.Mutex
	missingKeys, wrongKeys              []uint64
}

// check reads key k (with retries of reads that fail without a verdict)
// and counts its verdict.
func (st *verifyState) check(ctx context.Context, w adapter.Worker, g *workload.Generator, req *workload.Request, k uint64) {
	var err error
	for a := range verifyAttempts {
		if a > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Duration(a) * 200 * time.Millisecond):
			}
		}
		g.ReadOf(req, k)
		err = w.Do(ctx, req)
		switch adapter.Classify(err) {
		case vocab.ClassNone:
			st.checked.Add(1)
			return
		case vocab.ClassValidationMissing, vocab.ClassNotFound:
			st.checked.Add(1)
			st.missing.Add(1)
			st.example(&st.missingKeys, k)
			return
		case vocab.ClassValidationCorrupt:
			st.checked.Add(1)
			st.wrong.Add(1)
			st.example(&st.wrongKeys, k)
			return
		}
	}
	if ctx.Err() == nil {
		st.checked.Add(1)
		st.unreadable.Add(1)
	}
}

func (st *verifyState) example(to *[]uint64, k uint64) {
	st.mu.Lock()
	if len(*to) < maxExamples {
		*to = append(*to, k)
	}
	st.mu.Unlock()
}

func (st *verifyState) fill(v *result.Verification) {
	v.Checked, v.Missing, v.Wrong, v.Unreadable = st.checked.Load(), st.missing.Load(), st.wrong.Load(), st.unreadable.Load()
	slices.Sort(st.missingKeys)
	slices.Sort(st.wrongKeys)
	v.MissingKeys, v.WrongKeys = st.missingKeys, st.wrongKeys
}

// rangeIndex maps the i-th acknowledged key (0-based, in key order) to its
// key number.
type rangeIndex struct {
	rs  [][2]uint64
	cum []uint64 // keys before range i
}

func newRangeIndex(rs [][2]uint64) *rangeIndex {
	ix := &rangeIndex{rs: rs, cum: make([]uint64, len(rs))}
	var n uint64
	for i, r := range rs {
		ix.cum[i] = n
		n += r[1] - r[0]
	}
	return ix
}

func (ix *rangeIndex) key(i uint64) uint64 {
	r := sort.Search(len(ix.cum), func(j int) bool { return ix.cum[j] > i }) - 1
	if r < 0 {
		return 0
	}
	return ix.rs[r][0] + i - ix.cum[r]
}

// redacted refuses a target whose secret the result file did not keep
// (redact, redactOpts): connecting with the mask would only fail to log in.
func redacted(raw string, opts map[string]string) error {
	if what, ok := redactpkg.Masked(raw); ok {
		return usererr.Field("target", "%s: the result keeps no %s (fix: give the target again, its password from a password file or $PLATBENCH_TARGET_PASSWORD)", raw, what)
	}
	for k, v := range opts {
		if v == redactpkg.Mask {
			return usererr.Field("target_opts", "%s: the result keeps no secret (fix: give the option %s=... again)", k, k)
		}
	}
	return nil
}
