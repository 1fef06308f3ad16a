// Package workload describes what a benchmark asks of a target: the mix of
// operation types, how keys are chosen, how big values are, and how many
// records make up the dataset. It knows nothing about targets or timing.
//
// The types that matter: Spec is the workload (from Preset, Open (a YAML
// workload file or a YCSB property file: ParseFile, ParsePropertyFile) or a
// literal; EnsureDefaults then Validate). Keyspace is the state one run shares
// (insert counter, sequential cursor, zipfian constants, shard bounds).
// Generator fills a Request per operation for one worker without allocating.
// The distributions follow YCSB's CoreWorkload; docs/workloads.md describes
// them and the YAML format.
package workload

import (
	"strings"

	"github.com/platbench/platbench/vocab"
)

// OpName is the name of op in results and reports: the workload's own name
// for a named slot (e.g. "simple1"), the built-in name otherwise.
func (s *Spec) OpName(op vocab.Op) string { return vocab.OpName(op, s.NamedOps) }

// ParseOpName is ParseOp that knows s's named operations, which take
// precedence over the built-in names (a profile's "insert").
func (s *Spec) ParseOpName(name string) (vocab.Op, bool) {
	n := strings.TrimSpace(name)
	for i, nm := range s.NamedOps {
		if strings.EqualFold(nm, n) {
			return vocab.OpNamed0 + vocab.Op(i), true
		}
	}
	return vocab.ParseOp(n)
}

// Request is one operation handed to a target. The runner owns it and reuses
// it for every operation of a worker: targets must not keep references to Key
// or Value after Do returns.
type Request struct {
	Op       vocab.Op
	KeyNum   uint64 // record number in [0, records)
	Key      []byte // KeyNum formatted as the workload's key (e.g. "user6284781860667377211")
	Value    []byte // Fields*FieldLen bytes for writes; nil for reads, scans, deletes
	Fields   int    // writes: fields in Value (1 for a one-field UPDATE/RMW); others: fields per record (YCSB fieldcount)
	FieldLen int    // bytes per field (YCSB fieldlength)
	ScanLen  int    // records to read for OpScan
	// Field is the field a one-field write (Fields == 1 < fieldcount) writes
	// when the workload is checked (Spec.CheckValues); 0 otherwise.
	Field int
}
