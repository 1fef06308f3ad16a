package metrics

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/telemetry"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// SourceFunc adapts a function to Source: a scripted snapshot.
type SourceFunc func() Snapshot

// Snapshot calls f.
func (f SourceFunc) Snapshot() Snapshot { return f() }

func find(mf *dto.MetricFamily, labels map[string]string) *dto.Metric {
	for _, m := range mf.GetMetric() {
		ok := true
		for k, v := range labels {
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == k && lp.GetValue() == v {
					found = true
				}
			}
			ok = ok && found
		}
		if ok {
			return m
		}
	}
	return nil
}

// The endpoint, fed by a scripted recorder snapshot and a real telemetry
// session, parses with Prometheus' own text parser and carries the values.
func TestEndpointParsesWithPrometheusParser(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tel, err := telemetry.Start(ctx, telemetry.Config{Interval: 200 * time.Millisecond, PerfScope: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Stop(nil)
	live := SourceFunc(func() Snapshot {
		return Snapshot{Phase: "run", Ops: []Op{
			{Op: "READ", Count: 12345, RatePerS: 1000.5, Errors: map[string]uint64{"timeout": 3, `we"ird\class`: 1},
				Latency: []Quantile{{0.5, 800_000}, {0.99, 8_400_000}}},
			{Op: "UPDATE", Count: 42, RatePerS: 10},
		}}
	})
	withHost := SourceFunc(func() Snapshot {
		s := live.Snapshot()
		if h, ok, self, srv := tel.Latest(); ok {
			s.Host, s.Self, s.Server = &h, self, srv
		}
		return s
	})
	addr, err := Start(ctx, "127.0.0.1:0", withHost)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // a host sample or two

	resp, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("content type %q", ct)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("Prometheus text parser: %v", err)
	}
	checks := []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"platbench_ops_total", map[string]string{"op": "READ", "phase": "run"}, 12345},
		{"platbench_ops_total", map[string]string{"op": "UPDATE"}, 42},
		{"platbench_errors_total", map[string]string{"op": "READ", "class": "timeout"}, 3},
		{"platbench_errors_total", map[string]string{"op": "READ", "class": `we"ird\class`}, 1},
		{"platbench_throughput_ops_per_second", map[string]string{"op": "READ"}, 1000.5},
		{"platbench_interval_latency_seconds", map[string]string{"op": "READ", "quantile": "0.99"}, 0.0084},
	}
	for _, c := range checks {
		mf := fams[c.family]
		if mf == nil {
			t.Errorf("no family %s", c.family)
			continue
		}
		m := find(mf, c.labels)
		if m == nil {
			t.Errorf("%s%v missing", c.family, c.labels)
			continue
		}
		var got float64
		switch {
		case m.Counter != nil:
			got = m.Counter.GetValue()
		case m.Gauge != nil:
			got = m.Gauge.GetValue()
		}
		if got != c.want {
			t.Errorf("%s%v = %v, want %v", c.family, c.labels, got, c.want)
		}
	}
	if mf := fams["platbench_ops_total"]; mf != nil && mf.GetType() != dto.MetricType_COUNTER {
		t.Errorf("ops_total type %v", mf.GetType())
	}
	// Host figures from the real sampler: CPU modes sum to 1; memory is set.
	cpu := fams["platbench_host_cpu_ratio"]
	if cpu == nil || len(cpu.GetMetric()) != 7 {
		t.Fatalf("host cpu family %v", cpu)
	}
	var sum float64
	for _, m := range cpu.GetMetric() {
		sum += m.GetGauge().GetValue()
	}
	if sum < 0.98 || sum > 1.02 {
		t.Errorf("cpu modes sum to %v", sum)
	}
	if mf := fams["platbench_host_memory_used_bytes"]; mf == nil || mf.GetMetric()[0].GetGauge().GetValue() <= 0 {
		t.Errorf("memory used missing or zero")
	}
	if find(fams["platbench_process_cpu_cores"], map[string]string{"role": "platbench"}) == nil {
		t.Errorf("no platbench process figures")
	}
}

func TestStartBadAddress(t *testing.T) {
	_, err := Start(context.Background(), "127.0.0.1:99999", nil)
	if err == nil || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("bad address: %v", err)
	}
}

// The server stops with its context: the port refuses connections after.
func TestStartStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	addr, err := Start(ctx, "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr.String())
		if err != nil {
			break
		}
		c.Close()
		if i == 300 {
			t.Fatal("still listening 3 s after cancel")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Live reads a real recorder: after one closed interval the scrape carries
// the ops recorded, by op and error class.
func TestLiveReadsRecorder(t *testing.T) {
	rec := recorder.New(recorder.Config{Phase: "run", IntervalWidth: 50 * time.Millisecond, BucketWidth: 10 * time.Millisecond})
	rec.Start()
	sh := rec.Shard(0)
	for i := 0; i < 100; i++ {
		now := rec.Now()
		sh.Begin()
		sh.Record(vocab.OpRead, now, now, now+int64(time.Millisecond), 10, vocab.ClassNone)
	}
	now := rec.Now()
	sh.Begin()
	sh.Record(vocab.OpUpdate, now, now, now+int64(time.Millisecond), 0, vocab.ClassTimeout)
	var live Live
	live.SetRecorder(rec)
	var s Snapshot
	for i := 0; i < 300 && len(s.Ops) == 0; i++ {
		time.Sleep(10 * time.Millisecond)
		s = live.Snapshot()
	}
	rec.Stop()
	if s.Phase != "run" {
		t.Errorf("phase %q", s.Phase)
	}
	got := map[string]Op{}
	for _, o := range s.Ops {
		got[o.Op] = o
	}
	if r := got[vocab.OpRead.String()]; r.Count != 100 || len(r.Latency) != 4 || r.Latency[1].Ns < int64(time.Millisecond)*9/10 {
		t.Errorf("read: %+v", r)
	}
	if u := got[vocab.OpUpdate.String()]; u.Errors[vocab.ClassTimeout.String()] != 1 {
		t.Errorf("update errors: %+v", u)
	}
	if s.Host != nil || s.Self != nil {
		t.Errorf("host figures without a host source: %+v", s)
	}
}

func TestLiveNamesNamedOps(t *testing.T) {
	var live Live
	if got := live.opName(vocab.OpNamed0 + 1); got != (vocab.OpNamed0 + 1).String() {
		t.Errorf("without names: %q", got)
	}
	live.SetOpNames(&workload.Spec{NamedOps: []string{"insert", "simple1"}})
	if got := live.opName(vocab.OpNamed0 + 1); got != "simple1" {
		t.Errorf("named slot 1 is %q, want simple1", got)
	}
	if got := live.opName(vocab.OpRead); got != "READ" {
		t.Errorf("READ is %q", got)
	}
}
