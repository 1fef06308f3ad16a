package cli

import (
	"flag"

	"github.com/platbench/platbench/suite"
)

// suiteTargetFlags are the flags that run one suite file on a platform of
// the user's: --target replaces the file's targets' URLs (names and options
// kept, so cell names, and the cells compare pairs, stay), --label names
// the platform in comparisons.
type suiteTargetFlags struct {
	targets listFlag
	label   *string
	only    *string
}

func addSuiteTargetFlags(fs *flag.FlagSet) *suiteTargetFlags {
	t := &suiteTargetFlags{}
	fs.Var(&t.targets, "target", "replace the URL of the file's target (repeatable: one per target of the file, in order), keeping its name and options: the same suite on another platform")
	t.label = fs.String("label", "", "label of every cell's results in comparisons (with several targets: LABEL TARGET), e.g. the platform: i3.metal")
	t.only = fs.String("only", "", "run only the cells whose name matches this glob, e.g. 'cassandra.*.1k' (--dry-run lists the names)")
	return t
}

// apply puts the flags into f.
func (t *suiteTargetFlags) apply(f *suite.File) error {
	if *t.only != "" {
		if err := f.Only(*t.only); err != nil {
			return usagef("--only: %v", err)
		}
	}
	if len(t.targets) > 0 {
		if len(t.targets) != len(f.Targets) {
			return usagef("%d --target given, the suite has %d targets (fix: one --target per target of the file, in its order)", len(t.targets), len(f.Targets))
		}
		for i, u := range t.targets {
			f.Targets[i].URL = u
		}
	}
	if *t.label != "" {
		for i := range f.Targets {
			f.Targets[i].Label = *t.label
			if len(f.Targets) > 1 {
				f.Targets[i].Label += " " + suiteTargetName(f.Targets[i])
			}
		}
	}
	return nil
}

// suiteTargetName is the target's name as cells are named by it.
func suiteTargetName(t suite.Target) string {
	if t.Name != "" {
		return t.Name
	}
	return t.URL
}
