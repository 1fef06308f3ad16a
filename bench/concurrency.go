package bench

import (
	"fmt"
	"runtime"
	"time"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
)

// MaxConcurrency bounds the workers of one loader. Past it a run cannot keep
// its duration on any host: a million workers took 8.9 s to start and stop
// around a 2 s phase, and its "peak 1 s" was 11 times its mean.
const MaxConcurrency = 100_000

// WorkersPerCore is how many workers a core runs and still starts and stops
// them within a fraction of a second (on 2 cores: 20,000 workers overran a
// 2 s phase by 0.56 s, 100,000 by 2.1 s).
const WorkersPerCore = 4096

// concurrencyProblem refuses more workers than MaxConcurrency.
func concurrencyProblem(n int) (string, bool) {
	if n <= MaxConcurrency {
		return "", false
	}
	return fmt.Sprintf("%d workers is over the %d one loader runs (fix: at most %d, and for more clients split the run over several loaders, shard i/N)", n, MaxConcurrency, MaxConcurrency), true
}

// ConcurrencyWarning is a warning, or "", for a run of c's concurrency on
// this host: more workers than its cores run distort the run phase's
// figures, which the warning names.
func (c *Config) ConcurrencyWarning() string {
	return concurrencyWarning(c.Runner.Concurrency, runtime.NumCPU())
}

// noteConcurrency keeps ConcurrencyWarning in the result's notes, beside
// the figures it speaks of.
func (c *Config) noteConcurrency(r *result.Result) {
	if w := c.ConcurrencyWarning(); w != "" && c.Run {
		r.Notes = append(r.Notes, w)
	}
}

func concurrencyWarning(n, cores int) string {
	most := WorkersPerCore * max(cores, 1)
	if !(n > most) || n > MaxConcurrency {
		return ""
	}
	return fmt.Sprintf("%d workers on %d cores is more than the %d this host starts and stops in time: the run phase can overrun its duration, and its throughput and per-second peak are then wrong (fix: at most %d workers, or several loaders)", n, cores, most, most)
}

// overrunSlack is how far past its duration a phase may end unremarked.
const overrunSlack = time.Second

// noteOverrun says in the result's notes why a phase ended more than
// overrunSlack past its duration: its figures are over the time it lasted.
func (s *Session) noteOverrun(p *result.Phase, rc runner.Config) {
	if note := overrunNote(p, rc, runtime.NumCPU()); note != "" {
		s.r.Notes = append(s.r.Notes, note)
	}
}

func overrunNote(p *result.Phase, rc runner.Config, cores int) string {
	lasted := time.Duration(p.DurationNs)
	if rc.Duration <= 0 || lasted <= rc.Duration+overrunSlack {
		return ""
	}
	return fmt.Sprintf("the %s phase lasted %.1f s, %.1f s past its %s: starting and stopping its %d workers on %d cores, or the operations still in flight at its end, took that long; its figures are over the %.1f s it lasted",
		p.Name, lasted.Seconds(), (lasted - rc.Duration).Seconds(), rc.Duration, rc.Concurrency, cores, lasted.Seconds())
}
