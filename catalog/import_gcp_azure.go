package catalog

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// GCP's Cloud Billing Catalog API, services.skus.list
// (cloud.google.com/billing/docs/reference/rest/v1/services.skus/list):
//
//	{"skus": [{"skuId", "description", "category": {"resourceFamily",
//	  "resourceGroup", "usageType"}, "serviceRegions": [...],
//	  "pricingInfo": [{"effectiveTime", "pricingExpression": {"usageUnit",
//	  "tieredRates": [{"startUsageAmount", "unitPrice": {"currencyCode",
//	  "units", "nanos"}}]}}]}], "nextPageToken"}

type gcpSKU struct {
	SkuID       string `json:"skuId"`
	Description string `json:"description"`
	Category    struct {
		ResourceFamily string `json:"resourceFamily"`
		UsageType      string `json:"usageType"`
	} `json:"category"`
	ServiceRegions []string `json:"serviceRegions"`
	PricingInfo    []struct {
		EffectiveTime     string `json:"effectiveTime"`
		PricingExpression struct {
			UsageUnit   string `json:"usageUnit"`
			TieredRates []struct {
				StartUsageAmount float64 `json:"startUsageAmount"`
				UnitPrice        struct {
					CurrencyCode string      `json:"currencyCode"`
					Units        json.Number `json:"units"`
					Nanos        int64       `json:"nanos"`
				} `json:"unitPrice"`
			} `json:"tieredRates"`
		} `json:"pricingExpression"`
	} `json:"pricingInfo"`
}

// gcpParts maps a SKU description (its start, lower case) to the volume
// type and the part of its price, or to "transfer".
var gcpParts = []struct{ prefix, typ, part string }{
	{"balanced pd capacity", "pd-balanced", "volume"},
	{"ssd backed pd capacity", "pd-ssd", "volume"},
	{"hyperdisk balanced capacity", "hyperdisk-balanced", "volume"},
	{"hyperdisk balanced iops", "hyperdisk-balanced", "iops"},
	{"hyperdisk balanced throughput", "hyperdisk-balanced", "throughput"},
	{"network inter zone egress", "", "transfer"},
	{"network inter zone data transfer", "", "transfer"},
}

// gcpSKU reads one SKU of the list.
func (imp *importer) gcpSKU(dec *json.Decoder, i int) error {
	var s gcpSKU
	if err := dec.Decode(&s); err != nil {
		return imp.recordErr(dec, fmt.Sprintf("skus[%d]", i), err)
	}
	desc := strings.ToLower(s.Description)
	var typ, part string
	for _, p := range gcpParts {
		if strings.HasPrefix(desc, p.prefix) {
			typ, part = p.typ, p.part
		}
	}
	if part == "" || s.Category.UsageType != "OnDemand" || len(s.PricingInfo) == 0 {
		return nil
	}
	region := ""
	for _, r := range s.ServiceRegions {
		if imp.wanted(r) {
			region = r
		}
	}
	if region == "" {
		return nil
	}
	pi := s.PricingInfo[0]
	usd, ok := -1.0, false
	for _, t := range pi.PricingExpression.TieredRates {
		if t.UnitPrice.CurrencyCode != "" && t.UnitPrice.CurrencyCode != "USD" {
			return imp.bad("SKU "+s.SkuID, "prices in %s (fix: ask the API for currencyCode=USD)", t.UnitPrice.CurrencyCode)
		}
		units, err := strconv.ParseFloat(string(t.UnitPrice.Units), 64)
		if string(t.UnitPrice.Units) == "" {
			units, err = 0, nil
		}
		v := units + float64(t.UnitPrice.Nanos)/1e9
		if err != nil || v < 0 || v > 1e6 {
			return imp.bad("SKU "+s.SkuID, "unitPrice %q units %d nanos is not a price in dollars", t.UnitPrice.Units, t.UnitPrice.Nanos)
		}
		if !ok || usd == 0 {
			usd, ok = v, true
		}
	}
	if !ok {
		return nil
	}
	src := fmt.Sprintf("GCP Cloud Billing Catalog %s, SKU %s (%s)", imp.name, s.SkuID, s.Description)
	imp.gcpPrice(typ, part, region, usd, pi.PricingExpression.UsageUnit, dateOf(pi.EffectiveTime), src)
	return nil
}

// gcpPrice adds one price to its volume or transfer row.
func (imp *importer) gcpPrice(typ, part, region string, usd float64, unit, date, src string) {
	if part == "transfer" {
		// Priced per GiB ("GiBy"); the catalog prices per GB (1e9 bytes).
		if strings.HasPrefix(unit, "GiBy") {
			usd /= 1.073741824
		}
		imp.out.Transfers = append(imp.out.Transfers, Transfer{Provider: "gcp", Kind: CrossZone, PerGBUSD: usd, Region: region, PriceDate: date, Source: src, File: imp.name})
		return
	}
	v := imp.volume("gcp", typ, region, date)
	switch part {
	case "volume":
		v.PerGiBMonthUSD = usd
		v.Source = joinSource(src, v.Source)
	case "iops":
		v.PerIOPSMonthUSD = usd
	case "throughput":
		v.PerMBpsMonthUSD = usd
	}
}

// volume is the row of a volume type being imported, made on first use
// with the embedded catalog's free baseline.
func (imp *importer) volume(provider, typ, region, date string) *Volume {
	for i := range imp.out.Volumes {
		if imp.out.Volumes[i].Type == typ {
			return &imp.out.Volumes[i]
		}
	}
	v := Volume{Provider: provider, Type: typ, Region: region, PriceDate: date, File: imp.name}
	if iops, mbps, ok := freeBaseline(typ); ok {
		v.FreeIOPS, v.FreeMBps = iops, mbps
		v.Source = "free baseline from platbench's embedded catalog"
	}
	imp.out.Volumes = append(imp.out.Volumes, v)
	return &imp.out.Volumes[len(imp.out.Volumes)-1]
}

func joinSource(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

// Azure's Retail Prices API (learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices):
//
//	{"BillingCurrency", "CustomerEntityType", "Items": [{"currencyCode",
//	 "retailPrice", "armRegionName", "effectiveStartDate", "meterName",
//	 "productName", "skuName", "serviceName", "unitOfMeasure", "type",
//	 "armSkuName"}], "NextPageLink", "Count"}

type azureItem struct {
	CurrencyCode       string  `json:"currencyCode"`
	RetailPrice        float64 `json:"retailPrice"`
	ArmRegionName      string  `json:"armRegionName"`
	EffectiveStartDate string  `json:"effectiveStartDate"`
	MeterName          string  `json:"meterName"`
	ProductName        string  `json:"productName"`
	SkuName            string  `json:"skuName"`
	ServiceName        string  `json:"serviceName"`
	UnitOfMeasure      string  `json:"unitOfMeasure"`
	Type               string  `json:"type"`
	ArmSkuName         string  `json:"armSkuName"`
	MeterID            string  `json:"meterId"`
}

// azureArm tells Arm sizes by the "p" in their size: Standard_D8ps_v5.
var azureArm = regexp.MustCompile(`^Standard_[A-Za-z]+[0-9]+[a-oq-z]*p[a-z]*_`)

// azureItem reads one item of the response.
func (imp *importer) azureItem(dec *json.Decoder, i int) error {
	var it azureItem
	if err := dec.Decode(&it); err != nil {
		return imp.recordErr(dec, fmt.Sprintf("Items[%d]", i), err)
	}
	if it.Type != "Consumption" || math.IsNaN(it.RetailPrice) {
		return nil
	}
	rec := fmt.Sprintf("Items[%d] (%s %s)", i, it.ProductName, it.MeterName)
	if it.CurrencyCode != "USD" {
		return imp.bad(rec, "prices in %q (fix: ask the API for currencyCode='USD')", it.CurrencyCode)
	}
	if it.RetailPrice < 0 || it.RetailPrice > 1e6 {
		return imp.bad(rec, "retailPrice %v is not a price in dollars", it.RetailPrice)
	}
	vm := it.ServiceName == "Virtual Machines" && it.UnitOfMeasure == "1 Hour" && it.ArmSkuName != "" &&
		!strings.Contains(it.ProductName, "Windows") && !strings.Contains(it.SkuName, "Spot") && !strings.Contains(it.SkuName, "Low Priority")
	ssd := strings.Contains(it.ProductName, "Premium SSD v2")
	if !vm && !ssd || !imp.wanted(it.ArmRegionName) {
		return nil
	}
	src := fmt.Sprintf("Azure Retail Prices %s, meter %s (%s, %s)", imp.name, it.MeterID, it.ProductName, it.MeterName)
	date := dateOf(it.EffectiveStartDate)
	if vm {
		if it.RetailPrice > 0 {
			arch := "x86_64"
			if azureArm.MatchString(it.ArmSkuName) {
				arch = "arm64"
			}
			imp.out.Instances = append(imp.out.Instances, Instance{Provider: "azure", Type: it.ArmSkuName, Arch: arch, PricePerHourUSD: it.RetailPrice,
				Region: it.ArmRegionName, PriceDate: date, Source: src, File: imp.name})
		}
		return nil
	}
	// Premium SSD v2 meters are per hour (capacity per GiB-hour): x 730 a month.
	monthly := it.RetailPrice
	if strings.Contains(it.UnitOfMeasure, "Hour") {
		monthly *= HoursPerMonth
	}
	v := imp.volume("azure", "premium-ssd-v2", it.ArmRegionName, date)
	switch m := it.MeterName; {
	case strings.Contains(m, "Capacity"):
		v.PerGiBMonthUSD = monthly
		v.Source = joinSource(src, v.Source)
	case strings.Contains(m, "IOPS"):
		v.PerIOPSMonthUSD = monthly
	case strings.Contains(m, "Throughput"):
		v.PerMBpsMonthUSD = monthly
	}
	return nil
}
