package embedded

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble"
	"golang.org/x/sys/unix"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
)

// (*worker).classify is classify, but a record absent from a checked workload is
// ErrValidationMissing.
func (w *worker) classify(err error) error {
	if w.check && errors.Is(err, pebble.ErrNotFound) {
		return adapter.ErrValidationMissing
	}
	return classify(err)
}

// classify gives err its class (nil stays nil): pebble's not-found is
// adapter.ErrNotFound (preallocated: a read miss does not allocate), a full
// disk says so.
func classify(err error) error {
	if err == nil {
		return nil
	}
	switch c := classOf(err); c {
	case vocab.ClassNotFound:
		return adapter.ErrNotFound
	case vocab.ClassRejected:
		return &adapter.Error{Class: c, Err: fmt.Errorf("disk full: %w", err)}
	}
	return &adapter.Error{Class: vocab.ClassOther, Err: err}
}

// classOf is the class of pebble's and the disk's errors.
func classOf(err error) vocab.Class {
	switch {
	case err == nil:
		return vocab.ClassNone
	case errors.Is(err, pebble.ErrNotFound):
		return vocab.ClassNotFound
	case errors.Is(err, unix.ENOSPC):
		return vocab.ClassRejected
	}
	return vocab.ClassOther
}
