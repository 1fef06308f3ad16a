package cli

import (
	"flag"
	"fmt"
	"strings"
)

// Numbers, sizes, rates and durations are units.Count, units.Size,
// units.Rate and units.Duration flags: the one grammar (internal/units) that
// workload, suite and target options share. The types here are the two
// shapes units has no kind for.

// kvFlag collects repeated key=value options.
type kvFlag map[string]string

func (k kvFlag) String() string { return "" }
func (k kvFlag) Set(s string) error {
	key, val, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return fmt.Errorf("%q is not key=value", s)
	}
	k[key] = strings.TrimSpace(val)
	return nil
}

// listFlag collects repeated values.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// flagSet tells whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
