package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// likeOf is a result as 'platbench run' records cfg.
func likeOf(t *testing.T, cfg Config) *result.Result {
	t.Helper()
	w, err := cfg.Workload.Record()
	if err != nil {
		t.Fatal(err)
	}
	return &result.Result{Schema: result.SchemaVersion, Target: resultInfo(cfg.Target), Config: result.Config{
		Target: cfg.Target, TargetOpts: cfg.TargetOpts, Workload: w, DurationNs: int64(cfg.Runner.Duration), Ops: cfg.Runner.Ops,
		Concurrency: cfg.Runner.Concurrency, RateOpsPerS: cfg.Runner.Rate, Seed: cfg.Runner.Seed, Load: cfg.Load, Warmup: cfg.Warmup}}
}

func resultInfo(target string) vocab.Info { return vocab.Info{Kind: schemeOf(target)} }

// Like gives back the benchmark a result records, all but the target.
func TestLike(t *testing.T) {
	spec, err := workload.Preset("ds-80-20")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records, spec.FieldLength = 2500, 33
	spec.EnsureDefaults()
	in := Config{Target: "cql://h1:9042/ks", TargetOpts: map[string]string{"read_consistency": "ONE"}, Workload: spec, Load: true, Warmup: "75s"}
	in.Runner.Duration, in.Runner.Concurrency, in.Runner.Rate, in.Runner.Seed = 40*time.Minute, 900, 250_000, 7
	r := likeOf(t, in)
	got, err := Like(r)
	if err != nil {
		t.Fatal(err)
	}
	if got.Target != "" || got.Workload.Records != 2500 || got.Workload.FieldLength != 33 || got.Workload.MixString() != spec.MixString() ||
		got.Runner.Duration != 40*time.Minute || got.Runner.Concurrency != 900 || got.Runner.Rate != 250_000 || got.Runner.Seed != 7 ||
		!got.Load || got.Warmup != "75s" || got.TargetOpts["read_consistency"] != "ONE" {
		t.Errorf("Like: %+v", got)
	}
	if !LikeTarget(r, "cql://other:9042") || LikeTarget(r, "redis://h:6379") {
		t.Error("LikeTarget: the options of a cql result apply to a cql target only")
	}
	for name, mod := range map[string]func(*result.Result){
		"shard":     func(r *result.Result) { r.Config.Shard = "1/4" },
		"no run":    func(r *result.Result) { r.Config.DurationNs, r.Config.Ops = 0, 0 },
		"disk":      func(r *result.Result) { r.Target.Kind = "disk" },
		"no worker": func(r *result.Result) { r.Config.Concurrency = 0 },
	} {
		bad := likeOf(t, in)
		mod(bad)
		if _, err := Like(bad); err == nil || !usererr.Is(err) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%s: %v, want a user error with a fix", name, err)
		}
	}
}

// Like of any result file never panics: it gives a config or one line.
func FuzzLike(f *testing.F) {
	f.Add([]byte(`{"schema":"` + result.SchemaVersion + `","config":{"workload":{"name":"x","records":10,"mix":[{"op":"READ","weight":1}]},"duration_ns":1000000000,"concurrency":2}}`))
	f.Add([]byte(`{"schema":"` + result.SchemaVersion + `","config":{"workload":{"name":"x","distribution":"pareto"},"ops":5,"concurrency":1,"shard":"0/2"}}`))
	f.Add([]byte(`{"schema":"` + result.SchemaVersion + `","config":{"workload":{"mix":[{"op":"NOPE","weight":-1}]},"duration_ns":-1}}`))
	f.Add([]byte(`{"schema":"` + result.SchemaVersion + `","config":{"workload":{"name":"x"},"duration_ns":5,"concurrency":1},"phases":[{"name":"run","streams":["read=ramp(1, 2, 3s)","x=("],"arrival":"poisson"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := result.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		if _, err := Like(r); err != nil && (!usererr.Is(err) || strings.Contains(err.Error(), "\n")) {
			t.Fatalf("error %q: want one user error line", err)
		}
	})
}

// A result's open loop as typed (a profile, per-op streams, poisson
// arrivals) comes back, not only its mean rate.
func TestLikeStreams(t *testing.T) {
	spec, _ := workload.Preset("ycsb-a")
	spec.EnsureDefaults()
	in := Config{Target: "embedded", Workload: spec, Load: true}
	in.Runner.Duration, in.Runner.Concurrency, in.Runner.Rate = time.Minute, 4, 175
	r := likeOf(t, in)
	r.Phases = []result.Phase{{Name: "run", Streams: []string{"read=ramp(100, 300, 3s)", "update=50"}, Arrival: "poisson"}}
	got, err := Like(r)
	if err != nil {
		t.Fatal(err)
	}
	if got.Runner.Rate != 0 || len(got.Runner.Streams) != 2 || got.Runner.Streams[0].String() != "read=ramp(100, 300, 3s)" || !got.Runner.Poisson {
		t.Errorf("streams %v rate %v poisson %v", got.Runner.Streams, got.Runner.Rate, got.Runner.Poisson)
	}
	r.Phases[0].Streams = []string{"read=nonsense("}
	if _, err := Like(r); err == nil || !usererr.Is(err) || !strings.Contains(err.Error(), "rate") {
		t.Errorf("a bad stream: %v", err)
	}
}
