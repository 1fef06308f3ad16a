package recorder

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/platbench/platbench/result"
)

// fineSpill keeps a streamed phase's fine buckets on disk while it runs:
// each closed bucket is result.FineRecLen bytes (completions of every op
// type, their bytes, whether a request was outstanding) appended to the
// fine-bucket file beside the run's journal (Config.FinePath, under a
// header naming the phase), flushed every interval as the journal's
// seconds are, and Stop reads them back into the phase's buckets and
// removes the file. A week of 100 ms buckets is 6 million: 78 MB that
// would otherwise grow in the loader's memory for the whole run (issue
// 34), where here it is 130 bytes a second to the disk. A loader killed
// mid-phase leaves the file, and the journal's reader gives the phase cut
// short its buckets from it (result.Read).
type fineSpill struct {
	f        *os.File
	w        *bufio.Writer
	off      int64 // where the buckets begin (after the header)
	n        int   // buckets written
	hasBytes bool  // a bucket moved bytes
	err      error
	rec      [result.FineRecLen]byte
}

// newFineSpill makes the fine-bucket file of phase at path (replacing an
// earlier phase's of the same run: the file belongs to the run's journal,
// which result.CreateJournal created exclusively, removing a stale one
// beside it, so the truncation never touches what another run left), or
// says why it could not (the recorder then keeps the buckets in memory).
func newFineSpill(path, phase string, widthNs int64) (*fineSpill, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	head := result.FineHeader(phase, widthNs)
	if _, err := f.Write(head); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return &fineSpill{f: f, w: bufio.NewWriterSize(f, 4096), off: int64(len(head))}, nil
}

// add writes one bucket. A write error is kept; the bucket count still
// moves, so that read reports the loss rather than shifted buckets.
func (s *fineSpill) add(c uint32, b uint64, outst bool) {
	result.PutFine(s.rec[:], c, b, outst)
	if _, err := s.w.Write(s.rec[:]); err != nil && s.err == nil {
		s.err = err
	}
	s.n++
	s.hasBytes = s.hasBytes || b > 0
}

// flush writes the buckets closed so far to the file (a kill loses none
// of them).
func (s *fineSpill) flush() {
	if err := s.w.Flush(); err != nil && s.err == nil {
		s.err = err
	}
}

// read returns every bucket written (bytes nil when none moved), closes
// the file and removes it.
func (s *fineSpill) read() (all []uint32, allB []uint64, outst []bool, err error) {
	defer func() {
		s.f.Close()
		os.Remove(s.f.Name())
	}()
	s.flush()
	if s.err != nil {
		return nil, nil, nil, fmt.Errorf("the phase's fine buckets, kept on disk in %s while it ran, were not all written: %w (fix: free space on that disk, or write the result to another one)", filepath.Dir(s.f.Name()), s.err)
	}
	all, allB, outst, err = result.DecodeFine(io.NewSectionReader(s.f, s.off, int64(s.n)*result.FineRecLen), s.n)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the phase's fine buckets, kept on disk in %s while it ran, could not be read back: %w", filepath.Dir(s.f.Name()), err)
	}
	if !s.hasBytes {
		allB = nil
	}
	return all, allB, outst, nil
}
