package report

// The browser test opens the HTML reports in headless Chromium through
// chromedriver's WebDriver API (plain JSON over HTTP), checks that the page
// logs no console error (a Content-Security-Policy violation from anything
// trying to load would be one) and that every chart drew every series, and
// keeps screenshots in test-artifacts/. scripts/servers/chromium.sh installs
// Debian's chromium and chromium-driver and exports PLATBENCH_CHROMIUM.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
)

func TestBrowser(t *testing.T) {
	chromium := testenv.URL(t, "PLATBENCH_CHROMIUM")
	driver := os.Getenv("PLATBENCH_CHROMEDRIVER")
	if driver == "" {
		var err error
		if driver, err = exec.LookPath("chromedriver"); err != nil {
			t.Fatalf("chromedriver not found next to %s (install Debian's chromium-driver, or set PLATBENCH_CHROMEDRIVER)", chromium)
		}
	}
	artifacts := artifactDir(t)
	dir := t.TempDir()

	// The pages: a five-minute analysed run with errors and host telemetry,
	// and a comparison of two platforms.
	one := synthResult(synthOptions{Seconds: 300, Instance: "i3.16xlarge", Ops: []string{"READ", "UPDATE", "INSERT"}, Errors: true, Host: true, Seed: 11, IntervalHists: true, Events: true})
	two := synthResult(synthOptions{Seconds: 300, Instance: "i3.metal", Ops: []string{"READ", "UPDATE", "INSERT"}, Rate: 27000, LatScale: 0.4, Seed: 12, IntervalHists: true})
	for i, r := range []*result.Result{one, two} {
		r.Sweep = testSweep(1 + 0.4*float64(i))
		a, err := analysis.Analyze(r, analysis.Options{Warmup: "auto"})
		if err != nil {
			t.Fatal(err)
		}
		r.Analysis = a
	}
	var page, cmpPage bytes.Buffer
	if err := WriteHTML(&page, one); err != nil {
		t.Fatal(err)
	}
	c, err := Compare([]*result.Result{one, two}, CompareOptions{Files: []string{"i3-16xlarge.json", "i3-metal.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareHTML(&cmpPage, c); err != nil {
		t.Fatal(err)
	}
	// Six groups of two runs each: the widest comparison the issue asks to
	// fit 1,400 px with no horizontal overflow.
	grs, gfiles := groupRuns(t, 6, 2, 60)
	gc, err := Compare(grs, CompareOptions{Files: gfiles})
	if err != nil {
		t.Fatal(err)
	}
	var groupsPage bytes.Buffer
	if err := WriteCompareHTML(&groupsPage, gc); err != nil {
		t.Fatal(err)
	}
	pages := map[string][]byte{"report": page.Bytes(), "compare": cmpPage.Bytes(), "compare-groups": groupsPage.Bytes()}

	wd := startDriver(t, driver, chromium, dir)
	t.Run("compare-groups-1400px", func(t *testing.T) {
		path := filepath.Join(dir, "compare-groups.html")
		if err := os.WriteFile(path, pages["compare-groups"], 0o644); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(artifacts, "compare-groups.html"), pages["compare-groups"], 0o644)
		wd.cdp(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": false})
		wd.post(t, "/url", map[string]any{"url": "file://" + path}, nil)
		checkCharts(t, wd)
		checkNoOverflow(t, wd, 1400)
		checkAnswerFirst(t, wd, 900)
		wd.screenshot(t, filepath.Join(artifacts, "compare-groups.png"))
		wd.cdp(t, "Emulation.clearDeviceMetricsOverride", map[string]any{})
		wd.consoleErrors(t)
	})
	for _, name := range []string{"report", "compare"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".html")
			if err := os.WriteFile(path, pages[name], 0o644); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(artifacts, name+".html"), pages[name], 0o644)
			wd.cdp(t, "Emulation.setEmulatedMedia", map[string]any{"media": "", "features": []map[string]string{{"name": "prefers-color-scheme", "value": "light"}}})
			wd.post(t, "/url", map[string]any{"url": "file://" + path}, nil)
			checkCharts(t, wd)
			lightBG := wd.script(t, `return getComputedStyle(document.body).backgroundColor`)
			wd.screenshot(t, filepath.Join(artifacts, name+".png"))

			wd.cdp(t, "Emulation.setEmulatedMedia", map[string]any{"media": "", "features": []map[string]string{{"name": "prefers-color-scheme", "value": "dark"}}})
			darkBG := wd.script(t, `return getComputedStyle(document.body).backgroundColor`)
			if darkBG == lightBG {
				t.Errorf("dark mode: the background stays %v", darkBG)
			}
			checkCharts(t, wd)
			wd.screenshot(t, filepath.Join(artifacts, name+"-dark.png"))

			// Print: navigation hidden, white page, and a PDF to look at.
			wd.cdp(t, "Emulation.setEmulatedMedia", map[string]any{"media": "print", "features": []map[string]string{{"name": "prefers-color-scheme", "value": "dark"}}})
			if v := wd.script(t, `var n=document.querySelector('nav'); return n ? getComputedStyle(n).display : 'none'`); v != "none" {
				t.Errorf("print: nav is displayed (%v)", v)
			}
			if bg := wd.script(t, `return getComputedStyle(document.body).backgroundColor`); bg != "rgb(255, 255, 255)" {
				t.Errorf("print: background %v, want white even in dark mode", bg)
			}
			var pdf struct{ Data string }
			wd.cdpInto(t, "Page.printToPDF", map[string]any{"printBackground": false}, &pdf)
			if b, err := base64.StdEncoding.DecodeString(pdf.Data); err != nil || !bytes.HasPrefix(b, []byte("%PDF")) {
				t.Errorf("print to PDF failed: %v", err)
			} else {
				os.WriteFile(filepath.Join(artifacts, name+".pdf"), b, 0o644)
			}
			wd.consoleErrors(t)
		})
	}
}

// testSweep is a rate sweep whose latency knees at about 20k*scale ops/s.
func testSweep(scale float64) *result.Sweep {
	sw := &result.Sweep{Mode: "rates", StepNs: 30e9, ObjectiveP99Ns: 10e6, MinAchievedRatio: 0.95, MaxDelayedRatio: 0.01, MaxErrorRatio: 0.001, Best: -1}
	for i, rate := range []float64{5000, 10000, 15000, 20000, 25000, 30000} {
		got := min(rate, 21000*scale)
		p99 := int64(1e6 * (1 + 30*math.Pow(rate/(24000*scale), 8)))
		st := result.SweepStep{Phase: fmt.Sprintf("rate-%.0f", rate), TargetOpsPerS: rate, SustainedOpsPerS: got,
			P50Ns: p99 / 5, P99Ns: p99, P999Ns: p99 * 3, MaxNs: p99 * 6, ServiceP99Ns: p99 / 2, SteadyMethod: "mser"}
		st.MeetsObjective = got >= 0.95*rate && p99 <= sw.ObjectiveP99Ns
		if !st.MeetsObjective {
			st.Reason = "p99 over the objective or the rate not kept"
		} else {
			sw.Best, sw.MaxOpsPerS = i, got
		}
		sw.Steps = append(sw.Steps, st)
	}
	sw.Verdict = fmt.Sprintf("highest rate meeting p99 <= 10 ms: %.0f ops/s", sw.MaxOpsPerS)
	return sw
}

// checkCharts asks the page, for every chart, how many series it declares
// and how many drew a visible path.
func checkCharts(t *testing.T, wd *webDriver) {
	t.Helper()
	raw := wd.script(t, `
var out = [];
document.querySelectorAll('svg.chart').forEach(function (svg) {
  var drawn = 0, declared = +svg.getAttribute('data-series');
  svg.querySelectorAll('path.series').forEach(function (p) {
    var b = p.getBBox(), r = p.getBoundingClientRect();
    if ((b.width > 0 || b.height > 0) && r.width > 0 && getComputedStyle(p).display !== 'none') drawn++;
  });
  out.push({id: svg.closest('figure').id, declared: declared, drawn: drawn, width: svg.getBoundingClientRect().width});
});
return JSON.stringify(out);`)
	var charts []struct {
		ID       string
		Declared int
		Drawn    int
		Width    float64
	}
	if err := json.Unmarshal([]byte(raw.(string)), &charts); err != nil {
		t.Fatal(err)
	}
	if len(charts) < 2 {
		t.Fatalf("%d charts on the page", len(charts))
	}
	for _, c := range charts {
		if c.Declared == 0 || c.Drawn != c.Declared || c.Width < 300 {
			t.Errorf("chart %s: drew %d of %d series at width %.0f px", c.ID, c.Drawn, c.Declared, c.Width)
		}
	}
	t.Logf("%d charts drawn", len(charts))
}

// checkAnswerFirst asks the page where its answer (the headline figures
// and each group's limit) ends and where its first table begins: the
// answer must end within the first px pixels, above the table.
func checkAnswerFirst(t *testing.T, wd *webDriver, px float64) {
	t.Helper()
	raw := wd.script(t, `
var a = document.querySelector('dl.limits'), tb = document.querySelector('table');
return JSON.stringify({answer: a ? a.getBoundingClientRect().bottom + window.scrollY : -1, table: tb ? tb.getBoundingClientRect().top + window.scrollY : -1});`)
	var at struct{ Answer, Table float64 }
	if err := json.Unmarshal([]byte(raw.(string)), &at); err != nil {
		t.Fatal(err)
	}
	t.Logf("the answer ends at %.0f px, the first table begins at %.0f px", at.Answer, at.Table)
	if at.Answer < 0 || at.Answer > px || (at.Table >= 0 && at.Answer > at.Table) {
		t.Errorf("the answer ends at %.0f px (the first table at %.0f px): want it within the first %.0f px, above the table", at.Answer, at.Table, px)
	}
}

// checkNoOverflow asks the page whether anything is wider than the window
// (width px): the document, or a table inside its scrolling wrapper (which
// would hide columns behind a scroll bar), and how tall the tallest row of
// the comparison is (cells that wrap word by word grow rows hundreds of px).
func checkNoOverflow(t *testing.T, wd *webDriver, width int) {
	t.Helper()
	raw := wd.script(t, `
var out = {doc: document.documentElement.scrollWidth, win: window.innerWidth, tables: [], tallest: 0};
document.querySelectorAll('.tw').forEach(function (w) {
  var sec = w.closest('section');
  out.tables.push({id: sec ? sec.id : '', scroll: w.scrollWidth, client: w.clientWidth});
});
document.querySelectorAll('#comparison tr').forEach(function (r) {
  out.tallest = Math.max(out.tallest, r.getBoundingClientRect().height);
});
return JSON.stringify(out);`)
	var got struct {
		Doc, Win int
		Tables   []struct {
			ID             string
			Scroll, Client int
		}
		Tallest float64
	}
	if err := json.Unmarshal([]byte(raw.(string)), &got); err != nil {
		t.Fatal(err)
	}
	if got.Win != width {
		t.Fatalf("window %d px wide, want %d", got.Win, width)
	}
	if got.Doc > got.Win {
		t.Errorf("the page is %d px wide in a %d px window", got.Doc, got.Win)
	}
	for _, tb := range got.Tables {
		if tb.Scroll > tb.Client {
			t.Errorf("table in #%s: %d px in a %d px box (horizontal overflow)", tb.ID, tb.Scroll, tb.Client)
		}
	}
	if got.Tallest > 80 {
		t.Errorf("a row of the comparison is %.0f px tall: its cells wrap word by word", got.Tallest)
	}
	t.Logf("page %d px in %d; %d tables; tallest comparison row %.0f px", got.Doc, got.Win, len(got.Tables), got.Tallest)
}

// webDriver is a minimal W3C WebDriver client for one chromedriver session.
type webDriver struct {
	base, session string
}

func startDriver(t *testing.T, driver, chromium, dir string) *webDriver {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var logb bytes.Buffer
	cmd := exec.Command(driver, "--port="+strconv.Itoa(port), "--allowed-ips=127.0.0.1")
	cmd.Stdout, cmd.Stderr = &logb, &logb
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", driver, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	wd := &webDriver{base: fmt.Sprintf("http://127.0.0.1:%d", port)}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(wd.base + "/status")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("chromedriver not ready after 20 s: %v\n%s", err, logb.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		"goog:chromeOptions": map[string]any{
			"binary": chromium,
			"args": []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,900",
				"--user-data-dir=" + filepath.Join(dir, "profile")},
		},
		"goog:loggingPrefs": map[string]string{"browser": "ALL"},
	}}}
	var sess struct{ SessionID string }
	if err := wd.call("POST", "/session", caps, &sess); err != nil {
		t.Fatalf("new session: %v\n%s", err, logb.String())
	}
	wd.session = sess.SessionID
	t.Cleanup(func() { wd.call("DELETE", "/session/"+wd.session, nil, nil) })
	return wd
}

// call sends one WebDriver command and decodes its "value".
func (wd *webDriver) call(method, path string, body, into any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, wd.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	cl := &http.Client{Timeout: 60 * time.Second}
	resp, err := cl.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("%s %s: %s: %w", method, path, resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %.300s", method, path, resp.Status, env.Value)
	}
	if into != nil {
		return json.Unmarshal(env.Value, into)
	}
	return nil
}

func (wd *webDriver) post(t *testing.T, path string, body, into any) {
	t.Helper()
	if err := wd.call("POST", "/session/"+wd.session+path, body, into); err != nil {
		t.Fatal(err)
	}
}

func (wd *webDriver) script(t *testing.T, js string) any {
	t.Helper()
	var v any
	wd.post(t, "/execute/sync", map[string]any{"script": js, "args": []any{}}, &v)
	return v
}

func (wd *webDriver) cdp(t *testing.T, cmd string, params map[string]any) {
	t.Helper()
	wd.cdpInto(t, cmd, params, nil)
}

func (wd *webDriver) cdpInto(t *testing.T, cmd string, params map[string]any, into any) {
	t.Helper()
	wd.post(t, "/goog/cdp/execute", map[string]any{"cmd": cmd, "params": params}, into)
}

// screenshot captures the whole page, not only the window.
func (wd *webDriver) screenshot(t *testing.T, path string) {
	t.Helper()
	h := wd.script(t, `return Math.ceil(document.documentElement.scrollHeight)`).(float64)
	wd.cdp(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": int(h), "deviceScaleFactor": 1, "mobile": false})
	var shot struct{ Data string }
	wd.cdpInto(t, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot)
	wd.cdp(t, "Emulation.clearDeviceMetricsOverride", map[string]any{})
	b, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s (%d bytes, %d px high)", path, len(b), int(h))
}

// consoleErrors fails the test on any SEVERE browser log entry.
func (wd *webDriver) consoleErrors(t *testing.T) {
	t.Helper()
	var entries []struct {
		Level   string
		Message string
	}
	wd.post(t, "/se/log", map[string]string{"type": "browser"}, &entries)
	for _, e := range entries {
		if e.Level == "SEVERE" || e.Level == "WARNING" {
			t.Errorf("console %s: %s", e.Level, e.Message)
		}
	}
}

// artifactDir is test-artifacts/ at the repository root.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	out := filepath.Join(dir, "test-artifacts")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}
