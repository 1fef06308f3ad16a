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

import "strings"

// Op is an operation type. Every target maps the ops it supports onto its own
// calls; the recorder keeps one histogram per Op, so the set is small and fixed.
type Op uint8

// The operation types. YCSB's five, cassandra-stress's WRITE, and the ops of
// stream, disk and CP-subsystem targets. Add new ones at the end: the numeric
// value never appears in a result file (names do), but tables are indexed by it.
const (
	OpRead    Op = iota // read one record by key
	OpUpdate            // overwrite one field or the record of an existing key
	OpInsert            // insert a new key
	OpScan              // read ScanLen records from a start key
	OpRMW               // read, modify, write one record (YCSB F)
	OpWrite             // cassandra-stress write (insert or overwrite)
	OpDelete            // delete one key
	OpProduce           // publish one message (stream targets)
	OpConsume           // receive one message (stream targets)
	OpSet               // set a reference (CP subsystem, Redis SET)
	OpGet               // get a reference
	OpCAS               // compare-and-set
	OpIncr              // increment a counter
	NumOps              // number of op types; keep last
)

var opNames = [NumOps]string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "WRITE", "DELETE", "PRODUCE", "CONSUME", "SET", "GET", "CAS", "INCR"}

// String returns the upper-case name used in reports and result files.
func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return "UNKNOWN"
}

// ParseOp turns a name (any case; "rmw" accepted) back into an Op.
func ParseOp(s string) (Op, bool) {
	u := strings.ToUpper(strings.TrimSpace(s))
	if u == "RMW" || u == "READMODIFYWRITE" {
		return OpRMW, true
	}
	for i, n := range opNames {
		if n == u {
			return Op(i), true
		}
	}
	return 0, false
}

// Request is one operation handed to a target. The runner owns it and reuses
// it for every operation of a worker: targets must not keep references to Key
// or Value after Do returns.
type Request struct {
	Op       Op
	KeyNum   uint64 // record number in [0, records)
	Key      []byte // KeyNum formatted as the workload's key (e.g. "user6284781860667377211")
	Value    []byte // Fields*FieldLen bytes for writes; nil for reads, scans, deletes
	Fields   int    // writes: fields in Value (1 for a one-field UPDATE/RMW); others: fields per record (YCSB fieldcount)
	FieldLen int    // bytes per field (YCSB fieldlength)
	ScanLen  int    // records to read for OpScan
}
