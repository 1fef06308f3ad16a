// Package usererr is the one type for a problem with what a person asked
// for: a config field, a file, a target option. Every library package returns
// these for bad input, so the command line can tell bad input from a failed
// run (and exit accordingly) without matching message text.
//
// A library speaks of its own config fields ("warmup", "server_pid"), never
// of command-line flags; cmd/platbench/cli maps a field to the flag that sets it
// when it prints the error.
package usererr

import (
	"errors"
	"fmt"
	"strings"
)

// Error is one problem. Msg says what is wrong and how to fix it; it does not
// repeat Field, which names the config field it concerns (empty when the
// problem is not about one field, e.g. an unreadable file).
type Error struct {
	Field string
	Msg   string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + " " + e.Msg
}

// New returns a problem that concerns no single field.
func New(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// Field returns a problem with one config field.
func Field(field, format string, a ...any) *Error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// List gathers every problem of a validation so they are reported at once.
type List []*Error

// Add appends a problem with a field.
func (l *List) Add(field, format string, a ...any) { *l = append(*l, Field(field, format, a...)) }

// Addf appends a problem that concerns no single field.
func (l *List) Addf(format string, a ...any) { *l = append(*l, &Error{Msg: fmt.Sprintf(format, a...)}) }

// Err returns nil when the list is empty, the one problem when there is one,
// and else an error whose message joins them with "; " and which unwraps to
// each of them.
func (l List) Err() error {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	}
	return joined(l)
}

type joined []*Error

func (j joined) Error() string { return Render(j, nil) }

func (j joined) Unwrap() []error {
	out := make([]error, len(j))
	for i, e := range j {
		out[i] = e
	}
	return out
}

// Is reports whether err is, or wraps, a user error.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Render writes err as one line, naming each problem's field with name(field)
// (nil: the field as it is). A wrapped user error keeps the wrapping text.
func Render(err error, name func(string) string) string {
	if name == nil {
		name = func(f string) string { return f }
	}
	switch e := err.(type) {
	case joined:
		parts := make([]string, len(e))
		for i, p := range e {
			parts[i] = Render(p, name)
		}
		return strings.Join(parts, "; ")
	case *Error:
		if e.Field == "" {
			return e.Msg
		}
		return name(e.Field) + " " + e.Msg
	}
	var ue *Error
	if errors.As(err, &ue) && ue.Field != "" {
		return strings.Replace(err.Error(), ue.Error(), Render(ue, name), 1)
	}
	return err.Error()
}
