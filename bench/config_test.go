package bench

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/telemetry"
	"github.com/platbench/platbench/workload"
)

// The zero Config is `platbench run` with no flags: every default in one place.
func TestEnsureDefaults(t *testing.T) {
	var c Config
	c.EnsureDefaults()
	if c.Target != DefaultTarget || c.Runner.Duration != DefaultDuration || c.Runner.Concurrency != DefaultConcurrency ||
		!c.Load || !c.Run || c.Shards != 1 || c.Warmup != DefaultWarmup || c.Workload.Records != workload.DefaultRecords {
		t.Errorf("defaults: %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
	// Set fields are kept: an op bound means no default duration; one phase
	// asked for is not turned into two.
	c = Config{Open: registry.Open, Target: "null", Load: true, Runner: runner.Config{Ops: 5, Concurrency: 3}}
	c.EnsureDefaults()
	if c.Target != "null" || c.Runner.Duration != 0 || c.Runner.Ops != 5 || c.Runner.Concurrency != 3 || !c.Load || c.Run {
		t.Errorf("EnsureDefaults overwrote set fields: %+v", c)
	}
}

// Validate reports every problem at once, each naming its config field.
func TestValidateReportsEveryProblem(t *testing.T) {
	c := Config{Open: registry.Open,
		Shard: 3, Shards: 2,
		Workload:      workload.Spec{Distribution: "pareto"},
		Runner:        runner.Config{Duration: -time.Second, Concurrency: -1, Rate: -5},
		Telemetry:     telemetry.Config{PerfScope: "cluster"},
		MaxLoadErrors: 5, // 500%: a share, not a percent
	}
	c.EnsureDefaults()
	err := c.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	fields := map[string]bool{}
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ue *usererr.Error
		if !errors.As(e, &ue) || !strings.Contains(ue.Msg, "fix:") {
			t.Errorf("%v: not a user error with a fix", e)
			continue
		}
		fields[ue.Field] = true
	}
	for _, f := range []string{"shard", "distribution", "duration", "concurrency", "rate", "perf_scope", "max_load_errors"} {
		if !fields[f] {
			t.Errorf("no problem reported for %s in %v", f, err)
		}
	}
	if strings.Contains(err.Error(), "--") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error names flags or spans lines: %q", err)
	}
}

// A fault event after the end of the run phase would never run: it is an error.
func TestValidateEventAfterTheEnd(t *testing.T) {
	c := Config{Open: registry.Open, Runner: runner.Config{Duration: 10 * time.Second, Events: []runner.Event{{At: time.Minute, Kind: "kill", Arg: "42"}}}}
	c.EnsureDefaults()
	var ue *usererr.Error
	if err := c.Validate(); !errors.As(err, &ue) || ue.Field != "events" || !strings.Contains(err.Error(), "kill:42 at 1m0s is not within the 10s run phase") {
		t.Errorf("error %v", err)
	}
}

// MaxLoadErrors: unset is the default 1%; NoLoadErrors allows none, so one
// failed insert of 1,000 stops the run, where the default lets 5 pass.
func TestMaxLoadErrors(t *testing.T) {
	load := func(failed uint64) *result.Phase {
		return &result.Phase{Name: "load", Ops: []result.OpTotal{{Op: "INSERT", Count: 1000 - failed, Errors: map[string]uint64{"rejected": failed}}},
			ErrorMessages: []result.ErrorMessage{{Class: "rejected", Op: "INSERT", Message: "no"}}}
	}
	for _, c := range []struct {
		name  string
		max   float64
		fail  uint64
		stops bool
	}{
		{"default, 5 of 1000", 0, 5, false},
		{"default, 20 of 1000", 0, 20, true},
		{"none allowed, 1 of 1000", NoLoadErrors, 1, true},
		{"none allowed, none failed", NoLoadErrors, 0, false},
		{"5% allowed, 20 of 1000", 0.05, 20, false},
		{"any allowed, all but one failed", 1, 999, false},
	} {
		cfg := Config{MaxLoadErrors: c.max}
		err := failedLoad(load(c.fail), cfg.loadAllowance())
		if (err != nil) != c.stops {
			t.Errorf("%s: %v, want stopping %v", c.name, err, c.stops)
		}
		if err != nil && !errors.Is(err, errLoadFailed) {
			t.Errorf("%s: %v is not errLoadFailed", c.name, err)
		}
	}
}
