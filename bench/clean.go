package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// Clean removes a dataset of platbench's (and only it) from a target, for
// `platbench clean`: exactly what the dataset's manifest names
// (adapter.Manifest: the objects its load created, else the keys of its
// range, regenerated from its key format), then the manifest. The workload
// spec says where the manifest is (its key prefix; the table, topic or map
// of the target options). With no manifest there, Clean removes nothing: it
// returns nothing when nothing is there, and an error naming what it found
// otherwise (adapter.Unmarked). The target is opened on what is there
// (adapter.DatasetChecker.UseExisting: nothing is created). It returns what
// it removed, described for a person. open opens the target (see
// Config.Open).
func Clean(ctx context.Context, open OpenFunc, url string, opts map[string]string, spec workload.Spec) ([]string, error) {
	return clean(ctx, open, url, opts, spec, false)
}

// CleanDryRun is Clean that removes nothing: it returns what Clean would
// remove (and the same refusal without a manifest).
func CleanDryRun(ctx context.Context, open OpenFunc, url string, opts map[string]string, spec workload.Spec) ([]string, error) {
	return clean(ctx, open, url, opts, spec, true)
}

func clean(ctx context.Context, open OpenFunc, url string, opts map[string]string, spec workload.Spec, dryRun bool) ([]string, error) {
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
		return nil, adapter.Configf("%s keeps no dataset of platbench's that it could remove (fix: give the target a load wrote to: redis, cql, kafka, hazelcast or embedded)", redact(url))
	}
	if dc, ok := t.(adapter.DatasetChecker); ok {
		dc.UseExisting() // Setup creates nothing, so Close removes nothing: Clean alone does
	}
	if err := t.Setup(ctx, &spec); err != nil {
		var de *adapter.DatasetError
		if !errors.As(err, &de) {
			return nil, fmt.Errorf("set up %s: %w", redact(url), err)
		}
		// Some of the dataset is missing (a table, a topic): its manifest
		// may still be there, or what looks like it.
	}
	m, err := cl.ReadManifest(ctx, &spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", redact(url), err)
	}
	if m == nil {
		if err := cl.Unmarked(ctx, &spec); err != nil {
			return nil, err
		}
		return nil, nil // nothing of platbench's there
	}
	return cl.Clean(ctx, &spec, m, dryRun)
}
