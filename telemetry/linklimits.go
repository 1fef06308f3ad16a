package telemetry

import (
	"os"
	"slices"
	"strings"

	"github.com/platbench/platbench/internal/usererr"
)

// linkProblems names the stated link limits whose interface this host does
// not have (sysNet lists them; a host without it is not checked).
func linkProblems(limits map[string]int64, sysNet string) usererr.List {
	var l usererr.List
	ents, err := os.ReadDir(sysNet)
	if err != nil || len(limits) == 0 {
		return nil
	}
	var have []string
	for _, e := range ents {
		have = append(have, e.Name())
	}
	var names []string
	for name := range limits {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if name != "" && !slices.Contains(have, name) {
			l.Add("link_limit", "this host has no interface %s (fix: name one of %s)", name, strings.Join(have, ", "))
		}
	}
	return l
}
