package resp

import (
	"bufio"
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/platbench/platbench/vocab"
)

func reader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

// A command as the workers write it: an array of bulk strings.
func TestAppend(t *testing.T) {
	b := AppendArray(nil, 3)
	b = AppendBulkString(b, "SET")
	b = AppendBulk2(b, "user", []byte("42"))
	b = AppendBulk(b, []byte("v\r\n"))
	if want := "*3\r\n$3\r\nSET\r\n$6\r\nuser42\r\n$3\r\nv\r\n\r\n"; string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
}

// Every reply type, read and discarded in order; an error reply is a
// classified error that leaves the stream in step.
func TestReadReply(t *testing.T) {
	br := reader("+OK\r\n:42\r\n$3\r\nfoo\r\n$-1\r\n*2\r\n$1\r\na\r\n:7\r\n*-1\r\n-WRONGTYPE Operation against a key\r\n+PONG\r\n")
	for i, want := range []Reply{{'+', 0}, {':', 42}, {'$', 3}, {'$', -1}, {'*', 2}, {'*', -1}} {
		got, err := ReadReply(br)
		if err != nil || got != want {
			t.Fatalf("reply %d: %+v, %v; want %+v", i, got, err, want)
		}
	}
	_, err := ReadReply(br)
	if ClassOf(err) != vocab.ClassRejected || !IsServerError(err) || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("error reply: %v (class %v)", err, ClassOf(err))
	}
	if got, err := ReadReply(br); err != nil || got.Kind != '+' {
		t.Errorf("after the error reply: %+v, %v", got, err)
	}
	if _, err := ReadReply(br); ClassOf(err) != vocab.ClassUnavailable {
		t.Errorf("end of stream: %v, want class unavailable", err)
	}
	for _, bad := range []string{"?x\r\n", "$x\r\n", "+OK\n", ":\r\n"} {
		if _, err := ReadReply(reader(bad)); ClassOf(err) != vocab.ClassOther || IsServerError(err) {
			t.Errorf("%q: %v, want a malformed-reply error of class other", bad, err)
		}
	}
}

func TestServerErrorClasses(t *testing.T) {
	for code, want := range map[string]vocab.Class{"WRONGTYPE x": vocab.ClassRejected, "NOAUTH x": vocab.ClassRejected,
		"OOM x": vocab.ClassOverloaded, "BUSY x": vocab.ClassOverloaded, "LOADING x": vocab.ClassUnavailable,
		"CLUSTERDOWN x": vocab.ClassUnavailable, "ERR value is not an integer": vocab.ClassOther} {
		if got := ClassOf(ServerError([]byte(code))); got != want {
			t.Errorf("%s: class %v, want %v", code, got, want)
		}
	}
	if err := ServerError([]byte("MOVED 3999 127.0.0.1:6381")); !strings.Contains(err.Error(), "use cluster=true") {
		t.Errorf("MOVED: %v, want the fix", err)
	}
	var re *Error
	if err := ServerError([]byte("ERR x")); !errors.As(err, &re) || re.Msg != "redis: ERR x" {
		t.Errorf("the reply's text: %v", err)
	}
}

func TestParseInt(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "42": 42, "-1": -1, "9223372036854775807": 1<<63 - 1} {
		if got, ok := ParseInt([]byte(in)); !ok || got != want {
			t.Errorf("%q: %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "-", "1a", " 1", "+1"} {
		if _, ok := ParseInt([]byte(in)); ok {
			t.Errorf("%q parsed", in)
		}
	}
}

// BulkInto keeps the value in the caller's buffer, grown once then reused.
func TestBulkInto(t *testing.T) {
	br := reader("$5\r\nhello\r\n$-1\r\n$2\r\nhi\r\n:1\r\n")
	var buf []byte
	if v, err := BulkInto(br, &buf); err != nil || string(v) != "hello" {
		t.Fatalf("%q, %v", v, err)
	}
	if v, err := BulkInto(br, &buf); err != nil || v != nil {
		t.Fatalf("nil bulk: %q, %v", v, err)
	}
	first := &buf[0]
	if v, err := BulkInto(br, &buf); err != nil || string(v) != "hi" || &buf[0] != first {
		t.Fatalf("%q, %v, buffer reused %v", v, err, &buf[0] == first)
	}
	if _, err := BulkInto(br, &buf); err == nil {
		t.Error("an integer read as a bulk string")
	}
}

// cycle repeats its bytes forever.
type cycle struct {
	b []byte
	i int
}

func (c *cycle) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], c.b[c.i:])
		n += k
		c.i = (c.i + k) % len(c.b)
	}
	return n, nil
}

// Reading and encoding the replies and commands of the hot path allocates
// nothing.
func TestHotPathDoesNotAllocate(t *testing.T) {
	br := bufio.NewReaderSize(&cycle{b: []byte("+OK\r\n$10\r\n0123456789\r\n*2\r\n:1\r\n$-1\r\n")}, 4096)
	buf := make([]byte, 0, 256)
	key, val := []byte("42"), []byte("0123456789")
	allocs := testing.AllocsPerRun(1000, func() {
		buf = AppendArray(buf[:0], 3)
		buf = AppendBulkString(buf, "SET")
		buf = AppendBulk2(buf, "user", key)
		buf = AppendBulk(buf, val)
		for range 3 {
			if _, err := ReadReply(br); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per command and three replies, want 0", allocs)
	}
}

// A reply stream from a server, however malformed, reads without a panic.
func FuzzReadReply(f *testing.F) {
	f.Add([]byte("*2\r\n$1\r\na\r\n:7\r\n"))
	f.Add([]byte("-ERR x\r\n"))
	f.Add([]byte("$-1\r\n$3\r\nabc\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		br := bufio.NewReader(bytes.NewReader(b))
		for range 8 {
			if _, err := ReadReply(br); err != nil && !IsServerError(err) {
				return
			}
		}
		var buf []byte
		_, _ = BulkInto(bufio.NewReader(bytes.NewReader(b)), &buf)
		_, _ = Value(bufio.NewReader(bytes.NewReader(b)))
	})
}

// Value reads a whole reply, content included (CLUSTER SLOTS' nested
// arrays); an error reply is the error, a malformed one an error too.
func TestValue(t *testing.T) {
	br := reader("*2\r\n*3\r\n:0\r\n:5460\r\n*2\r\n$9\r\n127.0.0.1\r\n:7000\r\n$-1\r\n+OK\r\n-CLUSTERDOWN the cluster is down\r\n")
	v, err := Value(br)
	want := []any{[]any{int64(0), int64(5460), []any{"127.0.0.1", int64(7000)}}, nil}
	if err != nil || !reflect.DeepEqual(v, want) {
		t.Fatalf("got %#v, %v; want %#v", v, err, want)
	}
	if v, err := Value(br); err != nil || v != "OK" {
		t.Errorf("simple string: %#v, %v", v, err)
	}
	if _, err := Value(br); ClassOf(err) != vocab.ClassUnavailable || !IsServerError(err) {
		t.Errorf("error reply: %v (class %v)", err, ClassOf(err))
	}
	for _, bad := range []string{"?x\r\n", ":x\r\n", "$5\r\nab\r\n", "$9223372036854775807\r\n", "*3\r\n:1\r\n"} {
		if _, err := Value(reader(bad)); err == nil || IsServerError(err) {
			t.Errorf("%q: %v, want a malformed-reply error", bad, err)
		}
	}
}

// A bulk length no Redis sends (a stream that is not Redis's, or corrupt)
// is an error, not a panic of make or an allocation of what it claims.
func TestBulkTooLong(t *testing.T) {
	var buf []byte
	if _, err := BulkInto(reader("$9223372036854775800\r\n"), &buf); ClassOf(err) != vocab.ClassOther || !strings.Contains(err.Error(), "more than Redis sends") {
		t.Errorf("BulkInto: %v", err)
	}
	if _, err := Value(reader("$9223372036854775800\r\n")); err == nil || !strings.Contains(err.Error(), "more than Redis sends") {
		t.Errorf("Value: %v", err)
	}
}
