package merge

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
)

// buildPlatbench compiles the binary once for the loader tests.
var buildOnce sync.Once
var binPath, buildErr = "", error(nil)

func platbench(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "platbench-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "platbench")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/platbench/platbench/cmd/platbench").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// runLoaders starts n real platbench processes, shard i/n each, with a common
// start time, and returns their result files.
func runLoaders(t *testing.T, n int, target string, extra ...string) []string {
	bin := platbench(t)
	dir := t.TempDir()
	start := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339)
	var files []string
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for i := 0; i < n; i++ {
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		files = append(files, f)
		args := append([]string{"run", "--target", target, "--shard", fmt.Sprintf("%d/%d", i, n), "--start-at", start, "--quiet", "--out", f}, extra...)
		c := exec.Command(bin, args...)
		var sb strings.Builder
		c.Stdout, c.Stderr = &sb, &sb
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, c), append(outs, &sb)
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("loader %d: %v\n%s", i, err, outs[i])
		}
	}
	return files
}

// readParts reads the result files to merge.
func readParts(t *testing.T, files []string) []*result.Result {
	t.Helper()
	var parts []*result.Result
	for _, f := range files {
		r, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, r)
	}
	return parts
}

// checkMerged verifies the merged result against figures computed from the
// parts independently: totals summed, histograms merged value by value.
func checkMerged(t *testing.T, files []string) *result.Result {
	parts := readParts(t, files)
	m, err := Merge(parts, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Loaders) != len(parts) {
		t.Errorf("merged result keeps %d loaders, want %d", len(m.Loaders), len(parts))
	}
	run := m.Phase("run")
	if run == nil {
		t.Fatal("merged result has no run phase")
	}
	var allCompleted uint64
	for _, mo := range run.Ops {
		var count, errs uint64
		h := result.NewHist()
		for _, p := range parts {
			for _, o := range p.Phase("run").Ops {
				if o.Op != mo.Op {
					continue
				}
				count += o.Count
				for _, n := range o.Errors {
					errs += n
				}
				ph, _ := result.DecodeHist(o.Hist)
				h.Merge(ph)
			}
		}
		var merr uint64
		for _, n := range mo.Errors {
			merr += n
		}
		if mo.Count != count || merr != errs {
			t.Errorf("%s: merged count %d errors %d, parts sum to %d and %d", mo.Op, mo.Count, merr, count, errs)
		}
		for _, q := range []float64{50, 95, 99, 99.9, 100} {
			mh, _ := result.DecodeHist(mo.Hist)
			if a, b := mh.ValueAtQuantile(q), h.ValueAtQuantile(q); a != b {
				t.Errorf("%s p%v: merged %d ns, from the parts %d ns", mo.Op, q, a, b)
			}
		}
		var inIntervals, inBuckets uint64
		for _, iv := range run.Intervals {
			for _, o := range iv.Ops {
				if o.Op == mo.Op {
					inIntervals += o.Count
					// Streamed parts too: the merged series is made from
					// their seconds, so every stored interval has its
					// latency, over every loader's ops in it.
					if o.Count > 0 && o.Latency.Count != int64(o.Count) {
						t.Errorf("%s: merged interval at %d ns counts %d ops, its latency summary %d", mo.Op, iv.StartNs, o.Count, o.Latency.Count)
					}
				}
			}
		}
		for _, c := range run.Buckets.Counts[mo.Op] {
			inBuckets += uint64(c)
		}
		if inIntervals != count {
			t.Errorf("%s: merged intervals hold %d ops, parts %d", mo.Op, inIntervals, count)
		}
		allCompleted += count + errs
		if len(run.Buckets.All) == 0 && inBuckets != count+errs {
			t.Errorf("%s: merged buckets hold %d completions, parts %d", mo.Op, inBuckets, count+errs)
		}
	}
	if b := &run.Buckets; len(b.All) > 0 { // streamed parts: all ops together
		var inBuckets uint64
		for i := range b.Len() {
			inBuckets += b.CountAt(i)
		}
		if inBuckets != allCompleted {
			t.Errorf("merged buckets hold %d completions, parts %d", inBuckets, allCompleted)
		}
	}
	checkMergedWindow(t, run)
	// Loaders started together: the merged run is about one loader long, not n.
	if d := time.Duration(run.DurationNs); d > time.Duration(parts[0].Phase("run").DurationNs)+2*time.Second {
		t.Errorf("merged run lasts %v: loaders were not aligned by wall clock", d)
	}
	return m
}

// Three real loader processes against the null target (always available).
func TestMergeLoaderProcessesNull(t *testing.T) {
	files := runLoaders(t, 3, "null", "--workload", "ycsb-a", "--records", "3000", "--duration", "2s", "--concurrency", "1")
	checkMerged(t, files)
}

// Three real loader processes against a real Redis server.
func TestMergeLoaderProcessesRedis(t *testing.T) {
	// A database of its own: a run in another package that loaded user
	// keys into database 0 removes them when it ends (its own load's
	// dataset), under these loaders' reads.
	url := testenv.URL(t, "PLATBENCH_REDIS_URL") + "/12"
	files := runLoaders(t, 3, url, "--workload", "ycsb-b", "--records", "3000", "--duration", "3s", "--concurrency", "2")
	m := checkMerged(t, files)
	if m.Dataset.Records != 3000 {
		t.Errorf("merged dataset has %d records, want the 3000 of the three shards", m.Dataset.Records)
	}
}

// Parts that are not loaders of one run are refused.
func TestMergeRefusesMismatch(t *testing.T) {
	a := &result.Result{Config: result.Config{Shard: "0/2"}, Target: result.Result{}.Target}
	b := *a
	a.Config.Workload.Name, b.Config.Workload.Name = "ycsb-a", "ycsb-b"
	if _, err := Merge([]*result.Result{a, &b}, nil); err == nil || !strings.Contains(err.Error(), "workload") {
		t.Errorf("different workloads: err = %v", err)
	}
	b.Config.Workload.Name = "ycsb-a"
	if _, err := Merge([]*result.Result{a, &b}, nil); err == nil || !strings.Contains(err.Error(), "shard 0/2") {
		t.Errorf("same shard twice: err = %v", err)
	}
}

// Server-node series are the same cluster seen by every loader: the merged
// result keeps one set (the first loader's that has any), not one per loader.
func TestMergeKeepsOneSetOfServerNodes(t *testing.T) {
	mk := func(shard string, nodes ...string) *result.Result {
		r := &result.Result{Config: result.Config{Shard: shard}, Phases: []result.Phase{{Name: "run", Mode: "closed"}}}
		for _, n := range nodes {
			r.Nodes = append(r.Nodes, result.NodeSeries{Node: n})
		}
		return r
	}
	m, err := Merge([]*result.Result{mk("0/3"), mk("1/3", "db1:9100", "db2:9100"), mk("2/3", "db1:9100", "db2:9100")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Nodes) != 2 || m.Nodes[0].Node != "db1:9100" || m.Nodes[1].Node != "db2:9100" {
		t.Errorf("merged nodes %+v, want db1 and db2 once", m.Nodes)
	}
}

// Open-loop loaders: the merged phase keeps every loader's schedule lag
// (its histogram holds every op), sums their late starts and intended rates,
// and names the streams they shared.
func TestMergeOpenLoopLag(t *testing.T) {
	files := runLoaders(t, 2, "null", "--workload", "ycsb-a", "--records", "2000", "--duration", "2s", "--rate", "ramp(1k, 3k, 2s)")
	r := checkMerged(t, files)
	p := r.MainPhase()
	var late, delayed uint64
	var ops, wait, longest int64
	for _, f := range files {
		part, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		late += part.MainPhase().LateClient
		delayed += part.MainPhase().Delayed
		wait += part.MainPhase().DelayedWaitNs
		longest = max(longest, part.MainPhase().DelayedWaitMaxNs)
		for _, o := range part.MainPhase().Ops {
			if o.Lag == nil {
				t.Fatalf("%s: loader %s has no schedule lag", o.Op, f)
			}
			ops += o.Lag.Count
		}
	}
	var merged int64
	for _, o := range p.Ops {
		if o.Lag == nil || o.LagHist == "" {
			t.Fatalf("%s: no lag in the merged phase", o.Op)
		}
		merged += o.Lag.Count
	}
	if merged != ops || p.LateClient != late {
		t.Errorf("merged lag holds %d ops (parts %d); late client %d (parts %d)", merged, ops, p.LateClient, late)
	}
	if p.Delayed != delayed || p.DelayedWaitNs != wait || p.DelayedWaitMaxNs != longest {
		t.Errorf("merged queued %d waiting %d ns, longest %d; parts %d, %d, %d", p.Delayed, p.DelayedWaitNs, p.DelayedWaitMaxNs, delayed, wait, longest)
	}
	if len(p.Streams) != 1 || p.Streams[0] != "ramp(1k, 3k, 2s)" || p.Arrival != "uniform" {
		t.Errorf("streams %q arrival %q", p.Streams, p.Arrival)
	}
	if iv := p.Intervals[0]; iv.IntendedOpsPerS < 1000 || iv.IntendedOpsPerS > 3000 {
		t.Errorf("first second's intended rate %.0f, want the ramp's (both loaders' shares summed)", iv.IntendedOpsPerS)
	}
}

// checkMergedWindow: the latency of a window of a merged phase holds the
// operations its intervals count, whether the parts kept their seconds in
// their intervals or in their seconds files (streamed).
func checkMergedWindow(t *testing.T, run *result.Phase) {
	t.Helper()
	n := len(run.Intervals)
	if n < 2 {
		return
	}
	var want uint64
	for _, iv := range run.Intervals[1:] {
		for _, o := range iv.Ops {
			want += o.Count
		}
	}
	h, err := run.MergedHist(1, n, result.HistLatency)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(h.TotalCount()) != want {
		t.Errorf("merged window [1, %d) has %d latencies, its intervals count %d ops (streamed: %v)", n, h.TotalCount(), want, run.HasSeconds())
	}
}

// A part's seconds file that cannot be read (here a histogram in it
// corrupted) does not stop the merge: the counts merge, and a note says
// the series has no latency and why.
func TestMergeSurvivesABadSecondsFile(t *testing.T) {
	files := runLoaders(t, 2, "null", "--workload", "ycsb-a", "--records", "1000", "--duration", "2s")
	// Read, corrupted and written back as a seconds file was before issue
	// 47 (plain lines, its old name): such a file is read too.
	sp := result.SecondsPath(files[1])
	f, err := os.Open(sp)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(result.PlainLines(f))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(sp)
	sp = strings.TrimSuffix(sp, ".zst")
	bad := strings.Replace(string(b), `"hist":"`, `"hist":"!!`, 1)
	if bad == string(b) {
		t.Fatal("no histogram in the seconds file to corrupt")
	}
	if err := os.WriteFile(sp, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	parts := readParts(t, files)
	m, err := Merge(parts, files)
	if err != nil {
		t.Fatalf("merge with a bad seconds file: %v", err)
	}
	said := false
	for _, n := range m.Notes {
		said = said || strings.Contains(n, "has counts but no latency")
	}
	var n uint64
	for _, iv := range m.Phase("run").Intervals {
		for _, o := range iv.Ops {
			n += o.Count
		}
	}
	if !said || n == 0 {
		t.Errorf("notes %q; %d ops in the merged series", m.Notes, n)
	}
}
