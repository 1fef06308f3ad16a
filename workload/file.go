package workload

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// fileSpec is a workload file: a Spec plus an optional preset to start from.
type fileSpec struct {
	Base string `yaml:"base"`
	Spec `yaml:",inline"`
}

// LoadFile reads a YAML workload file. Unknown fields are an error naming the
// field and its line. `base: <preset>` starts from that preset and the file's
// fields override it; the result has defaults filled in but is not validated.
// A file without name is named after the file.
func LoadFile(path string) (Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Spec{}, fmt.Errorf("workload file: %w (fix: give a readable YAML file or a preset name)", err)
	}
	s, err := parseFile(data)
	if err != nil {
		return Spec{}, fmt.Errorf("workload file %s: %w", path, err)
	}
	if s.Name == "" {
		s.Name = path
	}
	return s, nil
}

func parseFile(data []byte) (Spec, error) {
	// First pass: only base, leniently, to know where to start.
	var head struct {
		Base string `yaml:"base"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return Spec{}, fmt.Errorf("%w (fix: correct the YAML syntax)", err)
	}
	var f fileSpec
	if head.Base != "" {
		p, err := Preset(head.Base)
		if err != nil {
			return Spec{}, fmt.Errorf("base: %w", err)
		}
		p.Name = "" // the file's own name, or the file name
		f.Spec = p
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return Spec{}, fmt.Errorf("file is empty (fix: write at least `base: ycsb-a`)")
		}
		var te *yaml.TypeError
		if errors.As(err, &te) {
			// yaml lists one problem per line; keep the error on one line
			// and drop the Go type name, which means nothing to the user.
			msgs := make([]string, len(te.Errors))
			for i, m := range te.Errors {
				msgs[i] = strings.Replace(m, " in type workload.fileSpec", "", 1)
			}
			return Spec{}, fmt.Errorf("%s (fix: see docs/workloads.md for the fields and their types)", strings.Join(msgs, "; "))
		}
		return Spec{}, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Spec{}, fmt.Errorf("more than one YAML document (fix: keep one workload per file)")
	}
	f.Spec.EnsureDefaults()
	return f.Spec, nil
}
