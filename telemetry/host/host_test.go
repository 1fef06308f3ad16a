//go:build linux

package host

import (
	"context"
	"crypto/rand"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/machine"
)

func cpuSeconds(t *testing.T) float64 {
	t.Helper()
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// A goroutine spinning on one OS thread must show as about one core busy:
// in platbench's own samples (which must add up to what getrusage says), in
// its busiest thread, and in the host's busiest core. Other processes (and
// other test packages) may share the machine, so the loop spins until its
// thread has had 1.5 s of CPU (at most 20 s), and the bounds follow the
// share of a core it actually got.
func TestSamplerBusyLoopShowsOneCore(t *testing.T) {
	s := Start(context.Background(), 500*time.Millisecond)
	cpu0 := cpuSeconds(t)
	began := time.Now()
	var threadCPU float64
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		x := 0
		for i := 0; ; i++ {
			for j := 0; j < 1000; j++ {
				x += j
			}
			if i%1000 != 0 {
				continue
			}
			var ru unix.Rusage
			unix.Getrusage(unix.RUSAGE_THREAD, &ru)
			threadCPU = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
			if threadCPU >= 1.5 || time.Since(began) > 20*time.Second {
				break
			}
		}
		_ = x
	}()
	<-done
	wall := time.Since(began).Seconds()
	series := s.Stop()
	cpu1 := cpuSeconds(t)
	if err := s.Err(); err != nil {
		t.Fatalf("sampler error: %v", err)
	}
	if n, want := len(series.Samples), int(wall/0.5); n < want-1 || n > want+2 {
		t.Fatalf("%d samples over %.1f s at 500 ms, want about %d", n, wall, want)
	}
	var selfCPU, maxThread, maxCore float64
	for i, hs := range series.Samples {
		sum := hs.CPUUser + hs.CPUSystem + hs.CPUIOWait + hs.CPUIRQ + hs.CPUSoftIRQ + hs.CPUSteal + hs.CPUIdle
		if sum < 0.98 || sum > 1.02 {
			t.Errorf("sample %d: CPU fractions sum to %.3f, want 1", i, sum)
		}
		if hs.CPUMaxCore > maxCore {
			maxCore = hs.CPUMaxCore
		}
		if hs.MemUsedBytes <= 0 || hs.PageCacheBytes < 0 || hs.MemAvailableBytes <= 0 {
			t.Errorf("sample %d: memory used %d, page cache %d, available %d", i, hs.MemUsedBytes, hs.PageCacheBytes, hs.MemAvailableBytes)
		}
		if hs.CtxSwitches == 0 || hs.Interrupts == 0 {
			t.Errorf("sample %d: %d context switches, %d interrupts: want > 0", i, hs.CtxSwitches, hs.Interrupts)
		}
	}
	if len(series.SelfSamples) != len(series.Samples) {
		t.Fatalf("%d self samples for %d host samples", len(series.SelfSamples), len(series.Samples))
	}
	for i, ps := range series.SelfSamples {
		if ps.OffsetNs != series.Samples[i].OffsetNs {
			t.Fatalf("self sample %d at %d ns, host sample at %d ns", i, ps.OffsetNs, series.Samples[i].OffsetNs)
		}
		selfCPU += ps.CPUCores * float64(series.Samples[i].DurationNs) / 1e9
		if ps.MaxThreadCores > maxThread {
			maxThread = ps.MaxThreadCores
		}
	}
	// The sampler's view of our CPU time must match getrusage's.
	want := cpu1 - cpu0
	if threadCPU < 0.5 {
		t.Fatalf("the busy loop got only %.2f CPU seconds in %.0f s: machine too loaded to test", threadCPU, wall)
	}
	if selfCPU < want*0.7 || selfCPU > want*1.3 {
		t.Errorf("self samples add up to %.2f CPU s, getrusage says %.2f", selfCPU, want)
	}
	// On an idle machine the spinning thread gets a whole core; on a busy one
	// its share is what it got over the loop.
	if share := threadCPU / wall; maxThread < 0.8*share || maxThread > 1.1 {
		t.Errorf("busiest thread used %.2f of a core, want %.2f..1.1", maxThread, 0.8*share)
	}
	if maxCore < 0.6 {
		t.Errorf("busiest core was %.2f busy, want about 1", maxCore)
	}
	t.Logf("loop %.2f CPU s in %.2f s; self %.2f CPU s (getrusage %.2f), busiest thread %.2f, busiest core %.2f", threadCPU, wall, selfCPU, want, maxThread, maxCore)
}

// Writing 32 MiB with fsync must show at least that many write bytes on the
// device that holds the temporary directory, and in our own process I/O.
func TestSamplerFileWriteShowsOnDevice(t *testing.T) {
	// The temporary directory may be on tmpfs (no disk at all); then write
	// under the working directory, which is on the disk holding the sources.
	dir := t.TempDir()
	dev, devErr := DeviceOf(dir)
	if devErr != nil {
		if d, err := os.MkdirTemp(".", ".hosttest-"); err == nil {
			defer os.RemoveAll(d)
			if dv, err := DeviceOf(d); err == nil {
				dir, dev, devErr = d, dv, nil
			}
		}
	}
	s := Start(context.Background(), 500*time.Millisecond)
	const size = 32 << 20
	buf := make([]byte, 1<<20)
	rand.Read(buf)
	f, err := os.Create(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < size/len(buf); i++ {
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	time.Sleep(700 * time.Millisecond)
	series := s.Stop()

	var onDev, onAll, self uint64
	for _, hs := range series.Samples {
		for name, d := range hs.Disks {
			onAll += d.WriteBytes
			if name == dev {
				onDev += d.WriteBytes
				if d.Writes > 0 && d.WriteLatencyNs < 0 {
					t.Errorf("%s: negative write latency", name)
				}
			}
		}
	}
	for _, ps := range series.SelfSamples {
		self += ps.WriteBytes
	}
	if devErr != nil {
		// Overlay or tmpfs: there is no single device; the bytes must still land on some disk.
		t.Logf("no block device for %s (%v); checking all disks", dir, devErr)
		if onAll < size*9/10 {
			t.Errorf("disks saw %d write bytes, want >= %d", onAll, size*9/10)
		}
	} else if onDev < size*9/10 {
		t.Errorf("device %s saw %d write bytes, want >= %d (all disks: %d)", dev, onDev, size*9/10, onAll)
	}
	if self < size*9/10 {
		t.Errorf("own process wrote %d bytes to storage, want >= %d", self, size*9/10)
	}
	t.Logf("device %q: %d bytes written; process: %d", dev, onDev, self)
}

func TestDeviceOfRoot(t *testing.T) {
	dev, err := DeviceOf("/")
	if err != nil {
		testenv.Skip(t, testenv.Host, "root is not on a block device here: %v", err)
	}
	if _, err := os.Stat(filepath.Join("/sys/block", dev)); err != nil {
		t.Errorf("DeviceOf(/) = %q, not in /sys/block: %v", dev, err)
	}
}

func TestCPUSplitFromFixture(t *testing.T) {
	// Two readings 1 s apart on 2 CPUs: cpu0 fully busy in user, cpu1 idle
	// but for 10% steal (in USER_HZ, 100 a second).
	hs := result.HostSample{}
	a := statFrame(t, "cpu  0 0 0 200 0 0 0 0 0 0\ncpu0 0 0 0 100 0 0 0 0 0 0\ncpu1 0 0 0 100 0 0 0 0 0 0\n")
	b := statFrame(t, "cpu  100 0 0 290 0 0 0 10 0 0\ncpu0 100 0 0 100 0 0 0 0 0 0\ncpu1 0 0 0 190 0 0 0 10 0 0\n")
	cpuSplit(&hs, &a.Reading, &b.Reading)
	if hs.CPUUser != 0.5 || hs.CPUSteal != 0.05 || hs.CPUIdle < 0.449 || hs.CPUIdle > 0.451 {
		t.Errorf("split user %.3f steal %.3f idle %.3f, want 0.5 0.05 0.45", hs.CPUUser, hs.CPUSteal, hs.CPUIdle)
	}
	if hs.CPUMaxCore != 1 || hs.CPUMaxCoreID != 0 {
		t.Errorf("busiest core %d at %.2f, want core 0 at 1.00", hs.CPUMaxCoreID, hs.CPUMaxCore)
	}
	if hs.CPUMaxCoreIRQ != 0 {
		t.Errorf("interrupt share %.2f with no interrupt time", hs.CPUMaxCoreIRQ)
	}
	// A core spending 60% in softirq and 30% in irq is an interrupt core at 90%.
	c := statFrame(t, "cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n")
	d := statFrame(t, "cpu  0 0 0 10 0 30 60 0 0 0\ncpu0 0 0 0 10 0 30 60 0 0 0\n")
	cpuSplit(&hs, &c.Reading, &d.Reading)
	if hs.CPUMaxCoreIRQ < 0.899 || hs.CPUMaxCoreIRQ > 0.901 {
		t.Errorf("interrupt share %.3f, want 0.9", hs.CPUMaxCoreIRQ)
	}
}

// statFrame is a /proc/stat text read into a frame.
func statFrame(t *testing.T, text string) *machine.Frame {
	t.Helper()
	f := machine.NewFrame()
	if _, err := parseStat([]byte(text), f, func(b []byte) string { return string(b) }); err != nil {
		t.Fatal(err)
	}
	return f
}

// Sending 16 MiB over a loopback TCP connection shows at least that many
// bytes received on the loopback interface.
func TestSamplerLoopbackTraffic(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		io.Copy(io.Discard, c)
		c.Close()
	}()
	s := Start(context.Background(), 300*time.Millisecond)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	const size = 16 << 20
	buf := make([]byte, 64<<10)
	for sent := 0; sent < size; sent += len(buf) {
		if _, err := c.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	time.Sleep(400 * time.Millisecond)
	series := s.Stop()
	var lo, any uint64
	var loName string
	for _, hs := range series.Samples {
		for name, n := range hs.Nets {
			any += n.RxBytes
			if name == "lo" || strings.HasPrefix(name, "lo") {
				lo += n.RxBytes
				loName = name
			}
		}
	}
	if loName == "" {
		t.Fatalf("no loopback interface in the samples (saw %d bytes on others)", any)
	}
	if lo < size {
		t.Errorf("%s received %d bytes, want >= %d", loName, lo, size)
	}
}

// Major faults this process takes (testenv.MajorFaults: pages of a file
// read from disk on a fault) are in the host's samples: at least as many
// as getrusage counted, since /proc/vmstat counts every process's.
func TestSamplerCountsMajorFaults(t *testing.T) {
	s := Start(context.Background(), time.Hour) // the ticker never fires: Stop takes the one sample
	made := testenv.MajorFaults(t, 512)
	time.Sleep(250 * time.Millisecond) // Stop samples only a span of at least a fifth of the interval; read the rest by hand
	s.read(time.Now())
	series := s.Stop()
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	var got uint64
	for _, x := range series.Samples {
		if !x.VMStat {
			t.Fatalf("sample without paging counters: %+v", x)
		}
		got += x.MajorFaults
	}
	if made < 256 || got < uint64(made) {
		t.Errorf("the process took %d major faults, the samples count %d (want at least 256, and at least the process's)", made, got)
	}
	t.Logf("made %d major faults, sampled %d", made, got)
}
