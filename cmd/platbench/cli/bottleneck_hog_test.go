package cli

import (
	"os/exec"
	"slices"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/testenv"
)

// cpuHogs starts one busy loop pinned to each of the host's first two
// cores (taskset), processes that are neither platbench nor the server,
// and stops them when the test ends.
func cpuHogs(t *testing.T) {
	t.Helper()
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		testenv.Skip(t, testenv.Tool, "taskset is not on PATH: %v", err)
	}
	for _, cpu := range []string{"0", "1"} {
		hog := exec.Command(taskset, "-c", cpu, "sh", "-c", "while :; do :; done")
		if err := hog.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { hog.Process.Kill(); hog.Wait() })
	}
}

// A known bottleneck, on a real server: the host's cores busy with other
// processes (a busy loop on each) while platbench drives a Redis with
// cheap commands. The limit is the neighbours (the host was busy with
// others) or the loader they starved; never the requests in flight or the
// server's core, which a quiet host would have shown.
func TestBottleneckNeighbours(t *testing.T) {
	url, pid := privateRedis(t)
	cpuHogs(t)
	b, r := runBottleneckResult(t, url, pid, "--concurrency", "4")
	want := []string{analysis.LimitNeighbours, analysis.LimitLoader}
	if !slices.Contains(want, b.Limit) {
		h, _ := analysis.Host(r)
		t.Errorf("limit %q (%s) with the host %.0f%% busy and two busy loops beside the run: want one of %q", b.Limit, b.Where, 100*h.CPUBusy, want)
	}
}
