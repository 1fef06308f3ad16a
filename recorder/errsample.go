package recorder

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// What a phase keeps of its failures' messages: the first
// MaxErrorMessages distinct ones of each class, each cut to
// MaxErrorMessageBytes, looked for among the first errorScan failures of
// the class. The counts stay exact (OpTotal.Errors); the messages are
// examples, so that a user reads the server's own words ("ERR value is not
// an integer or out of range"), not only a class.
const (
	MaxErrorMessages     = 4
	MaxErrorMessageBytes = 240
	errorScan            = 64
)

// errorSampler keeps a phase's error messages for every shard. A failure
// past the first errorScan of its class costs one atomic add: a storm of
// errors takes no lock and allocates nothing once the examples are taken,
// and a successful operation never comes here.
type errorSampler struct {
	seen [vocab.NumClasses]atomic.Uint32
	mu   sync.Mutex
	kept []result.ErrorMessage
	per  [vocab.NumClasses]uint8
}

// note keeps err's message if it is one of the first distinct ones of its
// class.
func (e *errorSampler) note(op vocab.Op, class vocab.Class, err error) {
	if err == nil || class == vocab.ClassNone || class >= vocab.NumClasses {
		return
	}
	if e.seen[class].Add(1) > errorScan {
		return
	}
	msg := Message(class, err)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.per[class] >= MaxErrorMessages {
		return
	}
	name := class.String()
	for _, k := range e.kept {
		if k.Class == name && k.Message == msg {
			return
		}
	}
	e.kept = append(e.kept, result.ErrorMessage{Class: name, Op: op.String(), Message: msg})
	e.per[class]++
}

// messages returns a copy of what was kept.
func (e *errorSampler) messages() []result.ErrorMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.kept) == 0 {
		return nil
	}
	return append([]result.ErrorMessage(nil), e.kept...)
}

// Message is err's text as a user should read it: on one line, without
// the "class: " prefix an adapter's classified error puts in front (the
// class is shown beside it), cut to MaxErrorMessageBytes at a rune
// boundary and marked "...".
func Message(class vocab.Class, err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	s = strings.TrimPrefix(s, class.String()+": ")
	if len(s) <= MaxErrorMessageBytes {
		return s
	}
	cut := MaxErrorMessageBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// NoteError keeps the message of a failed operation (see MaxErrorMessages)
// for the phase's result. Call it after Record, outside any timing, with
// the error the operation returned and its class; it is cheap once the
// class's first failures have been looked at.
func (s *Shard) NoteError(op vocab.Op, class vocab.Class, err error) {
	if s.errs != nil {
		s.errs.note(op, class, err)
	}
}

// NoteAsyncError implements adapter.Sink's NoteAsyncError: the message of
// an operation completed outside the workers (a consumer's failed poll)
// that RecordAsync recorded as failed, kept as a worker's are (NoteError):
// the first MaxErrorMessages distinct ones of each class in the phase.
func (r *Recorder) NoteAsyncError(op vocab.Op, class vocab.Class, err error) {
	r.async.NoteError(op, class, err)
}
