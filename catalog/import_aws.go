package catalog

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// AWS's Price List offer file (docs.aws.amazon.com/awsaccountbilling/latest/
// aboutv2/reading-service-price-list-file-for-services.html):
//
//	{"formatVersion", "offerCode", "version", "publicationDate",
//	 "products": {SKU: {"sku", "productFamily", "attributes": {...}}},
//	 "terms": {"OnDemand": {SKU: {OFFERTERM: {"effectiveDate",
//	   "priceDimensions": {RATE: {"unit", "beginRange", "endRange",
//	   "pricePerUnit": {"USD": "0.312"}}}}}}, "Reserved": {...}}}

// awsProduct is a product the import keeps: what it prices, and where.
type awsProduct struct {
	kind   string // "instance", "volume", "iops", "throughput", "transfer"
	name   string // instance type or volume type; "" for transfer
	region string
	attrs  map[string]string
}

// awsPrice is one SKU's on-demand price: the first charged tier, and the
// top of a free first tier when there is one.
type awsPrice struct {
	usd, free float64
	unit      string
	date      string
}

type awsOffer struct {
	products map[string]awsProduct
	prices   map[string]awsPrice
}

func newAWSOffer() *awsOffer {
	return &awsOffer{products: map[string]awsProduct{}, prices: map[string]awsPrice{}}
}

// awsProductOf classifies a product; ok is false for the ones not imported.
func awsProductOf(family string, a map[string]string) (awsProduct, bool) {
	region := a["regionCode"]
	if region == "" {
		region = a["location"]
	}
	p := awsProduct{region: region, attrs: a}
	switch {
	case strings.HasPrefix(family, "Compute Instance"):
		if a["operatingSystem"] != "Linux" || a["tenancy"] != "Shared" || a["preInstalledSw"] != "NA" ||
			(a["capacitystatus"] != "" && a["capacitystatus"] != "Used") || a["instanceType"] == "" {
			return p, false
		}
		p.kind, p.name = "instance", a["instanceType"]
	case family == "Storage" && a["volumeApiName"] != "":
		p.kind, p.name = "volume", a["volumeApiName"]
	case family == "System Operation" && a["volumeApiName"] != "" && strings.Contains(a["usagetype"], "VolumeP-IOPS"):
		p.kind, p.name = "iops", a["volumeApiName"]
	case family == "Provisioned Throughput" && a["volumeApiName"] != "":
		p.kind, p.name = "throughput", a["volumeApiName"]
	case family == "Data Transfer" && a["transferType"] == "IntraRegion":
		p.kind, p.region = "transfer", a["fromRegionCode"]
		if p.region == "" {
			p.region = a["fromLocation"]
		}
	default:
		return p, false
	}
	return p, true
}

// awsProducts reads "products", keeping the products of the chosen region.
func (imp *importer) awsProducts(dec *json.Decoder) error {
	return imp.object(dec, func(dec *json.Decoder, sku string) error {
		var p struct {
			SKU           string            `json:"sku"`
			ProductFamily string            `json:"productFamily"`
			Attributes    map[string]string `json:"attributes"`
		}
		if err := dec.Decode(&p); err != nil {
			return imp.recordErr(dec, "product "+sku, err)
		}
		if ap, ok := awsProductOf(p.ProductFamily, p.Attributes); ok && imp.wanted(ap.region) {
			imp.aws.products[sku] = ap
		}
		return nil
	})
}

// awsTerms reads "terms": the OnDemand prices; other terms are skipped.
func (imp *importer) awsTerms(dec *json.Decoder) error {
	return imp.object(dec, func(dec *json.Decoder, termType string) error {
		if termType != "OnDemand" {
			if err := dec.Decode(new(json.RawMessage)); err != nil {
				return imp.recordErr(dec, "terms."+termType, err)
			}
			return nil
		}
		return imp.object(dec, func(dec *json.Decoder, sku string) error {
			var offers map[string]struct {
				EffectiveDate   string `json:"effectiveDate"`
				PriceDimensions map[string]struct {
					Unit         string            `json:"unit"`
					BeginRange   string            `json:"beginRange"`
					EndRange     string            `json:"endRange"`
					PricePerUnit map[string]string `json:"pricePerUnit"`
				} `json:"priceDimensions"`
			}
			if err := dec.Decode(&offers); err != nil {
				return imp.recordErr(dec, "terms of "+sku, err)
			}
			if _, known := imp.aws.products[sku]; !known && len(imp.aws.products) > 0 {
				return nil
			}
			for _, o := range offers {
				var tiers []awsTier
				for rate, d := range o.PriceDimensions {
					usd, err := strconv.ParseFloat(d.PricePerUnit["USD"], 64)
					if err != nil || usd < 0 || usd > 1e6 {
						return imp.bad(fmt.Sprintf("SKU %s rate %s", sku, rate), "pricePerUnit USD %q is not a price in dollars", d.PricePerUnit["USD"])
					}
					begin, _ := strconv.ParseFloat(d.BeginRange, 64)
					end, _ := strconv.ParseFloat(d.EndRange, 64) // "Inf" parses as +Inf
					tiers = append(tiers, awsTier{begin, end, usd, d.Unit})
				}
				if p, ok := firstTier(tiers); ok {
					p.date = dateOf(o.EffectiveDate)
					imp.aws.prices[sku] = p
				}
				break // one on-demand offer per SKU
			}
			return nil
		})
	})
}

type awsTier struct {
	begin, end, usd float64
	unit            string
}

// firstTier is the price of the first charged tier; a free first tier
// (a price of 0 up to N) makes N free.
func firstTier(ts []awsTier) (awsPrice, bool) {
	if len(ts) == 0 {
		return awsPrice{}, false
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].begin < ts[j].begin })
	p := awsPrice{usd: ts[0].usd, unit: ts[0].unit}
	if ts[0].usd == 0 && len(ts) > 1 && ts[0].end > 0 {
		p = awsPrice{usd: ts[1].usd, unit: ts[1].unit, free: ts[0].end}
	}
	return p, true
}

// awsFinish joins the products with their prices into catalog rows.
func (imp *importer) awsFinish() {
	vols := map[string]*Volume{}
	var skus []string
	for sku := range imp.aws.products {
		skus = append(skus, sku)
	}
	sort.Strings(skus)
	src := func(sku string) string { return fmt.Sprintf("AWS price list offer file %s, SKU %s", imp.name, sku) }
	for _, sku := range skus {
		p, pr := imp.aws.products[sku], imp.aws.prices[sku]
		if _, ok := imp.aws.prices[sku]; !ok {
			continue
		}
		date := imp.date
		if date == "" {
			date = pr.date
		}
		switch p.kind {
		case "instance":
			if pr.usd > 0 {
				imp.out.Instances = append(imp.out.Instances, awsInstance(p, pr.usd, date, src(sku), imp.name))
			}
		case "transfer":
			imp.out.Transfers = append(imp.out.Transfers, Transfer{Provider: "aws", Kind: CrossZone, PerGBUSD: 2 * pr.usd, Region: p.region,
				PriceDate: date, Source: src(sku) + ": intra-region transfer, billed out and in (2 x the per-GB price)", File: imp.name})
		default:
			awsVolumePart(vols, p, pr, date, src(sku), imp.name)
		}
	}
	var names []string
	for n := range vols {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if v := vols[n]; v.PerGiBMonthUSD > 0 {
			imp.out.Volumes = append(imp.out.Volumes, *v)
		}
	}
}

// awsVolumePart adds one EBS price (size, IOPS or throughput) to its volume.
func awsVolumePart(vols map[string]*Volume, p awsProduct, pr awsPrice, date, src, file string) {
	v := vols[p.name]
	if v == nil {
		v = &Volume{Provider: "aws", Type: p.name, Region: p.region, PriceDate: date, File: file}
		if iops, mbps, ok := freeBaseline(p.name); ok {
			v.FreeIOPS, v.FreeMBps = iops, mbps
			v.Source = "free baseline from platbench's embedded catalog; "
		}
		vols[p.name] = v
	}
	switch p.kind {
	case "volume":
		v.PerGiBMonthUSD = pr.usd
		v.Source = src + "; " + v.Source
	case "iops":
		v.PerIOPSMonthUSD = pr.usd
		if pr.free > 0 {
			v.FreeIOPS = pr.free
		}
	case "throughput":
		// gp3 throughput is priced per GiBps-month in the offer file.
		v.PerMBpsMonthUSD = pr.usd
		if strings.HasPrefix(strings.ToLower(pr.unit), "gibps") {
			v.PerMBpsMonthUSD = pr.usd / 1024
		}
	}
	v.Source = strings.TrimSuffix(v.Source, "; ")
}

// awsInstance is a catalog row from an EC2 product.
func awsInstance(p awsProduct, usd float64, date, src, file string) Instance {
	a := p.attrs
	in := Instance{Provider: "aws", Type: p.name, Arch: "x86_64", LocalStorage: a["storage"], PricePerHourUSD: usd,
		Region: p.region, PriceDate: date, Source: src, File: file}
	if strings.Contains(a["physicalProcessor"], "Graviton") || strings.Contains(strings.ToLower(a["processorArchitecture"]), "arm") {
		in.Arch = "arm64"
	}
	in.VCPUs, _ = strconv.Atoi(a["vcpu"])
	in.RAMGiB, _ = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.ReplaceAll(a["memory"], ",", ""), "GiB")), 64)
	return in
}
