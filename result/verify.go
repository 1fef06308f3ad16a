package result

import (
	"fmt"
	"time"
)

// VerificationVersion is the version of the Verification record: readers of
// a later version treat fields they do not know as absent. Version 1:
// the acknowledged keys as ranges of key numbers; missing and wrong counts.
const VerificationVersion = 1

// Verification is `--verify` (or `platbench verify RESULT`): after the run,
// every key whose write was acknowledged (or a sample of them) read back at
// the run's consistency and checked against what platbench wrote
// (workload.CheckRecord). It is absent when the run was not verified.
//
// Acked is the record that makes a later re-check possible: the key numbers
// whose last write platbench saw acknowledged, as half-open ranges
// [from, to) in ascending order (a load of N records is one range). Keys
// that an acknowledged DELETE removed during the run are not in it (Deleted
// counts them).
type Verification struct {
	Version int `json:"version"`
	// Acked lists the acknowledged keys, [from, to) key-number ranges.
	Acked [][2]uint64 `json:"acked"`
	// AckedKeys is the number of keys in Acked.
	AckedKeys uint64 `json:"acked_keys"`
	// Untracked counts acknowledged inserts whose key number was beyond the
	// record's capacity (more run-phase inserts than it was sized for): not
	// verified.
	Untracked uint64 `json:"untracked,omitempty"`
	// Deleted counts keys removed by an acknowledged DELETE (not verified).
	Deleted uint64 `json:"deleted,omitempty"`
	// Sample is what was asked: "" (every key), a count ("10k") or a
	// fraction ("10%").
	Sample string `json:"sample,omitempty"`
	// Consistency is the consistency the reads ran at, when the target has
	// one (CQL's read consistency); "" otherwise.
	Consistency string `json:"consistency,omitempty"`
	// At is when the verification ended; DurationNs how long it read.
	At         time.Time `json:"at"`
	DurationNs int64     `json:"duration_ns"`
	// Checked keys were read back (in a merged result, the loaders' reads
	// summed: a key two loaders wrote is read by each): Missing of them had no record, Wrong a
	// value that is not what platbench wrote for the key; Unreadable could
	// not be read (the read failed with another error after retries), so
	// they are neither confirmed nor lost.
	Checked    uint64 `json:"checked"`
	Missing    uint64 `json:"missing"`
	Wrong      uint64 `json:"wrong"`
	Unreadable uint64 `json:"unreadable,omitempty"`
	// Examples are up to 10 key numbers found missing or wrong, for a person
	// to look at.
	MissingKeys []uint64 `json:"missing_keys,omitempty"`
	WrongKeys   []uint64 `json:"wrong_keys,omitempty"`
}

// problems checks what `platbench verify` relies on: the acknowledged keys
// as ascending, disjoint, non-empty ranges that add up to AckedKeys, and
// counts that fit in what was checked.
func (v *Verification) problems() []string {
	if v == nil {
		return nil
	}
	var probs []string
	if v.Version < 1 {
		probs = append(probs, fmt.Sprintf("verification version %d (want 1 or later)", v.Version))
	}
	var n, end uint64
	for i, rg := range v.Acked {
		if rg[0] >= rg[1] || (i > 0 && rg[0] < end) {
			probs = append(probs, fmt.Sprintf("verification range %d [%d, %d) is empty, reversed or out of order", i, rg[0], rg[1]))
			break
		}
		n += rg[1] - rg[0]
		end = rg[1]
	}
	if n != v.AckedKeys {
		probs = append(probs, fmt.Sprintf("verification ranges hold %d keys, acked_keys says %d", n, v.AckedKeys))
	}
	// Checked may exceed AckedKeys in a merged result (two loaders read a
	// key both wrote), never what it found.
	if v.Missing > v.Checked || v.Wrong > v.Checked-v.Missing || v.Unreadable > v.Checked {
		probs = append(probs, "verification counts do not add up (missing + wrong <= checked)")
	}
	return probs
}

// Keys calls fn for each acknowledged key number, in order, until fn
// returns false.
func (v *Verification) Keys(fn func(k uint64) bool) {
	for _, rg := range v.Acked {
		for k := rg[0]; k < rg[1]; k++ {
			if !fn(k) {
				return
			}
		}
	}
}
