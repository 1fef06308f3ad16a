package analysis

import "github.com/platbench/platbench/result"

// Verification is the figures of a run's read-back of its acknowledged
// writes (result.Verification, `--verify`).
type Verification struct {
	AckedKeys uint64 // keys with an acknowledged write (and no DELETE)
	Checked   uint64 // keys read back
	Sampled   bool   // Checked is a sample of AckedKeys
	Missing   uint64 // acknowledged, then absent
	Wrong     uint64 // acknowledged, then holding a value platbench did not write for the key
	// Lost is Missing + Wrong: acknowledged writes the target did not keep.
	Lost uint64
	// LostFraction is Lost / (Checked - Unreadable), 0..1 (0 when nothing
	// was read).
	LostFraction float64
	// Unreadable keys failed to read after retries: neither kept nor lost.
	Unreadable uint64
	// Untracked and Deleted keys were not verified (see result.Verification).
	Untracked, Deleted uint64
	Consistency        string
	DurationNs         int64
}

// VerificationOf returns r's verification figures, or nil when the run was
// not verified.
func VerificationOf(r *result.Result) *Verification {
	v := r.Verification
	if v == nil {
		return nil
	}
	out := &Verification{AckedKeys: v.AckedKeys, Checked: v.Checked, Sampled: v.Sample != "",
		Missing: v.Missing, Wrong: v.Wrong, Lost: v.Missing + v.Wrong, Unreadable: v.Unreadable,
		Untracked: v.Untracked, Deleted: v.Deleted, Consistency: v.Consistency, DurationNs: v.DurationNs}
	if read := v.Checked - min(v.Unreadable, v.Checked); read > 0 {
		out.LostFraction = float64(out.Lost) / float64(read)
	}
	return out
}
