package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/platbench/platbench/vocab"
	"gopkg.in/yaml.v3"
)

// MixList is a Spec's op mix. It is a named slice only so that YAML files may
// write it as one "read=3,write=1" string; use it as a []Mix.
type MixList []vocab.Mix

// ParseMix parses "read=3,write=1" or "read=0.95,update=0.05" (op names in
// any case, "rmw" for READ-MODIFY-WRITE; weights are relative and need not
// sum to 1). A repeated op is an error.
func ParseMix(s string) ([]vocab.Mix, error) { return parseMix(s, vocab.ParseOp, vocab.OpList()) }

// ParseMix parses a mix as the package function does, where the names may
// also be sp's named operations (a profile's `insert=1,simple1=9`).
func (sp *Spec) ParseMix(s string) ([]vocab.Mix, error) {
	names := vocab.OpList()
	if len(sp.NamedOps) > 0 {
		names = strings.Join(sp.NamedOps, ", ") + " (this workload's operations), or " + names
	}
	return parseMix(s, sp.ParseOpName, names)
}

func parseMix(s string, parse func(string) (vocab.Op, bool), names string) ([]vocab.Mix, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty mix (fix: give op=weight pairs, e.g. read=3,write=1)")
	}
	var out []vocab.Mix
	for _, part := range strings.Split(s, ",") {
		m, err := parseMixItem(part, parse, names)
		if err != nil {
			return nil, err
		}
		for _, prev := range out {
			if prev.Op == m.Op {
				return nil, fmt.Errorf("mix %q names %s twice (fix: give each op once)", s, strings.ToUpper(strings.TrimSpace(strings.Split(part, "=")[0])))
			}
		}
		out = append(out, m)
	}
	return out, nil
}

func parseMixItem(part string, parse func(string) (vocab.Op, bool), names string) (vocab.Mix, error) {
	name, w, ok := strings.Cut(strings.TrimSpace(part), "=")
	if !ok {
		return vocab.Mix{}, fmt.Errorf("mix item %q has no weight (fix: write op=weight, e.g. read=3)", strings.TrimSpace(part))
	}
	op, ok := parse(name)
	if !ok {
		return vocab.Mix{}, fmt.Errorf("mix item %q: unknown op %q (fix: use one of %s)", strings.TrimSpace(part), strings.TrimSpace(name), names)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return vocab.Mix{}, fmt.Errorf("mix item %q: weight %q is not a number >= 0 (fix: e.g. %s=0.5)", strings.TrimSpace(part), strings.TrimSpace(w), strings.ToLower(strings.TrimSpace(name)))
	}
	return vocab.Mix{Op: op, Weight: f}, nil
}

// String formats the mix as ParseMix reads it, e.g. "read=0.5,update=0.5".
// A named operation (a profile's query) prints as its slot: Spec.MixString
// prints its name.
func (ml MixList) String() string { return ml.format(vocab.Op.String) }

// MixString formats s's mix with its operations' names, as
// Spec.ParseOpName reads them: "insert=1,simple1=9" for a profile.
func (s *Spec) MixString() string { return s.Mix.format(s.OpName) }

func (ml MixList) format(name func(vocab.Op) string) string { return vocab.FormatMix(ml, name) }

// UnmarshalYAML accepts "read=3,write=1", a list of "op=weight" strings, or a
// list of {op: read, weight: 3} maps (unknown keys in a map are an error).
func (ml *MixList) UnmarshalYAML(n *yaml.Node) error {
	at := func(n *yaml.Node, err error) error { return fmt.Errorf("line %d: %w", n.Line, err) }
	switch n.Kind {
	case yaml.ScalarNode:
		m, err := ParseMix(n.Value)
		if err != nil {
			return at(n, err)
		}
		*ml = m
		return nil
	case yaml.SequenceNode:
		out := make(MixList, 0, len(n.Content))
		for _, it := range n.Content {
			var m vocab.Mix
			switch it.Kind {
			case yaml.ScalarNode:
				var err error
				if m, err = parseMixItem(it.Value, vocab.ParseOp, vocab.OpList()); err != nil {
					return at(it, err)
				}
			case yaml.MappingNode:
				var haveOp, haveW bool
				for i := 0; i+1 < len(it.Content); i += 2 {
					k, v := it.Content[i], it.Content[i+1]
					switch k.Value {
					case "op":
						op, ok := vocab.ParseOp(v.Value)
						if !ok || v.Kind != yaml.ScalarNode {
							return at(v, fmt.Errorf("mix: unknown op %q (fix: use one of %s)", v.Value, vocab.OpList()))
						}
						m.Op, haveOp = op, true
					case "weight":
						f, err := strconv.ParseFloat(v.Value, 64)
						if err != nil || v.Kind != yaml.ScalarNode || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
							return at(v, fmt.Errorf("mix: weight %q is not a number >= 0 (fix: e.g. weight: 0.5)", v.Value))
						}
						m.Weight, haveW = f, true
					default:
						return at(k, fmt.Errorf("mix: field %q not known (fix: a mix item has only op and weight)", k.Value))
					}
				}
				if !haveOp || !haveW {
					return at(it, fmt.Errorf("mix item needs both op and weight (fix: e.g. {op: read, weight: 0.5})"))
				}
			default:
				return at(it, fmt.Errorf("mix item is not a string or a map (fix: write read=0.5 or {op: read, weight: 0.5})"))
			}
			for _, prev := range out {
				if prev.Op == m.Op {
					return at(it, fmt.Errorf("mix names %s twice (fix: give each op once)", m.Op))
				}
			}
			out = append(out, m)
		}
		*ml = out
		return nil
	}
	return at(n, fmt.Errorf("mix is not a string or a list (fix: write mix: read=0.5,update=0.5)"))
}
