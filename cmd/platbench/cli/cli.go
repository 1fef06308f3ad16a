// Package cli binds command-line flags to the library's Config structs and
// calls the library. One file per subcommand. Nothing here exits the process:
// Main returns the exit code to cmd/platbench.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/platbench/platbench/internal/nearest"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/report"
)

// Env is what a command may touch: its streams and whether stdout is a terminal.
// Tests inject their own.
type Env struct {
	Stdout, Stderr io.Writer
	IsTTY          bool // stderr is a terminal: show a live progress line
	// Width is the terminal's width in columns when stdout is a terminal
	// (0 otherwise): the text output fits it unless COLUMNS says otherwise.
	Width int
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *Env, args []string) error
}

// commands is the subcommand table, in the order `platbench help` lists them.
// Each entry's run function lives in the file named after it.
var commands = []command{
	{"run", "load a dataset and run a workload against a target, then report", runRun},
	{"load", "run only the load phase of a workload", runLoad},
	{"clean", "remove platbench's datasets (and only those) from a target", runClean},
	{"report", "print the report of a saved result file", runReport},
	{"verify", "read back the acknowledged writes of a run made with --verify, and report those lost", runVerify},
	{"compare", "compare result files side by side, with ratios and a noise test", runCompare},
	{"history", "the series of runs' figures over time and their change points (E-divisive, as Apache Otava)", runHistory},
	{"workloads", "list the workload presets", runWorkloads},
	{"targets", "list the targets platbench can drive", runTargets},
	{"probe", "characterise a disk as IOTune and fio do (platbench probe disk PATH)", runProbe},
	{"catalog", "list the instance price catalog cost figures come from", runCatalog},
	{"plan", "capacity plan: nodes and monthly cost to reach a throughput at a p99, per platform", runPlan},
	{"merge", "combine the results of the loaders of a distributed run", runMerge},
	{"k8s", "write a Kubernetes Indexed Job that runs N loaders together", runK8s},
	{"sweep", "fixed-rate steps: the throughput-latency curve and the highest rate within a p99", runSweep},
	{"suite", "run a matrix (workloads x dataset sizes x targets) from a YAML file, with a summary", runSuite},
	{"version", "print the version", runVersion},
}

// usageError is a bad command line; Main prints it with a hint to --help.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// The exit statuses a pipeline can tell apart (README, docs/cli.md).
const (
	exitPassed     = 0 // the run passed (and its thresholds, if any)
	exitFailed     = 1 // the run failed: could not start, or too many operations failed
	exitUsage      = 2 // bad input: flags, files, options
	exitThresholds = 3 // the run completed and a threshold failed
)

// exitError ends a command with its own exit status and one line.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// usagef is a usage error with its own message (%w keeps a wrapped user
// error's fields for rendering as flags).
func usagef(format string, a ...any) error { return &usageError{fmt.Errorf(format, a...)} }

// Main runs platbench with args (without the program name) and returns the exit code.
func Main(args []string, env *Env) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if env.Width > 0 && os.Getenv("COLUMNS") == "" {
		report.SetWidth(env.Width) // a shell's COLUMNS is seldom exported: ask the terminal
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 && args[0] == "help" {
			return Main([]string{args[1], "--help"}, env)
		}
		printUsage(env.Stdout)
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(ctx, env, args[1:])
			return exitCode(env, c.name, err)
		}
	}
	fmt.Fprintf(env.Stderr, "platbench: unknown command %q; run 'platbench help' for the list\n", args[0])
	return 2
}

func exitCode(env *Env, name string, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return exitPassed
	}
	msg := oneLine(renderError(err, fieldNamer(name)))
	var ee *exitError
	if errors.As(err, &ee) {
		fmt.Fprintf(env.Stderr, "platbench %s: %s\n", name, msg)
		return ee.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(env.Stderr, "platbench %s: %s (see 'platbench %s --help')\n", name, msg, name)
		return exitUsage
	}
	// Bad input found by the library (a target option, a workload or suite
	// file, a config field) is bad input too: the same exit status.
	if usererr.Is(err) {
		fmt.Fprintf(env.Stderr, "platbench %s: %s\n", name, msg)
		return exitUsage
	}
	fmt.Fprintf(env.Stderr, "platbench %s: %s\n", name, msg)
	return exitFailed
}

// oneLine keeps an error to one line: drivers and parsers (yaml) sometimes
// return multi-line text; its lines are joined.
func oneLine(s string) string {
	fields := strings.FieldsFunc(strings.TrimSpace(s), func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	return strings.Join(fields, " ")
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "platbench: benchmark data systems on the platforms they run on, by performance and by cost.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: platbench COMMAND [flags]   (platbench COMMAND --help for its flags)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	cs := commands
	for _, c := range cs {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
}

// newFlags returns a FlagSet that reports errors instead of exiting, with a
// usage text naming the command.
func newFlags(env *Env, name, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(env.Stdout, "Usage: platbench %s %s\n\n%s\n\nFlags:\n", name, args, summary)
		fs.SetOutput(env.Stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses args; --help prints usage and returns flag.ErrHelp. A
// bad flag prints no usage: its one error line ends with a hint to --help
// (the flag package would print the whole usage first).
func parseFlags(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		usage()
		return err
	}
	if err != nil {
		return usagef("%s%s", flagError(err), didYouMean(fs, err))
	}
	return nil
}

// flagSynonyms are the names other tools give platbench's flags (the key)
// and platbench's own name (the value): --threads is wrk's and
// cassandra-stress's, --clients memtier's, --time YCSB's maxexecutiontime.
var flagSynonyms = map[string]string{
	"threads": "concurrency", "thread": "concurrency", "workers": "concurrency", "clients": "concurrency",
	"connections": "concurrency", "parallelism": "concurrency", "c": "concurrency",
	"time": "duration", "runtime": "duration", "length": "duration", "d": "duration",
	"qps": "rate", "rps": "rate", "throughput": "rate", "target-rate": "rate",
	"keys": "records", "recordcount": "records", "rows": "records", "n": "ops", "requests": "ops", "operationcount": "ops",
	"url": "target", "host": "target", "server": "target",
	"output": "out", "o": "out",
}

// didYouMean is ", did you mean --X?" for an unknown flag: its synonym
// among fs's flags, else the flag one or two edits away; "" otherwise.
func didYouMean(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	name = strings.TrimPrefix(name, "-")
	if s := flagSynonyms[strings.ToLower(name)]; s != "" && fs.Lookup(s) != nil {
		return fmt.Sprintf(" (did you mean --%s?)", s)
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if near := nearest.Name(name, names, 2); near != "" {
		return fmt.Sprintf(" (did you mean --%s?)", near)
	}
	return ""
}

// flagError rewords the flag package's messages to name flags as they are
// typed: `invalid value "10X" for flag -size: ...` becomes `--size: ...` (our
// value parsers quote the value themselves), and `flag provided but not
// defined: -x` becomes `unknown flag --x`.
func flagError(err error) string {
	msg := err.Error()
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		return "--" + m[1] + ": " + m[2]
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + strings.TrimPrefix(name, "-")
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "--" + strings.TrimPrefix(name, "-") + " needs a value"
	}
	return msg
}

var invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value ".*" for flag -+([^:]+): (.*)$`)
