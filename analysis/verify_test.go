package analysis

import (
	"testing"

	"github.com/platbench/platbench/result"
)

// The verification's figures: lost is missing + wrong, its fraction is of
// the keys read (not of those that could not be read); any lost write
// fails the run; an unverified run has no figures.
func TestVerificationOf(t *testing.T) {
	r := &result.Result{Verification: &result.Verification{Version: 1, AckedKeys: 1000, Checked: 110, Sample: "10%",
		Missing: 2, Wrong: 3, Unreadable: 10, Consistency: "QUORUM"}}
	v := VerificationOf(r)
	if v.Lost != 5 || v.LostFraction != 0.05 || !v.Sampled || v.Consistency != "QUORUM" {
		t.Fatalf("figures: %+v", *v)
	}
	if h := HealthOf(r); h.LostWrites != 5 || !h.RunFailed(DefaultMaxErrors) {
		t.Fatalf("health: %+v", h)
	}
	r.Verification.Missing, r.Verification.Wrong = 0, 0
	if h := HealthOf(r); h.LostWrites != 0 {
		t.Fatalf("clean verification: %+v", h)
	}
	if VerificationOf(&result.Result{}) != nil {
		t.Fatal("figures of an unverified run")
	}
}
