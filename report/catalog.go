package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/internal/units"
)

// The instance catalog's renderers (platbench catalog): a table for people
// and the CSV file --catalog reads back.

// catalogSourceWidth is where the table cuts a price's source; the CSV keeps
// it whole.
const catalogSourceWidth = 80

// WriteCatalogText writes instance types as a table: the hourly price of a
// node and its monthly cost (catalog.MonthlyUSD, 730 h), then a monthly cost
// column for each cluster size in nodes. A row from a user's catalog file
// names the file before its source.
func WriteCatalogText(w io.Writer, rows []catalog.Instance, nodes []int) error {
	ew := &errWriter{w: w}
	catalogTable(rows, nodes).text(ew)
	kinds := "instance types"
	if len(rows) == 1 {
		kinds = "instance type"
	}
	fmt.Fprintf(ew, "\n%d %s; prices are on-demand US dollars per node, dated, and not fetched: check them ('platbench catalog --csv' shows full sources).\n", len(rows), kinds)
	return ew.err
}

func catalogTable(rows []catalog.Instance, nodes []int) *table {
	t := &table{head: []string{"provider", "type", "arch", "vcpus", "ram", "local storage", "per hour", "per month"}}
	for _, n := range nodes {
		t.head = append(t.head, fmt.Sprintf("%d nodes/month", n))
	}
	t.head = append(t.head, "region", "date", "source")
	t.right = make([]bool, len(t.head))
	for _, i := range []int{3, 4, 6, 7} {
		t.right[i] = true
	}
	for i := range nodes {
		t.right[8+i] = true
	}
	for _, in := range rows {
		src := in.Source
		if r := []rune(src); len(r) > catalogSourceWidth {
			src = string(r[:catalogSourceWidth-3]) + "..."
		}
		if in.File != "embedded" {
			src = "[" + in.File + "] " + src
		}
		cells := []string{in.Provider, in.Type, in.Arch, units.Int(float64(in.VCPUs)), units.Bytes(in.RAMGiB * (1 << 30)), in.LocalStorage,
			units.Price(in.PricePerHourUSD), units.Cents(catalog.MonthlyUSD(in.PricePerHourUSD, 1))}
		for _, n := range nodes {
			cells = append(cells, units.Cents(catalog.MonthlyUSD(in.PricePerHourUSD, n)))
		}
		t.add(append(cells, in.Region, in.PriceDate, src)...)
	}
	return t
}

// WriteCatalogCSV writes instance types with every column, in the format
// catalog.Parse reads (a user's --catalog file): numbers exact, aliases
// joined by "|".
func WriteCatalogCSV(w io.Writer, rows []catalog.Instance) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"provider", "instance_type", "arch", "vcpus", "ram_gib", "local_storage", "price_per_hour_usd", "region", "price_date", "source", "aliases"})
	exact := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, in := range rows {
		cw.Write([]string{in.Provider, in.Type, in.Arch, strconv.Itoa(in.VCPUs), exact(in.RAMGiB), in.LocalStorage,
			exact(in.PricePerHourUSD), in.Region, in.PriceDate, in.Source, strings.Join(in.Aliases, "|")})
	}
	cw.Flush()
	return cw.Error()
}

// WriteStorageCatalogText writes block volume types and transfer prices as
// two tables: monthly prices per GiB, per IOPS and per MB/s above the free
// baseline, and cross-zone transfer per GB.
func WriteStorageCatalogText(w io.Writer, vols []catalog.Volume, trs []catalog.Transfer) error {
	ew := &errWriter{w: w}
	src := func(file, s string) string {
		if r := []rune(s); len(r) > catalogSourceWidth {
			s = string(r[:catalogSourceWidth-3]) + "..."
		}
		if file != "embedded" {
			s = "[" + file + "] " + s
		}
		return s
	}
	price := func(v float64) string {
		if v == 0 {
			return "-"
		}
		return units.Price(v)
	}
	if len(vols) > 0 {
		t := &table{head: []string{"provider", "volume", "per GiB-month", "per IOPS-month", "per MB/s-month", "free IOPS", "free MB/s", "region", "date", "source"},
			right: []bool{false, false, true, true, true, true, true, false, false, false}}
		for _, v := range vols {
			t.add(v.Provider, v.Type, units.Price(v.PerGiBMonthUSD), price(v.PerIOPSMonthUSD), price(v.PerMBpsMonthUSD),
				units.Int(v.FreeIOPS), units.Int(v.FreeMBps), v.Region, v.PriceDate, src(v.File, v.Source))
		}
		t.text(ew)
	}
	if len(trs) > 0 {
		fmt.Fprintln(ew)
		t := &table{head: []string{"provider", "transfer", "per GB", "region", "date", "source"}, right: []bool{false, false, true, false, false, false}}
		for _, tr := range trs {
			t.add(tr.Provider, tr.Kind, units.Price(tr.PerGBUSD), tr.Region, tr.PriceDate, src(tr.File, tr.Source))
		}
		t.text(ew)
	}
	fmt.Fprintf(ew, "\nPrices are US dollars, dated and not fetched: check them, or import a provider's price file with 'platbench catalog import FILE'. A volume is named per node as TYPE:SIZE[:IOPSiops][:MBPSMBps].\n")
	return ew.err
}

// WriteStorageCatalogCSV writes volume and transfer rows as the tables of a
// catalog file catalog.Parse reads (after the instance table, or alone).
func WriteStorageCatalogCSV(w io.Writer, vols []catalog.Volume, trs []catalog.Transfer) error {
	cw := csv.NewWriter(w)
	exact := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	if len(vols) > 0 {
		cw.Write([]string{"provider", "volume_type", "per_gib_month_usd", "per_iops_month_usd", "per_mbps_month_usd", "free_iops", "free_mbps", "region", "price_date", "source"})
		for _, v := range vols {
			cw.Write([]string{v.Provider, v.Type, exact(v.PerGiBMonthUSD), exact(v.PerIOPSMonthUSD), exact(v.PerMBpsMonthUSD), exact(v.FreeIOPS), exact(v.FreeMBps),
				v.Region, v.PriceDate, v.Source})
		}
	}
	if len(trs) > 0 {
		cw.Write([]string{"provider", "transfer", "per_gb_usd", "region", "price_date", "source"})
		for _, t := range trs {
			cw.Write([]string{t.Provider, t.Kind, exact(t.PerGBUSD), t.Region, t.PriceDate, t.Source})
		}
	}
	cw.Flush()
	return cw.Error()
}
