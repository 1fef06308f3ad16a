package result

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	segjson "github.com/segmentio/encoding/json"

	"github.com/platbench/platbench/internal/usererr"
)

// ErrMalformed is wrapped by every error about a file that is not a valid
// result. It is a user error (usererr): a result file is input a person
// gives, so the command line treats a malformed one as bad input.
var ErrMalformed error = &usererr.Error{Msg: "not a valid platbench result"}

// Write stores r at path atomically: it writes a temporary file in the same
// directory, syncs it and renames it over path, so a reader never sees half a
// result (and a full disk leaves the old file, or none, in place).
func Write(path string, r *Result) error {
	var b bytes.Buffer
	if err := Encode(&b, r); err != nil {
		return err
	}
	return WriteFileAtomic(path, b.Bytes())
}

// Encode writes r as the JSON of a result file (what Write puts in a file).
func Encode(w io.Writer, r *Result) error {
	data, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// WriteFileAtomic writes data to path through a temporary file and a
// rename, the directory synced after it (WriteAtomic). It replaces a file
// at path: a command checks first (CheckOutputs) that it may.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic is WriteFileAtomic for data that write writes (too much to
// hold: a long run's .hlog): a temporary file in path's directory,
// synced, renamed over path, and the directory synced, so that neither a
// killed process nor a crash of the machine leaves half a file at path.
func WriteAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w (check that the directory exists and is writable)", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w (check free space and permissions)", path, err)
	}
	if err := write(f); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w (check free space and permissions)", path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("cannot write %s: syncing its directory: %w", path, err)
	}
	return nil
}

// Read loads and validates a result file.
func Read(path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, jerr := os.Stat(path + JournalSuffix); jerr == nil {
				return nil, usererr.New("%s does not exist, but %s%s does: the journal of a run that did not finish (killed, or still running) (fix: platbench report %s%s)", path, path, JournalSuffix, path, JournalSuffix)
			}
		}
		return nil, usererr.New("cannot read result %s: %v (fix: the path of a result file written by platbench)", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, usererr.New("%s is a directory, not a result (fix: the path of a result file written by platbench)", path)
	}
	// A journal (a run cut short) is read as it streams: a day's may be
	// gigabytes, of which the result keeps a bounded part (each line at
	// most MaxResultBytes). A result file is read whole: at most
	// MaxResultBytes, refused before it is read when its size says more.
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(64)
	size := fileSize(f)
	var r *Result
	// A compressed journal's header is past the first bytes: readJournal
	// says when the stream holds no journal.
	journal := IsJournal(head) || isZstd(head)
	if !journal && int64(size) > MaxResultBytes {
		return nil, tooLarge(path, int64(size))
	}
	if journal {
		r, err = readJournal(br, FinePath(path))
		if err == nil {
			seen := map[string]int{}
			sf := NewSecondsFile(path)
			for i := range r.Phases {
				p := &r.Phases[i]
				p.UseSeconds(sf, seen[p.Name], 0)
				seen[p.Name]++
			}
		}
	} else {
		r, err = Decode(sizedReader{br, size})
		if err == nil {
			err = attachSeconds(r, path)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ReadFiles reads the result files at paths side by side, at most
// GOMAXPROCS at a time: decoding a result's JSON is most of the cost of
// reading it, and compare reads dozens. each, when not nil, is called on
// each result as soon as it is read, in the goroutine that read it (to
// analyse it, say); it must not touch the other results. The results are
// in the order of paths; the error is the first, in that order, of a file
// that could not be read or that each refused.
func ReadFiles(paths []string, each func(i int, r *Result) error) ([]*Result, error) {
	rs := make([]*Result, len(paths))
	errs := make([]error, len(paths))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(paths)) {
		wg.Go(func() {
			for i := range work {
				r, err := Read(paths[i])
				if err == nil && each != nil {
					err = each(i, r)
				}
				rs[i], errs[i] = r, err
			}
		})
	}
	for i := range paths {
		work <- i
	}
	close(work)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// sizedReader is a reader that knows how many bytes it holds (about: a
// file may change as it is read), as bytes.Reader and strings.Reader do:
// Decode reads such a reader into one buffer of that size.
type sizedReader struct {
	io.Reader
	n int
}

func (s sizedReader) Len() int { return s.n }

// fileSize is f's size, or 0 when it has none (a pipe).
func fileSize(f *os.File) int {
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() < 1<<40 {
		return int(st.Size())
	}
	return 0
}

// Decode reads one result from rd and validates it. The whole of rd is the
// result: anything but white space after its JSON value is an error (a
// file with something appended, or two results in one). A reader with a
// Len (bytes.Reader, a file's in Read) is read into one buffer of that
// size rather than grown by copies: a one-hour result is megabytes.
func Decode(rd io.Reader) (*Result, error) {
	n := 0
	if l, ok := rd.(interface{ Len() int }); ok {
		n = max(l.Len(), 0)
	}
	data, err := readBounded(rd, n)
	if err != nil {
		return nil, err
	}
	if IsJournal(data) || isZstd(data) {
		return ReadJournal(bytes.NewReader(data))
	}
	return decodeJSON(data)
}

// readBounded reads all of rd (about n bytes, 0 when not known) in
// chunks: at most MaxResultBytes, and not one chunk past a NUL byte (a
// sparse or zero-filled file is refused at its first chunk, not read
// whole into memory first).
func readBounded(rd io.Reader, n int) ([]byte, error) {
	data := make([]byte, 0, min(int64(n), MaxResultBytes)+bytes.MinRead)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		chunk := data[len(data):min(cap(data), len(data)+1<<20)]
		k, err := rd.Read(chunk)
		if z := bytes.IndexByte(chunk[:k], 0); z >= 0 {
			return nil, nulError(int64(len(data) + z))
		}
		data = data[:len(data)+k]
		if int64(len(data)) > MaxResultBytes {
			return nil, fmt.Errorf("%w: more than %s (a result file is at most that: a week-long run's is about 260 MB) (fix: the result file as platbench wrote it)", ErrMalformed, byteSize(MaxResultBytes))
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// syntaxReason is err without the excerpt of data that segmentio's
// decoder quotes after a syntax error (the file may be a password file
// given by mistake): encoding/json's reason and the byte's offset instead.
func syntaxReason(data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	var raw json.RawMessage
	if serr := json.Unmarshal(data, &raw); errors.As(serr, &se) {
		return fmt.Errorf("json: %s (byte %d)", se.Error(), se.Offset)
	}
	return errors.New("json: a syntax error")
}

// decodeJSON decodes and validates the JSON of a result file. Decoding is
// the cost of reading a result, and compare reads dozens of one-hour ones:
// github.com/segmentio/encoding/json decodes them about five times faster
// than encoding/json (docs/comparison.md, "Cost of a comparison"), into
// the same Result (FuzzDecodeLikeStd holds it to that). Writing stays with
// encoding/json.
func decodeJSON(data []byte) (*Result, error) {
	var r Result
	rest, err := segjson.Parse(data, &r, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v (fix: a JSON result file written by platbench run, sweep, probe or merge)", ErrMalformed, syntaxReason(data, err))
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("%w: more data after the result's JSON, from byte %d of %d on (fix: one result per file: remove what follows the result, or split the file)",
			ErrMalformed, len(data)-len(rest), len(data))
	}
	for i := range r.Phases {
		packIntervalOps(r.Phases[i].Intervals)
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

// packIntervalOps moves the op types of every interval into one array.
// segmentio/encoding gives each slice it decodes room for ten elements:
// an interval of two op types held a kilobyte and a half, and a one-hour
// result twice the memory encoding/json leaves it (5.4 MB against 2.4).
func packIntervalOps(ivs []Interval) {
	n := 0
	for _, iv := range ivs {
		n += len(iv.Ops)
	}
	all := make([]IntervalOp, n)
	for i := range ivs {
		ops := ivs[i].Ops
		if ops == nil {
			continue
		}
		k := copy(all, ops)
		ivs[i].Ops, all = all[:k:k], all[k:]
	}
}

// Validate checks what every reader relies on and reports every problem at once.
func (r *Result) Validate() error {
	var probs []string
	if r.Schema == "" {
		probs = append(probs, "no schema field")
	} else if !strings.HasPrefix(r.Schema, "platbench.result/") {
		probs = append(probs, fmt.Sprintf("schema %q is not a platbench result", r.Schema))
	} else if r.Schema != SchemaVersion && r.Schema != SchemaV1 {
		probs = append(probs, fmt.Sprintf("schema %q is not supported by this version (reads %s and %s)", r.Schema, SchemaV1, SchemaVersion))
	}
	if len(r.Phases) == 0 {
		probs = append(probs, "no phases")
	}
	for i, p := range r.Phases {
		if p.Name == "" {
			probs = append(probs, fmt.Sprintf("phase %d has no name", i))
		}
		if p.DurationNs < 0 {
			probs = append(probs, fmt.Sprintf("phase %q has a negative duration", p.Name))
		}
		for _, o := range p.Ops {
			if o.Op == "" {
				probs = append(probs, fmt.Sprintf("phase %q has an op without a name", p.Name))
			}
		}
	}
	probs = append(probs, r.Verification.problems()...)
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s (fix: a result file written by platbench)", ErrMalformed, strings.Join(probs, "; "))
	}
	return nil
}

// Phase returns the phase with the given name, or nil.
func (r *Result) Phase(name string) *Phase {
	for i := range r.Phases {
		if r.Phases[i].Name == name {
			return &r.Phases[i]
		}
	}
	return nil
}

// MainPhase is the phase reports are about: "run" when present, else the last one.
func (r *Result) MainPhase() *Phase {
	if p := r.Phase("run"); p != nil {
		return p
	}
	if len(r.Phases) == 0 {
		return nil
	}
	return &r.Phases[len(r.Phases)-1]
}
