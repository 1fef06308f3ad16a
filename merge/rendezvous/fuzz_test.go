package rendezvous

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// FuzzDecode feeds loader 0's decoders what a stranger could send: any bytes
// as a hello line and as a framed line. They must return an error or a
// message, never panic, never read past the limit, and never accept a framed
// line without the key.
func FuzzDecode(f *testing.F) {
	key := sessionKey(secret, strings.Repeat("a", 64), strings.Repeat("b", 64))
	w := &session{key: key, out: toCoordinator}
	good, _ := w.frame(message{Type: "result"})
	f.Add(good)
	f.Add([]byte(`{"type":"ready","shard":1,"shards":3,"version":"v1","nonce":"00","proof":"00"}` + "\n"))
	f.Add([]byte("0000 {}\n"))
	f.Add([]byte(strings.Repeat("f", 64) + " {\"type\":\"ok\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		line, err := readLine(bufio.NewReaderSize(bytes.NewReader(data), 16), 256)
		if err != nil {
			return
		}
		if len(line) > 256 {
			t.Fatalf("readLine returned %d bytes over a limit of 256", len(line))
		}
		decodeHello(line)
		r := &session{key: key, in: toCoordinator}
		if _, err := r.open(line); err == nil && !bytes.Equal(append(line, '\n'), good) {
			t.Fatalf("a framed line not made with the key was accepted: %q", line)
		}
	})
}
