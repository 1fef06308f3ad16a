// Package adapter defines what platbench drives: a Target opened from a URL,
// Workers that execute one Request at a time, the error classes that keep
// per-interval error counts bounded, and the option layer (OptionSet,
// options.go) every adapter declares its options to. Adapters live in
// sub-packages; only they import drivers. This package does not time
// anything: the runner does.
package adapter

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Target is one system under test, opened once per run.
type Target interface {
	// Setup prepares the target for the workload (create keyspace, table,
	// topic...). It is called once before the load phase and before the run.
	Setup(ctx context.Context, w *workload.Spec) error
	// NewWorker returns an executor for one runner worker. Workers are used
	// by one goroutine each and may hold connections and buffers.
	NewWorker(id int) (Worker, error)
	// Close releases everything; with Keep unset it also drops what Setup made.
	Close() error
}

// Worker executes requests. Do must not allocate on the steady path: it is
// timed by the runner and sits on the hot path of the load generator.
type Worker interface {
	Do(ctx context.Context, req *workload.Request) error
	Close() error
}

// Describer is implemented by targets that can say what they are.
type Describer interface {
	Describe(ctx context.Context) vocab.Info
}

// Sizer is implemented by targets that can tell how many bytes the dataset
// occupies on disk (used for the page-cache analysis).
type Sizer interface {
	DiskBytes(ctx context.Context) (int64, error)
}

// RecordSizer is implemented by targets that know, once set up, what one
// record of the workload holds on them: a cassandra-stress profile's
// partition, its mean rows and bytes from the profile's distributions and
// the table's types (the load's size estimate; without it a record is the
// workload's RecordBytes). Resize is called when w.Records was lowered
// after Setup (a dataset budget): the target uses the new count.
type RecordSizer interface {
	RecordSize(w *workload.Spec) (rows, bytes float64)
	Resize(w *workload.Spec)
}

// FreeDisker is implemented by targets that can tell how many bytes their
// disk has free for the dataset (a load that cannot fit is refused).
type FreeDisker interface {
	FreeDiskBytes(ctx context.Context) (int64, error)
}

// Datasets stay put (docs/datasets.md): `platbench load` keeps what it
// creates; `run` removes what its own load phase created in the same
// invocation (by its manifest, manifest.go) unless told to keep it;
// `run --no-load` first checks that the dataset is there.

// Retainer is implemented by targets whose Close would remove what Setup
// created: after Retain, Close keeps it (a load-only invocation, or a run
// that loaded nothing). Retained reports whether it keeps it (Retain was
// called, or the user set the target's keep option): a run with its own
// load then keeps its dataset too.
type Retainer interface {
	Retain()
	Retained() bool
}

// DatasetChecker is implemented by targets that can work on a dataset that
// is already there. UseExisting, called before Setup, makes Setup create
// nothing (a missing keyspace, table or topic is then a MissingDataset
// error), so Close removes nothing. CheckDataset (after Setup) checks that
// the records a workload reads are there (the first and the last, or a
// count) and returns a MissingDataset error naming what is missing.
type DatasetChecker interface {
	UseExisting()
	CheckDataset(ctx context.Context, w *workload.Spec) error
}

// ReadChecker is implemented by targets that check what reads return when
// the workload is checked (workload.Spec.CheckValues): a read whose record is
// absent fails as ErrValidationMissing, one whose value is not what
// platbench wrote as ErrValidationCorrupt. ChecksReads returns nil when the
// target, as configured, checks reads, and a usererr naming the fix
// otherwise. It is called before Setup.
type ReadChecker interface {
	ChecksReads(w *workload.Spec) error
}

// DatasetError is a dataset that is not there (or too small) for a run that
// does not load it. It is not bad input (the command was right; the target
// was not ready): the run fails to start.
type DatasetError struct{ Msg string }

func (e *DatasetError) Error() string { return e.Msg }

// MissingDataset is a DatasetError: what is missing and the fix.
func MissingDataset(format string, a ...any) error {
	return &DatasetError{Msg: fmt.Sprintf(format, a...)}
}

// Error carries a class. Adapters return it (or a sentinel below) so the
// runner can count errors by class without string matching.
type Error struct {
	Class vocab.Class
	Err   error
}

func (e *Error) Error() string { return e.Class.String() + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ErrorClass makes *Error a Classed error.
func (e *Error) ErrorClass() vocab.Class { return e.Class }

// Classed is an error that carries its class without being an *Error: the
// wire packages' own error types (resp.ClassError, cpwire.ClassError), which
// import nothing above vocab and so cannot build an *Error. Classify and
// WithClass take the class of the first Classed error in err's chain, so an
// adapter returns a wire package's error as it is.
type Classed interface {
	error
	ErrorClass() vocab.Class
}

// Sentinels for the common cases; they carry their class. Preallocated so
// that returning them does not allocate.
var (
	ErrNotFound    = &Error{vocab.ClassNotFound, errors.New("key not found")}
	ErrTimeout     = &Error{vocab.ClassTimeout, errors.New("timed out")}
	ErrUnavailable = &Error{vocab.ClassUnavailable, errors.New("unavailable")}
	ErrUnsupported = errors.New("operation not supported by this target")

	ErrValidationMissing = &Error{vocab.ClassValidationMissing, errors.New("checked read: no record for a key the dataset has")}
	ErrValidationCorrupt = &Error{vocab.ClassValidationCorrupt, errors.New("checked read: the value is not what platbench wrote for its key")}
)

// Verdict is the error of a checked read's verdict (nil for ValueOK).
func Verdict(v workload.Verdict) error {
	switch v {
	case workload.ValueMissing:
		return ErrValidationMissing
	case workload.ValueCorrupt:
		return ErrValidationCorrupt
	}
	return nil
}

// RefuseValidate is the error of a target that cannot check reads, naming
// those that can.
func RefuseValidate(name string) error {
	return usererr.Field("validate", "is not supported by %s, which does not check reads (fix: drop validate, or use the embedded, redis (standalone, unpipelined), cql or hazelcast (IMap) target)", name)
}

// Classify returns the class of err (ClassNone for nil).
func Classify(err error) vocab.Class {
	if err == nil {
		return vocab.ClassNone
	}
	var ce Classed // an *Error, or a wire package's own classed error
	if errors.As(err, &ce) {
		return ce.ErrorClass()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return vocab.ClassTimeout
	}
	return vocab.ClassOther
}

// Opener opens a target from its URL. Options not in the URL come from opts
// (command-line --target-opt key=value pairs); both go through the target's
// OptionSet (options.go).
type Opener func(ctx context.Context, u *url.URL, opts map[string]string) (Target, error)

// Entry is one line of the registry.
type Entry struct {
	Name    string
	Summary string // one line for `platbench targets`
	Example string // an example URL
	Open    Opener
	// Options returns the target's declared options (nil: it takes none),
	// for 'platbench targets NAME' and the check of the docs' tables.
	Options func() *OptionSet
}

// ConfigError is a problem with how the user asked for a target: the
// project's one user-error type (package usererr). Its message names the
// problem and the fix; the CLI prints it as one line.
type ConfigError = usererr.Error

// Configf builds a ConfigError that concerns no single option.
func Configf(format string, a ...any) error { return usererr.New(format, a...) }
