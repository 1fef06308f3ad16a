package target

import (
	"errors"
	"fmt"
	"testing"
)

func TestWithClass(t *testing.T) {
	timeout := func(error) Class { return ClassTimeout }
	if WithClass(nil, timeout) != nil {
		t.Fatal("nil must stay nil")
	}
	err := WithClass(errors.New("slow"), timeout)
	if Classify(err) != ClassTimeout || err.Error() != "timeout: slow" {
		t.Fatalf("got %v (%s)", err, Classify(err))
	}
	// An error that already has a class keeps it, wrapped or not.
	wrapped := fmt.Errorf("op: %w", ErrNotFound)
	if got := WithClass(wrapped, timeout); got != wrapped || Classify(got) != ClassNotFound {
		t.Fatalf("got %v", got)
	}
}
