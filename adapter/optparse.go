package adapter

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platbench/platbench/internal/nearest"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
)

// Sources are the places option values come from. Precedence, highest
// first: Opts, Query, Workload.
type Sources struct {
	Workload map[string]string // a workload's options (workload.Spec.Options); only options declared FromWorkload count
	Query    url.Values        // the target URL's query
	Opts     map[string]string // target options (--target-opt key=value)
}

// given is the value that won for one option, the name it was given under,
// and where it came from.
type given struct{ key, value, where string }

const fromWorkload = "workload's options"

// Parse sets every option to its default, then to the value the sources
// give it, and records every problem (see Err). Options are applied in the
// order they were declared.
func (s *OptionSet) Parse(src Sources) {
	s.index()
	s.probs = nil
	for _, o := range s.opts {
		o.reset()
	}
	won := map[*Option]given{}
	s.collect(won, fromWorkload, src.Workload, nil, true)
	s.collect(won, "URL query", nil, src.Query, false)
	s.collect(won, "target options", src.Opts, nil, false)
	for _, o := range s.opts {
		if g, ok := won[o]; ok {
			s.apply(o, g)
		}
	}
}

// ParseURL is Parse of the URL's query and the target options.
func (s *OptionSet) ParseURL(u *url.URL, opts map[string]string) {
	s.Parse(Sources{Query: u.Query(), Opts: opts})
}

// IsSet reports whether a source gave the option (by any of its names) a
// valid value.
func (s *OptionSet) IsSet(name string) bool {
	o := s.Lookup(name)
	return o != nil && o.isSet
}

// Problem records a problem that is not one option's value (two options
// that do not go together, a bad host in the URL). The message says what is
// wrong and, in parentheses, "fix: ...".
func (s *OptionSet) Problem(format string, a ...any) {
	s.probs = append(s.probs, &usererr.Error{Msg: s.target + ": " + fmt.Sprintf(format, a...)})
}

// Err returns every problem recorded since Parse, or nil.
func (s *OptionSet) Err() error { return s.probs.Err() }

// index maps every name and alias to its option. Aliases are declared by
// chaining after the option is added, so the map is built when first needed.
func (s *OptionSet) index() {
	clear(s.byName)
	for _, o := range s.opts {
		s.byName[o.Name] = o
		for _, a := range o.Aliases {
			s.byName[a] = o
		}
	}
}

// reset sets o to its default. A default that does not parse is a bug in
// the declaration (TestDeclarations in each adapter's package catches it).
func (o *Option) reset() {
	o.isSet = false
	o.zero()
	if o.Default == "" {
		return
	}
	if err := o.set(o.Default); err != nil {
		panic(fmt.Sprintf("target: option %s: default %q does not parse: %v", o.Name, o.Default, err))
	}
}

// collect records the value each option gets from one source, over any
// value it got from a source of lower precedence.
func (s *OptionSet) collect(won map[*Option]given, where string, kv map[string]string, q url.Values, workload bool) {
	keys := make([]string, 0, len(kv)+len(q))
	for k := range kv {
		keys = append(keys, k)
	}
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	seen := map[*Option]string{}
	for _, k := range keys {
		v, ok := kv[k]
		if !ok {
			v = q[k][len(q[k])-1] // a repeated key: the last value wins
		}
		o := s.byName[k]
		switch {
		case workload && (o == nil || !o.Workload || o.Secret):
			continue // a workload's options are free-form: not all are for this target
		case o == nil:
			s.unknown(k)
			continue
		}
		if prev, dup := seen[o]; dup {
			s.Problem("%s is given twice in the %s, as %s and as %s (fix: give it once)", o.Name, where, prev, k)
			continue
		}
		seen[o] = k
		won[o] = given{key: k, value: v, where: where}
	}
}

// apply parses the value that won for o.
func (s *OptionSet) apply(o *Option, g given) {
	v := g.value
	if o.negated[g.key] {
		b, err := strconv.ParseBool(v)
		if err != nil {
			s.bad(o, g, err)
			return
		}
		v = strconv.FormatBool(!b)
	}
	if err := o.set(v); err != nil {
		s.bad(o, g, err)
		o.reset()
		return
	}
	o.isSet = true
}

func (s *OptionSet) bad(o *Option, g given, err error) {
	shown := strconv.Quote(g.value)
	if o.Secret {
		shown = "(hidden)"
	}
	if g.where == fromWorkload {
		shown += " (from the workload's options)"
	}
	s.Problem("%s=%s %s (fix: %s)", g.key, shown, o.reason(err), o.fix(g.key, s.target))
}

// reason says why a value was refused, after "key=value".
func (o *Option) reason(err error) string {
	var ue *units.Error
	switch {
	case errors.Is(err, errOutOfRange):
		return o.rangeText()
	case o.Kind == KindBool:
		return "is not true or false"
	case o.Kind == KindEnum && errors.Is(err, errNotOneOf):
		return "is not " + orList(o.Values)
	case errors.As(err, &ue):
		return map[units.Kind]string{
			units.KindCount:    "is not a whole number (10k and 1M work)",
			units.KindSize:     "is not a size in bytes (binary units: 64KiB, 1.5GB)",
			units.KindDuration: "is not a duration (5s, 1m30s, or 75 for seconds)",
		}[ue.Kind]
	}
	return err.Error()
}

// rangeText says what range a count, size or duration must be in.
func (o *Option) rangeText() string {
	f := func(n int64) string {
		switch o.Kind {
		case KindSize:
			return units.Bytes(float64(n))
		case KindDuration:
			return time.Duration(n).String()
		}
		return strconv.FormatInt(n, 10)
	}
	switch {
	case o.max == 0 && o.min == 1:
		return "must be more than 0"
	case o.max == 0:
		return "must be at least " + f(o.min)
	}
	return "must be from " + f(o.min) + " to " + f(o.max)
}

// fix is the advice at the end of a message about o's value.
func (o *Option) fix(key, target string) string {
	switch {
	case o.Kind == KindBool:
		return key + "=true or " + key + "=false"
	case o.Kind == KindEnum && len(o.Values) <= 4:
		each := make([]string, len(o.Values))
		for i, v := range o.Values {
			each[i] = key + "=" + v
		}
		return orList(each)
	case o.Kind == KindEnum:
		return key + "=" + orList(o.Values)
	case o.example != "":
		return "e.g. " + key + "=" + o.example
	case o.Default != "" && o.Default != "0":
		return "e.g. " + key + "=" + o.Default
	}
	ex := map[Kind]string{KindCount: "16", KindSize: "64MiB", KindDuration: "5s"}[o.Kind]
	if ex == "" {
		return "see 'platbench targets " + target + "'"
	}
	return "e.g. " + key + "=" + ex
}

// unknown records an option nobody declared, with the nearest known name.
func (s *OptionSet) unknown(k string) {
	names := make([]string, 0, len(s.opts))
	for _, o := range s.opts {
		names = append(names, o.Name)
	}
	hint := ""
	if near := s.nearest(k); near != "" {
		hint = fmt.Sprintf("did you mean %s? ", near)
	}
	if len(names) == 0 {
		s.Problem("takes no options, got %q (fix: remove it)", k)
		return
	}
	s.Problem("unknown option %q (fix: %sthe options are %s)", k, hint, strings.Join(names, ", "))
}

// nearest is the declared name or alias closest to k, when it is a likely
// typo (at most 2 edits, or the same but for case).
func (s *OptionSet) nearest(k string) string {
	names := make([]string, 0, len(s.byName))
	for name := range s.byName {
		names = append(names, name)
	}
	if near := nearest.Name(k, names, 2); near != "" {
		return s.byName[near].Name // an alias names its option
	}
	return ""
}

// orList joins values as "a, b or c".
func orList(v []string) string {
	if len(v) < 2 {
		return strings.Join(v, "")
	}
	return strings.Join(v[:len(v)-1], ", ") + " or " + v[len(v)-1]
}
