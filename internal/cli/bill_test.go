package cli

import (
	"strings"
	"testing"
)

// The bill flags reach the report: each item, the total, what is not priced.
func TestReportBillFlags(t *testing.T) {
	code, out, errs := runCLI(t, "report", fixture("i3-16xlarge"), "--format", "md", "--platform", "i3.16xlarge", "--nodes", "3",
		"--storage", "gp3:2TiB:6000iops:250MBps", "--zones", "3", "--rf", "3", "--loader-instance", "c5.4xlarge")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{"| storage | gp3:2TiB:6000iops:250MBps | 3 | $183.84/month |", "| network | cross-zone traffic |", "| loaders | c5.4xlarge | 1 |",
		"| total |", "Not priced: support"} {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q", w)
		}
	}
}

// Bad bill input is one line naming the flag, exit status 2.
func TestBillBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", fixture("i3-metal"), "--storage", "gp3:lots"}, `--storage: "gp3:lots": size "lots"`},
		{[]string{"report", fixture("i3-metal"), "--platform", "i3.metal", "--storage", "gp9:1TiB"}, `--storage type "gp9" is not in the catalog`},
		{[]string{"report", fixture("i3-metal"), "--zones", "-1"}, "--zones -1 is negative"},
		{[]string{"report", fixture("i3-metal"), "--platform", "i3.metal", "--loader-instance", "c9.huge"}, `"c9.huge": not in the catalog`},
		{[]string{"plan", fixture("i3-metal"), "--throughput", "1M", "--p99", "10ms", "--storage", "gp3"}, "--storage: \"gp3\""},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line containing %q", c.args, code, errs, c.want)
		}
	}
}
