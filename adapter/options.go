package adapter

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
)

// The option layer. Every adapter declares its options once, on an
// OptionSet bound to the fields of its Config (as a flag.FlagSet binds
// flags to variables); the layer then
//   - merges the places a value can come from, in one order of precedence:
//     the target options (--target-opt key=value) win over the URL query,
//     which wins over the workload's options (only for options declared
//     FromWorkload; other keys of a workload are ignored, since a workload's
//     options are free-form and shared by every target);
//   - takes the last value of a key repeated in one place (the URL query
//     ?a=1&a=2 gives 2, as --target-opt a=1 --target-opt a=2 does), and
//     refuses one option given under two of its names in one place;
//   - parses values with one grammar per kind (sizes, counts and durations
//     through internal/units, nowhere else);
//   - reports every problem at once, each as one line naming the option and
//     the fix (a usererr.List), unknown options with the known ones;
//   - prints the table of options (platbench targets NAME) and lets a test
//     check the docs' tables against the declarations.
//
// The layer does not know the URL's other parts (hosts, user info, path):
// adapters read those themselves and report their problems through
// OptionSet.Problem, so that they come out with the option problems.

// Kind is the grammar of an option's value.
type Kind string

// The kinds of option value.
const (
	KindString   Kind = "string"
	KindBool     Kind = "bool"     // true or false (strconv.ParseBool)
	KindCount    Kind = "count"    // units.ParseCount: 16, 10k, 1M
	KindSize     Kind = "size"     // units.ParseSize: 4096, 64MiB, 1.5GB
	KindDuration Kind = "duration" // units.ParseDuration: 5s, 250ms, 75 (seconds)
	KindEnum     Kind = "enum"     // one of Values (case does not matter)
	KindList     Kind = "list"     // comma-separated strings
)

// Option is one declared option.
type Option struct {
	Name       string   // canonical name
	Kind       Kind     // grammar of the value
	Default    string   // the default as a person would type it ("" = none)
	DefaultDoc string   // the default in words, when it is computed (e.g. from another option)
	Unit       string   // unit of a count or size ("bytes", "rows"); empty when the kind says it
	Doc        string   // what it does, one sentence or two
	Aliases    []string // other names accepted for it (older names, other targets' names)
	Values     []string // the accepted values of an enum
	Workload   bool     // a workload's options may set it
	Secret     bool     // never shown back (passwords)

	negated  map[string]bool   // aliases that mean the opposite (bool only)
	synonyms map[string]string // other spellings of enum values, lower case -> value
	min, max int64             // bounds of counts, sizes and durations (max 0: none)
	example  string            // a good value for the fix of a message
	set      func(string) error
	zero     func()
	isSet    bool
}

// Alias accepts other names for the option.
func (o *Option) Alias(names ...string) *Option {
	o.Aliases = append(o.Aliases, names...)
	return o
}

// WithUnit names the unit of a count or size.
func (o *Option) WithUnit(u string) *Option {
	o.Unit = u
	return o
}

// NegatedAlias accepts name for a bool option with the opposite meaning
// (tls_verify_host=false is tls_insecure=true).
func (o *Option) NegatedAlias(name string) *Option {
	if o.negated == nil {
		o.negated = map[string]bool{}
	}
	o.negated[name] = true
	return o.Alias(name)
}

// Computed documents a default that is not a fixed value.
func (o *Option) Computed(doc string) *Option {
	o.DefaultDoc = doc
	return o
}

// Synonyms accepts other spellings of enum values: each pair is
// spelling, value.
func (o *Option) Synonyms(pairs ...string) *Option {
	if o.synonyms == nil {
		o.synonyms = map[string]string{}
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		o.synonyms[strings.ToLower(pairs[i])] = pairs[i+1]
	}
	return o
}

// FromWorkload lets a workload's options set it.
func (o *Option) FromWorkload() *Option {
	o.Workload = true
	return o
}

// Range bounds a count, size or duration (in nanoseconds); max 0 is no
// upper bound.
func (o *Option) Range(min, max int64) *Option {
	o.min, o.max = min, max
	return o
}

// Example is a good value to show in the fix of a message.
func (o *Option) Example(v string) *Option {
	o.example = v
	return o
}

// Positive refuses 0 for a count, size or duration.
func (o *Option) Positive() *Option { return o.Range(1, o.max) }

// Hidden marks a secret: it is never taken from a workload nor shown back.
func (o *Option) Hidden() *Option {
	o.Secret = true
	return o
}

// DefaultText is the default as the option table shows it.
func (o *Option) DefaultText() string {
	switch {
	case o.DefaultDoc != "":
		return o.DefaultDoc
	case o.Default == "":
		return "none"
	}
	return o.Default
}

// Type is the kind as the option table shows it: an enum lists its values.
func (o *Option) Type() string {
	if o.Kind == KindEnum {
		return strings.Join(o.Values, "|")
	}
	return string(o.Kind)
}

// OptionSet is the options of one target, bound to one Config.
type OptionSet struct {
	target string
	opts   []*Option
	byName map[string]*Option
	probs  usererr.List
}

// NewOptionSet starts the declarations of target (its registry name, which
// prefixes every message).
func NewOptionSet(target string) *OptionSet {
	return &OptionSet{target: target, byName: map[string]*Option{}}
}

// Options returns the declarations in the order they were made.
func (s *OptionSet) Options() []*Option { return s.opts }

// Lookup returns the option with this name or alias.
func (s *OptionSet) Lookup(name string) *Option {
	if len(s.byName) == 0 {
		s.index()
	}
	return s.byName[name]
}

func (s *OptionSet) add(o *Option) *Option {
	s.opts = append(s.opts, o)
	return o
}

// String declares a string option.
func (s *OptionSet) String(p *string, name, def, doc string) *Option {
	return s.add(&Option{Name: name, Kind: KindString, Default: def, Doc: doc,
		set: func(v string) error { *p = v; return nil }, zero: func() { *p = "" }})
}

// Bool declares a bool option.
func (s *OptionSet) Bool(p *bool, name, def, doc string) *Option {
	return s.add(&Option{Name: name, Kind: KindBool, Default: def, Doc: doc,
		set: func(v string) error {
			b, err := strconv.ParseBool(v)
			*p = b
			return err
		}, zero: func() { *p = false }})
}

// Count declares a whole-number option (units.ParseCount: 16, 10k, 1M).
func (s *OptionSet) Count(p *int, name, def, doc string) *Option {
	return numeric(s, p, KindCount, name, def, doc, func(v string) (int64, error) {
		n, err := units.ParseCount(v)
		return int64(n), err
	})
}

// Size declares a size in bytes (units.ParseSize: 4096, 64MiB, 1.5GB).
func (s *OptionSet) Size(p *int64, name, def, doc string) *Option {
	return numeric(s, p, KindSize, name, def, doc, units.ParseSize).WithUnit("bytes")
}

// Duration declares a duration (units.ParseDuration: 5s, 250ms, 75).
func (s *OptionSet) Duration(p *time.Duration, name, def, doc string) *Option {
	return numeric(s, p, KindDuration, name, def, doc, func(v string) (int64, error) {
		d, err := units.ParseDuration(v)
		return int64(d), err
	})
}

// numeric declares a count, size or duration: parsed with its units
// grammar, then checked against the option's Range.
func numeric[T ~int | ~int64](s *OptionSet, p *T, kind Kind, name, def, doc string, parse func(string) (int64, error)) *Option {
	o := &Option{Name: name, Kind: kind, Default: def, Doc: doc, zero: func() { *p = 0 }}
	o.set = func(v string) error {
		n, err := parse(v)
		if err == nil {
			err = o.check(n)
		}
		*p = T(n)
		return err
	}
	return s.add(o)
}

// Enum declares an option that takes one of values; the value stored is
// the declared spelling, whatever the case typed.
func (s *OptionSet) Enum(p *string, name, def, doc string, values ...string) *Option {
	return s.Var(func(v string) error { *p = v; return nil }, func() { *p = "" }, name, def, doc, values...)
}

// Var declares an enum option whose value set stores itself (e.g. into a
// driver's type); set gets the declared spelling of the value.
func (s *OptionSet) Var(set func(string) error, zero func(), name, def, doc string, values ...string) *Option {
	o := &Option{Name: name, Kind: KindEnum, Default: def, Doc: doc, Values: values, zero: zero}
	o.set = func(v string) error {
		c, ok := o.canonical(v)
		if !ok {
			return errNotOneOf
		}
		return set(c)
	}
	return s.add(o)
}

// List declares a comma-separated list; blank items are dropped.
func (s *OptionSet) List(p *[]string, name, def, doc string) *Option {
	return s.add(&Option{Name: name, Kind: KindList, Default: def, Doc: doc,
		set: func(v string) error {
			*p = nil
			for _, x := range strings.Split(v, ",") {
				if x = strings.TrimSpace(x); x != "" {
					*p = append(*p, x)
				}
			}
			return nil
		}, zero: func() { *p = nil }})
}

// Func declares an option of kind with its own parser (a range, a list of
// pairs): parse gets the value as typed and returns the reason it is wrong,
// which the message puts after the value ("is not dc:rf").
func (s *OptionSet) Func(kind Kind, name, def, doc string, parse func(string) error, zero func()) *Option {
	return s.add(&Option{Name: name, Kind: kind, Default: def, Doc: doc, set: parse, zero: zero})
}

var (
	errNotOneOf   = errors.New("not one of the values")
	errOutOfRange = errors.New("out of range")
)

func (o *Option) canonical(v string) (string, bool) {
	for _, x := range o.Values {
		if strings.EqualFold(x, v) {
			return x, true
		}
	}
	c, ok := o.synonyms[strings.ToLower(v)]
	return c, ok
}

func (o *Option) check(n int64) error {
	if n < o.min || (o.max > 0 && n > o.max) {
		return errOutOfRange
	}
	return nil
}

// MaxTLSFile bounds a TLS CA, certificate or key file a target option
// names (PEM files are a few KB; a CA bundle under a few hundred): a
// larger one, a device or a FIFO is refused before it is read
// (internal/bounded).
const MaxTLSFile = 1 << 20
