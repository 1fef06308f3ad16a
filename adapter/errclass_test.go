package adapter

import (
	"errors"
	"fmt"
	"testing"

	"github.com/platbench/platbench/vocab"
)

func TestWithClass(t *testing.T) {
	timeout := func(error) vocab.Class { return vocab.ClassTimeout }
	if WithClass(nil, timeout) != nil {
		t.Fatal("nil must stay nil")
	}
	err := WithClass(errors.New("slow"), timeout)
	if Classify(err) != vocab.ClassTimeout || err.Error() != "timeout: slow" {
		t.Fatalf("got %v (%s)", err, Classify(err))
	}
	// An error that already has a class keeps it, wrapped or not.
	wrapped := fmt.Errorf("op: %w", ErrNotFound)
	if got := WithClass(wrapped, timeout); got != wrapped || Classify(got) != vocab.ClassNotFound {
		t.Fatalf("got %v", got)
	}
}

// wireErr is a wire package's own classed error (resp.ClassError and
// cpwire.ClassError are built so).
type wireErr struct{ c vocab.Class }

func (e wireErr) Error() string           { return "wire" }
func (e wireErr) ErrorClass() vocab.Class { return e.c }

// A Classed error that is no *Error is counted by its own class, and kept
// as it is by WithClass.
func TestClassedError(t *testing.T) {
	timeout := func(error) vocab.Class { return vocab.ClassTimeout }
	err := fmt.Errorf("op: %w", wireErr{vocab.ClassRejected})
	if Classify(err) != vocab.ClassRejected {
		t.Fatalf("Classify: %s", Classify(err))
	}
	if got := WithClass(err, timeout); got != err || Classify(got) != vocab.ClassRejected {
		t.Fatalf("WithClass: %v (%s)", got, Classify(got))
	}
}
