package host

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/machine"
)

// The reference the readers are held to: the same files read by
// github.com/prometheus/procfs (what the sampler used before), turned into
// a reading the way the sampler did.
type procfsReading struct {
	machine.Reading
	ctxt, intr uint64
	load1      float64
}

func readWithProcfs(t *testing.T, root string, whole map[string]bool) (out procfsReading, err error) {
	defer func() {
		// procfs 0.17.0 panics on some malformed meminfo lines (a name
		// and no value): the oracle did not read them.
		if r := recover(); r != nil {
			err = fmt.Errorf("procfs panicked: %v", r)
		}
	}()
	fs, err := procfs.NewFS(root)
	if err != nil {
		t.Fatal(err)
	}
	bfs, err := blockdevice.NewFS(root, "/sys")
	if err != nil {
		t.Fatal(err)
	}
	st, err := fs.Stat()
	if err != nil {
		return out, err
	}
	times := func(c procfs.CPUStat) *machine.CPUTimes {
		return &machine.CPUTimes{User: c.User, Nice: c.Nice, System: c.System, IOWait: c.Iowait, IRQ: c.IRQ,
			SoftIRQ: c.SoftIRQ, Steal: c.Steal, Idle: c.Idle}
	}
	out.Total = times(st.CPUTotal)
	out.CPU = map[string]*machine.CPUTimes{}
	for id, c := range st.CPU {
		out.CPU[strconv.FormatInt(id, 10)] = times(c)
	}
	out.ctxt, out.intr = st.ContextSwitches, st.IRQTotal
	m, err := fs.Meminfo()
	if err != nil {
		return out, err
	}
	out.Mem = map[string]float64{}
	for name, p := range map[string]*uint64{"MemTotal": m.MemTotalBytes, "MemFree": m.MemFreeBytes, "Buffers": m.BuffersBytes,
		"Cached": m.CachedBytes, "SReclaimable": m.SReclaimableBytes, "MemAvailable": m.MemAvailableBytes, "Dirty": m.DirtyBytes,
		"SwapTotal": m.SwapTotalBytes, "SwapFree": m.SwapFreeBytes} {
		if p != nil {
			out.Mem[name] = float64(*p)
		}
	}
	disks, err := bfs.ProcDiskstats()
	if err != nil {
		return out, err
	}
	out.Disks = map[string]*machine.DiskCounters{}
	for _, d := range disks {
		if c := d.IOStats; whole[d.DeviceName] {
			out.Disks[d.DeviceName] = &machine.DiskCounters{Reads: float64(c.ReadIOs), Writes: float64(c.WriteIOs),
				ReadBytes: float64(c.ReadSectors) * 512, WrittenBytes: float64(c.WriteSectors) * 512,
				ReadSecs: float64(c.ReadTicks) / 1e3, WriteSecs: float64(c.WriteTicks) / 1e3, IOSecs: float64(c.IOsTotalTicks) / 1e3}
		}
	}
	nets, err := fs.NetDev()
	if err != nil {
		return out, err
	}
	out.Nets = map[string]*machine.NetCounters{}
	for name, n := range nets {
		out.Nets[name] = &machine.NetCounters{RxBytes: float64(n.RxBytes), TxBytes: float64(n.TxBytes),
			RxPackets: float64(n.RxPackets), TxPackets: float64(n.TxPackets)}
	}
	l, err := fs.LoadAvg()
	if err != nil {
		return out, err
	}
	out.load1 = l.Load1
	return out, nil
}

// procDir writes the files into a directory laid out as /proc.
func procDir(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "net"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// liveProc is this machine's files, read now.
func liveProc(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, name := range []string{"stat", "meminfo", "diskstats", "net/dev", "loadavg"} {
		b, err := os.ReadFile("/proc/" + name)
		if err != nil {
			testenv.Skip(t, testenv.Host, "no /proc/%s here: %v", name, err)
		}
		out[name] = string(b)
	}
	return out
}

// readAll reads root with procFiles into f (a frame that may have read
// others before).
func readAll(p *procFiles, f *machine.Frame, whole map[string]bool) (procfsReading, error) {
	f.Reset()
	var out procfsReading
	st, err := p.stat(f)
	if err == nil {
		err = p.diskstats(f, whole)
	}
	if err == nil {
		err = p.netdev(f)
	}
	if err == nil {
		err = p.meminfo(f)
	}
	if err == nil {
		out.load1, err = p.load1()
	}
	if err == nil && p.root == "/proc" {
		// The live /proc's (TestProcFilesAllocs); procfs, the oracle of
		// the fixture directories, has no reader of it (TestParseVMStat).
		err = p.vmstat(f)
	}
	out.Reading, out.ctxt, out.intr = f.Reading, st.ctxt, st.intr
	return out, err
}

// checkAsProcfs: when procfs reads the files, procFiles reads the same.
func checkAsProcfs(t *testing.T, files map[string]string, f *machine.Frame) {
	t.Helper()
	whole := map[string]bool{"sda": true, "vda": true, "nvme0n1": true}
	for k := range wholeDisks() {
		whole[k] = true
	}
	root := procDir(t, files)
	want, err := readWithProcfs(t, root, whole)
	if err != nil {
		return
	}
	p := newProcFiles(root)
	defer p.close()
	got, err := readAll(p, f, whole)
	switch {
	case err != nil && strings.Contains(err.Error(), "has no cpu line") && len(want.CPU) == 0 && *want.Total == (machine.CPUTimes{}):
		return // procfs reads no CPU as zero times; the sampler then has no CPU figures
	case err != nil && strings.Contains(err.Error(), "has none of") && len(want.Mem) == 0:
		return // the same of memory
	case err != nil:
		t.Fatalf("%.300q: procfs read it, procFiles: %v", files, err)
	}
	if got.Total == nil {
		got.Total = &machine.CPUTimes{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.300q:\nprocFiles %s\nprocfs    %s", files, dumpProc(got), dumpProc(want))
	}
}

func dumpProc(r procfsReading) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ctxt %d intr %d load1 %v", r.ctxt, r.intr, r.load1)
	if r.Total != nil {
		fmt.Fprintf(&b, " total %+v", *r.Total)
	}
	for _, k := range slices.Sorted(maps.Keys(r.CPU)) {
		fmt.Fprintf(&b, " cpu%s %+v", k, *r.CPU[k])
	}
	for _, k := range slices.Sorted(maps.Keys(r.Disks)) {
		fmt.Fprintf(&b, " %s %+v", k, *r.Disks[k])
	}
	for _, k := range slices.Sorted(maps.Keys(r.Nets)) {
		fmt.Fprintf(&b, " %s %+v", k, *r.Nets[k])
	}
	fmt.Fprintf(&b, " mem %v", r.Mem)
	return b.String()
}

// procfs and procFiles read the same of this machine's files, into a fresh
// frame and into one that read them before, and of the corners below.
func TestProcFilesAreProcfs(t *testing.T) {
	live := liveProc(t)
	used := machine.NewFrame()
	checkAsProcfs(t, live, machine.NewFrame())
	checkAsProcfs(t, live, used)
	checkAsProcfs(t, live, used)
	for _, c := range procCorners() {
		files := maps.Clone(live)
		maps.Copy(files, c)
		checkAsProcfs(t, files, machine.NewFrame())
		checkAsProcfs(t, files, used)
	}
}

// procCorners are files that a reader of the live ones could get wrong:
// 64 cores, an old kernel's shorter lines, an interface name glued to its
// first count, diskstats of 14, 18 and 20 fields, meminfo without some
// fields and with a field without unit.
func procCorners() []map[string]string {
	var many strings.Builder
	many.WriteString("cpu  6400 1 2 3 4 5 6 7 8 9\n")
	for i := range 64 {
		fmt.Fprintf(&many, "cpu%d %d 1 2 3 4 5 6 7 8 9\n", i, 100+i)
	}
	many.WriteString("intr 123456 1 2 3 4\nctxt 99\nbtime 1700000000\nprocesses 5\nprocs_running 1\nprocs_blocked 0\nsoftirq 5 1 1 1 1 1 0 0 0 0 0\n")
	return []map[string]string{
		{"stat": many.String()},
		{"stat": "cpu  10 20 30 40\ncpu0 10 20 30 40\nintr 7\nctxt 8\nbtime 1\n"},
		{"net/dev": "Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n    lo:12345678901 2 0 0 0 0 0 0 12345678901 2 0 0 0 0 0 0\n  eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"},
		{"diskstats": "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11\n   8       1 sda1 1 2 3 4 5 6 7 8 9 10 11\n 252 0 vda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n 259 0 nvme0n1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"},
		{"meminfo": "MemTotal:       24000000 kB\nMemFree:         1000 kB\nHugePages_Total:       0\nDirty:  12 kB\n"},
		{"loadavg": "12.50 1.00 0.50 3/456 7890\n"},
	}
}

// Reading the files again into a frame that read them allocates nothing.
func TestProcFilesAllocs(t *testing.T) {
	p := newProcFiles("/proc")
	defer p.close()
	f := machine.NewFrame()
	whole := wholeDisks()
	read := func() {
		if _, err := readAll(p, f, whole); err != nil {
			t.Fatal(err)
		}
	}
	read()
	read()
	if n := testing.AllocsPerRun(20, read); n != 0 {
		t.Errorf("%v allocations per read of /proc, want 0", n)
	}
}

// FuzzProcFiles holds the readers to procfs on any files procfs reads,
// and they return without panicking on any.
func FuzzProcFiles(f *testing.F) {
	for _, c := range procCorners() {
		f.Add(c["stat"], c["meminfo"], c["diskstats"], c["net/dev"])
	}
	f.Add("cpu 1 2 3\n", "MemTotal: x kB\n", "8 0 sda 1\n", "lo: 1\n")
	f.Fuzz(func(t *testing.T, stat, meminfo, diskstats, netdev string) {
		files := map[string]string{"stat": stat, "meminfo": meminfo, "diskstats": diskstats, "net/dev": netdev, "loadavg": "0.5 0.5 0.5 1/1 1\n"}
		checkAsProcfs(t, files, machine.NewFrame())
		fr := machine.NewFrame()
		_, _ = parseStat([]byte(stat), fr, func(b []byte) string { return string(b) })
		_ = parseMeminfo([]byte(meminfo), fr.Mem)
		_ = parseDiskstats([]byte(diskstats), fr, map[string]bool{"sda": true}, func(b []byte) string { return string(b) })
		_ = parseNetDev([]byte(netdev), fr, func(b []byte) string { return string(b) })
	})
}

// This machine's /proc/vmstat and /proc/meminfo (Linux 6.18, captured for
// issue 45) read as their lines say; so do an old kernel's single
// allocstall line and the live files. A file without pgmajfault, or with a
// count that is not one, gives no paging figures and says why.
func TestParseVMStat(t *testing.T) {
	b, err := os.ReadFile("testdata/vmstat-6.18.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := machine.VMCounters{Read: true}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, " ")
		n, _ := strconv.ParseFloat(v, 64)
		switch {
		case !ok:
		case k == "pgmajfault":
			want.MajorFaults = n
		case k == "pswpin":
			want.SwapIn = n
		case k == "pswpout":
			want.SwapOut = n
		case strings.HasPrefix(k, "allocstall_"):
			want.AllocStalls += n
		}
	}
	if want.MajorFaults == 0 || want.AllocStalls == 0 {
		t.Fatalf("the fixture has no major faults or allocstalls: %+v", want)
	}
	var got machine.VMCounters
	if err := parseVMStat(b, &got); err != nil || got != want {
		t.Errorf("fixture: %+v, %v; want %+v", got, err, want)
	}
	old := "nr_free_pages 5\npgmajfault 7\npswpin 3\npswpout 4\nallocstall 9\npgscan_direct_throttle 1\n"
	if err := parseVMStat([]byte(old), &got); err != nil || got != (machine.VMCounters{MajorFaults: 7, SwapIn: 3, SwapOut: 4, AllocStalls: 9, Read: true}) {
		t.Errorf("old kernel: %+v, %v", got, err)
	}
	for in, msg := range map[string]string{"pswpin 3\n": "no pgmajfault", "pgmajfault x\n": `"pgmajfault x": the value is not a count`, "": "no pgmajfault"} {
		err := parseVMStat([]byte(in), &got)
		if err == nil || !strings.Contains(err.Error(), msg) || got != (machine.VMCounters{}) {
			t.Errorf("%q: %+v, %v; want an error with %q and no figures", in, got, err, msg)
		}
	}
	live, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		testenv.Skip(t, testenv.Host, "no /proc/vmstat here: %v", err)
	}
	if err := parseVMStat(live, &got); err != nil || !got.Read {
		t.Errorf("live /proc/vmstat: %+v, %v", got, err)
	}
}

// The captured /proc/meminfo's swap lines are read (bytes), beside the
// fields read before.
func TestParseMeminfoSwap(t *testing.T) {
	b, err := os.ReadFile("testdata/meminfo-6.18.txt")
	if err != nil {
		t.Fatal(err)
	}
	mem := map[string]float64{}
	if err := parseMeminfo(b, mem); err != nil {
		t.Fatal(err)
	}
	for _, k := range memNames {
		if _, ok := mem[k]; !ok {
			t.Errorf("%s not read", k)
		}
	}
	swap := "MemTotal: 100 kB\nSwapTotal:  2048 kB\nSwapFree:   1024 kB\n"
	clear(mem)
	if err := parseMeminfo([]byte(swap), mem); err != nil || mem["SwapTotal"] != 2048*1024 || mem["SwapFree"] != 1024*1024 {
		t.Errorf("swap: %v, %v", mem, err)
	}
}

// Two readings of paging counters make a sample's paging figures: counts
// are the increase, swap in use is total - free of the latest; a reading
// that did not read /proc/vmstat gives none.
func TestPagingDeltas(t *testing.T) {
	prev, cur := machine.NewFrame(), machine.NewFrame()
	prev.VM = machine.VMCounters{MajorFaults: 100, SwapIn: 10, SwapOut: 20, AllocStalls: 5, Read: true}
	cur.VM = machine.VMCounters{MajorFaults: 250, SwapIn: 74, SwapOut: 20, AllocStalls: 4, Read: true} // allocstall went down: a reset
	cur.Mem["SwapTotal"], cur.Mem["SwapFree"] = 8<<30, 6<<30
	got := machine.PagingDeltas(&prev.Reading, &cur.Reading)
	want := result.Paging{VMStat: true, MajorFaults: 150, SwapInPages: 64, SwapTotalBytes: 8 << 30, SwapUsedBytes: 2 << 30}
	if got != want {
		t.Errorf("%+v, want %+v", got, want)
	}
	prev.VM.Read = false
	if got := machine.PagingDeltas(&prev.Reading, &cur.Reading); got != (result.Paging{}) {
		t.Errorf("without vmstat: %+v", got)
	}
}

// FuzzVMStat: any /proc/vmstat-like file reads without panicking, and a
// read that fails leaves no figures.
func FuzzVMStat(f *testing.F) {
	f.Add("pgmajfault 7\npswpin 3\npswpout 4\nallocstall_normal 9\n")
	f.Add("allocstall 1\npgmajfault 18446744073709551615\n")
	f.Add("pgmajfault\n")
	f.Fuzz(func(t *testing.T, in string) {
		var vm machine.VMCounters
		if err := parseVMStat([]byte(in), &vm); err != nil && vm != (machine.VMCounters{}) {
			t.Fatalf("%q: %v with figures %+v", in, err, vm)
		}
	})
}

// A kernel (or sandbox) without /proc/net/snmp gives no TCP figures and no
// error (the sampler's Err stays for real faults), as one without
// /proc/vmstat gives no paging.
func TestNoSNMPIsNotAFault(t *testing.T) {
	var n netSampler
	r := n.read(newProcFiles(t.TempDir()))
	if r.errTCP != nil || !r.noTCP {
		t.Fatalf("no /proc/net/snmp: err %v, noTCP %v", r.errTCP, r.noTCP)
	}
	var hs result.HostSample
	n.fill(&hs, r)
	n.keep(r)
	n.fill(&hs, n.read(newProcFiles(t.TempDir())))
	if hs.TCPOutSegs != 0 || hs.TCPRetransSegs != 0 {
		t.Errorf("TCP figures from nothing: %+v", hs)
	}
}
