package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

// The probe's table: one line per op of a mixed test, fio's columns.
func TestWriteDiskProbe(t *testing.T) {
	p := result.Phase{

		Name:       "randrw-4k",
		DurationNs: 2e9,
		Ops: []result.OpTotal{
			{Op: "READ", Count: 7000, Bytes: 7000 * 4096, Latency: result.Summary{Count: 7000, MeanNs: 250e3, P50Ns: 200e3, P99Ns: 1e6, P999Ns: 2e6, MaxNs: 5e6}},
			{Op: "WRITE", Count: 3000, Bytes: 3000 * 4096, Errors: map[string]uint64{"other": 2}, Latency: result.Summary{Count: 3000, MeanNs: 1.5e6, P50Ns: 1e6, P99Ns: 4e6, P999Ns: 8e6, MaxNs: 12e6}},
		},
		// Four 500 ms buckets: 0, 2, 4 and 4 MB.
		Buckets: result.Buckets{WidthNs: 500e6, Outstanding: []bool{true, true, true, true},
			Bytes: map[string][]uint64{"READ": {0, 1e6, 3e6, 4e6}, "WRITE": {0, 1e6, 1e6, 0}}},
	}
	var buf bytes.Buffer
	WriteDiskProbe(&buf, &result.Result{Phases: []result.Phase{p}, Config: result.Config{Extra: map[string]string{"engine": "io_uring",
		"iodepth_batch_submit": "1", "iodepth_batch_complete_min": "1", "registerfiles": "true", "fixedbufs": "false"}}})
	out := buf.String()
	for _, want := range []string{
		"randrw-4k READ   14.3  3,500  250 µs  200 µs  1.00 ms  2.00 ms   5.00 ms",
		"randrw-4k WRITE   6.1  1,500  1.50 ms  1.00 ms  4.00 ms  8.00 ms  12.0 ms",
		"randrw-4k: 1 stalls (500ms buckets with I/O outstanding and none completed), longest 2.00 s",
		"engine io_uring",
		"io_uring modes: iodepth_batch_submit=1 iodepth_batch_complete_min=1 registerfiles=true fixedbufs=false",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// A probe that wrote unstamped buffers says so; the default (stamped) adds
// no line.
func TestWriteDiskProbeScrambleOff(t *testing.T) {
	const note = "scramble_buffers=false"
	for _, v := range []string{"false", "true"} {
		var buf bytes.Buffer
		WriteDiskProbe(&buf, &result.Result{Config: result.Config{Extra: map[string]string{"engine": "io_uring", "scramble_buffers": v}}})
		if got := strings.Contains(buf.String(), note); got != (v == "false") {
			t.Errorf("scramble_buffers=%s: report mentions %q: %v, want %v:\n%s", v, note, got, v == "false", buf.String())
		}
	}
}
