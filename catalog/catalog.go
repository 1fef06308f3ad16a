// Package catalog holds the instance price list platbench normalises results
// by: one row per instance type with its provider, architecture, vCPUs, RAM,
// local storage, on-demand price per hour, region, the date of the price and
// where it came from. The list is embedded in the binary (instances.csv) and a
// user file in the same CSV shape overrides or extends it (Load).
//
// The catalog does not fetch prices: they are dated, with their source, and
// the user is expected to override them when they matter. It knows nothing
// about results; package analysis uses it.
package catalog

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/platbench/platbench/internal/usererr"
)

//go:embed instances.csv
var embedded string

// HoursPerMonth is the month AWS and the seed reports price by: 8760 h / 12.
// (The DataStax report's $455.52/month for an i3.2xlarge is $0.624 x 730.)
const HoursPerMonth = 730.0

// ErrUnknown is wrapped by Lookup's error (a usererr.Error) for an instance
// type not in the catalog.
var ErrUnknown = errors.New("unknown instance type")

// ErrMalformed is wrapped by every error about a catalog file that cannot be read.
var ErrMalformed = errors.New("malformed catalog")

// malformed is a user error about a catalog file that wraps ErrMalformed.
func malformed(format string, a ...any) error {
	return fmt.Errorf("%w %w", ErrMalformed, usererr.New(format, a...))
}

// Instance is one instance type and its on-demand price.
type Instance struct {
	Provider        string   `json:"provider"`
	Type            string   `json:"instance_type"`
	Arch            string   `json:"arch"`
	VCPUs           int      `json:"vcpus"`
	RAMGiB          float64  `json:"ram_gib"`
	LocalStorage    string   `json:"local_storage"`
	PricePerHourUSD float64  `json:"price_per_hour_usd"`
	Region          string   `json:"region"`
	PriceDate       string   `json:"price_date"`
	Source          string   `json:"source"`
	Aliases         []string `json:"aliases,omitempty"`
	// File is where the row came from: "embedded" or the user file's path.
	File string `json:"file"`
}

// MonthlyUSD is the on-demand cost of nodes instances for a 730 h month,
// rounded to the cent as a bill is.
func MonthlyUSD(pricePerHour float64, nodes int) float64 {
	return roundCents(pricePerHour * float64(nodes) * HoursPerMonth)
}

// RoundCents rounds dollars to the cent, half away from zero, as a bill does.
func RoundCents(x float64) float64 { return roundCents(x) }

func roundCents(x float64) float64 {
	// Round half away from zero on the value in cents; the small epsilon absorbs
	// binary representation error (0.624*730 = 455.51999...).
	c := x * 100
	if c >= 0 {
		return float64(int64(c+0.5+1e-7)) / 100
	}
	return -float64(int64(-c+0.5+1e-7)) / 100
}

// Catalog is a list of instances with a case-insensitive index on type and aliases.
type Catalog struct {
	Instances []Instance
	// Volumes are block-storage volume types (volumes.csv); Transfers are
	// network transfer prices (cross-zone traffic), one per provider and kind.
	Volumes   []Volume
	Transfers []Transfer
	index     map[string]int
}

var (
	defaultOnce sync.Once
	defaultCat  *Catalog
	defaultErr  error
)

// Default returns the embedded catalog: a copy of it, parsed once, that the
// caller may change (Merge) freely.
func Default() (*Catalog, error) {
	defaultOnce.Do(func() {
		defaultCat, defaultErr = Parse(strings.NewReader(embedded+"\n"+embeddedVolumes), "embedded")
	})
	if defaultErr != nil {
		return nil, defaultErr
	}
	c := &Catalog{Instances: append([]Instance(nil), defaultCat.Instances...),
		Volumes: append([]Volume(nil), defaultCat.Volumes...), Transfers: append([]Transfer(nil), defaultCat.Transfers...)}
	c.reindex()
	return c, nil
}

// Load returns the embedded catalog overridden by the rows of userFile
// (a row with the same instance type replaces the embedded one; new rows are
// added). userFile "" gives the embedded catalog alone.
func Load(userFile string) (*Catalog, error) {
	c, err := Default()
	if err != nil {
		return nil, err
	}
	if userFile == "" {
		return c, nil
	}
	f, err := os.Open(userFile)
	if err != nil {
		return nil, usererr.Field("catalog", "file %s cannot be read: %v (fix: the path of a CSV file of instance prices)", userFile, err)
	}
	defer f.Close()
	u, err := Parse(f, userFile)
	if err != nil {
		return nil, err
	}
	c.Merge(u)
	return c, nil
}

// Merge adds u's rows to c; a row whose type is already in c replaces it.
func (c *Catalog) Merge(u *Catalog) {
	for _, in := range u.Instances {
		if i, ok := c.index[key(in.Type)]; ok && strings.EqualFold(c.Instances[i].Type, in.Type) {
			c.Instances[i] = in
		} else {
			c.Instances = append(c.Instances, in)
		}
	}
	c.mergeStorage(u)
	c.reindex()
}

func key(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func (c *Catalog) reindex() {
	c.index = make(map[string]int, len(c.Instances)*2)
	// Aliases first, so that a type name always wins over another row's alias.
	for i, in := range c.Instances {
		for _, a := range in.Aliases {
			c.index[key(a)] = i
		}
	}
	for i, in := range c.Instances {
		c.index[key(in.Type)] = i
	}
}

// Lookup finds an instance by type or alias, ignoring case.
func (c *Catalog) Lookup(name string) (Instance, error) {
	if i, ok := c.index[key(name)]; ok {
		return c.Instances[i], nil
	}
	hint := ""
	if near := c.near(name); len(near) > 0 {
		hint = "; did you mean " + strings.Join(near, ", ") + "?"
	}
	f := family(name)
	if strings.ContainsAny(f, " '\"") {
		f = "'" + strings.ReplaceAll(f, "'", "") + "'"
	}
	return Instance{}, fmt.Errorf("%w %w", ErrUnknown, usererr.New("%q: not in the catalog%s (fix: list the known types of family %s with the catalog command, add a row in a catalog file, or give the price per hour)",
		name, hint, f))
}

// family is the part of an instance name before its size: "i3" for "i3.9xlarge".
func family(name string) string {
	n := key(name)
	if i := strings.IndexAny(n, ".-_"); i > 0 {
		return n[:i]
	}
	if n == "" {
		return "NAME"
	}
	return n
}

// near lists up to 5 known types of the same family.
func (c *Catalog) near(name string) []string {
	f := family(name)
	var out []string
	for _, in := range c.Instances {
		if family(in.Type) == f {
			out = append(out, in.Type)
			if len(out) == 5 {
				break
			}
		}
	}
	return out
}

// Filter returns the instances whose provider, type, arch, region or aliases
// contain s (case-insensitive), sorted by provider then price.
func (c *Catalog) Filter(s string) []Instance {
	s = key(s)
	var out []Instance
	for _, in := range c.Instances {
		hay := strings.ToLower(strings.Join(append([]string{in.Provider, in.Type, in.Arch, in.Region}, in.Aliases...), " "))
		if s == "" || strings.Contains(hay, s) {
			out = append(out, in)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Provider != out[j].Provider {
			return out[i].Provider < out[j].Provider
		}
		return out[i].PricePerHourUSD < out[j].PricePerHourUSD
	})
	return out
}

// parseRow reads one row (get returns a column's value); a row without an
// instance type comes back with an empty Type.
func parseRow(get func(string) string, line int, file string) (Instance, []string) {
	in := Instance{
		Provider:     get("provider"),
		Type:         get("instance_type"),
		Arch:         get("arch"),
		LocalStorage: get("local_storage"),
		Region:       get("region"),
		PriceDate:    get("price_date"),
		Source:       get("source"),
		File:         file,
	}
	if in.Type == "" {
		return in, []string{fmt.Sprintf("line %d: no instance_type", line)}
	}
	var probs []string
	bad := func(format string, a ...any) {
		probs = append(probs, fmt.Sprintf("line %d (%s): ", line, in.Type)+fmt.Sprintf(format, a...))
	}
	if in.Provider == "" {
		bad("no provider")
	}
	if p := get("price_per_hour_usd"); p == "" {
		bad("no price_per_hour_usd")
	} else if v, err := strconv.ParseFloat(strings.TrimPrefix(p, "$"), 64); err != nil || v <= 0 || v != v || v > 1e6 {
		bad("price_per_hour_usd %q is not a positive number of dollars", p)
	} else {
		in.PricePerHourUSD = v
	}
	if v := get("vcpus"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			bad("vcpus %q is not a whole number", v)
		}
		in.VCPUs = n
	}
	if v := get("ram_gib"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			bad("ram_gib %q is not a number of GiB", v)
		}
		in.RAMGiB = f
	}
	for _, a := range strings.Split(get("aliases"), "|") {
		if a = strings.TrimSpace(a); a != "" {
			in.Aliases = append(in.Aliases, a)
		}
	}
	return in, probs
}
