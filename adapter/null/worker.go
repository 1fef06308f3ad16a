package null

import (
	"context"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// NewWorker returns a worker; it holds nothing.
func (*Target) NewWorker(id int) (adapter.Worker, error) { return worker{}, nil }

// worker completes every request at once (a value: an empty struct in an
// interface allocates nothing).
type worker struct{}

var _ adapter.Worker = (*worker)(nil)

// Do does nothing, successfully.
func (worker) Do(ctx context.Context, req *workload.Request) error { return nil }

// Close has nothing to release.
func (worker) Close() error { return nil }
