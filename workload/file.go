package workload

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/platbench/platbench/cstress"
	"github.com/platbench/platbench/internal/bounded"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
)

// fileSpec is a workload file: a Spec plus an optional preset to start from.
type fileSpec struct {
	Base string `yaml:"base"`
	Spec `yaml:",inline"`
}

// unitFields are the fields a file writes with the units grammar, as the
// flags that set them are: `records: 1M` is `--records 1M`, `field_length:
// 1KiB` is `--field-length 1KiB`. (Spec keeps plain integers because it is
// also the result file's JSON.)
var unitFields = map[string]units.Kind{
	"records":         units.KindCount,
	"field_count":     units.KindCount,
	"field_length":    units.KindSize,
	"max_scan_length": units.KindCount,
}

// zeroMeansDefault are the fields whose 0 EnsureDefaults would replace with
// its default: written as 0 in a file they are an error, not silently the
// default (a file's `records: 0` once loaded 100,000 records).
var zeroMeansDefault = map[string]any{
	"records":          DefaultRecords,
	"field_count":      DefaultFieldCount,
	"field_length":     DefaultFieldLength,
	"max_scan_length":  DefaultMaxScanLength,
	"zipf_constant":    DefaultZipfConstant,
	"hotset_fraction":  DefaultHotsetFraction,
	"hot_opn_fraction": DefaultHotOpnFraction,
}

// fileFields are the keys a workload file may use, from fileSpec's YAML tags.
var fileFields = func() []string {
	out := []string{"base"}
	t := reflect.TypeFor[Spec]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}()

// MaxFileBytes bounds a workload file: a workload, a cassandra-stress
// profile or a YCSB property file is kilobytes; a device (/dev/zero), a
// FIFO or a file past this is refused before it is read whole.
const MaxFileBytes = 16 << 20

// LoadFile reads a workload file (see Open) and returns its Spec; what a
// YCSB property file says beyond the workload (operationcount, the load's
// part, the warnings) is dropped.
func LoadFile(path string) (Spec, error) {
	l, err := Open(path)
	return l.Spec, err
}

// Open reads a workload file: a YAML workload file, a cassandra-stress user
// profile (cstress.IsProfile) or a YCSB CoreWorkload property file (told apart by
// IsPropertyFile). Unknown YAML fields are an
// error naming the field and its line. `base: <preset>` starts from that
// preset and the file's fields override it; the result has defaults filled
// in and is valid. A file without name is named after the file.
func Open(path string) (Loaded, error) {
	data, err := bounded.ReadFile(path, MaxFileBytes)
	if err != nil {
		return Loaded{}, fmt.Errorf("workload file: %w (fix: give a readable YAML or YCSB property file of at most %d MiB, or a preset name)", err, MaxFileBytes>>20)
	}
	var l Loaded
	if cstress.IsProfile(data) {
		l.Spec, err = ParseCSProfile(data)
	} else if IsPropertyFile(path, data) {
		l, err = ParsePropertyFile(data)
		for i, w := range l.Warnings {
			l.Warnings[i] = "workload file " + path + ": " + w
		}
	} else {
		l.Spec, err = ParseFile(data)
	}
	if err != nil {
		return Loaded{}, usererr.New("workload file %s: %s", path, err)
	}
	if l.Spec.Name == "" {
		l.Spec.Name = path
	}
	return l, nil
}

// ParseFile decodes a workload file's content strictly (see LoadFile), fills
// the defaults and validates it. Its errors name lines and file fields, not
// flags: a problem in a file is fixed in the file.
func ParseFile(data []byte) (Spec, error) {
	top, err := fileNode(data)
	if err != nil {
		return Spec{}, err
	}
	if err := normalize(top); err != nil {
		return Spec{}, err
	}
	var f fileSpec
	if i := slices.IndexFunc(top.Content, func(n *yaml.Node) bool { return n.Value == "base" }); i >= 0 && i%2 == 0 {
		p, err := Preset(top.Content[i+1].Value)
		if err != nil {
			return Spec{}, fmt.Errorf("base: %w", err)
		}
		p.Name = "" // the file's own name, or the file name
		f.Spec = p
	}
	if err := top.Decode(&f); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			// yaml lists one problem per line; keep the error on one line
			// and drop the Go type names, which mean nothing to the user.
			return Spec{}, fmt.Errorf("%s (fix: see docs/workloads.md for the fields and their types)", strings.Join(te.Errors, "; "))
		}
		return Spec{}, err
	}
	f.Spec.EnsureDefaults()
	if p := f.Spec.Problems(); len(p) > 0 {
		// The fields are the file's: rendered as they are, not as flags.
		return Spec{}, errors.New(usererr.Render(p.Err(), nil))
	}
	return f.Spec, nil
}

// fileNode parses data as one YAML document holding a map and returns it.
func fileNode(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("file is empty (fix: write at least `base: ycsb-a`)")
		}
		return nil, fmt.Errorf("%s (fix: correct the YAML syntax)", strings.Join(strings.Fields(err.Error()), " "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document (fix: keep one workload per file)")
	}
	top := &doc
	if top.Kind == yaml.DocumentNode && len(top.Content) == 1 {
		top = top.Content[0]
	}
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: a workload file is a map of fields (fix: e.g. `base: ycsb-a` and `records: 1M` on their own lines)", top.Line)
	}
	return top, nil
}

// normalize checks the top-level keys (yaml.Node.Decode has no strict mode)
// and rewrites the unit fields' values as plain integers, so that the
// decoding that follows keeps the file's line numbers in its errors.
func normalize(top *yaml.Node) error {
	var probs, unknown []string
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if !slices.Contains(fileFields, k.Value) {
			unknown = append(unknown, fmt.Sprintf("line %d: unknown field %q", k.Line, k.Value))
			continue
		}
		if err := normalizeValue(k.Value, v); err != nil {
			probs = append(probs, fmt.Sprintf("line %d: %s %v", v.Line, k.Value, err))
		}
	}
	if len(unknown) > 0 {
		probs = append(probs, fmt.Sprintf("%s (fix: remove it or use one of %s)", strings.Join(unknown, "; "), strings.Join(fileFields, ", ")))
	}
	if len(probs) > 0 {
		return errors.New(strings.Join(probs, "; "))
	}
	return nil
}

func normalizeValue(field string, v *yaml.Node) error {
	kind, isUnit := unitFields[field]
	def, zeroIsDefault := zeroMeansDefault[field]
	if (!isUnit && !zeroIsDefault) || v.Kind != yaml.ScalarNode {
		return nil // the decoder reports a list or a map where a number belongs
	}
	var zero bool
	switch {
	case kind == units.KindSize:
		n, err := units.ParseSize(v.Value)
		if err != nil {
			return err
		}
		v.Value, zero = strconv.FormatInt(n, 10), n == 0
	case isUnit:
		n, err := units.ParseCount(v.Value)
		if err != nil {
			return err
		}
		v.Value, zero = strconv.FormatUint(n, 10), n == 0
	default:
		f, err := strconv.ParseFloat(v.Value, 64)
		zero = err == nil && f == 0
	}
	if isUnit {
		v.Tag, v.Style = "!!int", 0
	}
	if zero {
		return fmt.Errorf("is 0, which is not a value here (fix: leave %s out for the default %v, or give a value above 0)", field, def)
	}
	return nil
}
