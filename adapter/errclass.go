package adapter

import (
	"errors"

	"github.com/platbench/platbench/vocab"
)

// WithClass returns err as an *Error of the class classOf gives it, or err
// itself when it already carries a class (an *Error, or any Classed error
// of a wire package; nil stays nil). Adapters map their
// driver's errors with it; it allocates, but only on the error path.
func WithClass(err error, classOf func(error) vocab.Class) error {
	if err == nil {
		return nil
	}
	var ce Classed
	if errors.As(err, &ce) {
		return err
	}
	return &Error{Class: classOf(err), Err: err}
}
