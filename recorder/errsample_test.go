package recorder

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/platbench/platbench/vocab"
)

// A phase keeps the first MaxErrorMessages distinct messages of each class,
// in the order first seen, one line each, without the class prefix an
// adapter's error carries, cut at MaxErrorMessageBytes; repeats are kept
// once, and every failure is still counted.
func TestErrorMessagesKept(t *testing.T) {
	r := New(Config{Shards: 2})
	r.Start()
	sh := r.Shard(0)
	note := func(op vocab.Op, c vocab.Class, err error) {
		now := r.Now()
		sh.Record(op, now, now, now, 0, c)
		sh.NoteError(op, c, err)
	}
	for range 10 {
		note(vocab.OpUpdate, vocab.ClassOther, errors.New("other: ERR value is not an integer or out of range"))
	}
	for i := range 8 {
		note(vocab.OpRead, vocab.ClassTimeout, fmt.Errorf("timeout: no answer\nfrom node %d", i))
	}
	note(vocab.OpRead, vocab.ClassRejected, errors.New(strings.Repeat("é", 400)))
	note(vocab.OpRead, vocab.ClassNone, nil)
	p := r.Stop()
	var got []string
	for _, m := range p.ErrorMessages {
		got = append(got, m.Op+" "+m.Class+" "+m.Message)
	}
	long := strings.Repeat("é", MaxErrorMessageBytes/2) + "..."
	want := []string{
		"UPDATE other ERR value is not an integer or out of range",
		"READ timeout no answer from node 0", "READ timeout no answer from node 1",
		"READ timeout no answer from node 2", "READ timeout no answer from node 3",
		"READ rejected " + long,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var failed uint64
	for _, o := range p.Ops {
		for _, n := range o.Errors {
			failed += n
		}
	}
	if failed != 19 {
		t.Errorf("%d failures counted, want 19", failed)
	}
}

// An operation completed outside the workers (a Kafka consumer's poll)
// that failed carries the server's message as a worker's does: recorded
// with RecordAsync, its message kept by NoteAsyncError, for the CONSUME op.
func TestAsyncErrorMessagesKept(t *testing.T) {
	r := New(Config{Shards: 1})
	r.Start()
	for range 3 {
		r.RecordAsync(vocab.OpConsume, 0, 0, vocab.ClassRejected)
		r.NoteAsyncError(vocab.OpConsume, vocab.ClassRejected, errors.New("rejected: unable to join group session: INVALID_SESSION_TIMEOUT: The session timeout is not within the range allowed by the broker"))
	}
	r.RecordAsync(vocab.OpConsume, 1_000_000, 10, vocab.ClassNone)
	r.NoteAsyncError(vocab.OpConsume, vocab.ClassNone, nil)
	p := r.Stop()
	want := "CONSUME rejected unable to join group session: INVALID_SESSION_TIMEOUT: The session timeout is not within the range allowed by the broker"
	if len(p.ErrorMessages) != 1 || p.ErrorMessages[0].Op+" "+p.ErrorMessages[0].Class+" "+p.ErrorMessages[0].Message != want {
		t.Errorf("messages %+v, want one: %s", p.ErrorMessages, want)
	}
	if len(p.Ops) != 1 || p.Ops[0].Errors["rejected"] != 3 || p.Ops[0].Count != 1 {
		t.Errorf("ops %+v: want 1 CONSUME and 3 rejected", p.Ops)
	}
}

// Past the first failures of a class a failure costs no allocation (the
// message is not even formatted), and a success never comes here.
func TestNoteErrorAllocationFree(t *testing.T) {
	r := New(Config{Shards: 1})
	r.Start()
	defer r.Stop()
	sh := r.Shard(0)
	err := &countingErr{}
	for range errorScan {
		sh.NoteError(vocab.OpRead, vocab.ClassOther, err)
	}
	if err.calls != errorScan {
		t.Fatalf("Error() called %d times in the first %d failures", err.calls, errorScan)
	}
	if a := testing.AllocsPerRun(1000, func() { sh.NoteError(vocab.OpRead, vocab.ClassOther, err) }); a != 0 {
		t.Errorf("a failure past the scan allocates %v", a)
	}
	if a := testing.AllocsPerRun(1000, func() { sh.NoteError(vocab.OpRead, vocab.ClassNone, nil) }); a != 0 {
		t.Errorf("a success allocates %v", a)
	}
	if err.calls != errorScan {
		t.Errorf("Error() called %d times, want %d: the message of a failure past the scan was formatted", err.calls, errorScan)
	}
}

type countingErr struct{ calls int }

func (e *countingErr) Error() string { e.calls++; return "same" }
