package catalog

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/platbench/platbench/internal/usererr"
)

func TestParseStorage(t *testing.T) {
	cases := []struct {
		in   string
		want StorageSpec
		back string // String() of the result
	}{
		{"gp3:2TiB:6000iops:250MBps", StorageSpec{"gp3", 2 << 40, 6000, 250}, "gp3:2TiB:6000iops:250MBps"},
		{"GP3:2T:250MB/s:6k iops", StorageSpec{"gp3", 2 << 40, 6000, 250}, "gp3:2TiB:6000iops:250MBps"},
		{"io1:500GiB:10000iops", StorageSpec{"io1", 500 << 30, 10000, 0}, "io1:500GiB:10000iops"},
		{"gp2:1.5TiB", StorageSpec{"gp2", 3 << 39, 0, 0}, "gp2:1536GiB"},
		{"pd-ssd:100G", StorageSpec{"pd-ssd", 100 << 30, 0, 0}, "pd-ssd:100GiB"},
		{" premium-ssd-v2:1TiB:125.5MiBps ", StorageSpec{"premium-ssd-v2", 1 << 40, 0, 125.5}, "premium-ssd-v2:1TiB:125.5MBps"},
		{"", StorageSpec{}, ""},
	}
	for _, tc := range cases {
		got, err := ParseStorage(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseStorage(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		if got.String() != tc.back {
			t.Errorf("%q: String() = %q, want %q", tc.in, got.String(), tc.back)
		}
	}
	for _, bad := range []string{"gp3", "gp3:", ":2TiB", "gp3:0", "gp3:-1G", "gp3:2TiB:6000", "gp3:2TiB:1iops:2iops", "gp3:2TiB:0iops",
		"gp3:2TiB:xMBps", "gp3:2TiB:1iops:2MBps:3", "gp 3:1G", "gp3:1.3B"} {
		_, err := ParseStorage(bad)
		var ue *usererr.Error
		if !errors.As(err, &ue) || ue.Field != "storage" || !strings.Contains(err.Error(), "fix: TYPE:SIZE") || strings.Contains(err.Error(), "--") {
			t.Errorf("ParseStorage(%q): %v, want a storage field error with the grammar", bad, err)
		}
	}
}

// A suite or profile file reads the same grammar.
func TestStorageSpecYAML(t *testing.T) {
	var v struct {
		Storage StorageSpec `yaml:"storage"`
	}
	if err := yaml.Unmarshal([]byte("storage: gp3:2TiB:6000iops:250MBps\n"), &v); err != nil || v.Storage != (StorageSpec{"gp3", 2 << 40, 6000, 250}) {
		t.Errorf("yaml: %+v %v", v.Storage, err)
	}
	if err := yaml.Unmarshal([]byte("storage: [gp3]\n"), &v); err == nil {
		t.Error("yaml list: no error")
	}
	if err := yaml.Unmarshal([]byte("storage: gp3:lots\n"), &v); err == nil || !strings.Contains(err.Error(), "size") {
		t.Errorf("yaml bad size: %v", err)
	}
}

// The grammar never panics; what it accepts has a type and a positive size,
// and its String parses back to the same spec.
func FuzzParseStorage(f *testing.F) {
	for _, s := range []string{"gp3:2TiB:6000iops:250MBps", "io1:500GiB:10000iops", "gp2:1.5T", "x:1:1iops:1mb/s", "::", "a:1e3G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseStorage(s)
		if err != nil {
			if !usererr.Is(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line, a user error", err)
			}
			return
		}
		if sp.IsZero() {
			return
		}
		if sp.Bytes <= 0 || sp.IOPS < 0 || sp.MBps < 0 {
			t.Fatalf("accepted %q as %+v", s, sp)
		}
		back, err := ParseStorage(sp.String())
		if err != nil || back != sp {
			t.Fatalf("%q -> %q -> %+v, %v", s, sp.String(), back, err)
		}
	})
}

func TestEmbeddedVolumesAndTransfers(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"gp2", "gp3", "io1", "io2", "pd-balanced", "pd-ssd", "hyperdisk-balanced", "premium-ssd-v2"} {
		v, err := c.LookupVolume(n)
		if err != nil || v.PerGiBMonthUSD <= 0 || v.Source == "" || v.PriceDate == "" || v.Region == "" || !strings.Contains(v.Source, "recalled not fetched") {
			t.Errorf("%s: %+v %v (want a priced, dated row that says it was written from memory)", n, v, err)
		}
	}
	gp3, _ := c.LookupVolume("GP3")
	if gp3.FreeIOPS != 3000 || gp3.FreeMBps != 125 || gp3.PerIOPSMonthUSD != 0.005 || gp3.PerMBpsMonthUSD != 0.04 {
		t.Errorf("gp3 baseline: %+v", gp3)
	}
	for _, p := range []string{"aws", "gcp", "azure"} {
		if tr, ok := c.TransferPrice(p, CrossZone); !ok || tr.PerGBUSD < 0 || tr.Source == "" {
			t.Errorf("%s cross-zone: %+v %v", p, tr, ok)
		}
	}
	_, err = c.LookupVolume("gp9")
	if !errors.Is(err, ErrUnknownVolume) || !strings.Contains(err.Error(), "gp3") {
		t.Errorf("unknown volume: %v", err)
	}
}

func TestCatalogFileWithSeveralTables(t *testing.T) {
	data := "provider,instance_type,price_per_hour_usd\naws,x1.large,1\n" +
		"# our storage contract\nprovider,volume_type,per_gib_month_usd,free_iops\naws,gp3,0.05,3000\naws,fast,0.2,\n" +
		"provider,transfer,per_gb_usd\naws,cross-zone,0.015\n"
	u, err := Parse(strings.NewReader(data), "mine.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Instances) != 1 || len(u.Volumes) != 2 || len(u.Transfers) != 1 {
		t.Fatalf("tables: %+v", u)
	}
	c, _ := Default()
	n := len(c.Volumes)
	c.Merge(u)
	if v, _ := c.LookupVolume("gp3"); v.PerGiBMonthUSD != 0.05 || v.File != "mine.csv" {
		t.Errorf("gp3 not replaced: %+v", v)
	}
	if len(c.Volumes) != n+1 {
		t.Errorf("volumes %d, want %d", len(c.Volumes), n+1)
	}
	if tr, _ := c.TransferPrice("AWS", "cross-zone"); tr.PerGBUSD != 0.015 {
		t.Errorf("transfer not replaced: %+v", tr)
	}
	// A storage-only file is a catalog too; bad rows are named by line.
	for _, tc := range []struct{ file, want string }{
		{"provider,volume_type,per_gib_month_usd\naws,gp3,cheap\n", `line 2 (gp3): per_gib_month_usd "cheap"`},
		{"provider,volume_type\naws,gp3\n", "no per_gib_month_usd column"},
		{"provider,volume_type,per_gib_month_usd\naws,gp3,1\naws,GP3,2\n", "line 3: GP3 is already on line 2"},
		{"provider,transfer,per_gb_usd\naws,cross-zone,-1\n", "line 2 (aws cross-zone): per_gb_usd"},
		{"provider,volume_type,per_gib_month_usd,colour\naws,gp3,1,red\n", `unknown column "colour"`},
	} {
		_, err := Parse(strings.NewReader(tc.file), "v.csv")
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "v.csv") {
			t.Errorf("%q: %v, want %q", tc.file, err, tc.want)
		}
	}
	if c, err := Parse(strings.NewReader("provider,volume_type,per_gib_month_usd\naws,gp3,0.08\n"), "v.csv"); err != nil || len(c.Volumes) != 1 {
		t.Errorf("volumes only: %v", err)
	}
}
