package result

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/platbench/platbench/internal/usererr"
)

// The one rule for every file platbench writes (docs/result-schema.md,
// "Files are never replaced silently"):
//
//   - A command checks every file it will write before it does anything
//     else (before a load or run phase begins): one that exists is refused
//     with one line naming it and the fix (--force to replace it, or
//     another --out), exit status 2. With --force the old files stay in
//     place through the run, until the new result is ready in memory; then
//     the old result and its companions are removed and the new ones
//     written, so no moment leaves an old result beside a new .hlog (a
//     write that fails then, a full disk, leaves neither: the run's journal
//     still holds it).
//   - A journal (RESULT.partial) and the files that go with it (.fine,
//     .hlog) are what a run cut short left: never replaced, not even with
//     --force. The refusal names `platbench report RESULT.partial` and how
//     to remove it.
//   - Every file is written to a temporary name and renamed into place,
//     the directory synced (WriteAtomic), or appended to a journal that a
//     crash leaves readable; a journal is created exclusively (O_EXCL).

// Output is one file a command will write.
type Output struct {
	Path string
	What string // "result", "HdrHistogram log", ...
	// Journal marks the files of a run in progress (or cut short): never
	// replaced.
	Journal bool
}

// HlogPath names the .hlog of the result at path.
func HlogPath(path string) string { return strings.TrimSuffix(path, filepath.Ext(path)) + ".hlog" }

// PartialHlogPath is where a run's .hlog is written while it runs (beside
// its journal: RESULT.partial.hlog), renamed to HlogPath once the result
// is written: a run killed over an earlier result never leaves that
// result beside its own log.
func PartialHlogPath(path string) string { return path + JournalSuffix + ".hlog" }

// RunOutputs are the files a run (or sweep, or suite cell) whose result
// is at path writes: the result, its seconds file, with hlog its .hlog,
// and the journal's files while it runs.
func RunOutputs(path string, hlog bool) []Output {
	outs := []Output{{Path: path, What: "result"}, {Path: SecondsPath(path), What: "seconds file"}}
	if hlog {
		outs = append(outs, Output{Path: HlogPath(path), What: "HdrHistogram log"})
	}
	j := path + JournalSuffix
	outs = append(outs, Output{Path: j, What: "journal", Journal: true}, Output{Path: FinePath(j), What: "journal's fine-bucket file", Journal: true})
	if hlog {
		outs = append(outs, Output{Path: PartialHlogPath(path), What: "journal's HdrHistogram log", Journal: true})
	}
	return outs
}

// OutFlags name, for CheckOutputs' fix, the command's options as the user
// typed them: what to give instead (Out: "--out" for most commands) and
// what replaces (Force: "--force").
type OutFlags struct{ Out, Force string }

// CheckOutputs refuses, before anything is written, to replace an existing
// file among outs: with force only a journal's files (a run cut short, or
// one still running) are refused. The error is bad input (usererr), one
// line, naming the fix with fl.
func CheckOutputs(outs []Output, force bool, fl OutFlags) error {
	flag := fl.Out
	var exist []Output
	for _, o := range outs {
		st, err := os.Lstat(o.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return usererr.New("cannot check %s: %v (fix: another %s)", o.Path, err, flag)
		}
		if st.IsDir() {
			return usererr.New("%s is a directory, where the %s would be written (fix: another %s)", o.Path, o.What, flag)
		}
		if o.Journal {
			return JournalInTheWay(o.Path)
		}
		exist = append(exist, o)
	}
	if len(exist) == 0 || force {
		return nil
	}
	names := make([]string, len(exist))
	for i, o := range exist {
		names[i] = fmt.Sprintf("%s (%s)", o.Path, o.What)
	}
	verb, it := "exists", "it"
	if len(exist) > 1 {
		verb, it = "exist", "them"
	}
	return usererr.New("%s already %s: platbench never replaces a file silently (fix: %s to replace %s, or another %s)",
		strings.Join(names, ", "), verb, fl.Force, it, flag)
}

// JournalInTheWay is the refusal of a run whose journal (or one of its
// files, at path) is there: an earlier run of the same result that did
// not finish, or one still running.
func JournalInTheWay(path string) error {
	j := path
	if i := strings.LastIndex(path, JournalSuffix); i >= 0 {
		j = path[:i+len(JournalSuffix)]
	}
	return usererr.New("%s is left by a run of %s that did not finish (killed, or still running); it is never replaced, not even with --force "+
		"(fix: read it with 'platbench report %s', then remove it with 'rm %s*', or give this run another --out)",
		path, strings.TrimSuffix(j, JournalSuffix), j, j)
}

// CreateExclusive creates the file at path, refusing one that is there
// (O_EXCL: two runs cannot race to it), and syncs its directory so that
// the name survives a crash of the machine.
func CreateExclusive(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return f, nil
}

// SyncDir syncs the directory dir, making a rename or creation in it
// durable. A file system that cannot sync a directory (EINVAL, ENOTSUP:
// some network and FUSE file systems) is not an error: the write is as
// durable as that file system makes it.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}

// RenameSynced renames from to to and syncs the directory of to.
func RenameSynced(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(to))
}

// RemoveOld removes the files at paths that exist (a --force replacing a
// result removes its old companions before the new result goes in).
//
// A seconds file's name takes with it the one it had before issue 47
// (legacySecondsPath), which would otherwise be left beside the new
// result, of the old one.
func RemoveOld(paths ...string) error {
	for _, p := range paths {
		if legacy, ok := legacySecondsPath(p); ok {
			if err := os.Remove(legacy); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("cannot replace %s: %w", legacy, err)
			}
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot replace %s: %w", p, err)
		}
	}
	return nil
}

// MaxResultBytes bounds a result file and any one line of a journal or
// seconds file (a phase written whole is one line): far above any real
// one (a synthetic day of ten op types at 10,000 op/s each is a 75 MB
// result, the soak's first hour 45.7 MB: past the first hour a result
// grows about 1.3 MB an hour, so a week's would be about 260 MB, an
// estimate at that rate), and small enough that a file past it is refused
// before it is read. A var for tests.
var MaxResultBytes int64 = 1 << 30

// tooLarge is the refusal of a file of size bytes past MaxResultBytes.
func tooLarge(path string, size int64) error {
	return fmt.Errorf("%w: %s is %s, more than the %s a result file may be (a week-long run's is about 260 MB): it is not a platbench result, or it was damaged (e.g. extended by truncate) (fix: the result file as platbench wrote it)",
		ErrMalformed, path, byteSize(size), byteSize(MaxResultBytes))
}

// byteSize is n bytes in binary units.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// nulError says where a NUL byte was found in a result file.
func nulError(off int64) error {
	return fmt.Errorf("%w: byte %d is a NUL, which no JSON result holds: the file was cut, extended with zeros (e.g. by truncate) or is not a result (fix: the result file as platbench wrote it)", ErrMalformed, off)
}

// newLineScanner scans the lines of a journal or seconds file: at most
// MaxResultBytes a line, and a NUL byte ends the file (what a crash of the
// machine can leave at a file's end: the part of the line before it is a
// torn last line; a sparse file reads as empty, not as a gigabyte line).
//
// A zstd stream (journals and seconds files since issue 47) is read
// decompressed.
func newLineScanner(rd io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(PlainLines(rd))
	sc.Buffer(make([]byte, 0, 1<<16), int(min(MaxResultBytes, 1<<40)))
	sc.Split(scanJournalLines)
	return sc
}

// scanJournalLines is bufio.ScanLines that stops at a NUL byte: the text
// before it is the last token.
func scanJournalLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	nl := bytes.IndexByte(data, '\n')
	end := len(data)
	if nl >= 0 {
		end = nl
	}
	if z := bytes.IndexByte(data[:end], 0); z >= 0 {
		return len(data), bytes.TrimSuffix(data[:z], []byte{'\r'}), bufio.ErrFinalToken
	}
	if nl >= 0 {
		return nl + 1, bytes.TrimSuffix(data[:nl], []byte{'\r'}), nil
	}
	if atEOF && len(data) > 0 {
		return len(data), bytes.TrimSuffix(data, []byte{'\r'}), nil
	}
	return 0, nil, nil
}
