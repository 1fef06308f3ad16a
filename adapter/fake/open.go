// Package fake is a target with scripted latency, errors and stalls, for
// testing the runner and recorder. It stores nothing.
//
// URL: fake://?latency=200us&stall_at=2s&stall_for=500ms&error_every=100;
// the options are declared in config.go (`platbench targets fake` prints
// them). It is written from the adapter template (adapter/README.md).
package fake

import (
	"context"
	"math"
	"math/rand/v2"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// Target is the fake target: its Config, and the state its workers share.
type Target struct {
	Config

	once  sync.Once
	start time.Time
	n     atomic.Uint64
}

// Target's abilities, checked at compile time (adapter/README.md).
var (
	_ adapter.Target = (*Target)(nil)
)

// Open implements adapter.Opener.
func Open(ctx context.Context, u *url.URL, opts map[string]string) (adapter.Target, error) {
	c, err := ParseConfig(u, opts)
	if err != nil {
		return nil, err
	}
	t := &Target{Config: *c}
	if t.Drift > 0 {
		t.Latency = time.Duration(float64(t.Latency) * math.Exp(t.Drift*driftZ(t.DriftSeed)))
	}
	return t, nil
}

// opens counts the Opens of each drift seed in this process.
var opens = struct {
	sync.Mutex
	n map[int]uint64
}{n: map[int]uint64{}}

// driftZ is the standard normal draw of the next Open with seed (a fresh
// one for seed 0).
func driftZ(seed int) float64 {
	if seed == 0 {
		return rand.NormFloat64()
	}
	opens.Lock()
	k := opens.n[seed]
	opens.n[seed]++
	opens.Unlock()
	return rand.New(rand.NewPCG(uint64(seed), k)).NormFloat64()
}

// Setup has nothing to prepare.
func (t *Target) Setup(ctx context.Context, w *workload.Spec) error { return nil }

// Close has nothing to release.
func (t *Target) Close() error { return nil }
