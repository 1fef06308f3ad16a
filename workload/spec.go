package workload

import (
	"github.com/platbench/platbench/cstress"
	"github.com/platbench/platbench/vocab"
)

// Dist names a key distribution.
type Dist string

// Key distributions, as YCSB's requestdistribution names them.
const (
	DistUniform    Dist = "uniform"
	DistZipfian    Dist = "zipfian"    // scrambled zipfian, constant 0.99
	DistLatest     Dist = "latest"     // skewed towards the most recent inserts
	DistHotspot    Dist = "hotspot"    // HotsetFraction of keys get HotOpnFraction of ops
	DistSequential Dist = "sequential" // 0,1,2,... wrapping at Records
	// DistGaussian is cassandra-stress's default for read and mixed,
	// gaussian(1..N): mean at the middle of the records, 3 standard
	// deviations to either end, clamped to the range.
	DistGaussian Dist = "gaussian"
)

// Spec is a workload: everything needed to generate requests. It is a plain
// struct so that it can be written into the result file as it ran.
type Spec struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`

	// Records is the dataset size in records loaded by the load phase. Default 100000.
	Records uint64 `yaml:"records" json:"records"`
	// FieldCount is the number of fields per record (YCSB fieldcount). Default 10.
	FieldCount int `yaml:"field_count" json:"field_count"`
	// FieldLength is the bytes per field (YCSB fieldlength). Default 100.
	FieldLength int `yaml:"field_length" json:"field_length"`
	// KeyPrefix is prepended to the formatted key number. Default "user".
	KeyPrefix string `yaml:"key_prefix" json:"key_prefix"`
	// OrderedInserts keeps key numbers in order instead of hashing them
	// (YCSB insertorder=ordered). Default false (hashed).
	OrderedInserts bool `yaml:"ordered_inserts" json:"ordered_inserts"`
	// KeyPadding left-pads the key number with zeros to this many digits
	// (YCSB zeropadding), e.g. 8: "user00000005". Default 0: no padding.
	KeyPadding int `yaml:"key_padding,omitempty" json:"key_padding,omitempty"`

	// Mix is the op proportions; weights need not sum to 1. Default YCSB A
	// (READ=0.5, UPDATE=0.5). In YAML it is a list of {op, weight} maps, a
	// list of "op=weight" strings, or one "read=3,write=1" string.
	Mix MixList `yaml:"mix" json:"mix"`
	// Distribution chooses keys for reads, updates, scans and RMW. Default zipfian.
	Distribution Dist `yaml:"distribution" json:"distribution"`
	// ZipfConstant is the zipfian skew. Default 0.99 (YCSB).
	ZipfConstant float64 `yaml:"zipf_constant,omitempty" json:"zipf_constant,omitempty"`
	// HotsetFraction and HotOpnFraction shape the hotspot distribution. Defaults 0.2 and 0.8.
	HotsetFraction float64 `yaml:"hotset_fraction,omitempty" json:"hotset_fraction,omitempty"`
	HotOpnFraction float64 `yaml:"hot_opn_fraction,omitempty" json:"hot_opn_fraction,omitempty"`
	// MaxScanLength bounds scan lengths, drawn uniformly in [1, MaxScanLength]
	// (YCSB maxscanlength). Default 100.
	MaxScanLength int `yaml:"max_scan_length,omitempty" json:"max_scan_length,omitempty"`
	// WriteAllFields makes updates write every field instead of one. Default false.
	WriteAllFields bool `yaml:"write_all_fields,omitempty" json:"write_all_fields,omitempty"`
	// CheckValues (validate) makes every written field checkable (value.go) and the
	// targets check what reads return: validation_missing and
	// validation_corrupt errors. Default false.
	CheckValues bool `yaml:"validate,omitempty" json:"validate,omitempty"`

	// NamedOps are the names of the named op slots (OpNamed0 + i), from a
	// cassandra-stress profile: "insert" and its queries. See Spec.OpName.
	NamedOps []string `yaml:"-" json:"named_ops,omitempty"`
	// CQL is the cassandra-stress user profile the workload came from
	// (nil for other workloads); the CQL target runs it.
	CQL *cstress.Profile `yaml:"-" json:"cql_profile,omitempty"`
	// Commands are command templates (command.go), each a named operation
	// of its own in the mix: memtier's --command. The redis target runs them.
	Commands []Command `yaml:"commands,omitempty" json:"commands,omitempty"`

	// Options are target-specific settings carried with the workload
	// (e.g. a preset's "value_size" for the CP subsystem); free-form.
	Options map[string]string `yaml:"options,omitempty" json:"options,omitempty"`
}

// RecordBytes is the payload size of one record.
func (s *Spec) RecordBytes() int { return s.FieldCount * s.FieldLength }

// DatasetBytes is the logical dataset size: records x record size (keys excluded).
func (s *Spec) DatasetBytes() int64 { return int64(s.Records) * int64(s.RecordBytes()) }

// ReadsRecords reports whether the mix reads, updates or deletes records
// that a load phase put there (a run without a load needs them); a mix of
// only inserts, writes, sets and produces does not.
func (s *Spec) ReadsRecords() bool {
	for _, m := range s.Mix {
		if m.Weight <= 0 {
			continue
		}
		switch m.Op {
		case vocab.OpInsert, vocab.OpProduce, vocab.OpWrite, vocab.OpSet:
		default:
			return true
		}
	}
	return false
}
