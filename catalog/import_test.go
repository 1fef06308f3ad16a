package catalog

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/usererr"
)

func importFixture(t *testing.T, name, region string) (*Catalog, error) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "import", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Import(f, name, region)
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The AWS offer file fixture follows the documented format: instances (Linux,
// shared, on-demand only), EBS size, IOPS (io2's first tier) and throughput
// (per GiBps-month in the file), and intra-region transfer.
func TestImportAWSOfferFile(t *testing.T) {
	c, err := importFixture(t, "aws-offer.json", "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Instances) != 2 || len(c.Volumes) != 2 || len(c.Transfers) != 1 {
		t.Fatalf("rows: %d instances, %d volumes, %d transfers", len(c.Instances), len(c.Volumes), len(c.Transfers))
	}
	in, err := c.Lookup("i3.xlarge")
	if err != nil || in.PricePerHourUSD != 0.312 || in.Arch != "x86_64" || in.VCPUs != 4 || in.RAMGiB != 30.5 || in.LocalStorage != "1 x 950 NVMe SSD" ||
		in.Region != "us-east-1" || in.PriceDate != "2024-05-01" || !strings.Contains(in.Source, "SKUI3XL") || !strings.Contains(in.Source, "aws-offer.json") {
		t.Errorf("i3.xlarge: %+v %v", in, err)
	}
	if in, _ := c.Lookup("m7g.xlarge"); in.Arch != "arm64" || in.PricePerHourUSD != 0.1632 {
		t.Errorf("m7g.xlarge: %+v", in)
	}
	gp3, _ := c.LookupVolume("gp3")
	if gp3.PerGiBMonthUSD != 0.08 || gp3.PerIOPSMonthUSD != 0.005 || !approx(gp3.PerMBpsMonthUSD, 0.04) || gp3.FreeIOPS != 3000 || gp3.FreeMBps != 125 ||
		!strings.Contains(gp3.Source, "SKUGP3") || !strings.Contains(gp3.Source, "free baseline from platbench's embedded catalog") {
		t.Errorf("gp3: %+v", gp3)
	}
	if io2, _ := c.LookupVolume("io2"); io2.PerIOPSMonthUSD != 0.065 || io2.PerGiBMonthUSD != 0.125 {
		t.Errorf("io2: %+v", io2)
	}
	if tr, ok := c.TransferPrice("aws", CrossZone); !ok || tr.PerGBUSD != 0.02 || !strings.Contains(tr.Source, "billed out and in") {
		t.Errorf("transfer: %+v", tr)
	}
	// The other region of the same file.
	c, err = importFixture(t, "aws-offer.json", "eu-west-1")
	if err != nil || len(c.Instances) != 1 || c.Instances[0].PricePerHourUSD != 0.344 {
		t.Errorf("eu-west-1: %+v %v", c, err)
	}
}

func TestImportGCPSKUs(t *testing.T) {
	c, err := importFixture(t, "gcp-skus.json", "us-central1")
	if err != nil {
		t.Fatal(err)
	}
	ssd, _ := c.LookupVolume("pd-ssd")
	bal, _ := c.LookupVolume("pd-balanced")
	hd, _ := c.LookupVolume("hyperdisk-balanced")
	if ssd.PerGiBMonthUSD != 0.17 || bal.PerGiBMonthUSD != 0.10 || hd.PerGiBMonthUSD != 0.08 || hd.PerIOPSMonthUSD != 0.005 || hd.FreeIOPS != 3000 ||
		ssd.PriceDate != "2024-05-02" || !strings.Contains(ssd.Source, "SKU-PDSSD") || strings.Contains(ssd.Source, "COMMIT") {
		t.Errorf("volumes: %+v %+v %+v", ssd, bal, hd)
	}
	// $0.01 per GiB is $0.00931 per GB (1e9 bytes).
	if tr, ok := c.TransferPrice("gcp", CrossZone); !ok || !approx(tr.PerGBUSD, 0.01/1.073741824) {
		t.Errorf("transfer: %+v", tr)
	}
}

func TestImportAzureRetailPrices(t *testing.T) {
	c, err := importFixture(t, "azure-retail.json", "")
	if err != nil {
		t.Fatal(err)
	}
	l8, err := c.Lookup("standard_l8s_v3")
	if err != nil || l8.PricePerHourUSD != 0.624 || l8.Arch != "x86_64" || l8.PriceDate != "2024-04-01" {
		t.Errorf("L8s v3 (pay as you go, Linux, not spot): %+v %v", l8, err)
	}
	if d8, _ := c.Lookup("Standard_D8ps_v5"); d8.Arch != "arm64" || d8.PricePerHourUSD != 0.308 {
		t.Errorf("D8ps v5: %+v", d8)
	}
	// Per hour x 730: 0.000111233 x 730 per GiB-month.
	v, _ := c.LookupVolume("premium-ssd-v2")
	if !approx(v.PerGiBMonthUSD, 0.000111233*730) || !approx(v.PerIOPSMonthUSD, 0.0000068*730) || !approx(v.PerMBpsMonthUSD, 0.0000556*730) || v.FreeIOPS != 3000 {
		t.Errorf("premium ssd v2: %+v", v)
	}
}

// Malformed files: one line naming the file and the record, wrapping ErrMalformed.
func TestImportMalformed(t *testing.T) {
	aws, _ := os.ReadFile(filepath.Join("testdata", "import", "aws-offer.json"))
	cases := []struct{ name, data, region, want string }{
		{"empty", "", "", "empty file"},
		{"not an object", "[1,2]", "", "not a JSON object"},
		{"truncated", string(aws[:len(aws)/2]), "us-east-1", "the file ends early"},
		{"syntax", `{"products": {"A": {"sku": "A",, }}}`, "", "not JSON at byte"},
		{"unknown format", `{"hello": 1}`, "", "not a price file platbench knows"},
		{"bad price", strings.Replace(string(aws), `"0.3120000000"`, `"cheap"`, 1), "us-east-1", `x.json: SKU SKUI3XL rate SKUI3XL.JRTCKXETXF.6YS6EN2CT7: pricePerUnit USD "cheap"`},
		{"no rows for the region", string(aws), "ap-south-1", "no on-demand instance, volume or transfer price for region ap-south-1"},
		{"azure in euros", `{"Items": [{"currencyCode": "EUR", "retailPrice": 1, "type": "Consumption", "productName": "Azure Premium SSD v2", "meterName": "Capacity"}]}`, "", `Items[0] (Azure Premium SSD v2 Capacity): prices in "EUR"`},
		{"gcp wrong type", `{"skus": [{"skuId": 5}]}`, "", "skus[0]"},
	}
	for _, tc := range cases {
		_, err := Import(strings.NewReader(tc.data), "x.json", tc.region)
		if !errors.Is(err, ErrMalformed) || !usererr.Is(err) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "x.json") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want one line about x.json containing %q", tc.name, err, tc.want)
		}
	}
	var ue *usererr.Error
	if _, err := Import(strings.NewReader(string(aws)), "x.json", ""); !errors.As(err, &ue) || ue.Field != "region" || !strings.Contains(err.Error(), "x.json prices 2 regions (eu-west-1, us-east-1)") {
		t.Errorf("several regions: %v, want a region field error", err)
	}
}

// fuzzImport checks one importer on arbitrary input: no panic; an error is
// one line wrapping ErrMalformed (or asking for a region); accepted rows are priced and findable.
func fuzzImport(f *testing.F, fixture string, seeds ...string) {
	data, err := os.ReadFile(filepath.Join("testdata", "import", fixture))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Import(strings.NewReader(s), "fuzz.json", "")
		if err != nil {
			var ue *usererr.Error
			if !errors.Is(err, ErrMalformed) && !(errors.As(err, &ue) && ue.Field == "region") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line wrapping ErrMalformed, or the region field's", err)
			}
			return
		}
		for _, in := range c.Instances {
			if in.Type == "" || !(in.PricePerHourUSD > 0) {
				t.Fatalf("accepted instance %+v", in)
			}
		}
		for _, v := range c.Volumes {
			if _, err := c.LookupVolume(v.Type); err != nil || !(v.PerGiBMonthUSD > 0) {
				t.Fatalf("accepted volume %+v", v)
			}
		}
		for _, tr := range c.Transfers {
			if !(tr.PerGBUSD >= 0) {
				t.Fatalf("accepted transfer %+v", tr)
			}
		}
	})
}

func FuzzImportAWS(f *testing.F) {
	fuzzImport(f, "aws-offer.json", `{"products":{"A":{"productFamily":"Storage","attributes":{"regionCode":"r","volumeApiName":"v"}}},"terms":{"OnDemand":{"A":{"x":{"priceDimensions":{"d":{"unit":"GB-Mo","pricePerUnit":{"USD":"1"}}}}}}}}`)
}

func FuzzImportGCP(f *testing.F) {
	fuzzImport(f, "gcp-skus.json", `{"skus":[{"skuId":"a","description":"SSD backed PD Capacity","category":{"usageType":"OnDemand"},"serviceRegions":["r"],"pricingInfo":[{"pricingExpression":{"tieredRates":[{"unitPrice":{"currencyCode":"USD","units":"1","nanos":5}}]}}]}]}`)
}

func FuzzImportAzure(f *testing.F) {
	fuzzImport(f, "azure-retail.json", `{"Items":[{"currencyCode":"USD","retailPrice":1,"type":"Consumption","serviceName":"Virtual Machines","unitOfMeasure":"1 Hour","armSkuName":"S","armRegionName":"r"}]}`)
}
