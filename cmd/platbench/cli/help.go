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
	{"Workload (what to do)", []string{"workload", "records", "dataset-size", "field-count", "field-length", "value-size", "mix", "distribution",
		"command", "command-name", "command-weight", "validate"}},
	{"Load shape (how long, how hard)", []string{"duration", "ops", "concurrency", "rate", "arrival", "pace-tick", "seed", "no-load", "keep-dataset", "event", "repeat"}},
	{"Target", []string{"target", "target-opt", "target-user", "target-password-file"}},
	{"Measurement (how results are judged)", []string{"warmup", "threshold", "abort-on-fail", "max-errors", "allow-errors", "verify", "verify-sample"}},
	{"Telemetry (the host, the servers, live metrics)", []string{"telemetry-interval", "perf-scope", "server-pid", "server-process",
		"server-metrics", "server-metrics-port", "db-metrics", "db-metrics-url", "metrics-addr"}},
	{"Cost", []string{"platform", "nodes", "storage", "price-per-hour", "catalog", "loader-instance", "zones", "rf"}},
	{"Distributed runs (several loaders)", []string{"shard", "start-at", "rendezvous", "rendezvous-timeout", "rendezvous-secret-file", "rendezvous-max-message"}},
	{"Output", []string{"out", "force", "label", "commit", "quiet", "store"}},
}

// groupedUsage is a usage text of fs with its flags under the groups'
// headings, written as they are typed (--name); a flag no group names is
// listed last, under "Other".
func groupedUsage(fs *flag.FlagSet, name, args, summary string, groups []flagGroup) func(w io.Writer) {
	return func(w io.Writer) {
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
