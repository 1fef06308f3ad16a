package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/usererr"
)

func TestEmbeddedCatalogIsComplete(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	// Every instance type the seed reports name, and the current mainstream
	// families of AWS, GCP and Azure, x86 and Arm.
	want := []string{
		"i2.xlarge", "i2.2xlarge", "i2.4xlarge", "i2.8xlarge",
		"i3.large", "i3.xlarge", "i3.2xlarge", "i3.4xlarge", "i3.8xlarge", "i3.16xlarge", "i3.metal",
		"i3en.large", "i3en.12xlarge", "i3en.24xlarge", "is4gen.large", "is4gen.8xlarge", "im4gn.large", "im4gn.16xlarge",
		"c3.2xlarge", "c4.2xlarge", "c4.8xlarge", "c5.4xlarge", "c6i.8xlarge", "m4.2xlarge", "r4.2xlarge", "r4.4xlarge",
		"g2.8xlarge", "p2.xlarge", "p2.8xlarge", "p2.16xlarge",
		"type1", "Type 1", "type2a", "Type-2a", "ThunderX", "c1.large.arm",
		"i4i.4xlarge", "i4g.4xlarge", "m7g.xlarge", "c7g.xlarge", "r7g.xlarge", "m7i.xlarge", "c7i.xlarge", "r7i.xlarge", "m6i.xlarge", "c6g.xlarge",
		"n2-standard-8", "n2d-standard-8", "c3-standard-8", "t2a-standard-8", "c4a-standard-8", "z3-highmem-88", "e2-standard-8",
		"Standard_L8s_v3", "standard_l16s_v3", "Standard_D8s_v5", "Standard_D8ps_v5", "Standard_D8as_v5", "Standard_E8s_v5",
	}
	for _, n := range want {
		if _, err := c.Lookup(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	arches := map[string]map[string]bool{}
	for _, in := range c.Instances {
		if in.Provider == "" || in.Arch == "" || in.VCPUs <= 0 || in.RAMGiB <= 0 || in.LocalStorage == "" || in.PricePerHourUSD <= 0 || in.Region == "" || in.PriceDate == "" || in.Source == "" {
			t.Errorf("incomplete row: %+v", in)
		}
		if in.Arch != "x86_64" && in.Arch != "arm64" {
			t.Errorf("%s: arch %q", in.Type, in.Arch)
		}
		if arches[in.Provider] == nil {
			arches[in.Provider] = map[string]bool{}
		}
		arches[in.Provider][in.Arch] = true
	}
	for _, p := range []string{"aws", "gcp", "azure", "packet"} {
		if !arches[p]["x86_64"] || !arches[p]["arm64"] {
			t.Errorf("%s: arches %v, want x86_64 and arm64", p, arches[p])
		}
	}
	// Seed prices, with the seed as their source.
	for typ, price := range map[string]float64{"i3.4xlarge": 1.248, "i3.2xlarge": 0.624, "i3.16xlarge": 4.992, "i3.metal": 4.992, "i2.4xlarge": 3.41, "p2.8xlarge": 7.2, "type1": 0.40, "type2a": 0.50} {
		in, _ := c.Lookup(typ)
		if in.PricePerHourUSD != price || !strings.HasPrefix(in.Source, "seed 00") {
			t.Errorf("%s: $%v from %q, want $%v from a seed", typ, in.PricePerHourUSD, in.Source, price)
		}
	}
}

func TestUnknownInstanceType(t *testing.T) {
	c, _ := Default()
	_, err := c.Lookup("i3.9xlarge")
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("err = %v, want ErrUnknown", err)
	}
	msg := err.Error()
	if !usererr.Is(err) || strings.Contains(err.Error(), "--") {
		t.Errorf("error %q is not a user error free of flag names", err)
	}
	for _, s := range []string{`unknown instance type "i3.9xlarge"`, "did you mean i3.", "fix:", "family i3", "price per hour", "catalog file"} {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q lacks %q", msg, s)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
}

func TestMalformedCatalogFiles(t *testing.T) {
	cases := []struct {
		name, file string
		want       []string // substrings of the error
	}{
		{"empty", "", []string{"empty file", "header row"}},
		{"only comments", "# nothing\n", []string{"empty file"}},
		{"no price column", "provider,instance_type\naws,x1.large\n", []string{"no price_per_hour_usd column"}},
		{"unknown column", "provider,instance_type,price_per_hour_usd,colour\naws,x1.large,1,red\n", []string{`unknown column "colour"`}},
		{"bad price", "provider,instance_type,price_per_hour_usd\naws,x1.large,cheap\n", []string{"line 2 (x1.large)", `"cheap" is not a positive number`}},
		{"negative price", "provider,instance_type,price_per_hour_usd\naws,x1.large,-1\n", []string{"line 2", "positive"}},
		{"zero price", "provider,instance_type,price_per_hour_usd\naws,x1.large,0\n", []string{"line 2", "positive"}},
		{"missing price", "provider,instance_type,price_per_hour_usd\naws,x1.large\n", []string{"line 2 (x1.large): no price_per_hour_usd"}},
		{"no type", "provider,instance_type,price_per_hour_usd\naws,,1\n", []string{"line 2: no instance_type"}},
		{"bad vcpus", "provider,instance_type,price_per_hour_usd,vcpus\naws,x1.large,1,many\n", []string{`vcpus "many"`}},
		{"duplicate", "provider,instance_type,price_per_hour_usd\naws,x1.large,1\naws,X1.Large,2\n", []string{"line 3: X1.Large is already on line 2"}},
		{"header only", "provider,instance_type,price_per_hour_usd\n", []string{"no rows"}},
		{"bad quoting", "provider,instance_type,price_per_hour_usd\naws,\"x1.large,1\n", []string{"extraneous or missing \" in quoted-field"}},
		{"several problems at once", "provider,instance_type,price_per_hour_usd\naws,a,x\naws,b,y\n", []string{"line 2 (a)", "line 3 (b)"}},
	}
	for _, tc := range cases {
		_, err := Parse(strings.NewReader(tc.file), "my.csv")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !errors.Is(err, ErrMalformed) || !usererr.Is(err) || !strings.Contains(err.Error(), "my.csv") || !strings.Contains(err.Error(), "fix:") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q should wrap ErrMalformed, name the file, give a fix, on one line", tc.name, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
	}
}

func TestUserFileOverridesAndExtends(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prices.csv")
	data := "# negotiated prices\nprovider,instance_type,price_per_hour_usd,region,price_date,source\n" +
		"aws,i3.4xlarge,0.80,eu-west-1,2026-01,our contract\n" +
		"onprem,rack-a,2.5,dc1,2026-01,amortised hardware\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.Lookup("I3.4XLARGE")
	if err != nil || in.PricePerHourUSD != 0.80 || in.Source != "our contract" || in.File != path {
		t.Errorf("override: %+v %v", in, err)
	}
	if in, err := c.Lookup("rack-a"); err != nil || in.PricePerHourUSD != 2.5 {
		t.Errorf("extension: %+v %v", in, err)
	}
	if in, _ := c.Lookup("i3.2xlarge"); in.PricePerHourUSD != 0.624 {
		t.Errorf("untouched row changed: %+v", in)
	}
	if got := len(c.Filter("rack")); got != 1 {
		t.Errorf("filter rack: %d rows", got)
	}
	var ue *usererr.Error
	if _, err := Load(filepath.Join(dir, "missing.csv")); !errors.As(err, &ue) || ue.Field != "catalog" || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing file: %v, want a user error about the catalog field", err)
	}
}

func TestMonthlyUSD(t *testing.T) {
	// Hand-checked: $1.248 x 730 h = $911.04 (the DataStax report's Table 7
	// i3.4xlarge row); $0.0816 x 730 = $59.568 -> $59.57.
	for _, tc := range []struct {
		price float64
		nodes int
		want  float64
	}{{1.248, 1, 911.04}, {0.0816, 1, 59.57}, {0.624, 9, 4099.68}, {4.992, 6, 21864.96}} {
		if got := MonthlyUSD(tc.price, tc.nodes); got != tc.want {
			t.Errorf("MonthlyUSD(%v, %d) = %v, want %v", tc.price, tc.nodes, got, tc.want)
		}
	}
}

// The catalog file parser never panics; a catalog it accepts has rows with a
// type and a positive price, each findable by its type.
func FuzzParse(f *testing.F) {
	f.Add("provider,instance_type,price_per_hour_usd\naws,x1.large,1\n")
	f.Add("# c\nprovider,instance_type,price_per_hour_usd,aliases,vcpus,ram_gib\naws,a,$0.5,b|c,4,16\n")
	f.Add("provider,instance_type\naws,\"x\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, data string) {
		c, err := Parse(strings.NewReader(data), "fuzz.csv")
		if err != nil {
			if !errors.Is(err, ErrMalformed) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line wrapping ErrMalformed", err)
			}
			return
		}
		for _, in := range c.Instances {
			if in.Type == "" || !(in.PricePerHourUSD > 0) {
				t.Fatalf("accepted row %+v", in)
			}
			if _, err := c.Lookup(in.Type); err != nil {
				t.Fatalf("row %q not found: %v", in.Type, err)
			}
		}
	})
}
