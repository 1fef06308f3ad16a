package cli

import (
	"path/filepath"
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

// catalog import writes a catalog file --catalog reads back: the imported
// prices price the bill, each row naming the price file.
func TestCatalogImportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "aws.csv")
	offer := filepath.Join("..", "..", "..", "catalog", "testdata", "import", "aws-offer.json")
	if code, _, errs := runCLI(t, "catalog", "import", offer, "--region", "us-east-1", "--out", out); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	code, list, errs := runCLI(t, "catalog", "--catalog", out, "--storage", "--csv", "gp3")
	if code != 0 || !strings.Contains(list, "aws,gp3,0.08,0.005,0.04,3000,125,us-east-1,2024-05-01") || !strings.Contains(list, "aws-offer.json, SKU SKUGP3") {
		t.Errorf("catalog --storage: exit %d %s\n%s", code, errs, list)
	}
	code, md, errs := runCLI(t, "report", fixture("i3-16xlarge"), "--format", "md", "--catalog", out, "--platform", "i3.xlarge", "--nodes", "3",
		"--storage", "io2:100GiB:1000iops", "--zones", "3")
	// io2 from the import: 100 x $0.125 + 1000 x $0.065 = $77.50 a volume.
	if code != 0 || !strings.Contains(md, "| storage | io2:100GiB:1000iops | 3 | $77.50/month |") || !strings.Contains(md, "SKU SKUIO2") || !strings.Contains(md, "| instances | i3.xlarge | 3 | $0.312/h |") {
		t.Errorf("report with the imported catalog: exit %d %s\n%s", code, errs, md)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"catalog", "import", offer}, "--region is not given, and"},
		{[]string{"catalog", "import", filepath.Join(dir, "nope.json")}, "cannot read"},
		{[]string{"catalog", "import"}, "exactly one price file"},
		{[]string{"catalog", "import", out}, "not JSON at byte"},
		{[]string{"catalog", "--storage", "zzz"}, "no volume or transfer matches"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line containing %q", c.args, code, errs, c.want)
		}
	}
}
