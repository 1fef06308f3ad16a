package adapter

import (
	"errors"

	"github.com/platbench/platbench/vocab"
)

// WithClass returns err as an *Error of the class classOf gives it, or err
// itself when it already carries a class (nil stays nil). Adapters map their
// driver's errors with it; it allocates, but only on the error path.
func WithClass(err error, classOf func(error) vocab.Class) error {
	if err == nil {
		return nil
	}
	var te *Error
	if errors.As(err, &te) {
		return err
	}
	return &Error{Class: classOf(err), Err: err}
}
