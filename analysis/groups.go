package analysis

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/platbench/platbench/internal/usererr"
)

// GroupBy says how compare puts runs into groups.
type GroupBy string

// The ways to group runs. GroupByLabel is the default: a run's label, or
// for a run given none, its platform, split by target and then by file when
// that is what tells runs apart.
const (
	GroupByLabel    GroupBy = "label"
	GroupByPlatform GroupBy = "platform"
	GroupByTarget   GroupBy = "target"
	GroupByFile     GroupBy = "file"
)

// GroupBys are the accepted values of GroupBy, in the order help shows them.
var GroupBys = []GroupBy{GroupByLabel, GroupByPlatform, GroupByTarget, GroupByFile}

// groupByField is the config field a GroupBy error names.
const groupByField = "group_by"

// ParseGroupBy reads a GroupBy as a person types it ("" is the default,
// label); anything else is a usererr naming the choices.
func ParseGroupBy(s string) (GroupBy, error) {
	t := GroupBy(strings.ToLower(strings.TrimSpace(s)))
	if t == "" {
		return GroupByLabel, nil
	}
	if slices.Contains(GroupBys, t) {
		return t, nil
	}
	names := make([]string, len(GroupBys))
	for i, g := range GroupBys {
		names[i] = string(g)
	}
	return "", usererr.Field(groupByField, "%q is not a way to group runs (fix: one of %s)", s, strings.Join(names, ", "))
}

// RunKey is what grouping knows of a run.
type RunKey struct {
	// Label is the label the run was given ("" when none).
	Label string
	// Platform is what names a run without a label: its instance type or
	// CPU (report.Label).
	Platform string
	// Target is the system measured ("redis 7.0.15").
	Target string
	// File is the result file ("" when none).
	File string
	// Where is the target's address (host:port, no credentials; "" when
	// the file has none): two servers of one version are two targets.
	Where string
}

// Group is a set of runs compared as one: a platform, a target, a label.
type Group struct {
	Name string `json:"name"`
	// Runs are the indices of the group's runs among those given.
	Runs []int `json:"runs"`
}

// Grouping is the groups of a comparison and how they were formed.
type Grouping struct {
	By GroupBy `json:"by"`
	// How says in words how the runs were grouped ("by label; runs without
	// a label by platform, split by target").
	How    string  `json:"how"`
	Groups []Group `json:"groups"`
}

// GroupRuns puts runs into groups, in the order each group's first run
// was given. By label (the default), a run's group is its label; runs
// without one are grouped by platform, and where runs of one platform
// measured different targets, by platform and target. When that leaves a
// single group, the runs are grouped by target, failing that by file, and
// failing that (one file given twice) by position, so there is something
// to compare (and How says so). Grouping by platform,
// target or file that leaves one group is a usererr.
func GroupRuns(keys []RunKey, by GroupBy) (Grouping, error) {
	if by == "" {
		by = GroupByLabel
	}
	g := Grouping{By: by}
	switch by {
	case GroupByPlatform:
		g.Groups, g.How = groupsBy(keys, func(k RunKey) string { return k.Platform }), "by platform"
	case GroupByTarget:
		g.Groups, g.How = groupsBy(keys, func(k RunKey) string { return k.Target }), "by target"
	case GroupByFile:
		g.Groups, g.How = groupsBy(keys, fileName), "by file"
	default:
		return groupByLabel(keys), nil
	}
	if len(g.Groups) < 2 && len(keys) > 1 {
		return g, usererr.Field(groupByField, "%s puts all %d runs in one group, %q (fix: group by label or file)",
			g.How, len(keys), g.Groups[0].Name)
	}
	return g, nil
}

func groupByLabel(keys []RunKey) Grouping {
	g := Grouping{By: GroupByLabel, How: "by label"}
	// Unlabelled runs of one platform that measured different targets are
	// told apart by target.
	targets := map[string]map[string]bool{}
	for _, k := range keys {
		if k.Label == "" {
			if targets[k.Platform] == nil {
				targets[k.Platform] = map[string]bool{}
			}
			targets[k.Platform][k.Target] = true
		}
	}
	split, unlabelled := false, false
	name := func(k RunKey) string {
		if k.Label != "" {
			return k.Label
		}
		unlabelled = true
		if len(targets[k.Platform]) > 1 && k.Target != "" {
			split = true
			return k.Platform + ", " + k.Target
		}
		return k.Platform
	}
	g.Groups = groupsBy(keys, name)
	switch {
	case split:
		g.How += "; runs without a label by platform, split by target"
	case unlabelled:
		g.How += "; runs without a label by platform"
	}
	if len(g.Groups) > 1 || len(keys) < 2 {
		return g
	}
	one := g.Groups[0].Name
	if t := groupsBy(keys, func(k RunKey) string { return k.Target }); len(t) > 1 {
		return Grouping{By: GroupByTarget, Groups: t, How: fmt.Sprintf("by target: every run is %q", one)}
	}
	if t := groupsBy(keys, targetAt); len(t) > 1 && !slices.ContainsFunc(keys, func(k RunKey) bool { return k.Where == "" }) {
		return Grouping{By: GroupByTarget, Groups: t, How: fmt.Sprintf("by target's address: every run is %q, against servers at different addresses", one)}
	}
	if f := groupsBy(keys, repeatSet); len(f) > 1 {
		// The runs of one run --repeat (NAME.r01.json, NAME.r02.json ...)
		// are one group, as --repeat says.
		return Grouping{By: GroupByFile, Groups: f,
			How: fmt.Sprintf("by file: every run is %q on the same target, so each file (the runs of one --repeat together) is its own group", one)}
	}
	if f := groupsBy(keys, fileName); len(f) > 1 {
		return Grouping{By: GroupByFile, Groups: f,
			How: fmt.Sprintf("by file: every run is %q on the same target, so each file is its own group", one)}
	}
	// One file given twice (a smoke test, a journal against itself): each
	// run its own group, by position.
	pos := 0
	return Grouping{By: GroupByFile, How: "by position: every run is the same file, so each is its own group",
		Groups: groupsBy(keys, func(k RunKey) string {
			pos++
			if n := fileName(k); n != "" {
				return fmt.Sprintf("%s #%d", n, pos)
			}
			return ""
		})}
}

// targetAt is a run's target and its address ("" without an address).
func targetAt(k RunKey) string {
	if k.Where == "" {
		return ""
	}
	return strings.TrimSpace(k.Target + " at " + k.Where)
}

// repeatSet is the file name of a run without its repeat number: the runs
// of one `run --repeat N --out NAME.json` (NAME.r01.json ... NAME.rNN.json)
// share it.
func repeatSet(k RunKey) string {
	n := fileName(k)
	ext := filepath.Ext(n)
	base := strings.TrimSuffix(n, ext)
	if i := strings.LastIndex(base, ".r"); i > 0 && len(base) > i+2 && strings.Trim(base[i+2:], "0123456789") == "" {
		return base[:i] + ext
	}
	return n
}

// fileName is a run's file's base name, or its position when it has none.
func fileName(k RunKey) string {
	if k.File == "" {
		return ""
	}
	return filepath.Base(k.File)
}

// groupsBy groups runs by name, in order of first appearance. Runs with an
// empty name, and runs that share a file name by file, are told apart by
// their position ("run 3").
func groupsBy(keys []RunKey, name func(RunKey) string) []Group {
	var out []Group
	at := map[string]int{}
	for i, k := range keys {
		n := name(k)
		if n == "" {
			n = fmt.Sprintf("run %d", i+1)
		}
		j, ok := at[n]
		if !ok {
			j = len(out)
			at[n] = j
			out = append(out, Group{Name: n})
		}
		out[j].Runs = append(out[j].Runs, i)
	}
	return out
}

// PickGroup resolves a baseline as a person names it: a group's name, one
// of its runs' files (as given, or the file's base name), or a 1-based
// group position. "" is the first group. Anything else is a usererr.
func (g Grouping) PickGroup(s string, keys []RunKey) (int, error) {
	if s == "" {
		return 0, nil
	}
	for i, gr := range g.Groups {
		if gr.Name == s {
			return i, nil
		}
	}
	for i, gr := range g.Groups {
		for _, r := range gr.Runs {
			if f := keys[r].File; f != "" && (f == s || filepath.Base(f) == s) {
				return i, nil
			}
		}
	}
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err == nil && fmt.Sprint(n) == strings.TrimSpace(s) && n >= 1 && n <= len(g.Groups) {
		return n - 1, nil
	}
	names := make([]string, len(g.Groups))
	for i, gr := range g.Groups {
		names[i] = fmt.Sprintf("%q", gr.Name)
	}
	return 0, usererr.Field("baseline", "%q is none of the groups (%s), their files or positions 1..%d (fix: one of those)",
		s, strings.Join(names, ", "), len(g.Groups))
}
