// Package promtext reads the Prometheus text exposition format (version
// 0.0.4) line by line, in place: once a source's label values have been
// seen, reading a body allocates nothing. A loader scrapes its exporters
// (node_exporter on every server, the JMX exporter agent in every broker
// or database node) every second for as long as a run lasts; expfmt's
// parser, which this replaces, allocated five to six bytes per byte of
// body, the garbage that set the loader's collector's goal in a soak.
//
// Only the samples of the families a caller wants are parsed; other lines
// are skipped unread, so a body expfmt would reject for a line of another
// family still gives the wanted figures. A malformed line of a wanted
// family fails the read, naming the line. A family declared summary or
// histogram (# TYPE) is passed over: its samples are not plain values
// (expfmt files them apart). Values come as parsed (NaN, infinities and
// negative values included): what is a valid figure is the caller's call.
// expfmt stays the oracle in the tests of this package and its callers.
package promtext

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxNames bounds a Reader's interned names: an exporter whose label
// values change every scrape must not grow a week-long run's memory. A
// caller keeping entries by interned name bounds them the same.
const MaxNames = 4096

// MaxBody bounds what one Read reads: node_exporter with every collector
// on serves a few hundred KB, a JMX exporter on a broker with thousands of
// partitions a few MB. A longer body is refused (ErrBodyTooLong), not read
// cut short: its last line read could be a figure cut in the middle.
const MaxBody = 16 << 20

// ErrBodyTooLong is Read's error for a body over MaxBody.
var ErrBodyTooLong = fmt.Errorf("the body is over %d MiB", MaxBody>>20)

// A Reader reads bodies of one source, one at a time (it is not safe for
// concurrent use). It keeps the values of the label names it was made
// with, unescaped, for the sample being read (Label).
type Reader struct {
	br *bufio.Reader
	// long holds a line longer than br's buffer.
	long []byte
	// names interns label values and metric names, so that keys made
	// of them are not allocated each scrape; bounded by MaxNames.
	names map[string]string
	// typed are the wanted families declared summary or histogram.
	typed map[string]bool
	keep  []string
	vals  [][]byte
	lim   io.LimitedReader // the body, bounded by MaxBody
}

// NewReader makes a Reader that keeps the values of the labels named keep.
func NewReader(keep ...string) *Reader {
	return &Reader{names: map[string]string{}, typed: map[string]bool{}, keep: keep, vals: make([][]byte, len(keep))}
}

// Label is the value of the i-th label named to NewReader on the sample
// being read (empty when the sample has none).
func (r *Reader) Label(i int) []byte { return r.vals[i] }

// Read reads body, calling sample for every sample of a family want
// accepts with its name and value (Label gives its labels). An error
// sample returns stops the read and is returned as is; a malformed line is
// an error naming it, as expfmt's are ("text format parsing error in line
// N: ...").
func (r *Reader) Read(body io.Reader, want func(name []byte) bool, sample func(name []byte, v float64) error) error {
	r.lim = io.LimitedReader{R: body, N: MaxBody + 1}
	if r.br == nil {
		r.br = bufio.NewReaderSize(&r.lim, 32<<10)
	} else {
		r.br.Reset(&r.lim)
	}
	clear(r.typed)
	if len(r.names) > MaxNames {
		clear(r.names)
	}
	defer func() {
		r.lim.R = nil // the body is not kept
		if cap(r.long) > 64<<10 {
			r.long = nil // one long line does not stay for the run
		}
	}()
	err := r.read(want, sample)
	if r.lim.N == 0 {
		// The last line read may be cut short: no figure from this body.
		return ErrBodyTooLong
	}
	return err
}

func (r *Reader) read(want func(name []byte) bool, sample func(name []byte, v float64) error) error {
	for n := 1; ; n++ {
		line, err := r.readLine()
		if len(line) > 0 {
			name, v, ok, perr := r.line(line, want)
			if perr != nil {
				return fmt.Errorf("text format parsing error in line %d: %w", n, perr)
			}
			if ok {
				if serr := sample(name, v); serr != nil {
					return serr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine returns the next line without its newline; io.EOF with the last.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
		}
		line = r.long
	}
	if err == nil {
		line = line[:len(line)-1]
	}
	return line, err
}

// line reads one line: a sample of a wanted family (ok), or nothing.
// Comments are skipped but for TYPE lines that make a wanted family a
// summary or a histogram.
func (r *Reader) line(b []byte, want func([]byte) bool) (name []byte, v float64, ok bool, err error) {
	b = skipBlanks(b)
	if len(b) == 0 {
		return nil, 0, false, nil
	}
	if b[0] == '#' {
		r.comment(b[1:], want)
		return nil, 0, false, nil
	}
	name, rest := metricName(b)
	if len(name) == 0 || !want(name) || r.typed[string(name)] {
		return nil, 0, false, nil
	}
	rest = skipBlanks(rest)
	for i := range r.vals {
		r.vals[i] = r.vals[i][:0]
	}
	if len(rest) > 0 && rest[0] == '{' {
		if rest, err = r.labels(rest[1:]); err != nil {
			return nil, 0, false, err
		}
	}
	if v, err = sampleValue(rest); err != nil {
		return nil, 0, false, err
	}
	return name, v, true, nil
}

// comment notes a TYPE line declaring a wanted family a summary or a
// histogram (b follows the '#').
func (r *Reader) comment(b []byte, want func([]byte) bool) {
	kw, rest := token(skipBlanks(b))
	if string(kw) != "TYPE" {
		return
	}
	name, rest := metricName(skipBlanks(rest))
	if len(name) == 0 || !want(name) {
		return
	}
	typ, _ := token(skipBlanks(rest))
	if bytes.EqualFold(typ, []byte("summary")) || bytes.EqualFold(typ, []byte("histogram")) {
		r.typed[r.Intern(name)] = true
	}
}

// labels reads a sample's labels after its '{', keeping the values of the
// labels named to NewReader, and returns what follows the '}'.
func (r *Reader) labels(b []byte) ([]byte, error) {
	for {
		b = skipBlanks(b)
		if len(b) == 0 {
			return nil, errors.New("unexpected end of labels")
		}
		if b[0] == '}' {
			return b[1:], nil
		}
		ln := labelName(b)
		if ln == 0 {
			return nil, fmt.Errorf("invalid label name at %q", clip(b))
		}
		name := b[:ln]
		b = skipBlanks(b[ln:])
		if len(b) == 0 || b[0] != '=' {
			return nil, fmt.Errorf("expected '=' after label name %q", name)
		}
		b = skipBlanks(b[1:])
		if len(b) == 0 || b[0] != '"' {
			return nil, fmt.Errorf("expected '\"' at start of the value of label %q", name)
		}
		var dst *[]byte
		for i, k := range r.keep {
			if string(name) == k {
				dst = &r.vals[i]
				break
			}
		}
		var err error
		if b, err = labelValue(b[1:], dst); err != nil {
			return nil, err
		}
		b = skipBlanks(b)
		if len(b) > 0 && b[0] == ',' {
			b = b[1:]
			continue
		}
		if len(b) == 0 || b[0] != '}' {
			return nil, fmt.Errorf("unexpected end of the value of label %q", name)
		}
	}
}

// labelValue reads a quoted value after its opening quote, unescaping \\,
// \" and \n into *dst when dst is not nil (a label not kept, or a repeated
// one: the first is kept, as expfmt's first match is), and returns what
// follows the closing quote.
func labelValue(b []byte, dst *[]byte) ([]byte, error) {
	keep := dst != nil && len(*dst) == 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '"':
			return b[i+1:], nil
		case '\\':
			i++
			if i == len(b) {
				return nil, errors.New("unexpected end of label value")
			}
			switch b[i] {
			case '"', '\\':
				c = b[i]
			case 'n':
				c = '\n'
			default:
				return nil, fmt.Errorf("invalid escape sequence '\\%c'", b[i])
			}
		}
		if keep {
			*dst = append(*dst, c)
		}
	}
	return nil, errors.New("label value without its closing quote")
}

// sampleValue parses the value after the labels (an optional integer
// timestamp may follow it).
func sampleValue(b []byte) (float64, error) {
	tok, _ := token(skipBlanks(b))
	if len(tok) == 0 {
		return 0, errors.New("no value")
	}
	if bytes.ContainsAny(tok, "pP_") { // hexadecimal floats and digit separators, as expfmt
		return 0, fmt.Errorf("expected float as value, got %q", tok)
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return 0, fmt.Errorf("expected float as value, got %q", tok)
	}
	return v, nil
}

// Intern returns b as a string, the same string each time (until the
// names pass MaxNames and are dropped at the next Read).
func (r *Reader) Intern(b []byte) string {
	if s, ok := r.names[string(b)]; ok {
		return s
	}
	s := string(b)
	r.names[s] = s
	return s
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func skipBlanks(b []byte) []byte {
	for len(b) > 0 && isBlank(b[0]) {
		b = b[1:]
	}
	return b
}

// token is b up to its first blank, and the rest.
func token(b []byte) (tok, rest []byte) {
	i := 0
	for i < len(b) && !isBlank(b[i]) {
		i++
	}
	return b[:i], b[i:]
}

// metricName is the metric name b starts with ([a-zA-Z_:][a-zA-Z0-9_:]*;
// empty when b does not start with one), and the rest.
func metricName(b []byte) (name, rest []byte) {
	i := 0
	for i < len(b) {
		c := b[i]
		if c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			i++
			continue
		}
		break
	}
	return b[:i], b[i:]
}

// labelName is the length of the label name b starts with
// ([a-zA-Z_][a-zA-Z0-9_]*).
func labelName(b []byte) int {
	i := 0
	for i < len(b) {
		c := b[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			i++
			continue
		}
		break
	}
	return i
}

// clip shortens what an error quotes.
func clip(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}
