package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/result"
)

// billed is the i3.16xlarge fixture priced as a three-node cluster with a
// gp3 volume each, over three zones, driven from one c5.4xlarge.
func billed(t testing.TB) *result.Result {
	t.Helper()
	r := loadFixture(t, "i3-16xlarge")
	sp, err := catalog.ParseStorage("gp3:2TiB:6000iops:250MBps")
	if err != nil {
		t.Fatal(err)
	}
	a, err := analysis.Analyze(r, analysis.Options{Warmup: "auto", Platform: "i3.16xlarge", Nodes: 3,
		Bill: analysis.Bill{Storage: sp, Zones: 3, LoaderInstance: "c5.4xlarge"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Analysis = a
	return r
}

// Every renderer shows the bill item by item, its total and what it leaves out.
func TestBillRendered(t *testing.T) {
	r := billed(t)
	var md, html, text bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteAnalysisText(&text, r, r.Analysis); err != nil {
		t.Fatal(err)
	}
	golden(t, "bill-i3-16xlarge.md", md.Bytes())
	for _, w := range []string{"### Cost breakdown", "| instances | i3.16xlarge | 3 | $4.992/h | $14.976 | $10,932.48 | on-demand |",
		"| storage | gp3:2TiB:6000iops:250MBps | 3 | $183.84/month | $0.755507 | $551.52 | 2,048 GiB x $0.08 + 3,000 IOPS x $0.005 + 125 MB/s x $0.04 a month per node, above the free baseline |",
		"| network | cross-zone traffic | 1 | $0.02/GB |", "estimated:", "x 2 copies across zones (RF 3 over 3 zones)",
		"| loaders | c5.4xlarge | 1 | $0.68/h | $0.68 | $496.40 | on-demand |", "| total |",
		"Not priced: support, backups and snapshots", "Storage price from AWS EBS pricing"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("markdown lacks %q", w)
		}
	}
	for _, w := range []string{"Cost breakdown", "gp3:2TiB:6000iops:250MBps", "cross-zone traffic", "c5.4xlarge", "Not priced: support"} {
		if !strings.Contains(html.String(), w) {
			t.Errorf("html lacks %q", w)
		}
	}
	for _, w := range []string{"storage     : 3 x gp3:2TiB:6000iops:250MBps at $183.84/month = $0.755507/h, $551.52/month",
		"network     : 1 x cross-zone traffic at $0.02/GB", "loaders     : 1 x c5.4xlarge at $0.68/h", "bill        : $", "not priced  : support"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, text.String())
		}
	}
}

// A result analysed before the bill had items (an older file's stored
// analysis) still renders: its bill is the instances, and the rest is named.
func TestBillOfOlderFile(t *testing.T) {
	c := &result.Cost{InstanceType: "i3.2xlarge", PricePerHourUSD: 0.624, Nodes: 3, ClusterPerHourUSD: 1.872, MonthlyUSD: 1366.56, OpsPerUSD: 1, USDPerMillionOps: 1}
	s := billSection(c)
	var b bytes.Buffer
	s.t.markdown(&b)
	if !strings.Contains(b.String(), "| instances | i3.2xlarge | 3 | $0.624/h | $1.872 | $1,366.56 |") || !strings.Contains(strings.Join(s.notes, " "), "analysed before platbench priced them") {
		t.Errorf("older bill:\n%s\n%q", b.String(), s.notes)
	}
}

// A comparison shows each run's bill by component and warns when the runs
// priced different components.
func TestCompareBills(t *testing.T) {
	c, err := Compare([]*result.Result{analysed(t, "i3-16xlarge"), billed(t)}, CompareOptions{Files: []string{"a.json", "b.json"}, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompareText(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Bill: storage per month", "$551.52", "Bill: network per month", "Bill: loaders per month", "Bill: total per month", "$13,656.04",
		"The bills differ:", "priced no storage"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("compare lacks %q:\n%s", w, b.String())
		}
	}
}

// A network item says whether it was measured or estimated, with its figures.
func TestNetworkHow(t *testing.T) {
	m := &result.NetworkCost{Basis: result.NetMeasured, RF: 3, Zones: 3, NodeTxBytesPerS: 90 << 20, CrossZoneBytesPerS: 60 << 20, PerGBUSD: 0.02}
	if got, want := networkHow(m), "measured: the nodes sent 90.0 MiB/s (node_exporter) x 2/3 to other zones = 60.0 MiB/s across"; got != want {
		t.Errorf("measured: %q, want %q", got, want)
	}
	e := &result.NetworkCost{Basis: result.NetEstimated, RF: 3, Zones: 2, CrossZoneCopies: 1, WriteBytesPerS: 10 << 20, ClientBytesPerS: 20 << 20, CrossZoneBytesPerS: 20 << 20}
	if got, want := networkHow(e), "estimated: 10.0 MiB/s written x 1 copies across zones (RF 3 over 2 zones) + 20.0 MiB/s client payload x 1/2 = 20.0 MiB/s across"; got != want {
		t.Errorf("estimated: %q, want %q", got, want)
	}
}
