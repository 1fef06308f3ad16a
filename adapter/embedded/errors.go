package embedded

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble"
	"golang.org/x/sys/unix"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
)

// classify is classify, but a record absent from a checked workload is
// ErrValidationMissing.
func (w *worker) classify(err error) error {
	if w.check && errors.Is(err, pebble.ErrNotFound) {
		return adapter.ErrValidationMissing
	}
	return classify(err)
}

func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pebble.ErrNotFound):
		return adapter.ErrNotFound
	case errors.Is(err, unix.ENOSPC):
		return &adapter.Error{Class: vocab.ClassRejected, Err: fmt.Errorf("disk full: %w", err)}
	}
	return &adapter.Error{Class: vocab.ClassOther, Err: err}
}
