package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/platbench/platbench/result"
)

// WriteCSV writes the 1 s interval series of the main phase: one row per
// interval and op type, with units in the column names.
func WriteCSV(w io.Writer, r *result.Result) error {
	p := r.MainPhase()
	if p == nil {
		return fmt.Errorf("%w: no phase to report", result.ErrMalformed)
	}
	classes := map[string]bool{}
	for _, in := range p.Intervals {
		for _, o := range in.Ops {
			for c := range o.Errors {
				classes[c] = true
			}
		}
	}
	var cls []string
	for c := range classes {
		cls = append(cls, c)
	}
	sort.Strings(cls)
	cw := csv.NewWriter(w)
	head := []string{"phase", "start_s", "duration_s", "op", "count", "ops_per_s", "bytes_per_s",
		"errors", "latency_mean_us", "latency_p50_us", "latency_p90_us", "latency_p95_us", "latency_p99_us", "latency_p999_us", "latency_max_us"}
	for _, c := range cls {
		head = append(head, "errors_"+c)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	us := func(ns int64) string { return strconv.FormatFloat(float64(ns)/1e3, 'f', 3, 64) }
	f64 := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	row := make([]string, 0, len(head))
	for _, in := range p.Intervals {
		d := float64(in.DurationNs) / 1e9
		for _, o := range in.Ops {
			var errs uint64
			for _, n := range o.Errors {
				errs += n
			}
			rate, bps := 0.0, 0.0
			if d > 0 {
				rate, bps = float64(o.Count)/d, float64(o.Bytes)/d
			}
			l := o.Latency
			row = append(row[:0], p.Name, f64(float64(in.StartNs)/1e9), f64(d), o.Op,
				strconv.FormatUint(o.Count, 10), strconv.FormatFloat(rate, 'f', 3, 64), strconv.FormatFloat(bps, 'f', 3, 64),
				strconv.FormatUint(errs, 10), strconv.FormatFloat(l.MeanNs/1e3, 'f', 3, 64),
				us(l.P50Ns), us(l.P90Ns), us(l.P95Ns), us(l.P99Ns), us(l.P999Ns), us(l.MaxNs))
			for _, c := range cls {
				row = append(row, strconv.FormatUint(o.Errors[c], 10))
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
