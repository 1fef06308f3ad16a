package report

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// analysed returns the fixture with the analysis package's figures, as
// `platbench report` shows it.
func analysed(t testing.TB, name string) *result.Result {
	t.Helper()
	r := loadFixture(t, name)
	a, err := analysis.Analyze(r, analysis.Options{Warmup: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	r.Analysis = a
	return r
}

// TestGolden renders every format of a few fixtures and compares them with
// testdata/golden (go test ./report -update rewrites them).
func TestGolden(t *testing.T) {
	cases := []struct {
		name    string
		r       func(t testing.TB) *result.Result
		formats []string
	}{
		// Raw file: no analysis, the report falls back to whole-phase figures.
		{"raw-i3-16xlarge", func(t testing.TB) *result.Result { return loadFixture(t, "i3-16xlarge") }, []string{"md", "csv", "json"}},
		// Analysed closed-loop run with errors and host telemetry: every chart.
		{"i3-16xlarge", func(t testing.TB) *result.Result { return analysed(t, "i3-16xlarge") }, []string{"md", "json", "html"}},
		// Analysed fixed-rate run, one op: service time table and dashed curves.
		{"graviton-write", func(t testing.TB) *result.Result { return analysed(t, "graviton-write") }, []string{"md", "csv", "html"}},
		// A real fixed-rate run (fake target, loaded machine): the
		// server-attributable latency table and the rate-met note.
		{"fixed-rate-fake", func(t testing.TB) *result.Result { return analysed(t, "fixed-rate-fake") }, []string{"md", "txt"}},
	}
	writers := map[string]func(*bytes.Buffer, *result.Result) error{
		"md":   func(b *bytes.Buffer, r *result.Result) error { return WriteMarkdown(b, r) },
		"csv":  func(b *bytes.Buffer, r *result.Result) error { return WriteCSV(b, r) },
		"json": func(b *bytes.Buffer, r *result.Result) error { return WriteJSON(b, r) },
		"html": func(b *bytes.Buffer, r *result.Result) error { return WriteHTML(b, r) },
		"txt":  func(b *bytes.Buffer, r *result.Result) error { return WriteTerm(b, r) },
	}
	for _, c := range cases {
		r := c.r(t)
		for _, f := range c.formats {
			t.Run(c.name+"."+f, func(t *testing.T) {
				var b bytes.Buffer
				if err := writers[f](&b, r); err != nil {
					t.Fatal(err)
				}
				golden(t, c.name+"."+f, b.Bytes())
			})
		}
	}
}

func TestGoldenCompare(t *testing.T) {
	rs := []*result.Result{analysed(t, "i3-16xlarge"), analysed(t, "i3-metal")}
	c, err := Compare(rs, CompareOptions{Files: []string{"i3-16xlarge.json", "i3-metal.json"}})
	if err != nil {
		t.Fatal(err)
	}
	for f, w := range map[string]func(*bytes.Buffer, *analysis.CompareModel) error{
		"txt":  func(b *bytes.Buffer, c *analysis.CompareModel) error { return WriteCompareText(b, c) },
		"md":   func(b *bytes.Buffer, c *analysis.CompareModel) error { return WriteCompareMarkdown(b, c) },
		"json": func(b *bytes.Buffer, c *analysis.CompareModel) error { return WriteCompareJSON(b, c) },
		"html": func(b *bytes.Buffer, c *analysis.CompareModel) error { return WriteCompareHTML(b, c) },
	} {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := w(&b, c); err != nil {
				t.Fatal(err)
			}
			golden(t, "compare."+f, b.Bytes())
		})
	}
}

// TestGoldenCompareRerun: a rerun of the same platform, where the noise
// test finds the runs alike and says how small a difference it could have
// seen ("same within X%" or "inconclusive: ...").
func TestGoldenCompareRerun(t *testing.T) {
	rs := []*result.Result{analysed(t, "i3-16xlarge"), analysed(t, "i3-16xlarge-rerun")}
	c, err := Compare(rs, CompareOptions{Files: []string{"i3-16xlarge.json", "i3-16xlarge-rerun.json"}})
	if err != nil {
		t.Fatal(err)
	}
	var txt, md bytes.Buffer
	if err := WriteCompareText(&txt, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareMarkdown(&md, c); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare-rerun.txt", txt.Bytes())
	golden(t, "compare-rerun.md", md.Bytes())
	// HTML and JSON carry the same statements (the HTML's table is the text's).
	var html, js bytes.Buffer
	if err := WriteCompareHTML(&html, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	want := "inconclusive: these runs could not see a difference smaller than 8.44%; 3 runs of 40 s each would"
	for name, b := range map[string][]byte{"html": html.Bytes(), "json": js.Bytes()} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s lacks %q", name, want)
		}
	}
	if !bytes.Contains(js.Bytes(), []byte(`"runs_needed": 3,`)) || !bytes.Contains(js.Bytes(), []byte(`"detectable": 0.08`)) {
		t.Error("json lacks the detectable difference and the runs needed")
	}
}

// TestCSVRows checks the CSV against the result: one row per interval and
// op, and counts that add up to the op totals.
func TestCSVRows(t *testing.T) {
	r := loadFixture(t, "i3-16xlarge")
	var b bytes.Buffer
	if err := WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	p := r.MainPhase()
	want := 0
	for _, in := range p.Intervals {
		want += len(in.Ops)
	}
	if len(rows)-1 != want {
		t.Fatalf("%d data rows, want %d (intervals x ops)", len(rows)-1, want)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, name := range []string{"start_s", "op", "count", "ops_per_s", "latency_p99_us", "errors_timeout"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("no column %q in %v", name, rows[0])
		}
	}
	sum := map[string]uint64{}
	for _, row := range rows[1:] {
		n, err := strconv.ParseUint(row[col["count"]], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		sum[row[col["op"]]] += n
	}
	for _, o := range p.Ops {
		if sum[o.Op] != o.Count {
			t.Errorf("%s: CSV counts add to %d, the result's total is %d", o.Op, sum[o.Op], o.Count)
		}
	}
}

// TestHTMLSelfContained: nothing fetched, no script, every chart has data.
func TestHTMLSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, analysed(t, "i3-16xlarge")); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "src=\"http", "href=\"http", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q: it must not load anything", bad)
		}
	}
	for _, want := range []string{"prefers-color-scheme:dark", "@media print", `id="throughput-1s"`, `id="throughput-fine"`,
		`id="latency-read"`, `id="latency-update"`, `id="distribution"`, `id="errors"`, `id="host-cpu"`, `id="host-mem"`, `id="host-io"`, `class="band"`, `class="mark"`, "Fault event"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	charts := regexp.MustCompile(`<svg class="chart" data-series="(\d+)"`).FindAllStringSubmatch(page, -1)
	if len(charts) < 8 {
		t.Fatalf("%d charts, want at least 8", len(charts))
	}
	paths := regexp.MustCompile(`<path class="series[^"]*" data-points="(\d+)" d="([^"]*)"`).FindAllStringSubmatch(page, -1)
	var declared int
	for _, c := range charts {
		n, _ := strconv.Atoi(c[1])
		if n == 0 {
			t.Errorf("a chart declares no series")
		}
		declared += n
	}
	if len(paths) != declared {
		t.Errorf("%d series paths, charts declare %d", len(paths), declared)
	}
	for _, p := range paths {
		if p[1] == "0" || len(p[2]) < 4 {
			t.Errorf("empty series path %q", p[0][:min(80, len(p[0]))])
		}
	}
}

// TestNoErrorsChartWithoutErrors: a figure that was not measured is not shown.
func TestNoErrorsChartWithoutErrors(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, analysed(t, "i3-metal")); err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{`id="errors"`, `id="host-cpu"`, "Errors by class"} {
		if strings.Contains(b.String(), absent) {
			t.Errorf("page shows %s for a run without it", absent)
		}
	}
}

// TestRawFileGoesThroughAnalysis: a file without an analysis is reported
// with the analysis package's figures, as an analysed one, not with figures
// of its own.
func TestRawFileGoesThroughAnalysis(t *testing.T) {
	raw := loadFixture(t, "i3-16xlarge")
	an := analysed(t, "i3-16xlarge")
	var a, b bytes.Buffer
	if err := WriteMarkdown(&a, raw); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&b, an); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("the raw file reports other figures than the analysed one")
	}
	u, err := newRun(raw)
	if err != nil {
		t.Fatal(err)
	}
	if raw.Analysis != nil {
		t.Error("reporting a raw file changed it")
	}
	// The synthetic run ramps up over its first tenth: trimming it raises the sustained figure.
	if !(u.a.Steady.SustainedOpsPerS > u.a.Raw.SustainedOpsPerS) || u.a.SteadyState.WarmupNs == 0 {
		t.Errorf("steady sustained %v should exceed the whole-phase %v of a run with a ramp", u.a.Steady.SustainedOpsPerS, u.a.Raw.SustainedOpsPerS)
	}
	// The one stall rule finds the two synthetic stalls of half a second.
	if st := u.a.Stalls; st.Count != 2 || st.LongestNs != 500e6 {
		t.Errorf("stalls %+v, want 2 of 500 ms", st)
	}
}

func TestFormat(t *testing.T) {
	cases := []struct{ got, want string }{
		{units.Latency(0), "0"},
		{units.Latency(850), "850 ns"},
		{units.Latency(912_400), "912 µs"},
		{units.Latency(8_400_000), "8.40 ms"},
		{units.Latency(71_200_000), "71.2 ms"},
		{units.Latency(1_230_000_000), "1.23 s"},
		{units.OpsPerSec(272544.4), "272,544 op/s"},
		{units.Int(-1234567), "-1,234,567"},
		{units.Bytes(1536), "1.50 KiB"},
		{units.Seconds(75), "75 s"},
		{units.Seconds(120), "2 min"},
		{units.Seconds(3725), "1 h 2 min"},
		{tickDur(10_000_000), "10 ms"},
		{percentileLabel(0), "0%"},
		{percentileLabel(2), "99%"},
		{percentileLabel(6), "99.9999%"},
		{factor(4.04), "4.0x"},
		{factor(1.02), "1.02x"},
		{factor(12.4), "12x"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestDecimateKeepsExtremes: a single zero bucket in a long series survives.
func TestDecimateKeepsExtremes(t *testing.T) {
	n := 36000
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = float64(i), 100
	}
	ys[12345] = 0
	ys[30001] = 500
	ox, oy := decimate(xs, ys, maxPoints)
	if len(ox) > maxPoints+2 {
		t.Fatalf("%d points, want at most %d", len(ox), maxPoints)
	}
	var sawZero, sawPeak bool
	for i := range oy {
		sawZero = sawZero || (oy[i] == 0 && ox[i] == 12345)
		sawPeak = sawPeak || (oy[i] == 500 && ox[i] == 30001)
		if i > 0 && ox[i] <= ox[i-1] {
			t.Fatalf("x not increasing at %d", i)
		}
	}
	if !sawZero || !sawPeak {
		t.Errorf("zero kept %v, peak kept %v", sawZero, sawPeak)
	}
}

// TestPageCacheVerdictText: the sentence of each case of the analysis'
// page-cache verdict, with the sizes in binary units.
func TestPageCacheVerdictText(t *testing.T) {
	base := result.PageCache{LogicalBytes: 1e9, DiskBytes: 1.2e9, HostRAMBytes: 24 << 30, Target: "embedded", Reads: true}
	cases := []struct {
		edit func(pc *result.PageCache)
		want []string
	}{
		{func(pc *result.PageCache) { pc.Case, pc.FitsInRAM = result.PageCacheFits, true },
			[]string{"fits in this host's RAM (24.0 GiB)", "1.12 GiB on disk", "served from the page cache"}},
		{func(pc *result.PageCache) { pc.Case, pc.Reads = result.PageCacheFits, false }, []string{"no reads"}},
		{func(pc *result.PageCache) {
			pc.Case, pc.DiskBytes, pc.HostRAMBytes, pc.LoadHostRAM = result.PageCacheExceeds, 250e9, 122e9, true
		}, []string{"is 2.0x the load generator's", "at most 49% of it", "most reads reach the storage"}},
		{func(pc *result.PageCache) { pc.Case = result.PageCacheDirectIO }, []string{"bypasses the page cache"}},
		{func(pc *result.PageCache) { pc.Case, pc.Target = result.PageCacheInMemory, "redis" }, []string{"redis is an in-memory store"}},
		{func(pc *result.PageCache) { pc.Case = result.PageCacheRAMUnknown }, []string{"is unknown"}},
		{func(pc *result.PageCache) { pc.Case, pc.PageCacheBytes = result.PageCacheFits, 3<<30 }, []string{"The page cache held 3.00 GiB"}},
		{func(pc *result.PageCache) { pc.Verdict = "an older file's own sentence" }, []string{"an older file's own sentence"}},
	}
	for _, c := range cases {
		pc := base
		c.edit(&pc)
		got := pageCacheVerdict(&pc)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("case %q: %q lacks %q", pc.Case, got, w)
			}
		}
	}
	if pageCacheVerdict(nil) != "" {
		t.Error("no verdict, yet a sentence")
	}
}

// An open-loop phase's pace tick is shown beside its late starts in the
// terminal report and in the Markdown summary table.
func TestPaceTickShown(t *testing.T) {
	r := synthResult(synthOptions{Seconds: 20, Open: true, Rate: 3000, Seed: 5})
	r.Phases[len(r.Phases)-1].PaceTickNs = int64(time.Millisecond)
	var term, md bytes.Buffer
	if err := WriteTerm(&term, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(term.String(), "pace tick") || !strings.Contains(term.String(), "1.00 ms (operations due within it") {
		t.Errorf("terminal report lacks the pace tick:\n%s", term.String())
	}
	if !strings.Contains(md.String(), "Pace tick (ops due within it start together) | 1.00 ms") {
		t.Errorf("Markdown lacks the pace tick:\n%s", md.String())
	}
}
