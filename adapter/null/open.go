// Package null is a target that does nothing: running it measures
// platbench's own overhead (generator, runner, recorder). URL: null. It is
// the smallest adapter written from the template (adapter/README.md).
package null

import (
	"context"
	"net/url"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Target does nothing, successfully. Its zero value is ready (the runner's
// tests and benchmarks use &Target{}).
type Target struct{}

// Target's abilities, checked at compile time (adapter/README.md).
var (
	_ adapter.Target    = (*Target)(nil)
	_ adapter.Describer = (*Target)(nil)
)

// Open implements adapter.Opener.
func Open(ctx context.Context, u *url.URL, opts map[string]string) (adapter.Target, error) {
	if _, err := ParseConfig(u, opts); err != nil {
		return nil, err
	}
	return &Target{}, nil
}

// Setup has nothing to prepare.
func (*Target) Setup(ctx context.Context, w *workload.Spec) error { return nil }

// Close has nothing to release.
func (*Target) Close() error { return nil }

// Describe says what was measured: nothing but platbench.
func (*Target) Describe(ctx context.Context) vocab.Info {
	return vocab.Info{Kind: "null", URL: "null"}
}
