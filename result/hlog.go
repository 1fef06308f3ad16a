package result

import (
	"bytes"
	"fmt"
	"time"
)

// Hlog renders the main phase's interval histograms as a standard HdrHistogram
// interval log (format 1.3), one tagged line per op type per interval, readable
// by HdrHistogram's HistogramLogProcessor (-tag READ picks an op). Values are
// nanoseconds; the Interval_Max column is in milliseconds, as the Java writer
// does by default. Timestamps are seconds relative to the StartTime line (no
// BaseTime line), which the reader accepts as relative times.
//
// Written by hand: the hdrhistogram-go log writer mixes milliseconds and
// seconds in its timestamp columns.
func Hlog(r *Result) ([]byte, error) {
	p := r.MainPhase()
	if p == nil {
		return nil, fmt.Errorf("%w: no phase", ErrMalformed)
	}
	var b bytes.Buffer
	start := p.StartedAt
	fmt.Fprintf(&b, "#[platbench %s: target %s, workload %s, phase %s; values in ns]\n", r.Tool.Version, r.Target.Kind, r.Config.Workload.Name, p.Name)
	fmt.Fprintf(&b, "#[Histogram log format version 1.3]\n")
	fmt.Fprintf(&b, "#[StartTime: %.3f (seconds since epoch), %s]\n", float64(start.UnixMilli())/1e3, start.UTC().Format(time.RFC1123))
	fmt.Fprintf(&b, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n")
	for _, iv := range p.Intervals {
		for _, o := range iv.Ops {
			if o.Hist == "" {
				continue
			}
			fmt.Fprintf(&b, "Tag=%s,%.3f,%.3f,%.3f,%s\n", o.Op, float64(iv.StartNs)/1e9, float64(iv.DurationNs)/1e9, float64(o.Latency.MaxNs)/1e6, o.Hist)
		}
	}
	return b.Bytes(), nil
}
