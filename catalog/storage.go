package catalog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
)

// StorageSpec is the block volume each server node uses, as a person types it:
//
//	TYPE:SIZE[:IOPSiops][:MBPSMBps]
//
// TYPE is a volume_type of the catalog (gp3, io1, pd-ssd, premium-ssd-v2...),
// SIZE a size in the units grammar (2TiB, 500GiB, 1.5T; binary multiples),
// IOPS a count with the suffix "iops" (6000iops, 16kiops) and MBPS a number
// with the suffix "MBps" or "MB/s" (250MBps), in either order. An omitted
// IOPS or MB/s is the type's included baseline. The zero StorageSpec means
// no volume was named.
type StorageSpec struct {
	Type  string
	Bytes int64
	IOPS  float64 // provisioned IOPS; 0: the type's baseline
	MBps  float64 // provisioned MB/s; 0: the type's baseline
}

// storageFix is the grammar, for error messages.
const storageFix = "fix: TYPE:SIZE[:IOPSiops][:MBPSMBps] per node, e.g. gp3:2TiB:6000iops:250MBps or io1:500GiB:10000iops"

// ParseStorage parses a StorageSpec; "" is the zero spec. Errors are
// usererr.Field("storage", ...).
func ParseStorage(s string) (StorageSpec, error) {
	var sp StorageSpec
	s = strings.TrimSpace(s)
	if s == "" {
		return sp, nil
	}
	parts := strings.Split(s, ":")
	bad := func(format string, a ...any) (StorageSpec, error) {
		return StorageSpec{}, usererr.Field("storage", "%q: %s (%s)", s, fmt.Sprintf(format, a...), storageFix)
	}
	if len(parts) < 2 || len(parts) > 4 {
		return bad("want a volume type and a size, then optional IOPS and MB/s, separated by colons")
	}
	sp.Type = strings.ToLower(strings.TrimSpace(parts[0]))
	if sp.Type == "" || strings.ContainsAny(sp.Type, " \t,\"") {
		return bad("%q is not a volume type", parts[0])
	}
	n, err := units.ParseSize(parts[1])
	if err != nil || n <= 0 {
		return bad("size %q is not a positive size in bytes (e.g. 500GiB, 2TiB)", parts[1])
	}
	sp.Bytes = n
	for _, p := range parts[2:] {
		t := strings.ToLower(strings.TrimSpace(p))
		switch {
		case strings.HasSuffix(t, "iops") && sp.IOPS == 0:
			c, err := units.ParseCount(strings.TrimSuffix(t, "iops"))
			if err != nil || c == 0 || c > 1e9 {
				return bad("%q is not a positive number of IOPS (e.g. 6000iops)", p)
			}
			sp.IOPS = float64(c)
		case hasMBps(t) && sp.MBps == 0:
			f, err := strconv.ParseFloat(strings.TrimSpace(trimMBps(t)), 64)
			if err != nil || !(f > 0) || f > 1e7 {
				return bad("%q is not a positive number of MB/s (e.g. 250MBps)", p)
			}
			sp.MBps = f
		default:
			return bad("%q is neither IOPS (6000iops) nor MB/s (250MBps), or is given twice", p)
		}
	}
	return sp, nil
}

var mbpsSuffixes = []string{"mbps", "mb/s", "mibps", "mib/s"}

func hasMBps(t string) bool {
	for _, s := range mbpsSuffixes {
		if strings.HasSuffix(t, s) {
			return true
		}
	}
	return false
}

func trimMBps(t string) string {
	for _, s := range mbpsSuffixes {
		if strings.HasSuffix(t, s) {
			return strings.TrimSuffix(t, s)
		}
	}
	return t
}

// IsZero tells whether no volume was named.
func (s StorageSpec) IsZero() bool { return s.Type == "" }

// GiB is the volume's size in GiB (2^30 bytes), the unit providers price.
func (s StorageSpec) GiB() float64 { return float64(s.Bytes) / (1 << 30) }

// String is the spec in the grammar ParseStorage reads back: gp3:2TiB:6000iops:250MBps.
func (s StorageSpec) String() string {
	if s.IsZero() {
		return ""
	}
	out := s.Type + ":" + sizeText(s.Bytes)
	if s.IOPS > 0 {
		out += ":" + strconv.FormatFloat(s.IOPS, 'f', -1, 64) + "iops"
	}
	if s.MBps > 0 {
		out += ":" + strconv.FormatFloat(s.MBps, 'f', -1, 64) + "MBps"
	}
	return out
}

// sizeText writes a size in the largest binary unit that divides it.
func sizeText(b int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"PiB", 1 << 50}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b%u.mult == 0 {
			return strconv.FormatInt(b/u.mult, 10) + u.name
		}
	}
	return strconv.FormatInt(b, 10) + "B"
}

// Set implements flag.Value. Its error does not name the field: the flag
// or the file's key that was set says which it was.
func (s *StorageSpec) Set(v string) error {
	sp, err := ParseStorage(v)
	if ue := (*usererr.Error)(nil); errors.As(err, &ue) {
		return usererr.New("%s", ue.Msg)
	}
	if err != nil {
		return err
	}
	*s = sp
	return nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *StorageSpec) UnmarshalText(b []byte) error { return s.Set(string(b)) }

// MarshalText implements encoding.TextMarshaler (the grammar's form).
func (s StorageSpec) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalYAML reads a YAML scalar (gp3:2TiB:6000iops) through the grammar.
func (s *StorageSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{"line " + strconv.Itoa(n.Line) + ": expected a volume like gp3:2TiB:6000iops, not a list or map"}}
	}
	return s.Set(n.Value)
}
