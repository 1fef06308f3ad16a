package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// dbMetricsResult is one run phase and one Redis node without INFO
// latencystats (Redis 6): its percentiles read "not available".
func dbMetricsResult() *result.Result {
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	sec := int64(time.Second)
	in := func(i int64, n int64, mean float64) result.Interval {
		return result.Interval{StartNs: i * sec, DurationNs: sec, Ops: []result.IntervalOp{{Op: "READ", Count: uint64(n), Latency: result.Summary{Count: n, MeanNs: mean}}}}
	}
	smp := func(i int64, calls uint64, ns float64) result.DBMetricsSample {
		return result.DBMetricsSample{OffsetNs: i * sec, DurationNs: sec,
			Values:   map[string]float64{"ops_per_s": float64(calls), "used_memory_bytes": 3 << 20, "connected_clients": 5, "net_input_bytes_per_s": 1 << 20},
			Commands: map[string]result.DBCommandSample{"get": {Calls: calls, TimeNs: ns}}}
	}
	return &result.Result{
		Phases: []result.Phase{{Name: "run", StartedAt: t0, Ops: []result.OpTotal{{Op: "READ", Count: 3000}},
			Intervals: []result.Interval{in(0, 1000, 100e3), in(1, 2000, 150e3)}}},
		DBMetrics: &result.DBMetrics{Source: "redis INFO", Server: "redis", Unavailable: []string{"latency percentiles (INFO latencystats)"},
			Nodes: []result.DBMetricsSeries{{Node: "10.0.0.1:6379", Version: "6.2.14", StartedAt: t0, IntervalNs: sec,
				Samples: []result.DBMetricsSample{smp(0, 1000, 2e6), smp(1, 2000, 3e6), {OffsetNs: 2 * sec, Missing: true, Error: "no answer in time"}}}}},
	}
}

func TestWriteDBMetrics(t *testing.T) {
	var txt, md, html bytes.Buffer
	r := dbMetricsResult()
	WriteDBMetricsText(&txt, r)
	golden(t, "dbmetrics.txt", txt.Bytes())
	writeDBMetricsMarkdown(&md, r)
	golden(t, "dbmetrics.md", md.Bytes())
	for _, want := range []string{"not available", "Not available from this server: latency percentiles (INFO latencystats).",
		"3,000 data commands; platbench completed or failed 3,000 operations (1.00 per operation)", "no answer", "3.00 MiB", "1.00 MiB/s"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
	if err := WriteHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="server-latency"`, "Server-side time per command", "not available"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	txt.Reset()
	WriteDBMetricsText(&txt, &result.Result{})
	if txt.Len() != 0 {
		t.Errorf("a result without db metrics wrote %q", txt.String())
	}
}

// The data system's own figures stand beside the client's in compare, as
// context: the server-side time per command, the client's latency over the
// same seconds and the gap, and the commands counted per operation; "not
// measured" for a run without them, and no rows when no run has them.
func TestCompareDBRows(t *testing.T) {
	analyse := func(r *result.Result) *result.Result {
		a, err := analysis.Analyze(r, analysis.Options{Warmup: "none"})
		if err != nil {
			t.Fatal(err)
		}
		r.Analysis = a
		return r
	}
	a, b := analyse(dbMetricsResult()), analyse(dbMetricsResult())
	a.DBMetrics = nil
	c, err := Compare([]*result.Result{a, b}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := analysis.DB(b)
	if want.ServerMeanNs <= 0 || want.GapMeanNs <= 0 {
		t.Fatalf("fixture gives no timeline: %+v", want)
	}
	srv := row(c, "Server time per operation (mean)")
	if !srv.Cells[0].Missing || srv.Values[1] != want.ServerMeanNs || srv.Cells[1].Phrase != "no baseline value" {
		t.Errorf("server time row %+v, want %v for run 2", srv, want.ServerMeanNs)
	}
	if g := row(c, "Gap: network, client queueing"); g.Values[1] != want.ClientMeanNs-want.ServerMeanNs {
		t.Errorf("gap row %+v", g)
	}
	if n := row(c, "Server data commands per client op"); n.Text[1] != "1.00" {
		t.Errorf("commands per op row %+v, want 1.00 (3,000 commands, 3,000 ops)", n)
	}
	b.DBMetrics = nil
	if c, err = Compare([]*result.Result{a, b}, CompareOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		if strings.HasPrefix(r.Figure, "Server time") || strings.HasPrefix(r.Figure, "Gap:") {
			t.Errorf("a data-system row without db metrics: %s", r.Figure)
		}
	}
}
