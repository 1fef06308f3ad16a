package recorder

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// fineSpill keeps a streamed phase's fine buckets on disk while it runs:
// each closed bucket is fineRecLen bytes (completions of every op type,
// their bytes, whether a request was outstanding) appended to an unlinked
// file in Config.SpillDir, and Stop reads them back into the phase's
// buckets. A week of 100 ms buckets is 6 million: 78 MB that would
// otherwise grow in the loader's memory for the whole run (issue 34), where
// here it is 130 bytes a second to the disk, written 4 KB at a time. The
// file is unlinked as soon as it is made: a killed loader leaves none.
type fineSpill struct {
	f        *os.File
	w        *bufio.Writer
	n        int  // buckets written
	hasBytes bool // a bucket moved bytes
	err      error
	rec      [fineRecLen]byte
}

// fineRecLen is one bucket on disk: uint32 count, uint64 bytes, a byte
// for outstanding.
const fineRecLen = 4 + 8 + 1

// newFineSpill makes the spill in dir, or says why it could not (the
// recorder then keeps the buckets in memory).
func newFineSpill(dir string) (*fineSpill, error) {
	f, err := os.CreateTemp(dir, ".platbench-buckets-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return &fineSpill{f: f, w: bufio.NewWriterSize(f, 4096)}, nil
}

// add writes one bucket. A write error is kept; the bucket count still
// moves, so that read reports the loss rather than shifted buckets.
func (s *fineSpill) add(c uint32, b uint64, outst bool) {
	rec := s.rec[:]
	binary.LittleEndian.PutUint32(rec[0:], c)
	binary.LittleEndian.PutUint64(rec[4:], b)
	rec[12] = 0
	if outst {
		rec[12] = 1
	}
	if _, err := s.w.Write(rec); err != nil && s.err == nil {
		s.err = err
	}
	s.n++
	s.hasBytes = s.hasBytes || b > 0
}

// read returns every bucket written (bytes nil when none moved) and closes
// the file.
func (s *fineSpill) read() (all []uint32, allB []uint64, outst []bool, err error) {
	defer s.f.Close()
	if err := s.w.Flush(); err != nil && s.err == nil {
		s.err = err
	}
	if s.err != nil {
		return nil, nil, nil, fmt.Errorf("the phase's fine buckets, kept on disk in %s while it ran, were not all written: %w (fix: free space on that disk, or write the result to another one)", filepath.Dir(s.f.Name()), s.err)
	}
	all, outst = make([]uint32, s.n), make([]bool, s.n)
	if s.hasBytes {
		allB = make([]uint64, s.n)
	}
	rd := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, int64(s.n)*fineRecLen), 64<<10)
	rec := s.rec[:]
	for i := range s.n {
		if _, err := io.ReadFull(rd, rec); err != nil {
			return nil, nil, nil, fmt.Errorf("the phase's fine buckets, kept on disk in %s while it ran, could not be read back (bucket %d of %d): %w", filepath.Dir(s.f.Name()), i, s.n, err)
		}
		all[i] = binary.LittleEndian.Uint32(rec[0:])
		if allB != nil {
			allB[i] = binary.LittleEndian.Uint64(rec[4:])
		}
		outst[i] = rec[12] != 0
	}
	return all, allB, outst, nil
}
