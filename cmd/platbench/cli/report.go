package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
)

// reportFormats are the --format values of `platbench report`.
var reportFormats = []string{"term", "md", "html", "json", "csv", "hlog"}

func runReport(ctx context.Context, env *Env, args []string) error {
	const args_, summary = "FILE [--format term|md|html|json|csv|hlog] [--out PATH]",
		"Print the report of a saved result file (or of a killed run's journal, FILE.partial): what limited\n" +
			"the run first, then the terminal report (term), Markdown tables (md), one self-contained HTML page\n" +
			"with charts (html), the figures as JSON (json), or the 1 s interval series as CSV, one row per\n" +
			"interval and op type (csv), or the run phase's latency histogram of every second as an HdrHistogram\n" +
			"interval log (hlog: one tagged line per op type and second, for HistogramLogProcessor), made from its\n" +
			"seconds file."
	fs := newFlags(env, "report", args_, summary)
	format, out := addOutputFlags(fs, reportFormats)
	force := fs.Bool("force", false, "replace the --out file when it exists (without it an existing file is refused)")
	aopt := addAnalysisFlags(fs)
	help := groupedUsage(fs, "report", args_, summary, reportGroups, reportExamples)
	fs.Usage = func() { help(env.Stdout) }
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return usagef("report takes exactly one result file, got %d", len(files))
	}
	if err := checkFormat(*format, reportFormats); err != nil {
		return err
	}
	if sameFile(*out, files[0]) {
		return usagef("--out %s is the result file itself; write the report to another path", *out)
	}
	if err := checkOut(*out, "report", *force); err != nil {
		return err
	}
	r, err := readAnalysed(fs, files[0], aopt)
	if err != nil {
		return err
	}
	warnJournalBeside(env, files[0])
	return writeOut(env, *out, func(w io.Writer) error {
		switch *format {
		case "md":
			return report.WriteMarkdown(w, r)
		case "html":
			return report.WriteHTML(w, r)
		case "json":
			return report.WriteJSON(w, r)
		case "csv":
			return report.WriteCSV(w, r)
		case "hlog":
			return result.WriteHlog(w, r)
		}
		return printTerm(w, r) // the same report `platbench run` prints
	})
}

// warnJournalBeside says on stderr when a journal is beside the result at
// path: a later run to the same --out (with --force) that did not finish,
// or one still running, whose seconds the report does not show.
func warnJournalBeside(env *Env, path string) {
	j := path + result.JournalSuffix
	if strings.HasSuffix(path, result.JournalSuffix) {
		return
	}
	if _, err := os.Stat(j); err == nil {
		fmt.Fprintf(env.Stderr, "platbench: warning: %s is beside %s: a later run to the same --out that did not finish, or one still running (read it with 'platbench report %s')\n", j, path, j)
	}
}

// addOutputFlags binds a command's --format (one of formats, the first the
// default) and --out (the file written atomically; standard output when
// empty; an existing one is refused unless the command's --force:
// checkOut).
func addOutputFlags(fs *flag.FlagSet, formats []string) (format, out *string) {
	format = fs.String("format", formats[0], "output format: "+strings.Join(formats, ", "))
	out = fs.String("out", "", "write to this file (atomically) instead of standard output; an existing file is refused unless --force")
	return format, out
}

// checkOut refuses an --out file that exists, unless force: the rule of
// every file platbench writes (result.CheckOutputs), checked before the
// inputs are read. what names the file ("report").
func checkOut(path, what string, force bool) error {
	if path == "" || path == "-" {
		return nil
	}
	return result.CheckOutputs([]result.Output{{Path: path, What: what}}, force, outFlags)
}

// checkFormat refuses a --format that is not one of formats.
func checkFormat(format string, formats []string) error {
	if !contains(formats, format) {
		return usagef("unknown --format %q (use one of %s)", format, strings.Join(formats, ", "))
	}
	return nil
}

// readAnalysed reads a result file and fills its analysis as analyseFor
// says; an analysis error names the file.
func readAnalysed(fs *flag.FlagSet, path string, o *analysis.Options) (*result.Result, error) {
	r, err := result.Read(path)
	if err != nil {
		return nil, err
	}
	if err := analyseFor(fs, r, o); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// analyseFor fills r.Analysis: the file's own analysis stands unless an
// analysis flag was given; a file without one is analysed with the run's own
// --warmup choice unless the flag overrides it.
func analyseFor(fs *flag.FlagSet, r *result.Result, o *analysis.Options) error {
	set := false
	warmupSet := false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "warmup":
			warmupSet, set = true, true
		case "platform", "nodes", "price-per-hour", "catalog":
			set = true
		}
	})
	if r.Analysis != nil && !set {
		return nil
	}
	opt := *o
	if !warmupSet && r.Config.Warmup != "" {
		opt.Warmup = r.Config.Warmup
	}
	a, err := analysis.Analyze(r, opt)
	if err != nil {
		return err
	}
	r.Analysis = a
	return nil
}

// writeOut renders into memory first, so a failed render never leaves half a
// file, then writes atomically to path or copies to stdout.
func writeOut(env *Env, path string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	if path == "" || path == "-" {
		_, err := env.Stdout.Write(buf.Bytes())
		return err
	}
	return result.WriteFileAtomic(path, buf.Bytes())
}

// parseInterspersed parses flags that may come after positional arguments
// ("report FILE --format md") and returns the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// sameFile reports whether out names the existing file in.
func sameFile(out, in string) bool {
	if out == "" || out == "-" {
		return false
	}
	a, err1 := os.Stat(out)
	b, err2 := os.Stat(in)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// outFlags name the output options for result.CheckOutputs' fix.
var outFlags = result.OutFlags{Out: "--out", Force: "--force"}
