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
	"strconv"
	"strings"
)

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
	// OpNamed0 is the first of MaxNamed slots for operations a workload
	// names itself (a cassandra-stress profile's insert and queries). Their
	// names are the Spec's NamedOps; Spec.OpName turns any Op into the name
	// a result file carries.
	OpNamed0
	NumOps = OpNamed0 + MaxNamed // number of op types; keep last
)

// MaxNamed is the number of user-named operation slots.
const MaxNamed = 16

var opNames = func() [NumOps]string {
	out := [NumOps]string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "WRITE", "DELETE", "PRODUCE", "CONSUME", "SET", "GET", "CAS", "INCR"}
	for i := range MaxNamed {
		out[OpNamed0+Op(i)] = "NAMED" + strconv.Itoa(i)
	}
	return out
}()

// String returns the upper-case name used in reports and result files; a
// named slot's is its slot name (NAMED0...): use Spec.OpName for the
// workload's own name.
func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return "UNKNOWN"
}

// Named reports whether o is a user-named slot.
func (o Op) Named() bool { return o >= OpNamed0 && o < NumOps }

// OpName is the name of op in results and reports: the workload's own name
// for a named slot (e.g. "simple1"), the built-in name otherwise.
func (s *Spec) OpName(op Op) string {
	if op.Named() && int(op-OpNamed0) < len(s.NamedOps) {
		return s.NamedOps[op-OpNamed0]
	}
	return op.String()
}

// ParseOpName is ParseOp that knows s's named operations, which take
// precedence over the built-in names (a profile's "insert").
func (s *Spec) ParseOpName(name string) (Op, bool) {
	n := strings.TrimSpace(name)
	for i, nm := range s.NamedOps {
		if strings.EqualFold(nm, n) {
			return OpNamed0 + Op(i), true
		}
	}
	return ParseOp(n)
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
	// Field is the field a one-field write (Fields == 1 < fieldcount) writes
	// when the workload is checked (Spec.CheckValues); 0 otherwise.
	Field int
}
