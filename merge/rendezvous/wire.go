package rendezvous

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The wire: one message per line. Before a peer has proved the secret, lines
// are plain JSON and at most HelloLimit bytes (a challenge, a hello, a
// refusal). After it, every line is "MAC JSON": MAC is the hex HMAC-SHA256,
// under the session key, of the direction, the line's sequence number on
// that direction and the JSON, so a line cannot be forged, replayed,
// reordered or moved to another connection without the secret. Lines are not
// encrypted: results hold no secret (target URLs are redacted before a result
// is made), and the threat model (docs/distributed.md) is a neighbour that
// can reach the port, not one that can read the traffic.

// HelloLimit bounds a line read before the peer is authenticated: a
// challenge or hello is about 300 bytes.
const HelloLimit = 4 << 10

// DefaultMaxMessage bounds an authenticated line (a loader's result).
const DefaultMaxMessage = 1 << 30

// ErrTooLong is returned for a line over its limit.
var ErrTooLong = errors.New("message over the size limit")

// proto names this protocol in every MAC, so a MAC of another use of the
// same secret proves nothing here.
const proto = "platbench-rendezvous-1"

// Directions of a session, each with its own sequence of lines.
const (
	toCoordinator = byte('c')
	toPeer        = byte('p')
)

// readLine reads one line of at most limit bytes (without its '\n'). A
// longer line is not read to its end: ErrTooLong, and the connection is to
// be dropped.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > limit+1 {
			return nil, fmt.Errorf("%w (%d bytes)", ErrTooLong, limit)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// nonce is 32 random bytes, hex.
func nonce() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand's contract since Go 1.24)
	return hex.EncodeToString(b)
}

func mac(key []byte, parts ...[]byte) []byte {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:]) // length-prefixed: no two part lists hash alike
		h.Write(p)
	}
	return h.Sum(nil)
}

// helloProof is what a peer sends to prove the secret: it binds both nonces
// (no replay from another connection) and what the peer says of itself.
func helloProof(secret []byte, cNonce, pNonce string, shard, shards int, version string) string {
	return hex.EncodeToString(mac(secret, []byte(proto), []byte("hello"), []byte(cNonce), []byte(pNonce),
		[]byte(fmt.Sprint(shard)), []byte(fmt.Sprint(shards)), []byte(version)))
}

// sessionKey is the key of one connection's framed lines.
func sessionKey(secret []byte, cNonce, pNonce string) []byte {
	return mac(secret, []byte(proto), []byte("session"), []byte(cNonce), []byte(pNonce))
}

// session frames and checks the authenticated lines of one connection.
type session struct {
	key        []byte
	out, in    byte // directions written and read
	sent, read uint64
}

func (s *session) tag(dir byte, seq uint64, body []byte) []byte {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], seq)
	return mac(s.key, []byte{dir}, n[:], body)
}

// frame makes the line for m (with its '\n').
func (s *session) frame(m message) ([]byte, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	t := s.tag(s.out, s.sent, body)
	s.sent++
	line := make([]byte, 0, 2*len(t)+1+len(body)+1)
	line = hex.AppendEncode(line, t)
	line = append(line, ' ')
	line = append(line, body...)
	return append(line, '\n'), nil
}

// open checks a framed line and decodes its message.
func (s *session) open(line []byte) (message, error) {
	var m message
	sp := bytes.IndexByte(line, ' ')
	if sp != 2*sha256.Size {
		return m, errors.New("not an authenticated message")
	}
	got := make([]byte, sha256.Size)
	if _, err := hex.Decode(got, line[:sp]); err != nil {
		return m, errors.New("not an authenticated message")
	}
	body := line[sp+1:]
	if !hmac.Equal(got, s.tag(s.in, s.read, body)) {
		return m, errors.New("a message whose MAC does not match (forged, replayed or damaged)")
	}
	s.read++
	if err := json.Unmarshal(body, &m); err != nil {
		return m, fmt.Errorf("an authenticated message that is not JSON: %w", err)
	}
	return m, nil
}

// decodeHello reads a plain (pre-authentication) line.
func decodeHello(line []byte) (message, error) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return m, fmt.Errorf("not a rendezvous message: %w", err)
	}
	return m, nil
}

// jsonLine is m as one plain line.
func jsonLine(m message) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
