// Package metrics exposes a running benchmark to Prometheus (and so to
// Grafana) in the text exposition format: throughput, latency quantiles and
// errors by op and class from the recorder, and the host figures from
// package telemetry. It writes the format by hand; each scrape renders one
// Snapshot, so it costs the load path nothing.
//
// Usage (`--metrics-addr :9100`):
//
//	src := metrics.WithHost(metrics.SourceFunc(func() metrics.Snapshot { ... from rec.Live() ... }), tel)
//	go metrics.Serve(ctx, ":9100", src) // or metrics.Start to learn the bound address and listen errors
//
// What it does not do: keep history (Prometheus does), or compute anything
// the recorder and the host sampler did not already compute.
package metrics

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/platbench/platbench/result"
)

// Source gives the live figures; Snapshot is called once per scrape, from
// the HTTP server's goroutine, and must be safe to call concurrently with the run.
type Source interface {
	Snapshot() Snapshot
}

// SourceFunc adapts a function to Source.
type SourceFunc func() Snapshot

// Snapshot calls f.
func (f SourceFunc) Snapshot() Snapshot { return f() }

// Snapshot is what one scrape shows.
type Snapshot struct {
	// Phase names the running phase ("load", "run"); counters restart with each phase.
	Phase string
	Ops   []Op
	// Host is the latest host sample (nil: none yet).
	Host *result.HostSample
	// Self and Server are the latest samples of platbench and of the target
	// server process (nil when absent).
	Self, Server *result.ProcSample
}

// Op is one op type's live figures.
type Op struct {
	Op string
	// Count is the operations completed without error since the phase began.
	Count uint64
	// Errors are the failed operations since the phase began, by class.
	Errors map[string]uint64
	// RatePerS is the throughput of the last closed interval (completions/s).
	RatePerS float64
	// Latency holds quantiles of the last closed interval, e.g. {0.5, ...}, {0.99, ...}.
	Latency []Quantile
}

// Quantile is one latency quantile in nanoseconds.
type Quantile struct {
	Q  float64
	Ns int64
}

// HostSource is what telemetry.Session offers for live host figures.
type HostSource interface {
	Latest() (h result.HostSample, ok bool, self, server *result.ProcSample)
}

// WithHost adds the host source's latest figures to src's snapshots.
func WithHost(src Source, h HostSource) Source {
	return SourceFunc(func() Snapshot {
		var s Snapshot
		if src != nil {
			s = src.Snapshot()
		}
		if h != nil {
			hs, ok, self, server := h.Latest()
			if ok && s.Host == nil {
				s.Host = &hs
			}
			if s.Self == nil {
				s.Self = self
			}
			if s.Server == nil {
				s.Server = server
			}
		}
		return s
	})
}

// Handler serves the exposition at any path (Prometheus scrapes /metrics).
func Handler(src Source) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		var s Snapshot
		if src != nil {
			s = src.Snapshot()
		}
		bw := bufio.NewWriter(w)
		Write(bw, s)
		bw.Flush()
	})
}

// Start listens on addr (":9100", "127.0.0.1:0") and serves until ctx is
// done. It returns the bound address, or an error naming the problem when
// the address cannot be used.
func Start(ctx context.Context, addr string, src Source) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: cannot listen on %q: %w (fix: give a free host:port to --metrics-addr, e.g. :9100)", addr, err)
	}
	srv := &http.Server{Handler: Handler(src), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	go srv.Serve(ln)
	return ln.Addr(), nil
}

// Serve listens on addr and serves until ctx is done; it returns nil then,
// or the error that stopped it.
func Serve(ctx context.Context, addr string, src Source) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("metrics: cannot listen on %q: %w (fix: give a free host:port to --metrics-addr, e.g. :9100)", addr, err)
	}
	srv := &http.Server{Handler: Handler(src), ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		<-errc
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("metrics: %w", err)
	}
}

// writer emits families: HELP and TYPE once, then samples.
type writer struct {
	w   io.Writer
	err error
}

func (x *writer) family(name, typ, help string) {
	x.printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func (x *writer) sample(name string, v float64, labels ...string) {
	var b strings.Builder
	b.WriteString(name)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(labels[i])
			b.WriteString(`="`)
			b.WriteString(escape(labels[i+1]))
			b.WriteByte('"')
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(formatFloat(v))
	b.WriteByte('\n')
	x.printf("%s", b.String())
}

func (x *writer) printf(format string, a ...any) {
	if x.err == nil {
		_, x.err = fmt.Fprintf(x.w, format, a...)
	}
}

func escape(s string) string {
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Write renders s in the Prometheus text format (version 0.0.4).
func Write(w io.Writer, s Snapshot) error {
	x := &writer{w: w}
	phase := s.Phase
	ops := append([]Op(nil), s.Ops...)
	sort.Slice(ops, func(i, j int) bool { return ops[i].Op < ops[j].Op })

	x.family("platbench_up", "gauge", "1 while platbench runs; phase names the running phase.")
	x.sample("platbench_up", 1, "phase", phase)

	x.family("platbench_ops_total", "counter", "Operations completed without error since the phase began.")
	for _, o := range ops {
		x.sample("platbench_ops_total", float64(o.Count), "phase", phase, "op", o.Op)
	}
	x.family("platbench_errors_total", "counter", "Failed operations since the phase began, by error class.")
	for _, o := range ops {
		classes := make([]string, 0, len(o.Errors))
		for c := range o.Errors {
			classes = append(classes, c)
		}
		sort.Strings(classes)
		for _, c := range classes {
			x.sample("platbench_errors_total", float64(o.Errors[c]), "phase", phase, "op", o.Op, "class", c)
		}
	}
	x.family("platbench_throughput_ops_per_second", "gauge", "Completions per second over the last closed interval.")
	for _, o := range ops {
		x.sample("platbench_throughput_ops_per_second", o.RatePerS, "phase", phase, "op", o.Op)
	}
	x.family("platbench_interval_latency_seconds", "gauge", "Latency quantiles of the last closed interval (from the intended start in open-loop runs).")
	for _, o := range ops {
		for _, q := range o.Latency {
			x.sample("platbench_interval_latency_seconds", float64(q.Ns)/1e9, "phase", phase, "op", o.Op, "quantile", formatFloat(q.Q))
		}
	}
	if h := s.Host; h != nil {
		writeHost(x, h)
	}
	if s.Self != nil || s.Server != nil {
		x.family("platbench_process_cpu_cores", "gauge", "CPU cores used over the last sample, by role (platbench or server).")
		procs(x, s, "platbench_process_cpu_cores", func(p *result.ProcSample) float64 { return p.CPUCores })
		x.family("platbench_process_busiest_thread_ratio", "gauge", "Busiest thread's share of a core over the last sample.")
		procs(x, s, "platbench_process_busiest_thread_ratio", func(p *result.ProcSample) float64 { return p.MaxThreadCores })
		x.family("platbench_process_resident_memory_bytes", "gauge", "Resident set size.")
		procs(x, s, "platbench_process_resident_memory_bytes", func(p *result.ProcSample) float64 { return float64(p.RSSBytes) })
		x.family("platbench_process_storage_read_bytes", "gauge", "Bytes read from storage over the last sample.")
		procs(x, s, "platbench_process_storage_read_bytes", func(p *result.ProcSample) float64 { return float64(p.ReadBytes) })
		x.family("platbench_process_storage_written_bytes", "gauge", "Bytes written to storage over the last sample.")
		procs(x, s, "platbench_process_storage_written_bytes", func(p *result.ProcSample) float64 { return float64(p.WriteBytes) })
	}
	return x.err
}

func procs(x *writer, s Snapshot, name string, f func(*result.ProcSample) float64) {
	if s.Self != nil {
		x.sample(name, f(s.Self), "role", "platbench", "pid", strconv.Itoa(s.Self.PID))
	}
	if s.Server != nil {
		x.sample(name, f(s.Server), "role", "server", "pid", strconv.Itoa(s.Server.PID))
	}
}

func writeHost(x *writer, h *result.HostSample) {
	secs := float64(h.DurationNs) / 1e9
	rate := func(v uint64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(v) / secs
	}
	x.family("platbench_host_cpu_ratio", "gauge", "Share of all CPUs' time over the last sample, by mode.")
	for _, m := range []struct {
		mode string
		v    float64
	}{{"user", h.CPUUser}, {"system", h.CPUSystem}, {"iowait", h.CPUIOWait}, {"irq", h.CPUIRQ},
		{"softirq", h.CPUSoftIRQ}, {"steal", h.CPUSteal}, {"idle", h.CPUIdle}} {
		x.sample("platbench_host_cpu_ratio", m.v, "mode", m.mode)
	}
	x.family("platbench_host_busiest_core_ratio", "gauge", "Busy share of the busiest core over the last sample.")
	x.sample("platbench_host_busiest_core_ratio", h.CPUMaxCore)
	x.family("platbench_host_busiest_core_irq_ratio", "gauge", "Highest irq+softirq share of any one core over the last sample.")
	x.sample("platbench_host_busiest_core_irq_ratio", h.CPUMaxCoreIRQ)
	x.family("platbench_host_load1", "gauge", "One-minute load average.")
	x.sample("platbench_host_load1", h.Load1)
	x.family("platbench_host_memory_used_bytes", "gauge", "Memory used by processes and the kernel, without page cache and buffers.")
	x.sample("platbench_host_memory_used_bytes", float64(h.MemUsedBytes))
	x.family("platbench_host_memory_available_bytes", "gauge", "MemAvailable from /proc/meminfo.")
	x.sample("platbench_host_memory_available_bytes", float64(h.MemAvailableBytes))
	x.family("platbench_host_page_cache_bytes", "gauge", "Page cache (Cached in /proc/meminfo).")
	x.sample("platbench_host_page_cache_bytes", float64(h.PageCacheBytes))
	x.family("platbench_host_dirty_bytes", "gauge", "Dirty page cache waiting for writeback.")
	x.sample("platbench_host_dirty_bytes", float64(h.DirtyBytes))
	x.family("platbench_host_context_switches_per_second", "gauge", "Context switches per second over the last sample.")
	x.sample("platbench_host_context_switches_per_second", rate(h.CtxSwitches))
	x.family("platbench_host_interrupts_per_second", "gauge", "Interrupts per second over the last sample.")
	x.sample("platbench_host_interrupts_per_second", rate(h.Interrupts))

	devs := make([]string, 0, len(h.Disks))
	for d := range h.Disks {
		devs = append(devs, d)
	}
	sort.Strings(devs)
	diskFam := []struct {
		name, help string
		f          func(result.DiskIO) float64
	}{
		{"platbench_host_disk_reads_per_second", "Read I/Os completed per second.", func(d result.DiskIO) float64 { return rate(d.Reads) }},
		{"platbench_host_disk_writes_per_second", "Write I/Os completed per second.", func(d result.DiskIO) float64 { return rate(d.Writes) }},
		{"platbench_host_disk_read_bytes_per_second", "Bytes read per second.", func(d result.DiskIO) float64 { return rate(d.ReadBytes) }},
		{"platbench_host_disk_written_bytes_per_second", "Bytes written per second.", func(d result.DiskIO) float64 { return rate(d.WriteBytes) }},
		{"platbench_host_disk_read_latency_seconds", "Mean read latency over the last sample.", func(d result.DiskIO) float64 { return float64(d.ReadLatencyNs) / 1e9 }},
		{"platbench_host_disk_write_latency_seconds", "Mean write latency over the last sample.", func(d result.DiskIO) float64 { return float64(d.WriteLatencyNs) / 1e9 }},
		{"platbench_host_disk_busy_ratio", "Share of time the device had I/O in flight.", func(d result.DiskIO) float64 { return d.BusyFraction }},
	}
	for _, fam := range diskFam {
		if len(devs) == 0 {
			break
		}
		x.family(fam.name, "gauge", fam.help)
		for _, d := range devs {
			x.sample(fam.name, fam.f(h.Disks[d]), "device", d)
		}
	}
	ifs := make([]string, 0, len(h.Nets))
	for n := range h.Nets {
		ifs = append(ifs, n)
	}
	sort.Strings(ifs)
	netFam := []struct {
		name, help string
		f          func(result.NetIO) float64
	}{
		{"platbench_host_network_receive_bytes_per_second", "Bytes received per second.", func(n result.NetIO) float64 { return rate(n.RxBytes) }},
		{"platbench_host_network_transmit_bytes_per_second", "Bytes sent per second.", func(n result.NetIO) float64 { return rate(n.TxBytes) }},
		{"platbench_host_network_receive_packets_per_second", "Packets received per second.", func(n result.NetIO) float64 { return rate(n.RxPackets) }},
		{"platbench_host_network_transmit_packets_per_second", "Packets sent per second.", func(n result.NetIO) float64 { return rate(n.TxPackets) }},
	}
	for _, fam := range netFam {
		if len(ifs) == 0 {
			break
		}
		x.family(fam.name, "gauge", fam.help)
		for _, n := range ifs {
			x.sample(fam.name, fam.f(h.Nets[n]), "interface", n)
		}
	}
}
