package vocab

import (
	"fmt"
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
	// names are the workload's NamedOps; workload.Spec.OpName turns any Op
	// into the name a result file carries.
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
// named slot's is its slot name (NAMED0...): use workload.Spec.OpName for
// the workload's own name.
func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return "UNKNOWN"
}

// Named reports whether o is a user-named slot.
func (o Op) Named() bool { return o >= OpNamed0 && o < NumOps }

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

// OpList is the built-in op names, comma-separated, for error messages.
func OpList() string {
	n := make([]string, OpNamed0)
	for i := range n {
		n[i] = Op(i).String()
	}
	return strings.Join(n, ", ")
}

// MarshalText writes the op's name, so result files carry names, not numbers.
func (o Op) MarshalText() ([]byte, error) {
	if o >= NumOps {
		return nil, fmt.Errorf("workload: op %d out of range", uint8(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText reads an op name as ParseOp does.
func (o *Op) UnmarshalText(b []byte) error {
	op, ok := ParseOp(string(b))
	if !ok {
		return fmt.Errorf("unknown op %q (fix: use one of %s)", b, OpList())
	}
	*o = op
	return nil
}

// Mix is one op type and its relative weight.
type Mix struct {
	Op     Op      `yaml:"op" json:"op"`
	Weight float64 `yaml:"weight" json:"weight"`
}

// FormatMix formats a mix as workload.ParseMix reads it, e.g.
// "read=0.5,update=0.5", with name giving each op's name (lower-cased).
func FormatMix(ms []Mix, name func(Op) string) string {
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strings.ToLower(name(m.Op)))
		b.WriteByte('=')
		b.WriteString(strconv.FormatFloat(m.Weight, 'g', -1, 64))
	}
	return b.String()
}

// OpName is the name of op in results and reports: named[i] for the named
// slot OpNamed0+i (a profile's "simple1"), the built-in name otherwise.
func OpName(op Op, named []string) string {
	if op.Named() && int(op-OpNamed0) < len(named) {
		return named[op-OpNamed0]
	}
	return op.String()
}

// CompareOpNames orders two op names as the ops they name (READ before
// UPDATE...; a name ParseOp does not know counts as READ), for sorting the
// ops of a result.
func CompareOpNames(a, b string) int {
	x, _ := ParseOp(a)
	y, _ := ParseOp(b)
	return int(x) - int(y)
}
