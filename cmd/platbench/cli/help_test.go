package cli

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateHelp = flag.Bool("update", false, "rewrite testdata/run-help.txt")

// TestRunHelpGolden: `run --help` lists the flags by purpose, as typed
// (--name). The golden is rewritten with -update.
func TestRunHelpGolden(t *testing.T) {
	code, out, stderr := run(t, "run", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden := filepath.Join("testdata", "run-help.txt")
	if *updateHelp {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("run --help differs from %s (rerun with -update if the change is meant):\n%s", golden, out)
	}
}

// TestRunHelpGroupsEveryFlag: every flag run takes is under one heading of
// runGroups (none falls to "Other"), no group names a flag twice or one run
// does not take, and no flag is written with one dash.
func TestRunHelpGroupsEveryFlag(t *testing.T) {
	_, out, _ := run(t, "run", "--help")
	if strings.Contains(out, "\nOther:\n") {
		t.Errorf("flags of run in no group of runGroups:\n%s", out[strings.Index(out, "\nOther:\n"):])
	}
	listed := regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`).FindAllStringSubmatch(out, -1)
	shown := map[string]bool{}
	for _, m := range listed {
		shown[m[1]] = true
	}
	seen := map[string]string{}
	for _, g := range runGroups {
		for _, n := range g.flags {
			if prev, dup := seen[n]; dup {
				t.Errorf("--%s is in %q and %q", n, prev, g.title)
			}
			seen[n] = g.title
			if !shown[n] {
				t.Errorf("group %q names --%s, which run does not take", g.title, n)
			}
		}
	}
	if len(listed) != len(seen) || len(listed) < 40 {
		t.Errorf("%d flags shown, %d grouped", len(listed), len(seen))
	}
	if m := regexp.MustCompile(`(?m)^  -[a-z]`).FindString(out); m != "" {
		t.Errorf("a flag shown with one dash: %q", m)
	}
}

// TestHelpGroupsEveryFlag: compare's and report's --help put every flag
// under one heading (none in "Other", none twice) and end with examples.
func TestHelpGroupsEveryFlag(t *testing.T) {
	for cmd, groups := range map[string][]flagGroup{"compare": compareGroups, "report": reportGroups} {
		_, out, _ := run(t, cmd, "--help")
		if strings.Contains(out, "\nOther:\n") {
			t.Errorf("%s: flags in no group:\n%s", cmd, out[strings.Index(out, "\nOther:\n"):])
		}
		listed := regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`).FindAllStringSubmatch(out, -1)
		seen := map[string]bool{}
		for _, g := range groups {
			for _, n := range g.flags {
				if seen[n] {
					t.Errorf("%s: --%s in two groups", cmd, n)
				}
				seen[n] = true
			}
		}
		if len(listed) != len(seen) {
			t.Errorf("%s: %d flags shown, %d grouped", cmd, len(listed), len(seen))
		}
		if !strings.Contains(out, "\nExamples:\n  platbench "+cmd+" ") {
			t.Errorf("%s --help has no examples:\n%s", cmd, out)
		}
	}
}
