package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/platbench/platbench/target"
	"github.com/platbench/platbench/target/registry"
	"github.com/platbench/platbench/workload"
)

// Clean removes platbench's datasets (and only those) from a target, for
// `platbench clean`: the keyspace or table, topic, keys or map that the
// workload spec's loads write there. The target is opened on what is there
// (target.DatasetChecker.UseExisting: nothing is created), then
// target.Cleaner.Clean says what it removed (nothing is not an error).
func Clean(ctx context.Context, url string, opts map[string]string, spec workload.Spec) ([]string, error) {
	spec.EnsureDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	t, err := registry.Open(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	cl, ok := t.(target.Cleaner)
	if !ok {
		return nil, target.Configf("%s keeps no dataset of platbench's that it could remove (an embedded store's data is its directory: remove that)", redact(url))
	}
	if dc, ok := t.(target.DatasetChecker); ok {
		dc.UseExisting()
	}
	if err := t.Setup(ctx, &spec); err != nil {
		var de *target.DatasetError
		if errors.As(err, &de) {
			return nil, nil // nothing of platbench's there
		}
		return nil, fmt.Errorf("set up %s: %w", redact(url), err)
	}
	return cl.Clean(ctx, &spec)
}
