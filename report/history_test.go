package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/history"
)

func historyFixture(t *testing.T) *history.History {
	t.Helper()
	ms, err := analysis.ParseMetrics("sustained,read.p99")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	var runs []history.Run
	for i := range 16 {
		sus, p99 := 40000.0+float64(i%4)*100, 2e6+float64(i%3)*5e4
		if i >= 8 {
			sus = 30000 + float64(i%4)*100
		}
		runs = append(runs, history.Run{Time: t0.Add(time.Duration(i) * 24 * time.Hour), Workload: "ycsb-a", Target: "cql://db:9042",
			Label: "i3", Source: "n.json", Values: map[string]float64{"sustained": sus, "read.p99": p99}})
	}
	return history.Build(runs, history.Options{Metrics: ms})
}

func TestHistoryRenderers(t *testing.T) {
	h := historyFixture(t)
	var text, md, page, js bytes.Buffer
	if err := WriteHistoryText(&text, h); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"16 runs, 2 series, 1 change point ", "ycsb-a on cql://db:9042, label i3", "sustained throughput",
		"2026-03-09T02:00:00Z", "9/16", "40,150 op/s", "30,150 op/s", "-24.9%", "<0.0001", "worse"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := WriteHistoryMarkdown(&md, h); err != nil || !strings.Contains(md.String(), "| ycsb-a on cql://db:9042, label i3 | sustained throughput |") {
		t.Errorf("markdown %v:\n%s", err, md.String())
	}
	if err := WriteHistoryHTML(&page, h); err != nil {
		t.Fatal(err)
	}
	if p := page.String(); strings.Count(p, `<svg class="chart" data-series="1"`) != 2 || strings.Count(p, `class="mark"`) != 1 || !strings.Contains(p, "<title>2026-03-09 02:00 -24.9% (p &lt;0.0001)</title>") {
		t.Errorf("the page does not draw two series with one change point marked")
	}
	if err := WriteHistoryJSON(&js, h); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Schema string
		Series []struct{ Changes []struct{ Index int } }
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Schema != HistoryJSONSchema || len(back.Series) != 2 || len(back.Series[0].Changes) != 1 || back.Series[0].Changes[0].Index != 8 {
		t.Errorf("JSON %v: %s", err, js.String())
	}
}
