package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

// A fixed result: 3 s of a disk-heavy run with a server process, a
// client-bound verdict and counters without a PMU.
func hostFixture() *result.Result {
	s := func(user, sys, iow, idle, maxCore float64, wb uint64) result.HostSample {
		return result.HostSample{DurationNs: 1e9, CPUUser: user, CPUSystem: sys, CPUIOWait: iow, CPUIdle: idle,
			CPUMaxCore: maxCore, CPUMaxCoreID: 1, CPUMaxCoreIRQ: iow * 4, Load1: 3.5, MemUsedBytes: 3 << 30, MemAvailableBytes: 20 << 30,
			PageCacheBytes: 12 << 30, DirtyBytes: 64 << 20, CtxSwitches: 12000, Interrupts: 3400,
			Disks: map[string]result.DiskIO{
				"nvme0n1": {Writes: 2000, WriteBytes: wb, WriteLatencyNs: 250_000, Reads: 100, ReadBytes: 409600, ReadLatencyNs: 90_000, BusyFraction: 0.4},
				"sda":     {},
			},
			Nets: map[string]result.NetIO{"lo": {RxBytes: 50 << 20, TxBytes: 50 << 20, RxPackets: 60000, TxPackets: 60000}, "eth0": {}},
		}
	}
	return &result.Result{
		Platform: result.Platform{RAMBytes: 32 << 30},
		Host: &result.HostSeries{
			IntervalNs: 1e9,
			Samples:    []result.HostSample{s(0.4, 0.2, 0.05, 0.35, 0.97, 200<<20), s(0.5, 0.2, 0.05, 0.25, 1, 300<<20), s(0.45, 0.2, 0.05, 0.3, 0.99, 100<<20)},
			Self: &result.SelfUsage{WallSeconds: 3, CPUSeconds: 5.7, MaxCoreBusy: 0.99, GOMAXPROCS: 2, GCPauseTotalNs: 1_200_000,
				GCPauseMaxNs: 400_000, NumGC: 7, AllocBytes: 30 << 20, AllocBytesPerS: 10 << 20, ClientBound: true,
				Reason: "client-bound: platbench used 1.9 of its 2 usable cores on average (GOMAXPROCS=2) (fix: ...)"},
			ServerMatch: "process redis-server",
			Server: []result.ProcSample{{PID: 42, Name: "redis-server", CPUCores: 0.9, RSSBytes: 1 << 30, WriteBytes: 1 << 20},
				{PID: 42, Name: "redis-server", CPUCores: 1.0, RSSBytes: 1 << 30}, {PID: 42, Name: "redis-server", CPUCores: 0.95, RSSBytes: 1 << 30}},
		},
		Counters: &result.Counters{Scope: "process", DurationNs: 3e9,
			Values:            map[string]uint64{"task-clock": 5_700_000_000, "context-switches": 30000, "cpu-migrations": 12, "page-faults": 4000},
			Unavailable:       []string{"cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "instructions", "branches", "branch-misses", "cache-references", "cache-misses"},
			UnavailableReason: "hardware counters: this machine exposes no hardware PMU"},
	}
}

func TestWriteHostTextGolden(t *testing.T) {
	var buf bytes.Buffer
	WriteHostText(&buf, hostFixture())
	golden(t, "host.txt", buf.Bytes())
}

func TestWritePerfStatGolden(t *testing.T) {
	var buf bytes.Buffer
	WritePerfStat(&buf, hostFixture().Counters)
	golden(t, "perfstat.txt", buf.Bytes())
}

func TestWriteHostTextWithoutHost(t *testing.T) {
	var buf bytes.Buffer
	WriteHostText(&buf, &result.Result{})
	WriteHostText(&buf, nil)
	if buf.Len() != 0 {
		t.Errorf("wrote %q for a result without host figures", buf.String())
	}
}

// The seed report's ARM counters (Cassandra under cassandra-stress) print
// with the ratios perf stat printed.
func TestWritePerfStatSeedFigures(t *testing.T) {
	c := &result.Counters{
		Scope:      "system",
		DurationNs: 7403_420_000_000, // 711069.6 ms task clock at 96.046 CPUs utilized
		Values: map[string]uint64{
			result.PerfTaskClock: 711069602520_000 / 1000, result.PerfContextSwitches: 14802, result.PerfCPUMigrations: 137, result.PerfPageFaults: 7207,
			result.PerfCycles: 7422259052720, result.PerfStalledFront: 3929716281, result.PerfStalledBack: 7384719523004,
			result.PerfInstructions: 43938297479, result.PerfBranches: 6114998824, result.PerfBranchMisses: 375388710,
		},
		Unavailable:       []string{result.PerfCacheRefs, result.PerfCacheMisses},
		UnavailableReason: "hardware counters: test",
	}
	c.Values[result.PerfTaskClock] = 711069602520 // ns
	c.DurationNs = int64(float64(c.Values[result.PerfTaskClock]) / 96.046)
	var buf bytes.Buffer
	WritePerfStat(&buf, c)
	out := buf.String()
	for _, want := range []string{
		"711,069.60 msec task-clock",
		"96.046 CPUs utilized",
		"7,422,259,052,720      cycles",
		"0.05% frontend cycles idle",
		"99.49% backend cycles idle",
		"0.01 insns per cycle",
		"168.07 stalled cycles per insn",
		"6.14% of all branches",
		"<not supported>      cache-misses",
		"Not available: hardware counters: test.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if os.Getenv("PERF_STAT_SHOW") != "" {
		t.Log(out)
	}
}

// The host's net line carries its interface's capacity and use and its root
// qdisc's queueing when the run recorded them (a 20 Mbit/s tbf that held
// packets in every second); an interface with neither keeps the plain line.
func TestWriteHostTextNetSat(t *testing.T) {
	var ss []result.HostSample
	for i := range 4 {
		ss = append(ss, result.HostSample{OffsetNs: int64(i) * 1e9, DurationNs: 1e9, CPUIdle: 0.7, CPUUser: 0.3,
			Nets: map[string]result.NetIO{
				"eth0": {TxBytes: 2.45e6, RxBytes: 1e5, TxPackets: 1700, RxPackets: 900, Qdisc: "tbf", QdiscRateBytesPS: 2.5e6, QdiscOverlimits: 300},
				"eth1": {TxBytes: 1e3, RxBytes: 1e3, TxPackets: 10, RxPackets: 10}}})
	}
	r := &result.Result{Host: &result.HostSeries{IntervalNs: 1e9, Samples: ss, Links: map[string]result.Link{"eth0": {SpeedBitsPerS: 10e9}}}}
	var b strings.Builder
	WriteHostText(&b, r)
	out := b.String()
	want := "net eth0    rx 97.7 KiB/s 900 pkt/s, tx 2.34 MiB/s 1700 pkt/s; sent 98% of its shaper's tbf rate of 20 Mbit/s; qdisc tbf held, dropped or queued packets in 100% of the seconds"
	flat := strings.Join(strings.Fields(out), " ") // the line wraps at the terminal's width
	if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
		t.Errorf("no %q in:\n%s", want, out)
	}
	if !strings.Contains(out, "net eth1    rx 1000 B/s 10 pkt/s, tx 1000 B/s 10 pkt/s\n") {
		t.Errorf("eth1's plain line is not in:\n%s", out)
	}
}
