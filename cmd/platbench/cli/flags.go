package cli

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/platbench/platbench/internal/redact"
	"github.com/platbench/platbench/workload"
)

// Numbers, sizes, rates and durations are units.Count, units.Size,
// units.Rate and units.Duration flags: the one grammar (internal/units) that
// workload, suite and target options share. The types here are the two
// shapes units has no kind for.

// kvFlag collects repeated key=value options.
type kvFlag map[string]string

func (k kvFlag) Set(s string) error {
	key, val, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return fmt.Errorf("%q is not key=value", s)
	}
	k[key] = strings.TrimSpace(val)
	return nil
}

// targetOptFlag registers --target-opt, collected into opts. An option
// that holds a secret (redact.SecretKey: password, sasl_password, token) is
// taken, with a warning on stderr: a command line is readable by the
// machine's other users (ps, /proc) and kept in shell history.
func targetOptFlag(fs *flag.FlagSet, stderr io.Writer, opts kvFlag, usage string) {
	fs.Func("target-opt", usage, func(s string) error {
		if err := opts.Set(s); err != nil {
			return err
		}
		if k, _, _ := strings.Cut(s, "="); redact.SecretKey(k) {
			fmt.Fprintf(stderr, "platbench: warning: %s\n", secretOptWarning(strings.TrimSpace(k)))
		}
		return nil
	})
}

// secretOptWarning is the warning for --target-opt k=... holding a secret,
// naming the ways that keep it off the command line.
func secretOptWarning(k string) string {
	safer := fmt.Sprintf("$%s='%s=VALUE', which platbench adds to the target's options", envTargetSecretOpts, k)
	if strings.EqualFold(k, "password") {
		safer = fmt.Sprintf("--target-password-file FILE, or $%s", envTargetPassword)
	}
	return fmt.Sprintf("--target-opt %s=... puts a secret on the command line, where the machine's other users can read it (ps, /proc) and shell history keeps it (safer: %s)", k, safer)
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

// commandFlags are memtier's --command templates: each --command starts a
// template, and --command-name and --command-weight that follow it name and
// weigh it (workload.Command).
type commandFlags []workload.Command

func (c *commandFlags) register(fs *flag.FlagSet) {
	fs.Func("command", "command template run as an operation of its own, e.g. 'LPUSH __key__ __data__' (placeholders __key__, __data__, __score__, __member__; repeatable; redis target; replaces the workload's mix unless --mix names the commands)", func(s string) error {
		if _, err := workload.ParseCommand(s); err != nil {
			return err
		}
		*c = append(*c, workload.Command{Command: s})
		return nil
	})
	fs.Func("command-name", "`name` of the --command before it in results and reports (default: its first word in lower case)", func(s string) error {
		if len(*c) == 0 {
			return fmt.Errorf("comes before any --command (fix: give it after the --command it names)")
		}
		(*c)[len(*c)-1].Name = strings.TrimSpace(s)
		return nil
	})
	fs.Func("command-weight", "`weight` in the mix of the --command before it (default 1)", func(s string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
			return fmt.Errorf("%q is not a number above 0 (fix: e.g. --command-weight 2)", s)
		}
		if len(*c) == 0 {
			return fmt.Errorf("comes before any --command (fix: give it after the --command it weighs)")
		}
		(*c)[len(*c)-1].Weight = f
		return nil
	})
}

// apply makes the templates the workload's commands, replacing the file's;
// the mix is theirs unless --mix (parsed after this) names them.
func (c commandFlags) apply(spec *workload.Spec) {
	if len(c) == 0 {
		return
	}
	spec.Commands = append([]workload.Command(nil), c...)
	if spec.CQL == nil {
		spec.NamedOps, spec.Mix = nil, nil
	}
	spec.NameCommands()
}
