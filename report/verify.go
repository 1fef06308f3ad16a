package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// verificationText is the one line of a verification: what was read back
// and what was lost.
func verificationText(v *analysis.Verification) string {
	what := "every acknowledged write"
	if v.Sampled {
		what = fmt.Sprintf("a sample of %s of %s acknowledged keys", units.Int(float64(v.Checked)), units.Int(float64(v.AckedKeys)))
	} else {
		what += fmt.Sprintf(" (%s keys)", units.Int(float64(v.Checked)))
	}
	if v.Consistency != "" {
		what += " at " + v.Consistency
	}
	s := fmt.Sprintf("%s read back: ", what)
	if v.Lost == 0 {
		s += "none lost"
	} else {
		s += fmt.Sprintf("%s lost (%s), %s missing, %s wrong", units.Int(float64(v.Lost)), units.Percent(v.LostFraction), units.Int(float64(v.Missing)), units.Int(float64(v.Wrong)))
	}
	if v.Unreadable > 0 {
		s += fmt.Sprintf("; %s could not be read", units.Int(float64(v.Unreadable)))
	}
	return s
}

// lostText is the failure line of a run whose verification lost writes.
func lostText(lost uint64) string {
	return fmt.Sprintf("%s acknowledged writes were missing or wrong when read back after the run", units.Int(float64(lost)))
}

// verificationSection is the table of a verified run.
func verificationSection(v *analysis.Verification) section {
	t := &table{head: []string{"figure", "value"}}
	t.add("acknowledged keys", units.Int(float64(v.AckedKeys)))
	checked := units.Int(float64(v.Checked))
	if v.Sampled {
		checked += " (a sample)"
	}
	t.add("read back", checked)
	if v.Consistency != "" {
		t.add("consistency", v.Consistency)
	}
	t.add("missing", units.Int(float64(v.Missing)))
	t.add("wrong", units.Int(float64(v.Wrong)))
	t.add("lost (missing + wrong)", fmt.Sprintf("%s (%s)", units.Int(float64(v.Lost)), units.Percent(v.LostFraction)))
	if v.Unreadable > 0 {
		t.add("could not be read", units.Int(float64(v.Unreadable)))
	}
	if v.Deleted > 0 {
		t.add("not verified: deleted during the run", units.Int(float64(v.Deleted)))
	}
	if v.Untracked > 0 {
		t.add("not verified: inserts past the record's room", units.Int(float64(v.Untracked)))
	}
	t.add("time reading", units.Latency(float64(v.DurationNs)))
	return section{id: "verification", title: "Acknowledged writes, read back after the run", t: t,
		notes: []string{"Every key whose write the target acknowledged is read back and checked against what platbench wrote for it: missing is no record, wrong a value platbench did not write for that key."}}
}

// WriteVerificationText writes the verification of r as the terminal
// report shows it: one line, then its table (nothing when r was not
// verified).
func WriteVerificationText(w io.Writer, r *result.Result) error {
	v := analysis.VerificationOf(r)
	if v == nil {
		return nil
	}
	s := verificationSection(v)
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "%s\n  %s\n", s.title, verificationText(v))
	var b strings.Builder
	s.t.text(&b)
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		fmt.Fprintf(ew, "  %s\n", line)
	}
	return ew.err
}
