package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"io"
	"sync"
)

// histCountsLen is the length of the counts array of a NewHist histogram.
var histCountsLen = sync.OnceValue(func() int { return len(NewHist().Export().Counts) })

// histDecoder holds addCounts' buffers and zlib reader, reused.
type histDecoder struct {
	bin []byte
	br  bytes.Reader
	zr  io.ReadCloser
	raw bytes.Buffer
}

var decoders = sync.Pool{New: func() any { return &histDecoder{} }}

// addCounts adds the histogram s (EncodeHist's form: HdrHistogram's V2
// compressed encoding, base64) to c, a counts array of NewHist's layout
// histCountsLen long, and returns the highest index it added to (-1: none).
// It makes no hdr.Histogram: DecodeHist makes one of 270 KB per call, and
// merging the seconds of two day-long parts decoded 1.7 million of them.
// Anything else (another range or precision, another encoding, malformed
// input) is not added and ok is false: the caller reads it with DecodeHist,
// which judges it. FuzzAddCounts holds the two to the same counts.
func addCounts(c []uint64, s string) (hi int, ok bool) {
	if s == "" {
		return -1, true
	}
	d := decoders.Get().(*histDecoder)
	defer decoders.Put(d)
	var err error
	if d.bin, err = base64.StdEncoding.AppendDecode(d.bin[:0], []byte(s)); err != nil {
		return -1, false
	}
	bin := d.bin
	if len(bin) < 8 || binary.BigEndian.Uint32(bin) != uint32(v2CompressedEncodingCookie) {
		return -1, false
	}
	n := binary.BigEndian.Uint32(bin[4:])
	if uint64(n) > uint64(len(bin)-8) {
		return -1, false
	}
	d.br.Reset(bin[8 : 8+n])
	if d.zr == nil {
		d.zr, err = zlib.NewReader(&d.br)
	} else {
		err = d.zr.(zlib.Resetter).Reset(&d.br, nil)
	}
	if err != nil {
		return -1, false
	}
	d.raw.Reset()
	if _, err := d.raw.ReadFrom(d.zr); err != nil {
		return -1, false
	}
	raw := d.raw.Bytes()
	if len(raw) < 40 || binary.BigEndian.Uint32(raw) != uint32(v2EncodingCookie) ||
		uint64(binary.BigEndian.Uint32(raw[4:])) != uint64(len(raw)-40) ||
		binary.BigEndian.Uint32(raw[12:]) != HistSigFigs || binary.BigEndian.Uint64(raw[16:]) != HistLowestNs ||
		binary.BigEndian.Uint64(raw[24:]) != HistHighestNs {
		return -1, false
	}
	if len(c) != histCountsLen() || !eachCount(raw[40:], len(c), nil) {
		return -1, false
	}
	eachCount(raw[40:], len(c), func(i int, v uint64) {
		c[i] += v
		hi = i
	})
	return hi, true
}

// eachCount walks the V2 payload p (counts as ZigZag LEB128-64b9B, a run
// of zeros as its negated length), calling f with each index below n and
// its count when positive, and says whether p is whole and within n.
func eachCount(p []byte, n int, f func(i int, v uint64)) bool {
	idx := 0
	for len(p) > 0 {
		v, k := varint9(p)
		if k == 0 {
			return false
		}
		p = p[k:]
		if v < 0 {
			if v < -int64(n) {
				return false
			}
			idx += int(-v)
			continue
		}
		if idx >= n {
			return false
		}
		if v > 0 && f != nil {
			f(idx, uint64(v))
		}
		idx++
	}
	return true
}

// varint9 reads one ZigZag LEB128-64b9B value (HdrHistogram's: seven bits a
// byte for eight bytes, then all eight bits of a ninth); k is 0 when p ends
// first.
func varint9(p []byte) (v int64, k int) {
	var u uint64
	for i := range 8 {
		if i >= len(p) {
			return 0, 0
		}
		u |= uint64(p[i]&0x7f) << (7 * i)
		if p[i] < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1
		}
	}
	if len(p) < 9 {
		return 0, 0
	}
	u |= uint64(p[8]) << 56
	return int64(u>>1) ^ -int64(u&1), 9
}

// addEncoded adds the encoded histogram s to c (a counts array of NewHist's
// layout) and returns the highest index it added to (-1: none): addCounts
// for EncodeHist's form, DecodeHist and MergeHist into NewHist's layout for
// any other (a value outside NewHist's range is an error wrapping
// ErrMalformed, as MergeHist's).
func addEncoded(c []uint64, s string) (hi int, err error) {
	if hi, ok := addCounts(c, s); ok {
		return hi, nil
	}
	h, err := DecodeHist(s)
	if err != nil {
		return -1, err
	}
	into := NewHist()
	if err := MergeHist(&into, h); err != nil {
		return -1, err
	}
	hi = -1
	for i, n := range into.Export().Counts {
		if n > 0 {
			c[i] += uint64(n)
			hi = i
		}
	}
	return hi, nil
}
