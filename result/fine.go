package result

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// The fine-bucket file: while a streamed phase runs, its fine buckets
// (100 ms completions of every op type together, their bytes, whether a
// request was outstanding) wait on disk beside the run's journal
// (FinePath), not in the loader's memory; the recorder reads them back
// when the phase ends and removes the file. A loader killed mid-phase
// leaves it, and Read of the journal gives the phase cut short its fine
// buckets from it (docs/result-schema.md, "Long runs"). It is a header
// line (FineHeader: JSON naming the phase and the bucket width), then
// FineRecLen bytes per bucket.
const (
	// FineSuffix names the fine-bucket file of a journal: RESULT.json.partial
	// has RESULT.json.partial.fine.
	FineSuffix = ".fine"
	// FineRecLen is one bucket: uint32 completions, uint64 bytes (little
	// endian), a byte 1 when a request was outstanding.
	FineRecLen = 4 + 8 + 1
	fineKind   = "platbench.fine/v1"
)

// FinePath is the fine-bucket file of the journal at journalPath.
func FinePath(journalPath string) string { return journalPath + FineSuffix }

type fineHeader struct {
	Kind    string `json:"fine"`
	Phase   string `json:"phase"`
	WidthNs int64  `json:"width_ns"`
}

// FineHeader is the header line of the fine-bucket file of phase, whose
// buckets are widthNs wide.
func FineHeader(phase string, widthNs int64) []byte {
	b, _ := json.Marshal(fineHeader{Kind: fineKind, Phase: phase, WidthNs: widthNs})
	return append(b, '\n')
}

// PutFine writes one bucket into rec (FineRecLen bytes).
func PutFine(rec []byte, n uint32, b uint64, outstanding bool) {
	binary.LittleEndian.PutUint32(rec[0:], n)
	binary.LittleEndian.PutUint64(rec[4:], b)
	rec[12] = 0
	if outstanding {
		rec[12] = 1
	}
}

// DecodeFine reads n buckets from rd (n < 0: every whole bucket to its
// end, a torn last one dropped); allB is nil when no bucket moved bytes.
func DecodeFine(rd io.Reader, n int) (all []uint32, allB []uint64, outst []bool, err error) {
	br := bufio.NewReaderSize(rd, 64<<10)
	var rec [FineRecLen]byte
	var any bool
	if n > 0 {
		all, allB, outst = make([]uint32, 0, n), make([]uint64, 0, n), make([]bool, 0, n)
	}
	for i := 0; n < 0 || i < n; i++ {
		if _, err := io.ReadFull(br, rec[:]); err != nil {
			if n < 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
				break
			}
			return nil, nil, nil, fmt.Errorf("bucket %d of %d: %w", i, n, err)
		}
		b := binary.LittleEndian.Uint64(rec[4:])
		all = append(all, binary.LittleEndian.Uint32(rec[0:]))
		allB = append(allB, b)
		outst = append(outst, rec[12] != 0)
		any = any || b > 0
	}
	if !any {
		allB = nil
	}
	return all, allB, outst, nil
}

// ReadFine reads the fine-bucket file at path: the phase it is of, and its
// buckets (All, AllBytes, Outstanding).
func ReadFine(path string) (phase string, b Buckets, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", Buckets{}, err
	}
	defer f.Close()
	if n := fileSize(f); int64(n) > MaxResultBytes {
		return "", Buckets{}, tooLarge(path, int64(n))
	}
	br := bufio.NewReader(f)
	line, err := br.ReadSlice('\n') // at most the reader's buffer: a header is short
	var h fineHeader
	if err != nil || json.Unmarshal(bytes.TrimSpace(line), &h) != nil || h.Kind != fineKind || h.WidthNs <= 0 {
		return "", Buckets{}, fmt.Errorf("%w: %s is not a platbench fine-bucket file (its first line is not a %s header)", ErrMalformed, path, fineKind)
	}
	b.WidthNs = h.WidthNs
	if b.All, b.AllBytes, b.Outstanding, err = DecodeFine(br, -1); err != nil {
		return "", Buckets{}, fmt.Errorf("%w: %s: %v", ErrMalformed, path, err)
	}
	return h.Phase, b, nil
}
