package merge

import (
	"slices"
	"testing"

	"github.com/platbench/platbench/result"
)

// The loaders' verifications combine: keys as the union of their ranges,
// reads and losses summed, examples sorted without repeats; a merged result
// of loaders that did not verify has none.
func TestMergeVerification(t *testing.T) {
	a := &result.Result{Verification: &result.Verification{Version: 1, Acked: [][2]uint64{{0, 50}, {100, 110}}, AckedKeys: 60, Checked: 60, Missing: 2, MissingKeys: []uint64{7, 3}, Consistency: "QUORUM"}}
	b := &result.Result{Verification: &result.Verification{Version: 1, Acked: [][2]uint64{{40, 100}, {200, 201}}, AckedKeys: 61, Checked: 61, Wrong: 1, WrongKeys: []uint64{45}, MissingKeys: nil}}
	v := verification([]*result.Result{a, b, {}})
	if v == nil || !slices.Equal(v.Acked, [][2]uint64{{0, 110}, {200, 201}}) || v.AckedKeys != 111 || v.Checked != 121 ||
		v.Missing != 2 || v.Wrong != 1 || !slices.Equal(v.MissingKeys, []uint64{3, 7}) || v.Consistency != "QUORUM" {
		t.Fatalf("merged: %+v", v)
	}
	r := &result.Result{Schema: result.SchemaVersion, Phases: []result.Phase{{Name: "run"}}, Verification: v}
	if err := r.Validate(); err != nil {
		t.Fatalf("a merged verification is refused: %v", err)
	}
	if verification([]*result.Result{{}, {}}) != nil {
		t.Fatal("loaders without a verification gave one")
	}
}
