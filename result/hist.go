package result

import (
	"fmt"
	"math"

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
// form .hlog files and HistogramLogProcessor use.
func EncodeHist(h *hdr.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
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
