package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/platbench/platbench/catalog"
)

// catalogRows are two hand-made rows: an embedded one whose source is long
// enough to be cut (in the middle of a multi-byte character at the cut, so
// the cut must count runes), and one from a user's file with aliases.
func catalogRows() []catalog.Instance {
	return []catalog.Instance{
		{Provider: "aws", Type: "i3.2xlarge", Arch: "x86_64", VCPUs: 8, RAMGiB: 61, LocalStorage: "1x1900 GB NVMe", PricePerHourUSD: 0.624,
			Region: "us-east-1", PriceDate: "2017", Source: strings.Repeat("é", 76) + "ééééé tail", File: "embedded"},
		{Provider: "gcp", Type: "c4a-standard-1", Arch: "arm64", VCPUs: 1, RAMGiB: 4, LocalStorage: "PD only", PricePerHourUSD: 0.04492,
			Region: "us-central1", PriceDate: "2024", Source: "list", Aliases: []string{"c4a-1", "c4a.small"}, File: "mine.csv"},
	}
}

func TestCatalogText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCatalogText(&b, catalogRows(), []int{3, 9}); err != nil {
		t.Fatal(err)
	}
	golden(t, "catalog.txt", b.Bytes())
	out := b.String()
	// The DataStax report's Table 3: 0.624 $/h is $455.52 a month per node,
	// $1,366.56 for 3 and $4,099.68 for 9.
	for _, want := range []string{"$0.624", "$455.52", "$1,366.56", "$4,099.68", "$0.04492", "[mine.csv] list", strings.Repeat("é", 77) + "...", "2 instance types;"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// The CSV is what catalog.Parse reads: every row comes back with the same
// figures, whole source and aliases.
func TestCatalogCSVRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCatalogCSV(&b, catalogRows()); err != nil {
		t.Fatal(err)
	}
	golden(t, "catalog.csv", b.Bytes())
	c, err := catalog.Parse(&b, "out.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range catalogRows() {
		got, err := c.Lookup(want.Type)
		if err != nil {
			t.Fatal(err)
		}
		if got.PricePerHourUSD != want.PricePerHourUSD || got.RAMGiB != want.RAMGiB || got.VCPUs != want.VCPUs || got.Source != want.Source ||
			strings.Join(got.Aliases, "|") != strings.Join(want.Aliases, "|") {
			t.Errorf("round trip of %s: got %+v", want.Type, got)
		}
	}
}
