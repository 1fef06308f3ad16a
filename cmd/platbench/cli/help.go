package cli

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// flagGroup is one heading of a command's --help and the flags under it,
// in the order shown.
type flagGroup struct {
	title string
	flags []string
}

// runGroups sorts run's flags by purpose. Every flag of run is in exactly
// one group (TestRunHelpGroupsEveryFlag).
var runGroups = []flagGroup{
	{"Workload (what to do)", []string{"like", "workload", "records", "dataset-size", "field-count", "field-length", "value-size", "mix", "distribution",
		"command", "command-name", "command-weight", "validate"}},
	{"Load shape (how long, how hard)", []string{"duration", "ops", "concurrency", "rate", "arrival", "pace-tick", "seed", "no-load", "keep-dataset", "event", "repeat"}},
	{"Target", []string{"target", "target-opt", "target-user", "target-password-file"}},
	{"Measurement (how results are judged)", []string{"warmup", "threshold", "abort-on-fail", "max-errors", "allow-errors", "verify", "verify-sample"}},
	{"Telemetry (the host, the servers, live metrics)", []string{"telemetry-interval", "perf-scope", "server-pid", "server-process",
		"server-metrics", "server-metrics-port", "db-metrics", "db-metrics-url", "link-limit", "metrics-addr"}},
	{"Cost", costFlags},
	{"Distributed runs (several loaders)", []string{"shard", "start-at", "rendezvous", "rendezvous-timeout", "rendezvous-secret-file", "rendezvous-max-message"}},
	{"Output", []string{"out", "force", "hlog", "label", "commit", "quiet", "store"}},
}

// costFlags are the analysis flags that price a run (addAnalysisFlags).
var costFlags = []string{"platform", "nodes", "storage", "price-per-hour", "catalog", "loader-instance", "zones", "rf"}

// compareGroups sorts compare's flags by purpose (TestHelpGroupsEveryFlag).
var compareGroups = []flagGroup{
	{"Groups (what is compared)", []string{"group-by", "baseline", "force"}},
	{"Judgement (how sure, what fails)", []string{"min-effect", "run-spread", "run-spread-from", "fail-if-worse", "fail-on", "warmup"}},
	{"Cost", costFlags},
	{"Output", []string{"format", "out"}},
}

// reportGroups sorts report's flags by purpose (TestHelpGroupsEveryFlag).
var reportGroups = []flagGroup{
	{"Output", []string{"format", "out", "force"}},
	{"Analysis", []string{"warmup"}},
	{"Cost", costFlags},
}

// Examples of each command's --help, after its flags.
var (
	runExamples = []string{
		"platbench run                                                     # the embedded store, YCSB A, 30 s",
		"platbench run --target redis://127.0.0.1:6379 --rate 20k --duration 5m",
		"platbench run --workload mixed --mix read=3,write=1 --concurrency 64 --repeat 5 --label graviton",
		"platbench run --quiet --out r.json && platbench report r.json --format html --out r.html",
	}
	compareExamples = []string{
		"platbench compare graviton.r*.json intel.r*.json                   # groups by label: ratios with 95% intervals",
		"platbench compare a.json b.json --baseline b.json --format html --out cmp.html",
		"platbench compare base.r*.json new.r*.json --fail-if-worse 5% --fail-on sustained,p99   # exit 3 on a regression",
		"platbench compare old.json new.json --run-spread-from aa.r01.json,aa.r02.json,aa.r03.json  # one run a side",
	}
	reportExamples = []string{
		"platbench report r.json                                           # the terminal report",
		"platbench report r.json --format html --out r.html               # one self-contained page with charts",
		"platbench report r.json.partial                                   # a run that was killed: what its journal kept",
		"platbench report r.json --platform i3.metal --nodes 3             # with the cost of three i3.metal nodes",
	}
)

// groupedUsage is a usage text of fs with its flags under the groups'
// headings, written as they are typed (--name); a flag no group names is
// listed last, under "Other"; then the examples.
func groupedUsage(fs *flag.FlagSet, name, args, summary string, groups []flagGroup, examples []string) func(w io.Writer) {
	return func(w io.Writer) {
		defer func() {
			if len(examples) > 0 {
				fmt.Fprintf(w, "\nExamples:\n")
				for _, e := range examples {
					fmt.Fprintf(w, "  %s\n", e)
				}
			}
		}()
		fmt.Fprintf(w, "Usage: platbench %s %s\n\n%s\n", name, args, summary)
		seen := map[string]bool{}
		for _, g := range groups {
			fmt.Fprintf(w, "\n%s:\n", g.title)
			for _, n := range g.flags {
				if f := fs.Lookup(n); f != nil {
					seen[n] = true
					writeFlag(w, f)
				}
			}
		}
		var other []*flag.Flag
		fs.VisitAll(func(f *flag.Flag) {
			if !seen[f.Name] {
				other = append(other, f)
			}
		})
		if len(other) > 0 {
			fmt.Fprintf(w, "\nOther:\n")
			for _, f := range other {
				writeFlag(w, f)
			}
		}
	}
}

// writeFlag writes one flag as `--name TYPE` and its doc below, with its
// default when that is not the type's zero value.
func writeFlag(w io.Writer, f *flag.Flag) {
	kind, doc := flag.UnquoteUsage(f)
	line := "  --" + f.Name
	if kind != "" {
		line += " " + kind
	}
	switch {
	case zeroDefault(f):
	case reflect.TypeOf(f.Value).String() == "*flag.stringValue":
		doc += fmt.Sprintf(" (default %q)", f.DefValue)
	default:
		doc += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	fmt.Fprintf(w, "%s\n      %s\n", line, strings.ReplaceAll(doc, "\n", "\n      "))
}

// zeroDefault reports whether f's default is its type's zero value, which
// the help leaves unsaid.
func zeroDefault(f *flag.Flag) (zero bool) {
	defer func() {
		if recover() != nil { // a Value whose zero cannot print: say its default
			zero = false
		}
	}()
	t := reflect.TypeOf(f.Value)
	var z reflect.Value
	if t.Kind() == reflect.Pointer {
		z = reflect.New(t.Elem())
	} else {
		z = reflect.Zero(t)
	}
	v, ok := z.Interface().(flag.Value)
	if !ok {
		return f.DefValue == ""
	}
	return f.DefValue == v.String()
}
