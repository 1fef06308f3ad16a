package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// Clean removes platbench's datasets (and only those) from a target, for
// `platbench clean`: the keyspace or table, topic, keys or map that the
// workload spec's loads write there. The target is opened on what is there
// (adapter.DatasetChecker.UseExisting: nothing is created), then
// adapter.Cleaner.Clean says what it removed (nothing is not an error).
// open opens the target (see Config.Open).
func Clean(ctx context.Context, open OpenFunc, url string, opts map[string]string, spec workload.Spec) ([]string, error) {
	spec.EnsureDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	t, err := openWith(ctx, open, url, opts)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	cl, ok := t.(adapter.Cleaner)
	if !ok {
		return nil, adapter.Configf("%s keeps no dataset of platbench's that it could remove (an embedded store's data is its directory: remove that)", redact(url))
	}
	if dc, ok := t.(adapter.DatasetChecker); ok {
		dc.UseExisting()
	}
	if err := t.Setup(ctx, &spec); err != nil {
		var de *adapter.DatasetError
		if errors.As(err, &de) {
			return nil, nil // nothing of platbench's there
		}
		return nil, fmt.Errorf("set up %s: %w", redact(url), err)
	}
	return cl.Clean(ctx, &spec)
}
