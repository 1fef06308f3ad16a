package promtext

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// keep are the labels the tests' readers keep: node_exporter's and the JMX
// rule files', and two of the corners'.
var keep = []string{"cpu", "mode", "device", "name", "command", "quantile", "a", "x"}

// expfmtSamples is the oracle: body read by expfmt (the parser platbench
// used before this package), every sample of a family not declared summary
// or histogram as one line "name{kept labels} value", sorted; and the
// families' names.
func expfmtSamples(body string) ([]string, map[string]bool, error) {
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	var out []string
	names := map[string]bool{}
	for name, f := range fams {
		names[name] = true
		for _, m := range f.Metric {
			var v float64
			switch {
			case m.Gauge != nil:
				v = m.Gauge.GetValue()
			case m.Counter != nil:
				v = m.Counter.GetValue()
			case m.Untyped != nil:
				v = m.Untyped.GetValue()
			default:
				continue
			}
			out = append(out, sampleLine(name, func(i int) string { return expfmtLabel(m, keep[i]) }, v))
		}
	}
	slices.Sort(out)
	return out, names, nil
}

func expfmtLabel(m *dto.Metric, name string) string {
	for _, l := range m.Label {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func sampleLine(name string, label func(int) string, v float64) string {
	var b strings.Builder
	b.WriteString(name + "{")
	for i, k := range keep {
		if l := label(i); l != "" {
			fmt.Fprintf(&b, "%s=%q,", k, l)
		}
	}
	b.WriteString("} " + strconv.FormatFloat(v, 'g', -1, 64))
	return b.String()
}

// readSamples reads body with r, wanting the families in want, into the
// oracle's lines.
func readSamples(r *Reader, body string, want map[string]bool) ([]string, error) {
	var out []string
	err := r.Read(strings.NewReader(body), func(name []byte) bool { return want[string(name)] }, func(name []byte, v float64) error {
		out = append(out, sampleLine(string(name), func(i int) string { return string(r.Label(i)) }, v))
		return nil
	})
	slices.Sort(out)
	return out, err
}

// corners are bodies that expfmt accepts, each with something a
// line-by-line reader could get wrong.
func corners() []string {
	return []string{
		"node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 1\nnode_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 2\n",
		"  node_cpu_seconds_total { cpu = \"0\" , mode=\"user\" , } 1.5 1700000000000\n\n\t\n",
		"node_disk_read_bytes_total{device=\"a\\\"b\\\\c\\nd\",x=\"}\"} 7\n",
		"node_network_speed_bytes{device=\"eth0\"}\t1e9\t12\n",
		"# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 3\ns_count 2\ng 2\n",
		"# TYPE h HISTOGRAM\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\ng 2\n",
		"# HELP c Seconds \\\\ the CPUs spent.\n# TYPE c counter\n# other comment\nc{mode=\"user\"} 3\n",
		"v{a=\"1\"} NaN\nv{a=\"2\"} -1\nv{a=\"3\"} +Inf\nv{a=\"4\"} -Inf\n",
		"d{device=\"sda\"} 1\nd{device=\"sda\"} 2\n",
		"platbench_db_counter{name=\"BytesIn\",topic=\"t\"} 5\nplatbench_db_command_quantile_ms{command=\"Produce\",quantile=\"99\"} 1.5\n",
		"a_b:c{a=\"\"} 1\n",
		"u 1e-300\nu2 123456789012345678901234567890\n",
		"l{a=\"" + strings.Repeat("x", 70000) + "\"} 9\n", // longer than the reader's buffer
	}
}

// realBodies are the exporters' bodies kept in the tree: node_exporter
// 1.5.0 and the JMX exporter agent 1.0.1 with platbench's rules on
// Cassandra 5.0.9, Kafka 4.3.1 and Hazelcast 5.4.0.
func realBodies(t testing.TB) []string {
	var out []string
	for _, f := range []string{"../nodes/testdata/node_exporter-1.5.0.txt", "../dbmetrics/testdata/cassandra-5.0.9-jmx-1.0.1.txt",
		"../dbmetrics/testdata/kafka-4.3.1-jmx-1.0.1.txt", "../dbmetrics/testdata/hazelcast-5.4.0-jmx-1.0.1.txt"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// checkAsExpfmt: when expfmt accepts body, r reads from it every sample
// of every family expfmt found, with the same kept labels and values,
// and nothing of a family declared summary or histogram.
func checkAsExpfmt(t *testing.T, r *Reader, body string) {
	want, names, err := expfmtSamples(body)
	if err != nil {
		return
	}
	got, err := readSamples(r, body, names)
	if err != nil {
		t.Fatalf("%.200q: expfmt read it, the reader: %v", body, err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%.200q:\nreader %q\nexpfmt %q", body, got, want)
	}
}

// The reader gives what expfmt gives, on real bodies and on the corners of
// the text format, fresh and after other bodies.
func TestReadIsExpfmt(t *testing.T) {
	used := NewReader(keep...)
	for _, body := range append(corners(), realBodies(t)...) {
		if _, _, err := expfmtSamples(body); err != nil {
			t.Fatalf("%.80q is no corner: expfmt rejects it: %v", body, err)
		}
		checkAsExpfmt(t, NewReader(keep...), body)
		checkAsExpfmt(t, used, body)
	}
}

// Only wanted families are read: a malformed line of another family is
// skipped unread; one of a wanted family fails the read naming its line;
// an error of the caller's stops the read and comes back as is.
func TestReadRejects(t *testing.T) {
	r := NewReader(keep...)
	all := func([]byte) bool { return true }
	okOnly := func(name []byte) bool { return string(name) == "ok" }
	count := func(n *int) func([]byte, float64) error { return func([]byte, float64) error { *n++; return nil } }
	for _, c := range []struct{ body, want string }{
		{"ok 1\nbad{a=1} 2\n", "line 2: expected '\"' at start of the value of label \"a\""},
		{"bad{a=\"1\" 2\n", "line 1: unexpected end of the value of label \"a\""},
		{"bad{a=\"1\\q\"} 2\n", "line 1: invalid escape sequence '\\q'"},
		{"bad{a=\"1} 2\n", "line 1: label value without its closing quote"},
		{"bad{=\"1\"} 2\n", "line 1: invalid label name"},
		{"bad{a=\"1\"}\n", "line 1: no value"},
		{"bad 0x1p3\n", "line 1: expected float as value, got \"0x1p3\""},
		{"bad 1_000\n", "line 1: expected float as value"},
		{"bad one\n", "line 1: expected float as value, got \"one\""},
		{"bad 0x0\n", "line 1: expected float as value, got \"0x0\""},
		{"bad{a", "line 1: expected '=' after label name"},
	} {
		n := 0
		if err := r.Read(strings.NewReader(c.body), all, count(&n)); err == nil || !strings.Contains(err.Error(), "text format parsing error in "+c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
		n = 0
		oks := 1 + strings.Count(c.body, "ok ")
		if err := r.Read(strings.NewReader("ok 1\n"+c.body), okOnly, count(&n)); err != nil || n != oks {
			t.Errorf("%q not wanted: %v, %d samples, want nil and %d", c.body, err, n, oks)
		}
	}
	stop := errors.New("enough")
	n := 0
	err := r.Read(strings.NewReader("a 1\nb 2\nc 3\n"), all, func([]byte, float64) error {
		if n++; n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Errorf("the caller's error: %v after %d samples", err, n)
	}
}

// endless is a body of comment lines without end.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "# pad\n"[i%6]
	}
	return len(p), nil
}

// A body over MaxBody is refused, not read cut short: the figures read
// before the cut do not come back as a reading.
func TestBodyTooLong(t *testing.T) {
	r := NewReader()
	n := 0
	err := r.Read(io.MultiReader(strings.NewReader("a 1\n"), endless{}), func([]byte) bool { return true },
		func([]byte, float64) error { n++; return nil })
	if !errors.Is(err, ErrBodyTooLong) || n != 1 {
		t.Fatalf("an endless body: %v after %d samples", err, n)
	}
	// A body of exactly MaxBody is read.
	body := append([]byte("a 1\n"), bytes.Repeat([]byte("#\n"), (MaxBody-4)/2)...)
	if len(body) != MaxBody {
		t.Fatalf("body of %d bytes", len(body))
	}
	if err := r.Read(bytes.NewReader(body), func([]byte) bool { return true }, func([]byte, float64) error { return nil }); err != nil {
		t.Errorf("a body of MaxBody bytes: %v", err)
	}
}

// Reading a body whose names were seen allocates nothing.
func TestReadAllocs(t *testing.T) {
	body := []byte(realBodies(t)[1])
	r := NewReader(keep...)
	br := bytes.NewReader(body)
	var sum float64
	want := func(name []byte) bool { return bytes.HasPrefix(name, []byte("platbench_db_")) }
	sample := func(name []byte, v float64) error {
		sum += v + float64(len(r.Intern(r.Label(3))))
		return nil
	}
	read := func() {
		br.Reset(body)
		if err := r.Read(br, want, sample); err != nil {
			t.Fatal(err)
		}
	}
	read()
	if n := testing.AllocsPerRun(20, read); n != 0 {
		t.Errorf("%v allocations per read of a body seen before, want 0", n)
	}
}

// FuzzRead holds the reader to expfmt on every body expfmt accepts, fresh
// and after the real bodies; on any body it returns without panicking.
func FuzzRead(f *testing.F) {
	for _, c := range append(corners(), realBodies(f)...) {
		f.Add([]byte(c))
	}
	f.Add([]byte("a{b=\"\\\"} 1\n"))
	used := NewReader(keep...)
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAsExpfmt(t, NewReader(keep...), string(body))
		checkAsExpfmt(t, used, string(body))
		r := NewReader(keep...)
		_ = r.Read(bytes.NewReader(body), func([]byte) bool { return true }, func([]byte, float64) error { return nil })
	})
}
