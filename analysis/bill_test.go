package analysis

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

func mustStorage(t *testing.T, s string) catalog.StorageSpec {
	t.Helper()
	sp, err := catalog.ParseStorage(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// Each volume by hand from the catalog's rows.
func TestStorageMonthlyUSD(t *testing.T) {
	cat, _ := catalog.Default()
	cases := []struct {
		spec    string
		want    float64
		ignored string
	}{
		// 2048 GiB x $0.08 + (6000-3000) IOPS x $0.005 + (250-125) MB/s x $0.04 = 163.84 + 15 + 5
		{"gp3:2TiB:6000iops:250MBps", 183.84, ""},
		// Within the free baseline: the size alone.
		{"gp3:500GiB:3000iops:100MBps", 40, ""},
		// io1 charges every IOPS: 500 x $0.125 + 10000 x $0.065 = 62.5 + 650
		{"io1:500GiB:10000iops", 712.5, ""},
		// gp2's IOPS come with its size: 1024 x $0.10, the IOPS ignored and said so.
		{"gp2:1TiB:5000iops", 102.4, "gp2 does not price provisioned IOPS"},
		// 100 GiB x $0.17
		{"pd-ssd:100GiB", 17, ""},
		// 1024 x $0.0812 + 2000 x $0.00497 + 75 x $0.0406 = 83.1488 + 9.94 + 3.045
		{"premium-ssd-v2:1TiB:5000iops:200MBps", 96.1338, ""},
	}
	for _, tc := range cases {
		sp := mustStorage(t, tc.spec)
		v, err := cat.LookupVolume(sp.Type)
		if err != nil {
			t.Fatal(err)
		}
		got, _, ignored := StorageMonthlyUSD(v, sp)
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: $%v a month, want $%v", tc.spec, got, tc.want)
		}
		if tc.ignored != "" && !strings.Contains(strings.Join(ignored, ";"), tc.ignored) || tc.ignored == "" && len(ignored) > 0 {
			t.Errorf("%s: ignored %q, want %q", tc.spec, ignored, tc.ignored)
		}
	}
}

func TestCrossZoneCopies(t *testing.T) {
	for _, tc := range []struct{ rf, zones, want int }{
		{3, 3, 2}, // one replica per zone: every other copy crosses
		{3, 1, 0}, // one zone: none
		{3, 2, 1}, // two replicas share the coordinator's zone
		{3, 6, 2}, // more zones than replicas: still one per zone
		{5, 3, 3}, // zones hold 2, 2, 1: the coordinator's zone holds 2
		{1, 3, 0}, // no replication
		{2, 2, 1},
	} {
		if got := crossZoneCopies(tc.rf, tc.zones); got != tc.want {
			t.Errorf("RF %d over %d zones: %d copies cross, want %d", tc.rf, tc.zones, got, tc.want)
		}
	}
}

// insertRun is 10,000 INSERTs/s of 1000-byte records for 4 s, no bytes recorded.
func insertRun() *result.Result {
	r := resultOf(phaseOf(map[string][]float64{"INSERT": {10000, 10000, 10000, 10000}}, "INSERT"))
	r.Dataset.RecordBytes = 1000
	return r
}

// TestWholeBill checks every item of a bill by hand: 3 x i3.4xlarge, a gp3
// volume each, three zones at RF 3, one c5.4xlarge loader.
func TestWholeBill(t *testing.T) {
	o := Options{Warmup: "0", Platform: "i3.4xlarge", Nodes: 3,
		Bill: Bill{Storage: mustStorage(t, "gp3:2TiB:6000iops:250MBps"), Zones: 3, RF: 3, LoaderInstance: "c5.4xlarge"}}
	a, err := Analyze(insertRun(), o)
	if err != nil {
		t.Fatal(err)
	}
	c := a.Cost
	if len(c.Items) != 4 {
		t.Fatalf("items %+v", c.Items)
	}
	// Instances: 3 x $1.248 = $3.744/h, $2,733.12 a month (unchanged).
	in := c.Items[0]
	if in.Component != result.CostInstances || !near(in.PerHourUSD, 3.744) || in.MonthlyUSD != 2733.12 || c.MonthlyUSD != 2733.12 {
		t.Errorf("instances %+v", in)
	}
	// Storage: 3 x $183.84 = $551.52 a month, $0.75551/h.
	st := c.Items[1]
	if st.Component != result.CostStorage || st.Count != 3 || st.MonthlyUSD != 551.52 || !near(st.PerHourUSD, 551.52/730) || st.Name != "gp3:2TiB:6000iops:250MBps" {
		t.Errorf("storage %+v", st)
	}
	// Network: 10 MB/s written x 2 copies across + 10 MB/s of client
	// payload x 2/3 = 26.667 MB/s = 96 GB/h x $0.02 = $1.92/h, $1,401.60 a month.
	nw := c.Items[2]
	if nw.Component != result.CostNetwork || nw.Network.Basis != result.NetEstimated || !near(nw.Network.CrossZoneBytesPerS, 80e6/3) ||
		!near(nw.PerHourUSD, 1.92) || nw.MonthlyUSD != 1401.6 || nw.Network.RF != 3 || nw.Network.Zones != 3 {
		t.Errorf("network %+v %+v", nw, nw.Network)
	}
	// Loaders: one c5.4xlarge at $0.68/h, $496.40 a month.
	ld := c.Items[3]
	if ld.Component != result.CostLoaders || ld.Count != 1 || !near(ld.PerHourUSD, 0.68) || ld.MonthlyUSD != 496.4 {
		t.Errorf("loaders %+v", ld)
	}
	total := 3.744 + 551.52/730 + 1.92 + 0.68
	if !near(c.TotalPerHourUSD, total) || c.TotalMonthlyUSD != 2733.12+551.52+1401.6+496.4 || !near(c.OpsPerUSD, 36e6/total) || !near(c.USDPerMillionOps, total/36) {
		t.Errorf("totals %+v", c)
	}
	if len(c.NotPriced) != 1 || !strings.Contains(c.NotPriced[0], "support") {
		t.Errorf("not priced %q", c.NotPriced)
	}
	// A merged result of four loaders prices four.
	r := insertRun()
	r.Loaders = make([]result.Loader, 4)
	a, _ = Analyze(r, o)
	if ld := a.Cost.Items[3]; ld.Count != 4 || ld.MonthlyUSD != 1985.6 {
		t.Errorf("4 loaders %+v", ld)
	}
}

// Without storage, zones or loaders the bill is the instances, as before,
// and names what it leaves out.
func TestBillNamesWhatIsNotPriced(t *testing.T) {
	a, err := Analyze(insertRun(), Options{Warmup: "0", Platform: "i3.4xlarge", Nodes: 3})
	if err != nil {
		t.Fatal(err)
	}
	c := a.Cost
	if len(c.Items) != 1 || !near(c.TotalPerHourUSD, c.ClusterPerHourUSD) || !near(c.OpsPerUSD, 36e6/3.744) {
		t.Errorf("instances only %+v", c)
	}
	all := strings.Join(c.NotPriced, "; ")
	for _, w := range []string{"storage volumes", "cross-zone network transfer (give the zones", "load generators (give their instance type)", "support"} {
		if !strings.Contains(all, w) {
			t.Errorf("not priced %q lacks %q", all, w)
		}
	}
	// One zone: no cross-zone traffic, priced at zero.
	a, _ = Analyze(insertRun(), Options{Warmup: "0", Platform: "i3.4xlarge", Nodes: 3, Bill: Bill{Zones: 1}})
	if nw := a.Cost.Items[1]; nw.Component != result.CostNetwork || nw.PerHourUSD != 0 {
		t.Errorf("one zone %+v", nw)
	}
	// A price given directly has no provider: network is named, not guessed.
	a, _ = Analyze(insertRun(), Options{Warmup: "0", PricePerHour: 1, Nodes: 3, Bill: Bill{Zones: 3}})
	if len(a.Cost.Items) != 1 || !strings.Contains(strings.Join(a.Cost.NotPriced, ";"), "provider is unknown") {
		t.Errorf("no provider %+v", a.Cost)
	}
	// io1 without IOPS says they were not priced.
	a, _ = Analyze(insertRun(), Options{Warmup: "0", Platform: "i3.4xlarge", Bill: Bill{Storage: mustStorage(t, "io1:100GiB")}})
	if !strings.Contains(strings.Join(a.Cost.NotPriced, ";"), "io1:100GiB:10000iops") {
		t.Errorf("io1 without IOPS: %q", a.Cost.NotPriced)
	}
	// An unknown volume type is a storage field error.
	_, err = Analyze(insertRun(), Options{Warmup: "0", Platform: "i3.4xlarge", Bill: Bill{Storage: catalog.StorageSpec{Type: "gp9", Bytes: 1 << 30}}})
	var ue *usererr.Error
	if !errors.As(err, &ue) || ue.Field != "storage" {
		t.Errorf("unknown volume: %v", err)
	}
	if err := (&Options{Bill: Bill{Zones: -1, RF: -2}}).Validate(); err == nil || !strings.Contains(err.Error(), "zones") || !strings.Contains(err.Error(), "rf") {
		t.Errorf("negative zones and rf: %v", err)
	}
}

// Node telemetry replaces the estimate: the nodes' transmitted bytes x
// (zones-1)/zones.
func TestNetworkMeasuredByNodes(t *testing.T) {
	r := insertRun()
	for _, n := range []string{"a", "b", "c"} {
		s := result.NodeSeries{Node: n, IntervalNs: 1e9}
		for i := range 4 {
			s.Samples = append(s.Samples, result.NodeSample{OffsetNs: int64(i) * 1e9, DurationNs: 1e9,
				Nets: map[string]result.NodeNetIO{"eth0": {TxBytes: 30e6, RxBytes: 30e6, TxPackets: 1, RxPackets: 1}}})
		}
		r.Nodes = append(r.Nodes, s)
	}
	a, err := Analyze(r, Options{Warmup: "0", Platform: "i3.4xlarge", Nodes: 3, Bill: Bill{Zones: 3}})
	if err != nil {
		t.Fatal(err)
	}
	// 3 x 30 MB/s transmitted, 2/3 of it to other zones: 60 MB/s = 216 GB/h x $0.02 = $4.32/h.
	nw := a.Cost.Items[1]
	if nw.Network == nil || nw.Network.Basis != result.NetMeasured || !near(nw.Network.NodeTxBytesPerS, 90e6) || !near(nw.PerHourUSD, 4.32) {
		t.Errorf("measured %+v %+v", nw, nw.Network)
	}
}

// A plan prices the planned cluster's whole bill: the instances, a volume per
// node, and the cross-zone traffic per op scaled to the target throughput.
func TestPlanWholeBill(t *testing.T) {
	// 3 x i3.2xlarge: 90k READs/s of 1000-byte records at p99 5 ms.
	r := cluster("i3.2xlarge", 3, measuredPhase("run", 90000, 5*time.Millisecond))
	r.Dataset.RecordBytes = 1000
	o := PlanOptions{ThroughputOpsPerS: 500000, P99: 10 * time.Millisecond,
		Bill: Bill{Storage: mustStorage(t, "gp3:1TiB"), Zones: 3}}
	rep, err := Plan([]PlanInput{{File: "small.json", Result: r}}, o)
	if err != nil {
		t.Fatal(err)
	}
	row := rep.Rows[0]
	// 18 nodes: 18 x $0.624 x 730 = $8,199.36; 18 x 1024 GiB x $0.08 = $1,474.56;
	// reads are client payload only: 1000 B/op x 2/3 across x 500k ops/s =
	// 333.3 MB/s = 1200 GB/h x $0.02 = $24/h = $17,520 a month.
	if row.Nodes != 18 || len(row.Bill) != 3 {
		t.Fatalf("row %+v", row)
	}
	for i, want := range []float64{8199.36, 1474.56, 17520} {
		if row.Bill[i].MonthlyUSD != want {
			t.Errorf("%s: $%v a month, want $%v", row.Bill[i].Component, row.Bill[i].MonthlyUSD, want)
		}
	}
	if row.MonthlyUSD != 8199.36+1474.56+17520 || !strings.Contains(strings.Join(row.NotPriced, ";"), "load generators") {
		t.Errorf("monthly %v, not priced %q", row.MonthlyUSD, row.NotPriced)
	}
	for _, a := range rep.Assumptions {
		if strings.Contains(a, "are not included") {
			t.Errorf("assumption still says the bill is the instances: %q", a)
		}
	}
}

// Seed 003's storage question, priced: three EBS-backed r4.2xlarge with a
// 1,900 GiB volume each against three i3.2xlarge whose 1,900 GB NVMe is in
// their price (docs/cost.md). By hand: r4.2xlarge $0.532 x 730 = $388.36 a
// node; io1 1900 x $0.125 + 10000 x $0.065 = $887.50 a volume; gp2 1900 x
// $0.10 = $190.
func TestSeed003StorageChoice(t *testing.T) {
	for _, tc := range []struct {
		platform, storage string
		want              float64
	}{
		{"r4.2xlarge", "io1:1900GiB:10000iops", 3*388.36 + 3*887.5},
		{"r4.2xlarge", "gp2:1900GiB", 3*388.36 + 3*190},
		{"i3.2xlarge", "", 1366.56},
	} {
		o := Options{Warmup: "0", Platform: tc.platform, Nodes: 3}
		if tc.storage != "" {
			o.Storage = mustStorage(t, tc.storage)
		}
		a, err := Analyze(insertRun(), o)
		if err != nil {
			t.Fatal(err)
		}
		if !near(a.Cost.TotalMonthlyUSD, tc.want) {
			t.Errorf("%s %s: $%v a month, want $%v", tc.platform, tc.storage, a.Cost.TotalMonthlyUSD, tc.want)
		}
	}
}
