package result

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"
)

// A journal, and so a seconds file, is a zstd stream of its JSON lines
// (issue 47): every second's histograms are the bulk of what a long run
// writes, and they are kept once, here, compressed (docs/result-schema.md,
// "Long runs", has the sizes and how the level was chosen). The stream is
// flushed after every line, so a killed loader leaves whole lines up to
// its last flush and at most one torn block, which reads as the torn last
// line of a plain journal did. Files written before it, plain JSON lines,
// read as they did.

// zstdMagic begins every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// secondsLevel is the zstd level of journals and seconds files, chosen by
// BenchmarkSecondsCompression on real seconds flushed a line at a time:
// the default level keeps 72% of the bytes for about 0.34 ms of CPU a
// second of run; the fastest keeps 77% for half that, the better and best
// levels under 1% less for 1.1x and 13x the CPU (docs/result-schema.md).
const secondsLevel = zstd.SpeedDefault

// secondsWindow bounds the encoder's and decoder's memory: a second's
// lines of many op types fit in it, and the histograms of one second look
// like those of the seconds before it.
const secondsWindow = 1 << 20

// NewSecondsWriter compresses what is written to w, one stream, as a
// journal or seconds file is: Flush ends a block, Close the stream.
func NewSecondsWriter(w io.Writer) *zstd.Encoder {
	enc, err := zstd.NewWriter(w, zstd.WithEncoderLevel(secondsLevel), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(secondsWindow), zstd.WithLowerEncoderMem(true))
	if err != nil {
		panic(err) // only for options out of range, which these are not
	}
	return enc
}

// PlainLines is rd's text: decompressed when rd is a zstd stream (a
// journal or seconds file since issue 47), as it is otherwise. A stream
// that ends inside a block (a loader killed mid-write, or a journal still
// being written) ends where its last whole block does.
func PlainLines(rd io.Reader) io.Reader {
	br, ok := rd.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(rd, 1<<16)
	}
	head, _ := br.Peek(len(zstdMagic))
	if !bytes.Equal(head, zstdMagic) {
		return br
	}
	dec, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(64<<20), zstd.WithDecoderMaxMemory(uint64(min(MaxResultBytes, 1<<40))))
	if err != nil {
		return errReader{err}
	}
	return tornTail{dec, new(bool)}
}

// isZstd says whether data begins as a zstd stream does.
func isZstd(data []byte) bool { return bytes.HasPrefix(data, zstdMagic) }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// tornTail ends a stream cut inside a block at the last whole one: after
// the first bytes, a stream that cannot be decoded further (cut short,
// or a machine's crash left zeros or garbage past the last write) ends
// where it could, as a plain journal's torn last line is dropped. A
// stream that yields nothing at all keeps its error: it is no journal.
type tornTail struct {
	dec  *zstd.Decoder
	read *bool
}

func (t tornTail) Read(p []byte) (int, error) {
	n, err := t.dec.Read(p)
	if n > 0 {
		*t.read = true
	}
	if err != nil && err != io.EOF && (*t.read || errors.Is(err, io.ErrUnexpectedEOF)) {
		err = io.EOF
	}
	return n, err
}
