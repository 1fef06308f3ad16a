package merge

import (
	"slices"

	"github.com/platbench/platbench/result"
)

// verification combines the loaders' verifications (--verify): the
// acknowledged keys are the union of theirs (shards load and insert
// disjoint keys, but may update the same ones); the reads and what they
// found are summed, so a key two loaders both wrote is read, and if lost
// counted, once per loader. Nil when no loader verified.
func verification(parts []*result.Result) *result.Verification {
	var out *result.Verification
	var rs [][2]uint64
	for _, p := range parts {
		v := p.Verification
		if v == nil {
			continue
		}
		if out == nil {
			out = &result.Verification{Version: result.VerificationVersion, Sample: v.Sample, Consistency: v.Consistency}
		}
		rs = append(rs, v.Acked...)
		out.Untracked += v.Untracked
		out.Deleted += v.Deleted
		out.Checked += v.Checked
		out.Missing += v.Missing
		out.Wrong += v.Wrong
		out.Unreadable += v.Unreadable
		out.DurationNs = max(out.DurationNs, v.DurationNs)
		if v.At.After(out.At) {
			out.At = v.At
		}
		out.MissingKeys = append(out.MissingKeys, v.MissingKeys...)
		out.WrongKeys = append(out.WrongKeys, v.WrongKeys...)
	}
	if out == nil {
		return nil
	}
	out.Acked, out.AckedKeys = union(rs)
	out.MissingKeys, out.WrongKeys = examples(out.MissingKeys), examples(out.WrongKeys)
	return out
}

// union merges [from, to) ranges into ascending, disjoint ones and counts
// their keys.
func union(rs [][2]uint64) ([][2]uint64, uint64) {
	slices.SortFunc(rs, func(a, b [2]uint64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	var out [][2]uint64
	var n uint64
	for _, r := range rs {
		if r[0] >= r[1] {
			continue
		}
		if k := len(out) - 1; k >= 0 && r[0] <= out[k][1] {
			if r[1] > out[k][1] {
				n += r[1] - out[k][1]
				out[k][1] = r[1]
			}
			continue
		}
		out = append(out, r)
		n += r[1] - r[0]
	}
	return out, n
}

// examples sorts key numbers, drops repeats and keeps the first ten.
func examples(ks []uint64) []uint64 {
	slices.Sort(ks)
	ks = slices.Compact(ks)
	if len(ks) > 10 {
		ks = ks[:10]
	}
	return ks
}
