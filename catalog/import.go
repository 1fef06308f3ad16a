package catalog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/platbench/platbench/internal/usererr"
)

// Import reads a provider's published price file, saved by the user, and
// returns the catalog rows it prices, each naming the file and the date of
// its prices. It recognises, by their top-level keys:
//
//   - AWS's Price List offer file (JSON: formatVersion, publicationDate,
//     products by SKU, terms.OnDemand with priceDimensions): EC2 instances
//     (Linux, shared tenancy, no pre-installed software), EBS volumes
//     (GB-month, IOPS-month, throughput) and intra-region transfer;
//   - GCP's Cloud Billing Catalog API SKU list (JSON: skus): persistent and
//     hyperdisk volumes, and traffic between zones of a region;
//   - Azure's Retail Prices API response (JSON: Items): Linux virtual
//     machines (pay as you go, not spot) and Premium SSD v2.
//
// region chooses one region of a file that prices several; "" accepts a
// file of one region and refuses one of several, naming them. Files are read
// as a stream, so a provider's whole offer file does not need to fit in memory.
func Import(r io.Reader, name, region string) (*Catalog, error) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	dec.UseNumber()
	imp := &importer{name: name, region: region, regions: map[string]bool{}, aws: newAWSOffer()}
	if err := imp.topLevel(dec); err != nil {
		return nil, err
	}
	return imp.finish()
}

// importer is one import's state: what the file holds so far.
type importer struct {
	name, region string
	format       string          // "aws", "gcp", "azure" once known
	regions      map[string]bool // every region seen, for the refusal
	date         string          // the file's publication date, when it has one
	aws          *awsOffer
	out          Catalog
}

// bad is a malformed-file error naming the file and the record.
func (imp *importer) bad(record, format string, a ...any) error {
	if record != "" {
		record = " " + record
	}
	return malformed("%s:%s: %s (fix: give the provider's price file as downloaded: AWS's offer file index.json, GCP's Cloud Billing Catalog SKU list, or Azure's Retail Prices API response)", imp.name, record, fmt.Sprintf(format, a...))
}

// jsonErr turns a decoder error into a malformed-file error with its offset.
func (imp *importer) jsonErr(dec *json.Decoder, err error) error { return imp.recordErr(dec, "", err) }

// recordErr is jsonErr for an error inside one record.
func (imp *importer) recordErr(dec *json.Decoder, record string, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return imp.bad(record, "not JSON at byte %d: %v", se.Offset, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return imp.bad(record, "at byte %d, %s is a JSON %s, not the %s the format has", te.Offset, te.Field, te.Value, te.Type)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return imp.bad(record, "the file ends early (at byte %d): was it saved whole?", dec.InputOffset())
	}
	return imp.bad(record, "at byte %d: %v", dec.InputOffset(), err)
}

// topLevel walks the file's top-level object, handing each key's value to
// its format's reader and skipping the rest.
func (imp *importer) topLevel(dec *json.Decoder) error {
	if t, err := dec.Token(); err != nil {
		if err == io.EOF {
			return imp.bad("", "empty file")
		}
		return imp.jsonErr(dec, err)
	} else if d, ok := t.(json.Delim); !ok || d != '{' {
		return imp.bad("", "not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return imp.jsonErr(dec, err)
		}
		k, _ := t.(string)
		if err := imp.key(dec, k); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return imp.jsonErr(dec, err)
	}
	return nil
}

// key reads the value of one top-level key.
func (imp *importer) key(dec *json.Decoder, k string) error {
	var err error
	switch k {
	case "offerCode", "formatVersion":
		imp.format = "aws"
		err = dec.Decode(new(any))
	case "publicationDate", "version":
		imp.format = "aws"
		var s string
		if err = dec.Decode(&s); err == nil && k == "publicationDate" {
			imp.date = dateOf(s)
		}
	case "products":
		imp.format = "aws"
		return imp.awsProducts(dec)
	case "terms":
		imp.format = "aws"
		return imp.awsTerms(dec)
	case "skus":
		imp.format = "gcp"
		return imp.array(dec, imp.gcpSKU)
	case "Items":
		imp.format = "azure"
		return imp.array(dec, imp.azureItem)
	default:
		err = dec.Decode(new(json.RawMessage))
	}
	if err != nil {
		return imp.jsonErr(dec, err)
	}
	return nil
}

// array decodes a JSON array's elements one at a time into each.
func (imp *importer) array(dec *json.Decoder, each func(dec *json.Decoder, i int) error) error {
	if t, err := dec.Token(); err != nil {
		return imp.jsonErr(dec, err)
	} else if t == nil {
		return nil
	} else if d, ok := t.(json.Delim); !ok || d != '[' {
		return imp.bad("", "expected a list at byte %d", dec.InputOffset())
	}
	for i := 0; dec.More(); i++ {
		if err := each(dec, i); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return imp.jsonErr(dec, err)
	}
	return nil
}

// object decodes a JSON object's values one at a time into each, with their keys.
func (imp *importer) object(dec *json.Decoder, each func(dec *json.Decoder, key string) error) error {
	if t, err := dec.Token(); err != nil {
		return imp.jsonErr(dec, err)
	} else if d, ok := t.(json.Delim); !ok || d != '{' {
		return imp.bad("", "expected an object at byte %d", dec.InputOffset())
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return imp.jsonErr(dec, err)
		}
		k, _ := t.(string)
		if err := each(dec, k); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return imp.jsonErr(dec, err)
	}
	return nil
}

// wanted tells whether a record of region is imported, noting the region.
func (imp *importer) wanted(region string) bool {
	if region == "" {
		return false
	}
	imp.regions[region] = true
	return imp.region == "" || strings.EqualFold(imp.region, region)
}

// finish checks the rows: one region, at least one row, no duplicates.
func (imp *importer) finish() (*Catalog, error) {
	if imp.format == "aws" {
		imp.awsFinish()
	}
	if imp.format == "" {
		return nil, imp.bad("", "not a price file platbench knows: no products and terms (AWS), skus (GCP) or Items (Azure) at the top level")
	}
	if imp.region == "" && len(imp.regions) > 1 {
		var rs []string
		for r := range imp.regions {
			rs = append(rs, r)
		}
		sort.Strings(rs)
		more := ""
		if len(rs) > 8 {
			more, rs = fmt.Sprintf(" and %d more", len(rs)-8), rs[:8]
		}
		return nil, usererr.Field("region", "is not given, and %s prices %d regions (%s%s) (fix: choose one, e.g. %s)", imp.name, len(imp.regions), strings.Join(rs, ", "), more, rs[0])
	}
	c := &imp.out
	if len(c.Instances)+len(c.Volumes)+len(c.Transfers) == 0 {
		what := "in it"
		if imp.region != "" {
			what = "for region " + imp.region
		}
		return nil, imp.bad("", "no on-demand instance, volume or transfer price %s", what)
	}
	dedupe(c)
	c.reindex()
	return c, nil
}

// dedupe keeps the first row of each instance type, volume type and transfer.
func dedupe(c *Catalog) {
	seen := map[string]bool{}
	keep := func(k string) bool {
		k = key(k)
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	var ins []Instance
	for _, in := range c.Instances {
		if keep("i " + in.Type) {
			ins = append(ins, in)
		}
	}
	var vs []Volume
	for _, v := range c.Volumes {
		if v.PerGiBMonthUSD > 0 && keep("v "+v.Type) {
			vs = append(vs, v)
		}
	}
	var ts []Transfer
	for _, t := range c.Transfers {
		if keep("t " + t.Provider + " " + t.Kind) {
			ts = append(ts, t)
		}
	}
	c.Instances, c.Volumes, c.Transfers = ins, vs, ts
}

// dateOf is the day of an RFC 3339 time ("2024-05-01T19:49:42Z" -> "2024-05-01").
func dateOf(s string) string {
	if len(s) >= 10 && s[4] == '-' && s[7] == '-' {
		return s[:10]
	}
	return s
}

// freeBaseline is the embedded catalog's free IOPS and MB/s of a volume type:
// price files give the price of what is provisioned, not what is included.
func freeBaseline(typ string) (iops, mbps float64, ok bool) {
	d, err := Default()
	if err != nil {
		return 0, 0, false
	}
	v, err := d.LookupVolume(typ)
	if err != nil || v.FreeIOPS+v.FreeMBps == 0 {
		return 0, 0, false
	}
	return v.FreeIOPS, v.FreeMBps, true
}
