// Package null is a target that does nothing: running it measures
// platbench's own overhead (generator, runner, recorder).
package null

import (
	"context"
	"net/url"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Target does nothing, successfully.
type Target struct{}

var _ adapter.Target = (*Target)(nil)

var (
	_ adapter.Target    = (*Target)(nil)
	_ adapter.Describer = (*Target)(nil)
)

// Options declares the null target's options: none.
func Options() *adapter.OptionSet { return adapter.NewOptionSet("null") }

// Open implements adapter.Opener.
func Open(ctx context.Context, u *url.URL, opts map[string]string) (adapter.Target, error) {
	s := Options()
	s.ParseURL(u, opts)
	if err := s.Err(); err != nil {
		return nil, err
	}
	return &Target{}, nil
}

func (*Target) Setup(ctx context.Context, w *workload.Spec) error { return nil }
func (*Target) NewWorker(id int) (adapter.Worker, error)          { return worker{}, nil }
func (*Target) Close() error                                      { return nil }
func (*Target) Describe(ctx context.Context) vocab.Info {
	return vocab.Info{Kind: "null", URL: "null"}
}

type worker struct{}

var _ adapter.Worker = (*worker)(nil)

func (worker) Do(ctx context.Context, req *workload.Request) error { return nil }
func (worker) Close() error                                        { return nil }
