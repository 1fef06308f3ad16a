package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
)

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startPrometheus starts a Prometheus of the test's own scraping targets
// every second, and returns its base URL.
func startPrometheus(t *testing.T, bin string, targets ...string) string {
	t.Helper()
	dir := t.TempDir()
	quoted := make([]string, len(targets))
	for i, tg := range targets {
		quoted[i] = strconv.Quote(tg)
	}
	conf := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: platbench\n    scrape_timeout: 900ms\n    static_configs:\n      - targets: [%s]\n", strings.Join(quoted, ", "))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=warn")
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		logf.Close()
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	// Ready, and scraping every target (down until the runs start): the
	// discovery manager hands targets to the scrapers only after a few
	// seconds, which would cut the start of the runs.
	for deadline := time.Now().Add(60 * time.Second); !scraping(base, len(targets)); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Fatalf("prometheus not scraping after 60 s:\n%s", log)
		}
	}
	return base
}

// scraping reports whether Prometheus at base has tried every one of its n
// targets at least once.
func scraping(base string, n int) bool {
	resp, err := http.Get(base + "/api/v1/targets")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			ActiveTargets []struct{ LastScrape time.Time }
		}
	}
	if json.NewDecoder(resp.Body).Decode(&body) != nil || len(body.Data.ActiveTargets) < n {
		return false
	}
	for _, tg := range body.Data.ActiveTargets {
		if tg.LastScrape.Year() < 2000 {
			return false
		}
	}
	return true
}

// promSeries is one series of an instant query's answer.
type promSeries struct {
	Metric map[string]string
	Value  float64
}

// query runs an instant PromQL query at time at.
func query(t *testing.T, base, q string, at time.Time) []promSeries {
	t.Helper()
	u := base + "/api/v1/query?" + url.Values{"query": {q}, "time": {strconv.FormatFloat(float64(at.UnixNano())/1e9, 'f', 3, 64)}}.Encode()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status, Error string
		Data          struct {
			ResultType string
			Result     []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if body.Status != "success" {
		t.Fatalf("%s: %s %s", q, body.Status, body.Error)
	}
	var out []promSeries
	for _, r := range body.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: value %v", q, r.Value)
		}
		out = append(out, promSeries{Metric: r.Metric, Value: v})
	}
	return out
}

// byInstance picks the value of the series of one instance.
func byInstance(t *testing.T, ss []promSeries, instance, what string) float64 {
	t.Helper()
	for _, s := range ss {
		if s.Metric["instance"] == instance {
			return s.Value
		}
	}
	t.Fatalf("%s: no series for %s in %+v", what, instance, ss)
	return math.NaN()
}

// A real Prometheus (Debian's 2.42) scrapes two runs' --metrics-addr every
// second: a fake target failing every 100th operation, and the real Redis
// with its INFO figures. PromQL gives back each run's throughput (its
// rate), latency quantiles and error rate, and the servers' own figures;
// every query of the Grafana dashboard in examples/grafana answers with
// data.
func TestPrometheusScrapesRun(t *testing.T) {
	bin := testenv.URL(t, "PLATBENCH_PROMETHEUS_BIN")
	redisURL := testenv.URL(t, "PLATBENCH_REDIS_URL") + "/14" // a database of its own (see TestMergeLoaderProcessesRedis)
	fakeAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	redisAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	base := startPrometheus(t, bin, fakeAddr, redisAddr)
	dir := t.TempDir()
	const rate = 500
	runs := []struct {
		addr string
		args []string
	}{
		{fakeAddr, []string{"--target", "fake://?latency=200us&error_every=100", "--records", "2000"}},
		{redisAddr, []string{"--target", redisURL, "--records", "2000"}},
	}
	var wg sync.WaitGroup
	results := make([]*result.Result, len(runs))
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
			args := append([]string{"run", "--duration", "12s", "--rate", strconv.Itoa(rate), "--concurrency", "8",
				"--metrics-addr", r.addr, "--perf-scope", "off", "--out", out, "--quiet"}, r.args...)
			if code, _, stderr := run(t, args...); code != 0 {
				t.Errorf("run %v: exit %d: %s", r.args, code, stderr)
				return
			}
			res, err := result.Read(out)
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = res
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// A moment inside both run phases, 8 s after the later start (the
	// rate() windows then hold run samples only).
	var from, to time.Time
	for _, r := range results {
		p := r.MainPhase()
		end := p.StartedAt.Add(time.Duration(p.DurationNs))
		if p.StartedAt.After(from) {
			from = p.StartedAt
		}
		if to.IsZero() || end.Before(to) {
			to = end
		}
	}
	at := from.Add(8 * time.Second)
	if !at.Before(to) {
		t.Fatalf("the two run phases overlap only from %v to %v", from, to)
	}
	thr := query(t, base, `sum by (instance) (rate(platbench_ops_total{phase="run"}[5s]))`, at)
	errRate := query(t, base, `sum by (instance) (rate(platbench_errors_total{phase="run"}[5s])) / (sum by (instance) (rate(platbench_ops_total{phase="run"}[5s])) + sum by (instance) (rate(platbench_errors_total{phase="run"}[5s])))`, at)
	p99 := query(t, base, `max by (instance) (platbench_interval_latency_seconds{phase="run", quantile="0.99"})`, at)
	t.Logf("at %v: throughput %+v; error rate %+v; p99 %+v", at, thr, errRate, p99)
	for _, r := range []string{fakeAddr, redisAddr} {
		// An open loop at 500 op/s: Prometheus's rate is that of the run.
		if v := byInstance(t, thr, r, "throughput"); v < 0.7*rate || v > 1.3*rate {
			t.Errorf("%s: PromQL throughput %.0f op/s at a rate of %d", r, v, rate)
		}
		if v := byInstance(t, p99, r, "p99"); v <= 0 || v > 1 {
			t.Errorf("%s: p99 %v s", r, v)
		}
	}
	if v := byInstance(t, errRate, fakeAddr, "error rate"); v < 0.005 || v > 0.02 {
		t.Errorf("fake target failing every 100th op: PromQL error rate %v", v)
	}
	if v := byInstance(t, p99, fakeAddr, "p99"); v < 200e-6 {
		t.Errorf("p99 %v s below the fake target's 200µs service time", v)
	}
	get := query(t, base, `platbench_db_command_mean_seconds{command="get"}`, at)
	if v := byInstance(t, get, redisAddr, "server-side GET"); v <= 0 || v >= byInstance(t, p99, redisAddr, "p99") {
		t.Errorf("server-side GET mean %v s", v)
	}
	t.Logf("server-side GET mean %+v", get)
	checkDashboard(t, base, at)
}

// checkDashboard runs every query of the Grafana dashboard against the real
// Prometheus, with the dashboard's variables set to All.
func checkDashboard(t *testing.T, base string, at time.Time) {
	t.Helper()
	b, err := os.ReadFile("../../../examples/grafana/platbench-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer(`$__rate_interval`, "5s", `"$job"`, `".*"`, `"$instance"`, `".*"`)
	n := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			n++
			if got := query(t, base, vars.Replace(tg.Expr), at); len(got) == 0 {
				t.Errorf("dashboard panel %q: %s returned no series", p.Title, tg.Expr)
			}
		}
	}
	if n < 5 {
		t.Errorf("the dashboard has %d queries", n)
	}
}
