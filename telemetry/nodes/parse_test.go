package nodes

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/telemetry/machine"
)

// parseExposition reads one body into a new frame with a new parser, as a
// node's first scrape does.
func parseExposition(body io.Reader) (*reading, error) {
	var p parser
	f := machine.NewFrame()
	if err := p.parse(body, f); err != nil {
		return nil, err
	}
	return &f.Reading, nil
}

func readFixture(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/node_exporter-1.5.0.txt")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The fixture is a real body served by Debian's node_exporter 1.5.0 with the
// cpu, meminfo, diskstats and netdev collectors (scripts/servers/node_exporter.sh).
func TestParseFixture(t *testing.T) {
	r, err := parseExposition(bytes.NewReader(readFixture(t)))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.CPU) != 2 {
		t.Errorf("cpus = %d, want 2", len(r.CPU))
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"cpu 0 user", r.CPU["0"].User, 2229.16},
		{"cpu 0 nice", r.CPU["0"].Nice, 0.32},
		{"cpu 0 idle", r.CPU["0"].Idle, 1426.27},
		{"MemTotal", r.Mem["MemTotal"], 2.5276502016e+10},
		{"Cached", r.Mem["Cached"], 3.558514688e+09},
		{"vda written", r.Disks["vda"].WrittenBytes, 6.1137702912e+10},
		{"eth0 rx bytes", r.Nets["eth0"].RxBytes, 5.79219422e+08},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// Two hand-made scrapes one second apart: every figure of the sample is
// checked against the arithmetic done by hand.
func TestSampleDeltas(t *testing.T) {
	before := `
node_cpu_seconds_total{cpu="0",mode="user"} 100
node_cpu_seconds_total{cpu="0",mode="system"} 10
node_cpu_seconds_total{cpu="0",mode="idle"} 1000
node_cpu_seconds_total{cpu="0",mode="softirq"} 5
node_cpu_seconds_total{cpu="1",mode="user"} 100
node_cpu_seconds_total{cpu="1",mode="idle"} 1000
node_cpu_seconds_total{cpu="1",mode="iowait"} 3
node_memory_MemTotal_bytes 1000
node_memory_MemFree_bytes 100
node_disk_reads_completed_total{device="sda"} 10
node_disk_writes_completed_total{device="sda"} 10
node_disk_read_bytes_total{device="sda"} 4096
node_disk_written_bytes_total{device="sda"} 8192
node_disk_read_time_seconds_total{device="sda"} 1
node_disk_write_time_seconds_total{device="sda"} 1
node_disk_io_time_seconds_total{device="sda"} 1
node_network_receive_bytes_total{device="eth0"} 100
node_network_transmit_bytes_total{device="eth0"} 100
node_network_receive_packets_total{device="eth0"} 1
node_network_transmit_packets_total{device="eth0"} 1
node_network_receive_drop_total{device="eth0"} 0
node_network_receive_packets_total{device="idle0"} 0
node_network_transmit_packets_total{device="idle0"} 0
`
	// cpu 0: 0.2 user, 0.2 system, 0.6 softirq (an interrupt core, fully busy);
	// cpu 1: 0.1 user, 0.4 idle, 0.5 iowait.
	after := `
node_cpu_seconds_total{cpu="0",mode="user"} 100.2
node_cpu_seconds_total{cpu="0",mode="system"} 10.2
node_cpu_seconds_total{cpu="0",mode="idle"} 1000
node_cpu_seconds_total{cpu="0",mode="softirq"} 5.6
node_cpu_seconds_total{cpu="1",mode="user"} 100.1
node_cpu_seconds_total{cpu="1",mode="idle"} 1000.4
node_cpu_seconds_total{cpu="1",mode="iowait"} 3.5
node_memory_MemTotal_bytes 1000
node_memory_MemFree_bytes 200
node_memory_Cached_bytes 300
node_memory_MemAvailable_bytes 500
node_disk_reads_completed_total{device="sda"} 20
node_disk_writes_completed_total{device="sda"} 14
node_disk_read_bytes_total{device="sda"} 45056
node_disk_written_bytes_total{device="sda"} 24576
node_disk_read_time_seconds_total{device="sda"} 1.05
node_disk_write_time_seconds_total{device="sda"} 1.004
node_disk_io_time_seconds_total{device="sda"} 1.25
node_network_receive_bytes_total{device="eth0"} 1100
node_network_transmit_bytes_total{device="eth0"} 600
node_network_receive_packets_total{device="eth0"} 11
node_network_transmit_packets_total{device="eth0"} 6
node_network_receive_drop_total{device="eth0"} 2
node_network_receive_packets_total{device="idle0"} 0
node_network_transmit_packets_total{device="idle0"} 0
`
	p, err := parseExposition(strings.NewReader(before))
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseExposition(strings.NewReader(after))
	if err != nil {
		t.Fatal(err)
	}
	s := sample(p, c, time.Second)
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("user", s.CPUUser, 0.3/2)
	near("system", s.CPUSystem, 0.2/2)
	near("softirq", s.CPUSoftIRQ, 0.6/2)
	near("iowait", s.CPUIOWait, 0.5/2)
	near("idle", s.CPUIdle, 0.4/2)
	near("busiest core", s.CPUMaxCore, 1)
	near("irq core", s.CPUMaxCoreIRQ, 0.6)
	if s.CPUMaxCoreID != 0 || s.CPUs != 2 {
		t.Errorf("busiest core %d of %d cpus, want 0 of 2", s.CPUMaxCoreID, s.CPUs)
	}
	if s.MemUsedBytes != 500 || s.PageCacheBytes != 300 || s.MemAvailableBytes != 500 || s.MemTotalBytes != 1000 {
		t.Errorf("memory used %d cache %d available %d total %d, want 500 300 500 1000", s.MemUsedBytes, s.PageCacheBytes, s.MemAvailableBytes, s.MemTotalBytes)
	}
	d := s.Disks["sda"]
	if d.Reads != 10 || d.Writes != 4 || d.ReadBytes != 40960 || d.WriteBytes != 16384 {
		t.Errorf("sda %+v", d)
	}
	near("read latency", float64(d.ReadLatencyNs), 5e6)
	near("write latency", float64(d.WriteLatencyNs), 1e6)
	near("busy", d.BusyFraction, 0.25)
	n := s.Nets["eth0"]
	if n.RxBytes != 1000 || n.TxBytes != 500 || n.RxPackets != 10 || n.TxPackets != 5 || n.RxDrops != 2 {
		t.Errorf("eth0 %+v", n)
	}
	if _, ok := s.Nets["idle0"]; ok {
		t.Errorf("an interface that never carried a packet is kept")
	}
	// A counter that went down (the node rebooted) is no change, not a wrap.
	s = sample(c, p, time.Second)
	if s.Disks["sda"].Reads != 0 || s.CPUUser != 0 {
		t.Errorf("reset counters gave %+v", s.Disks["sda"])
	}
}

// The parser gives what expfmt's parser gives, on the real body and on the
// corners of the text format that a body of the families read can use.
func TestParserIsExpfmt(t *testing.T) {
	long := "node_memory_Long_bytes{a=\"" + strings.Repeat("x", 70000) + "\"} 9\n" // longer than the parser's buffer
	for _, body := range append(parserCorners(), long, string(readFixture(t))) {
		if _, err := parseWithExpfmt(strings.NewReader(body)); err != nil {
			t.Fatalf("%.80q is no corner: expfmt rejects it: %v", body, err)
		}
		checkAsExpfmt(t, body, nil)
	}
}

// parserCorners are bodies that expfmt accepts, each with something a
// line-by-line reader could get wrong.
func parserCorners() []string {
	return []string{
		"node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 1\nnode_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 2\n",
		"  node_cpu_seconds_total { cpu = \"0\" , mode=\"user\" , } 1.5 1700000000000\n\n\t\n",
		"node_disk_read_bytes_total{device=\"a\\\"b\\\\c\\nd\",x=\"}\"} 7\n",
		"node_network_speed_bytes{device=\"eth0\"}\t1e9\t12\n",
		"node_memory_MemTotal_bytes 100\nnode_memory_bytes 3\nnode_memory__bytes 4\n",
		"# TYPE node_memory_X_bytes summary\nnode_memory_X_bytes{quantile=\"0.5\"} 1\nnode_memory_Y_bytes 2\n",
		"# TYPE node_disk_reads_completed_total HISTOGRAM\nnode_disk_reads_completed_total_bucket{le=\"1\"} 1\nnode_memory_Y_bytes 2\n",
		"# HELP node_cpu_seconds_total Seconds \\\\ the CPUs spent.\n# TYPE node_cpu_seconds_total counter\n# other comment\nnode_cpu_seconds_total{mode=\"user\"} 3\n",
		"node_cpu_seconds_total{cpu=\"1\",mode=\"user\"} NaN\nnode_cpu_seconds_total{cpu=\"2\",mode=\"user\"} -1\nnode_cpu_seconds_total{cpu=\"3\",mode=\"user\"} +Inf\nnode_memory_A_bytes 1\n",
		"node_disk_io_time_seconds_total{device=\"sda\"} 1\nnode_disk_io_time_seconds_total{device=\"sda\"} 2\nnode_disk_unknown_total{device=\"sdb\"} 3\n",
		"go_goroutines 7\nnode_network_receive_drop_total{device=\"lo\"} 0\nnode_network_receive_bytes_total{device=\"lo\"} 5\n",
	}
}

// checkAsExpfmt parses body with the parser (into f, a frame that has read
// other bodies, when given) and with expfmt: when expfmt accepts it, the
// two readings must be equal.
func checkAsExpfmt(t *testing.T, body string, f *frame) {
	t.Helper()
	want, werr := parseWithExpfmt(strings.NewReader(body))
	var got *reading
	var err error
	if f == nil {
		got, err = parseExposition(strings.NewReader(body))
	} else {
		var p parser
		if err = p.parse(strings.NewReader(body), f); err == nil {
			got = &f.Reading
		}
	}
	if werr != nil {
		return // a body expfmt rejects may still give its figures
	}
	if err != nil {
		t.Fatalf("%.200q: expfmt read it, the parser: %v", body, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q:\n got %s\nwant %s", body, dump(got), dump(want))
	}
}

func dump(r *reading) string {
	b, _ := json.Marshal(r)
	return string(b)
}

// A node's frames are refilled in place: the second scrape of the same
// body allocates nothing, and what a scrape no longer names (a core, a
// disk, a memory figure) is gone from its reading, not left at its value.
func TestFrameRefill(t *testing.T) {
	body := readFixture(t)
	var p parser
	f := machine.NewFrame()
	rd := bytes.NewReader(body)
	if err := p.parse(rd, f); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		rd.Reset(body)
		if err := p.parse(rd, f); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a scrape of a body seen before allocated %v times", allocs)
	}
	less := "node_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 5\nnode_disk_reads_completed_total{device=\"sdz\"} 1\n"
	checkAsExpfmt(t, less, f)
	if len(f.CPU) != 1 || f.CPU["1"].User != 0 || len(f.Mem) != 0 || len(f.Disks) != 1 || len(f.Nets) != 0 {
		t.Errorf("refilled frame kept the earlier scrape's figures: %s", dump(&f.Reading))
	}
	checkAsExpfmt(t, string(body), f)
}

func TestParseRejects(t *testing.T) {
	for _, body := range []string{
		"",                                     // nothing
		"go_goroutines 7\n",                    // an exporter, but not node_exporter
		"node_cpu_seconds_total{cpu=\"0\" 1\n", // not the text format
		"node_cpu_seconds_total{cpu=\"0\"} 0x1p3\n",
		"node_memory_A_bytes{a=\"\\x\"} 1\n",
		"node_memory_A_bytes{a=\"x} 1\n",
		"node_memory_A_bytes{=\"x\"} 1\n",
		"node_memory_A_bytes\n",
	} {
		if _, err := parseExposition(strings.NewReader(body)); err == nil {
			t.Errorf("%q parsed", body)
		}
	}
}

// FuzzParseExposition: a scraped body is input from another machine. Parsing
// never panics; a body expfmt accepts gives what expfmt gives, read fresh
// and into a frame that read the real body before; and the figures of any
// accepted body, against itself, the real fixture or nothing, are finite
// fractions in 0..1 that encode to JSON.
func FuzzParseExposition(f *testing.F) {
	fix := readFixture(f)
	f.Add(fix)
	for _, c := range parserCorners() {
		f.Add([]byte(c))
	}
	f.Add([]byte("node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 1e308\nnode_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 1e308\n"))
	f.Add([]byte("node_disk_io_time_seconds_total{device=\"x\"} NaN\nnode_memory_MemTotal_bytes -5\n"))
	f.Add([]byte("node_network_receive_packets_total{device=\"e\"} +Inf\n"))
	base, err := parseExposition(bytes.NewReader(fix))
	if err != nil {
		f.Fatal(err)
	}
	empty := &reading{}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAsExpfmt(t, string(body), nil)
		used := machine.NewFrame()
		var p parser
		if err := p.parse(bytes.NewReader(fix), used); err != nil {
			t.Fatal(err)
		}
		checkAsExpfmt(t, string(body), used)
		r, err := parseExposition(bytes.NewReader(body))
		if err != nil {
			return
		}
		for _, pair := range [][2]*reading{{r, r}, {base, r}, {r, base}, {empty, r}} {
			s := sample(pair[0], pair[1], time.Second)
			for _, v := range []float64{s.CPUUser, s.CPUSystem, s.CPUIOWait, s.CPUIRQ, s.CPUSoftIRQ, s.CPUSteal, s.CPUIdle, s.CPUMaxCore, s.CPUMaxCoreIRQ} {
				if !(v >= 0 && v <= 1+1e-9) {
					t.Fatalf("fraction %v out of 0..1: %+v", v, s)
				}
			}
			for _, d := range s.Disks {
				if !(d.BusyFraction >= 0 && d.BusyFraction <= 1) {
					t.Fatalf("busy %v", d.BusyFraction)
				}
			}
			if _, err := json.Marshal(s); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzServerMetricsURL: an exporter address is typed by a person. normalize
// never panics and what it accepts normalises to itself.
func FuzzServerMetricsURL(f *testing.F) {
	for _, s := range []string{"10.0.0.5:9100", "http://h:9100/metrics", "https://[::1]:9100", "ftp://x", "http://u:p@h/", "h:99999", " "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := normalize(s)
		if err != nil {
			if err.Field != "server_metrics" {
				t.Fatalf("error names %q", err.Field)
			}
			return
		}
		again, err := normalize(u)
		if err != nil || again != u {
			t.Fatalf("%q -> %q -> %q, %v", s, u, again, err)
		}
	})
}

// The cost of one sample of a node: parsing a real node_exporter 1.5.0
// body (cpu, meminfo, diskstats and netdev collectors) into one of the
// node's two frames, in place, and differencing it against the other, as a
// node's scraper does. `go test -bench Scrape ./telemetry/nodes`.
func BenchmarkScrapeSample(b *testing.B) {
	body, err := os.ReadFile("testdata/node_exporter-1.5.0.txt")
	if err != nil {
		b.Fatal(err)
	}
	var p parser
	prev, cur := machine.NewFrame(), machine.NewFrame()
	if err := p.parse(bytes.NewReader(body), prev); err != nil {
		b.Fatal(err)
	}
	rd := bytes.NewReader(body)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		rd.Reset(body)
		if err := p.parse(rd, cur); err != nil {
			b.Fatal(err)
		}
		_ = sample(&prev.Reading, &cur.Reading, time.Second)
		prev, cur = cur, prev
	}
}
