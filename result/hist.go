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
	snap := h.Export()
	return encodeCounts(e, snap.Counts, snap.SignificantFigures, snap.LowestTrackableValue, snap.HighestTrackableValue)
}

// EncodeCounts is EncodeHist for the counts array of a histogram with
// NewHist's layout (the recorder keeps its own, without an hdr.Histogram),
// byte for byte what EncodeHist writes for the same counts.
func EncodeCounts(c []uint64) string { return encodeWith(&encoders, c) }

// An Encoder is EncodeCounts with a compressor of its own. A user that
// encodes every second for the whole run (the recorder) keeps one: the
// pool's are dropped by the collections that empty sync.Pools, and a zlib
// writer at BestCompression is 800 KB, so whether one was live at a
// collection moved the collector's goal, and a long run's memory, by twice
// that (issue 34's soak). Not safe for concurrent use.
type Encoder struct{ e *histEncoder }

// NewEncoder makes an Encoder (its compressor is allocated here).
func NewEncoder() *Encoder { return &Encoder{e: encoders.New().(*histEncoder)} }

// Counts is EncodeCounts(c), byte for byte.
func (x *Encoder) Counts(c []uint64) string { return x.e.counts(c) }

// encodeWith is EncodeCounts through an encoder of pool.
func encodeWith(pool *sync.Pool, c []uint64) string {
	e := pool.Get().(*histEncoder)
	defer pool.Put(e)
	return e.counts(c)
}

// counts encodes counts of NewHist's layout ("" when all are zero).
func (e *histEncoder) counts(c []uint64) string {
	if nonZero(c, 0) == len(c) {
		return ""
	}
	return encodeCounts(e, c, HistSigFigs, HistLowestNs, HistHighestNs)
}

// The V2 cookies of HdrHistogram's encoding (hdr_encoding.go).
const (
	v2EncodingCookie           = hdr.V2EncodingCookieBase | 0x10
	v2CompressedEncodingCookie = hdr.V2CompressedEncodingCookieBase | 0x10
)

type histEncoder struct {
	raw  []byte
	zbuf bytes.Buffer
	z    *zlib.Writer
}

func encoderPool(level int) sync.Pool {
	return sync.Pool{New: func() any {
		e := &histEncoder{}
		e.z, _ = zlib.NewWriterLevel(&e.zbuf, level)
		return e
	}}
}

// encoders compress as hdrhistogram-go's Encode does (BestCompression).
// fastEncoders compress at BestSpeed: the seconds a merge writes, 864,000
// histograms per op type a day, where BestCompression's reset of its hash
// tables alone (640 KB cleared per histogram) was a fifth of the merge.
// Any zlib reader, HdrHistogram's too, reads either.
var encoders, fastEncoders = encoderPool(zlib.BestCompression), encoderPool(zlib.BestSpeed)

func encodeCounts[T int64 | uint64](e *histEncoder, counts []T, sigFigs, lowest, highest int64) string {
	n := len(counts)
	for n > 0 && counts[n-1] == 0 {
		n--
	}
	// Counts as ZigZag LEB128, a run of zeros as its negated length.
	raw := append(e.raw[:0], make([]byte, 40)...) // header, filled below
	for i := 0; i < n; {
		c := int64(counts[i])
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
		raw = binary.AppendVarint(raw, c)
	}
	e.raw = raw
	binary.BigEndian.PutUint32(raw[0:], uint32(v2EncodingCookie))
	binary.BigEndian.PutUint32(raw[4:], uint32(len(raw)-40))
	binary.BigEndian.PutUint32(raw[8:], 1) // normalizing index offset, as hdrhistogram-go writes it
	binary.BigEndian.PutUint32(raw[12:], uint32(sigFigs))
	binary.BigEndian.PutUint64(raw[16:], uint64(lowest))
	binary.BigEndian.PutUint64(raw[24:], uint64(highest))
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
// hdrhistogram-go's Decode panics on some malformed input (base64 that
// decodes to fewer than 8 bytes: found by FuzzDecode), so a panic in it is
// turned into the malformed-file error too.
func DecodeHist(s string) (h *hdr.Histogram, err error) {
	if s == "" {
		return NewHist(), nil
	}
	defer func() {
		if r := recover(); r != nil {
			h, err = nil, fmt.Errorf("%w: bad histogram: %v", ErrMalformed, r)
		}
	}()
	h, err = hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("%w: bad histogram: %v", ErrMalformed, err)
	}
	return h, nil
}

// Summarize computes the summary every report shows. A histogram with
// NewHist's layout (every histogram platbench makes or decodes from its own
// files) is summarized in one pass over its counts (SummarizeCounts); the
// hdr methods walk every count once per figure (eleven walks).
func Summarize(h *hdr.Histogram) Summary {
	if h == nil || h.TotalCount() == 0 {
		return Summary{}
	}
	if h.LowestTrackableValue() == HistLowestNs && h.SignificantFigures() == HistSigFigs {
		return summarizeCounts(h.Export().Counts)
	}
	return summarizeHdr(h)
}

// SummarizeCounts is Summarize for the counts array of a histogram with
// NewHist's layout (the recorder keeps its own): every figure equal to what
// the hdr methods give for the same counts, in one pass.
func SummarizeCounts(c []uint64) Summary { return summarizeCounts(c) }

// The layout of NewHist's counts (lowest 1, 3 significant figures): 2048
// sub-buckets of width 1 in bucket 0, then 1024 per bucket b >= 1 of width
// 2^b. countsLow and countsWidth are the lowest value of index i and the
// width of its range.
const subHalfMag = 10

func countsLow(i int) int64 {
	if i < 2<<subHalfMag {
		return int64(i)
	}
	b := i>>subHalfMag - 1
	return int64(i-b<<subHalfMag) << uint(b)
}

func countsWidth(i int) int64 {
	if i < 2<<subHalfMag {
		return 1
	}
	return 1 << uint(i>>subHalfMag-1)
}

// summarizeCounts follows hdrhistogram-go's definitions exactly: Min the
// lowest value of the first non-empty index, Max the highest of the last,
// quantile q the highest value of the first index where the running count
// reaches int64(q/100*total+0.5), Mean and StdDev over each index's median
// value (lowest + width/2), summed in index order as hdr does.
func summarizeCounts[T int64 | uint64](c []T) Summary {
	var total int64
	first, last := -1, -1
	var sum int64
	for i := nonZero(c, 0); i < len(c); i = nonZero(c, i+1) {
		n := c[i]
		if first < 0 {
			first = i
		}
		last = i
		total += int64(n)
		sum += int64(n) * (countsLow(i) + countsWidth(i)>>1)
	}
	if total == 0 {
		return Summary{}
	}
	mean := float64(sum) / float64(total)
	qs := [...]float64{50, 90, 95, 99, 99.9}
	var at [len(qs)]int64
	var vals [len(qs)]int64
	for k, q := range qs {
		at[k] = int64(q/100*float64(total) + 0.5)
	}
	var run int64
	var geo float64
	k := 0
	for i := first; i <= last; i = nonZero(c, i+1) {
		n := int64(c[i])
		run += n
		for k < len(qs) && run >= at[k] {
			vals[k] = countsLow(i) + countsWidth(i) - 1
			k++
		}
		d := float64(countsLow(i)+countsWidth(i)>>1) - mean
		geo += d * d * float64(n)
	}
	return Summary{
		Count: total, MinNs: countsLow(first), MeanNs: finite(mean),
		P50Ns: vals[0], P90Ns: vals[1], P95Ns: vals[2], P99Ns: vals[3], P999Ns: vals[4],
		MaxNs:    countsLow(last) + countsWidth(last) - 1,
		StdDevNs: finite(math.Sqrt(geo / float64(total))),
	}
}

// nonZero is the first index from i whose count is not zero (len(c):
// none), skipping runs of zeros four at a time: a second's counts are
// mostly zeros, and summarizing them was a sixth of a day's merge.
func nonZero[T int64 | uint64](c []T, i int) int {
	for ; i+4 <= len(c); i += 4 {
		if c[i]|c[i+1]|c[i+2]|c[i+3] != 0 {
			break
		}
	}
	for i < len(c) && c[i] == 0 {
		i++
	}
	return i
}

// summarizeHdr is Summarize through the hdr methods, for a histogram of
// another layout.
func summarizeHdr(h *hdr.Histogram) Summary {
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
