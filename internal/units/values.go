package units

import (
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// Count, Size, Rate and Duration are values that parse with this package's
// grammar wherever they are read: as a flag (flag.Value), from YAML (a
// workload or suite file: `records: 1M`) and from text (encoding.TextUnmarshaler).
type (
	Count    uint64
	Size     int64
	Rate     float64
	Duration time.Duration
)

// Set implements flag.Value.
func (c *Count) Set(s string) error {
	v, err := ParseCount(s)
	*c = Count(v)
	return err
}
func (c Count) String() string { return strconv.FormatUint(uint64(c), 10) }

// Set implements flag.Value.
func (z *Size) Set(s string) error {
	v, err := ParseSize(s)
	*z = Size(v)
	return err
}
func (z Size) String() string { return strconv.FormatInt(int64(z), 10) }

// Set implements flag.Value.
func (r *Rate) Set(s string) error {
	v, err := ParseRate(s)
	*r = Rate(v)
	return err
}
func (r Rate) String() string { return strconv.FormatFloat(float64(r), 'f', -1, 64) }

// Set implements flag.Value.
func (d *Duration) Set(s string) error {
	v, err := ParseDuration(s)
	*d = Duration(v)
	return err
}
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Count) UnmarshalText(b []byte) error { return c.Set(string(b)) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (z *Size) UnmarshalText(b []byte) error { return z.Set(string(b)) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *Rate) UnmarshalText(b []byte) error { return r.Set(string(b)) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error { return d.Set(string(b)) }

// UnmarshalYAML reads a YAML scalar (1000, 1M, "1M") through the grammar.
func (c *Count) UnmarshalYAML(n *yaml.Node) error { return scalar(n, c.Set) }

// UnmarshalYAML reads a YAML scalar (4096, 4KB) through the grammar.
func (z *Size) UnmarshalYAML(n *yaml.Node) error { return scalar(n, z.Set) }

// UnmarshalYAML reads a YAML scalar (5000, 20k) through the grammar.
func (r *Rate) UnmarshalYAML(n *yaml.Node) error { return scalar(n, r.Set) }

// UnmarshalYAML reads a YAML scalar (30s, 2m) through the grammar.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error { return scalar(n, d.Set) }

func scalar(n *yaml.Node, set func(string) error) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{"line " + strconv.Itoa(n.Line) + ": expected a single value, not a list or map"}}
	}
	return set(n.Value)
}
