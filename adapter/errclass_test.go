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
