package catalog

import (
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/platbench/platbench/internal/usererr"
)

// A catalog file holds one or more tables, each starting with a header row:
// a header naming instance_type starts instance rows, one naming volume_type
// starts block-volume rows, one naming transfer starts network-transfer rows.
// The embedded catalog is instances.csv followed by volumes.csv.

//go:embed volumes.csv
var embeddedVolumes string

// Volume is one block-storage volume type and its monthly prices. A price
// the provider does not charge is 0; the first FreeIOPS IOPS and FreeMBps
// MB/s of a volume are included in its size price (gp3's 3000 IOPS and
// 125 MB/s), and only what is provisioned above them is charged.
type Volume struct {
	Provider string `json:"provider"`
	Type     string `json:"volume_type"`
	// PerGiBMonthUSD is the price of one GiB for a month (730 h).
	PerGiBMonthUSD float64 `json:"per_gib_month_usd"`
	// PerIOPSMonthUSD is the price of one provisioned IOPS above FreeIOPS for a month.
	PerIOPSMonthUSD float64 `json:"per_iops_month_usd,omitempty"`
	// PerMBpsMonthUSD is the price of one provisioned MB/s above FreeMBps for
	// a month (the provider's MB/s: AWS and GCP count MiB/s).
	PerMBpsMonthUSD float64 `json:"per_mbps_month_usd,omitempty"`
	FreeIOPS        float64 `json:"free_iops,omitempty"`
	FreeMBps        float64 `json:"free_mbps,omitempty"`
	Region          string  `json:"region"`
	PriceDate       string  `json:"price_date"`
	Source          string  `json:"source"`
	File            string  `json:"file"`
}

// Transfer is the price of network traffic of one kind ("cross-zone": between
// zones of one region) for one provider, per GB (1e9 bytes) that crosses,
// counting both directions the provider bills (AWS bills out and in).
type Transfer struct {
	Provider  string  `json:"provider"`
	Kind      string  `json:"transfer"`
	PerGBUSD  float64 `json:"per_gb_usd"`
	Region    string  `json:"region"`
	PriceDate string  `json:"price_date"`
	Source    string  `json:"source"`
	File      string  `json:"file"`
}

// ErrUnknownVolume is wrapped by LookupVolume's error (a usererr.Error) for
// a volume type not in the catalog; it adds no text of its own.
var ErrUnknownVolume = errors.New("")

// CrossZone is the Transfer kind of traffic between zones of one region.
const CrossZone = "cross-zone"

// tableKind is one kind of table a catalog file may hold.
type tableKind struct {
	name    string   // "instance", "volume", "transfer" (errors)
	columns []string // the first three are required
	// add parses one row into c and returns the row's key ("" when it has
	// none) and its problems.
	add func(c *Catalog, get func(string) string, line int, file string) (string, []string)
}

var (
	instanceTable = tableKind{"instance",
		[]string{"provider", "instance_type", "price_per_hour_usd", "arch", "vcpus", "ram_gib", "local_storage", "region", "price_date", "source", "aliases"},
		func(c *Catalog, get func(string) string, line int, file string) (string, []string) {
			in, probs := parseRow(get, line, file)
			if in.Type != "" {
				c.Instances = append(c.Instances, in)
			}
			return in.Type, probs
		}}
	volumeTable = tableKind{"volume",
		[]string{"provider", "volume_type", "per_gib_month_usd", "per_iops_month_usd", "per_mbps_month_usd", "free_iops", "free_mbps", "region", "price_date", "source"},
		func(c *Catalog, get func(string) string, line int, file string) (string, []string) {
			v, probs := parseVolume(get, line, file)
			if v.Type != "" {
				c.Volumes = append(c.Volumes, v)
			}
			return v.Type, probs
		}}
	transferTable = tableKind{"transfer",
		[]string{"provider", "transfer", "per_gb_usd", "region", "price_date", "source"},
		func(c *Catalog, get func(string) string, line int, file string) (string, []string) {
			t, probs := parseTransfer(get, line, file)
			if t.Kind != "" && t.Provider != "" {
				c.Transfers = append(c.Transfers, t)
				return t.Provider + " " + t.Kind, probs
			}
			return "", probs
		}}
	tableKinds = []tableKind{instanceTable, volumeTable, transferTable}
)

// table is the table being read: its kind and the index of each column.
type table struct {
	kind tableKind
	col  map[string]int
}

func (t *table) get(rec []string) func(string) string {
	return func(k string) string {
		i, ok := t.col[k]
		if !ok || i >= len(rec) {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
}

// Parse reads a catalog in CSV form: one or more tables, each a header row
// naming its columns (any order) and its rows; lines starting with # are
// comments. The header names instance_type (instances: provider,
// instance_type and price_per_hour_usd required), volume_type (volumes:
// provider, volume_type, per_gib_month_usd) or transfer (transfer prices:
// provider, transfer, per_gb_usd). name labels errors and each row's File.
// Every problem in the file is reported at once.
func Parse(r io.Reader, name string) (*Catalog, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	c := &Catalog{}
	var cur *table
	seen := map[string]int{}
	var probs []string
	for len(probs) <= 10 {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if cur == nil {
				return nil, malformed("%s: %v (fix: write it as CSV with the header row %s)", name, err, strings.Join(instanceTable.columns, ","))
			}
			// (FieldPos panics after a failed Read: the error has the line.)
			probs = append(probs, err.Error())
			continue
		}
		line, _ := cr.FieldPos(0)
		if cur == nil || isHeader(rec) {
			if cur, err = parseHeader(rec, name); err != nil {
				return nil, err
			}
			continue
		}
		k, bad := cur.kind.add(c, cur.get(rec), line, name)
		probs = append(probs, bad...)
		if k == "" {
			continue
		}
		if prev, dup := seen[cur.kind.name+" "+key(k)]; dup {
			probs = append(probs, fmt.Sprintf("line %d: %s is already on line %d", line, k, prev))
			c.dropLast(cur.kind.name)
			continue
		}
		seen[cur.kind.name+" "+key(k)] = line
	}
	return c.finish(name, cur, probs)
}

// finish turns the problems found into one error, or indexes the catalog.
func (c *Catalog) finish(name string, cur *table, probs []string) (*Catalog, error) {
	if cur == nil {
		return nil, malformed("%s: empty file (fix: start with the header row %s)", name, strings.Join(instanceTable.columns, ","))
	}
	if len(probs) > 0 {
		more := ""
		if len(probs) > 5 {
			more = fmt.Sprintf("; and %d more", len(probs)-5)
			probs = probs[:5]
		}
		return nil, malformed("%s: %s%s (fix: correct those rows; the columns are %s)", name, strings.Join(probs, "; "), more, strings.Join(cur.kind.columns, ","))
	}
	if len(c.Instances)+len(c.Volumes)+len(c.Transfers) == 0 {
		return nil, malformed("%s: no rows after the header (fix: add one row per instance type)", name)
	}
	c.reindex()
	return c, nil
}

// dropLast removes the row just added to a table of kind (a duplicate).
func (c *Catalog) dropLast(kind string) {
	switch kind {
	case "instance":
		c.Instances = c.Instances[:len(c.Instances)-1]
	case "volume":
		c.Volumes = c.Volumes[:len(c.Volumes)-1]
	default:
		c.Transfers = c.Transfers[:len(c.Transfers)-1]
	}
}

// isHeader tells a header row after the first: it names a table's key column.
func isHeader(rec []string) bool {
	for _, h := range rec {
		switch key(h) {
		case "instance_type", "volume_type", "transfer":
			return true
		}
	}
	return false
}

// parseHeader reads a header row: the table's kind and the index of each column.
func parseHeader(header []string, name string) (*table, error) {
	kind := instanceTable
	for _, k := range tableKinds {
		if slices.ContainsFunc(header, func(h string) bool { return key(h) == k.columns[1] }) {
			kind = k
			break
		}
	}
	col := map[string]int{}
	var probs []string
	for i, h := range header {
		h = key(h)
		if !slices.Contains(kind.columns, h) {
			probs = append(probs, fmt.Sprintf("unknown column %q", h))
			continue
		}
		col[h] = i
	}
	for _, req := range kind.columns[:3] {
		if _, ok := col[req]; !ok {
			probs = append(probs, fmt.Sprintf("no %s column", req))
		}
	}
	if len(probs) > 0 {
		return nil, malformed("%s: header: %s (fix: the header row names columns from %s)", name, strings.Join(probs, "; "), strings.Join(kind.columns, ","))
	}
	return &table{kind: kind, col: col}, nil
}

// money parses a non-negative number of dollars ("$" allowed); "" is 0
// unless required.
func money(v string, required bool) (float64, bool) {
	if v == "" {
		return 0, !required
	}
	f, err := strconv.ParseFloat(strings.TrimPrefix(v, "$"), 64)
	return f, err == nil && f >= 0 && f <= 1e6 && !math.IsNaN(f)
}

// parseVolume reads one volume row.
func parseVolume(get func(string) string, line int, file string) (Volume, []string) {
	v := Volume{Provider: get("provider"), Type: get("volume_type"), Region: get("region"), PriceDate: get("price_date"), Source: get("source"), File: file}
	if v.Type == "" {
		return v, []string{fmt.Sprintf("line %d: no volume_type", line)}
	}
	var probs []string
	if v.Provider == "" {
		probs = append(probs, fmt.Sprintf("line %d (%s): no provider", line, v.Type))
	}
	for _, f := range []struct {
		col      string
		dst      *float64
		required bool
	}{{"per_gib_month_usd", &v.PerGiBMonthUSD, true}, {"per_iops_month_usd", &v.PerIOPSMonthUSD, false}, {"per_mbps_month_usd", &v.PerMBpsMonthUSD, false},
		{"free_iops", &v.FreeIOPS, false}, {"free_mbps", &v.FreeMBps, false}} {
		x, ok := money(get(f.col), f.required)
		if !ok {
			probs = append(probs, fmt.Sprintf("line %d (%s): %s %q is not a non-negative number", line, v.Type, f.col, get(f.col)))
		}
		*f.dst = x
	}
	return v, probs
}

// parseTransfer reads one transfer row.
func parseTransfer(get func(string) string, line int, file string) (Transfer, []string) {
	t := Transfer{Provider: key(get("provider")), Kind: key(get("transfer")), Region: get("region"), PriceDate: get("price_date"), Source: get("source"), File: file}
	var probs []string
	if t.Provider == "" || t.Kind == "" {
		probs = append(probs, fmt.Sprintf("line %d: no provider or transfer", line))
	}
	x, ok := money(get("per_gb_usd"), true)
	if !ok {
		probs = append(probs, fmt.Sprintf("line %d (%s %s): per_gb_usd %q is not a non-negative number of dollars", line, t.Provider, t.Kind, get("per_gb_usd")))
	}
	t.PerGBUSD = x
	return t, probs
}

// mergeStorage adds u's volumes and transfers to c; a volume of the same type,
// or a transfer of the same provider and kind, replaces c's.
func (c *Catalog) mergeStorage(u *Catalog) {
	for _, v := range u.Volumes {
		if i := slices.IndexFunc(c.Volumes, func(w Volume) bool { return key(w.Type) == key(v.Type) }); i >= 0 {
			c.Volumes[i] = v
		} else {
			c.Volumes = append(c.Volumes, v)
		}
	}
	for _, t := range u.Transfers {
		if i := slices.IndexFunc(c.Transfers, func(s Transfer) bool { return s.Provider == t.Provider && s.Kind == t.Kind }); i >= 0 {
			c.Transfers[i] = t
		} else {
			c.Transfers = append(c.Transfers, t)
		}
	}
}

// LookupVolume finds a volume type, ignoring case.
func (c *Catalog) LookupVolume(name string) (Volume, error) {
	if i := slices.IndexFunc(c.Volumes, func(v Volume) bool { return key(v.Type) == key(name) }); i >= 0 {
		return c.Volumes[i], nil
	}
	known := make([]string, len(c.Volumes))
	for i, v := range c.Volumes {
		known[i] = v.Type
	}
	return Volume{}, fmt.Errorf("%w%w", ErrUnknownVolume, usererr.Field("storage", "type %q is not in the catalog (fix: one of %s, or a volume_type row in a catalog file)", name, strings.Join(known, ", ")))
}

// TransferPrice finds the price of one kind of traffic for a provider.
func (c *Catalog) TransferPrice(provider, kind string) (Transfer, bool) {
	i := slices.IndexFunc(c.Transfers, func(t Transfer) bool { return t.Provider == key(provider) && t.Kind == key(kind) })
	if i < 0 {
		return Transfer{}, false
	}
	return c.Transfers[i], true
}

// FilterStorage returns the volumes and transfers whose provider or type
// contain s (case-insensitive), in catalog order.
func (c *Catalog) FilterStorage(s string) ([]Volume, []Transfer) {
	s = key(s)
	var vs []Volume
	for _, v := range c.Volumes {
		if strings.Contains(key(v.Provider+" "+v.Type), s) {
			vs = append(vs, v)
		}
	}
	var ts []Transfer
	for _, t := range c.Transfers {
		if strings.Contains(key(t.Provider+" "+t.Kind), s) {
			ts = append(ts, t)
		}
	}
	return vs, ts
}
