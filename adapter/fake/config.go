package fake

import (
	"errors"
	"net/url"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/units"
)

// Config is the fake target's script: its latency, stalls and errors. A
// Target embeds it, so its fields are the Target's (tests read them).
type Config struct {
	Latency    time.Duration // service time of every op
	StallAt    time.Duration // offset from the first op where a stall starts
	StallFor   time.Duration // length of a stall (0: none)
	StallEvery time.Duration // period of repeated stalls (0: one stall)
	ErrorEvery int           // every Nth op fails with a timeout (0: none)
	// Drift is a run-level spread of the latency, a fraction: each Open
	// scales Latency by exp(Drift*z), z standard normal, so repeated runs
	// of one setup differ by more than a run varies inside itself, as runs
	// on real machines do. DriftSeed makes the z of the k-th Open in this
	// process reproducible (0: a new seed each time).
	Drift     float64
	DriftSeed int
}

// options declares the options to the option layer, each bound to its
// field of c.
func (c *Config) options() *adapter.OptionSet {
	s := adapter.NewOptionSet("fake")
	s.Duration(&c.Latency, "latency", "0", "service time of every op (a sleep; below 100µs a spin)")
	s.Duration(&c.StallAt, "stall_at", "0", "offset from the first op at which a stall starts: every op waits until it ends (a server pause)")
	s.Duration(&c.StallFor, "stall_for", "0", "length of the stall; 0 means no stall")
	s.Duration(&c.StallEvery, "stall_every", "0", "repeat the stall with this period (a regulated disk); 0 stalls once")
	s.Count(&c.ErrorEvery, "error_every", "0", "every Nth op fails with a timeout; 0 means none").WithUnit("ops").Example("100")
	s.Func(adapter.KindString, "drift", "", "run-level spread of the latency, a fraction (0.03, or 3% written 3%25 in a URL): each run scales latency by exp(drift*z), z standard normal, so repeated runs differ like runs on real machines; none by default",
		func(v string) error {
			f, err := units.ParseFraction(v)
			if err != nil {
				return errors.New("not a fraction above 0 and at most 1")
			}
			c.Drift = f
			return nil
		}, func() { c.Drift = 0 })
	s.Count(&c.DriftSeed, "drift_seed", "0", "seed of drift's run-level draws: the k-th run opened in one process with a seed draws the same z; 0 draws a new one")
	return s
}

// Options declares the fake target's options.
func Options() *adapter.OptionSet { return new(Config).options() }

// ParseConfig reads u and opts (--target-opt) into a Config, reporting
// every problem at once.
func ParseConfig(u *url.URL, opts map[string]string) (*Config, error) {
	c := &Config{}
	s := c.options()
	s.ParseURL(u, opts)
	if err := s.Err(); err != nil {
		return nil, err
	}
	return c, nil
}
