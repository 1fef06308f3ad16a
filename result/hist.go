package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: every latency is recorded in nanoseconds, from 1 ns
// (3 significant digits) up to one hour. Larger values are clamped.
const (
	HistLowestNs  = 1                 // 1 ns
	HistHighestNs = 3_600_000_000_000 // 1 h
	HistSigFigs   = 3
)

// NewHist returns an empty histogram with the range every result uses.
func NewHist() *hdr.Histogram { return hdr.New(HistLowestNs, HistHighestNs, HistSigFigs) }

// EncodeHist returns h in HdrHistogram's V2 compressed form, base64: the same
// form .hlog files and HistogramLogProcessor use, byte for byte what
// hdrhistogram-go's Encode writes (tested). It reuses its buffers and zlib
// compressor: Encode makes a new compressor per call (about a megabyte of
// garbage), and the recorder encodes every op type every second.
func EncodeHist(h *hdr.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	e := encoders.Get().(*histEncoder)
	defer encoders.Put(e)
	return e.encode(h)
}

// The V2 cookies of HdrHistogram's encoding (hdr_encoding.go).
const (
	v2EncodingCookie           = hdr.V2EncodingCookieBase | 0x10
	v2CompressedEncodingCookie = hdr.V2CompressedEncodingCookieBase | 0x10
)

type histEncoder struct {
	raw, zbuf bytes.Buffer
	z         *zlib.Writer
}

var encoders = sync.Pool{New: func() any {
	e := &histEncoder{}
	e.z, _ = zlib.NewWriterLevel(&e.zbuf, zlib.BestCompression)
	return e
}}

func (e *histEncoder) encode(h *hdr.Histogram) string {
	snap := h.Export()
	counts := snap.Counts
	n := len(counts)
	for n > 0 && counts[n-1] == 0 {
		n--
	}
	// Counts as ZigZag LEB128, a run of zeros as its negated length.
	e.raw.Reset()
	e.raw.Write(make([]byte, 40)) // header, filled below
	var tmp [binary.MaxVarintLen64]byte
	for i := 0; i < n; {
		c := counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i < n && counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				c = -zeros
			}
		}
		e.raw.Write(tmp[:binary.PutVarint(tmp[:], c)])
	}
	raw := e.raw.Bytes()
	binary.BigEndian.PutUint32(raw[0:], uint32(v2EncodingCookie))
	binary.BigEndian.PutUint32(raw[4:], uint32(len(raw)-40))
	binary.BigEndian.PutUint32(raw[8:], 1) // normalizing index offset, as hdrhistogram-go writes it
	binary.BigEndian.PutUint32(raw[12:], uint32(snap.SignificantFigures))
	binary.BigEndian.PutUint64(raw[16:], uint64(snap.LowestTrackableValue))
	binary.BigEndian.PutUint64(raw[24:], uint64(snap.HighestTrackableValue))
	binary.BigEndian.PutUint64(raw[32:], math.Float64bits(1.0))

	e.zbuf.Reset()
	e.z.Reset(&e.zbuf)
	e.z.Write(raw)
	e.z.Close()
	z := e.zbuf.Bytes()
	bin := make([]byte, 8, 8+len(z))
	binary.BigEndian.PutUint32(bin[0:], uint32(v2CompressedEncodingCookie))
	binary.BigEndian.PutUint32(bin[4:], uint32(len(z)))
	bin = append(bin, z...)
	return base64.StdEncoding.EncodeToString(bin)
}

// DecodeHist is the inverse of EncodeHist; "" gives an empty histogram.
func DecodeHist(s string) (*hdr.Histogram, error) {
	if s == "" {
		return NewHist(), nil
	}
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("%w: bad histogram: %v", ErrMalformed, err)
	}
	return h, nil
}

// Summarize computes the summary every report shows.
func Summarize(h *hdr.Histogram) Summary {
	if h == nil || h.TotalCount() == 0 {
		return Summary{}
	}
	return Summary{
		Count:    h.TotalCount(),
		MinNs:    h.Min(),
		MeanNs:   finite(h.Mean()),
		P50Ns:    h.ValueAtQuantile(50),
		P90Ns:    h.ValueAtQuantile(90),
		P95Ns:    h.ValueAtQuantile(95),
		P99Ns:    h.ValueAtQuantile(99),
		P999Ns:   h.ValueAtQuantile(99.9),
		MaxNs:    h.Max(),
		StdDevNs: finite(h.StdDev()),
	}
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
