package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
)

// Command is one command template of a key-value workload, as memtier's
// --command: "LPUSH __key__ __data__". Each is an operation of its own (a
// named op slot: Spec.NamedOps), chosen by its weight in the mix; a target
// that runs templates (redis) fills the placeholders per operation:
//   - __key__: the operation's key, from the workload's key distribution;
//   - __data__: a value of the workload's record size (field_count x field_length);
//   - __score__: a random integer in [0, 2^31) (a sorted set's score);
//   - __member__: a random 16-hex-digit name (a new sorted-set or set member).
//
// A placeholder may have text around it in its word: "list:__key__" keeps
// a list per key beside the records.
type Command struct {
	// Name is the operation's name in results and reports. Default: the
	// command's first word in lower case ("lpush"), numbered when two
	// templates share it ("set", "set2").
	Name string `yaml:"name,omitempty" json:"name"`
	// Command is the template: words separated by spaces, "double" or
	// 'single' quotes around a word with spaces (\" and \\ inside double
	// quotes), placeholders as whole words.
	Command string `yaml:"command" json:"command"`
	// Weight is the template's weight in the mix. Default 1.
	Weight float64 `yaml:"weight,omitempty" json:"weight"`
}

// ArgKind is what one word of a command template is.
type ArgKind uint8

// The kinds of template words: a literal, or a placeholder filled per operation.
const (
	ArgLiteral ArgKind = iota
	ArgKey             // __key__
	ArgData            // __data__
	ArgScore           // __score__
	ArgMember          // __member__
)

var placeholders = map[string]ArgKind{"__key__": ArgKey, "__data__": ArgData, "__score__": ArgScore, "__member__": ArgMember}

const placeholderList = "__key__, __data__, __score__ or __member__"

// CommandArg is one word of a parsed template: a literal (Text), or a
// placeholder with the literal text before (Text) and after (Suffix) it in
// its word: "list:__key__" is {ArgKey, "list:", ""}.
type CommandArg struct {
	Kind   ArgKind
	Text   string
	Suffix string
}

// MaxCommandArgs bounds the words of one template.
const MaxCommandArgs = 1024

// ParseCommand splits a command template into its words (see Command). Its
// errors say what is wrong and how to write it instead.
func ParseCommand(s string) ([]CommandArg, error) {
	var out []CommandArg
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '\r' || c == '\n':
			return nil, fmt.Errorf("command %q has a line break (fix: write the command on one line)", s)
		}
		word, quoted, next, err := commandWord(s, i)
		if err != nil {
			return nil, err
		}
		i = next
		a := CommandArg{Text: word}
		if !quoted {
			if a, err = placeholderWord(s, word); err != nil {
				return nil, err
			}
		}
		if len(out) >= MaxCommandArgs {
			return nil, fmt.Errorf("command %q has more than %d words (fix: shorten it)", clip(s), MaxCommandArgs)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("command is empty (fix: e.g. LPUSH __key__ __data__)")
	}
	if out[0].Kind != ArgLiteral || out[0].Text == "" {
		return nil, fmt.Errorf("command %q does not start with a command name (fix: e.g. LPUSH __key__ __data__)", clip(s))
	}
	return out, nil
}

// commandWord reads the word at s[i:] (i is not a space): a bare word or a
// quoted one. It returns the word, whether it was quoted and where the next
// word may start.
func commandWord(s string, i int) (word string, quoted bool, next int, err error) {
	q := s[i]
	if q != '"' && q != '\'' {
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\r' && s[j] != '\n' {
			if s[j] == '"' || s[j] == '\'' {
				return "", false, 0, fmt.Errorf("command %q has a quote inside a word (fix: quote the whole word, e.g. \"a b\")", clip(s))
			}
			j++
		}
		return s[i:j], false, j, nil
	}
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == q:
			if j+1 < len(s) && s[j+1] != ' ' && s[j+1] != '\t' {
				return "", false, 0, fmt.Errorf("command %q: a closing quote is followed by %q (fix: put a space after the quoted word)", clip(s), s[j+1])
			}
			return b.String(), true, j + 1, nil
		case c == '\\' && q == '"' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\'):
			j++
			b.WriteByte(s[j])
		default:
			b.WriteByte(c)
		}
	}
	return "", false, 0, fmt.Errorf("command %q has an unterminated %c quote (fix: close it)", clip(s), q)
}

// placeholderWord reads an unquoted word: a literal, or one placeholder
// with the literal text around it ("list:__key__"). A word that looks like
// a placeholder but is not one, or holds two, is an error.
func placeholderWord(s, word string) (CommandArg, error) {
	a := CommandArg{Text: word}
	for p, k := range placeholders {
		i := strings.Index(word, p)
		if i < 0 {
			continue
		}
		if a.Kind != ArgLiteral || strings.Contains(word[i+len(p):], p) {
			return a, fmt.Errorf("command %q: the word %q has two placeholders (fix: one placeholder a word)", clip(s), word)
		}
		a = CommandArg{Kind: k, Text: word[:i], Suffix: word[i+len(p):]}
	}
	rest := a.Text + " " + a.Suffix
	if a.Kind == ArgLiteral {
		rest = word
	}
	if i := strings.Index(rest, "__"); i >= 0 {
		if j := strings.Index(rest[i+2:], "__"); j > 0 && !strings.ContainsAny(rest[i+2:i+2+j], " _") {
			return a, fmt.Errorf("command %q: unknown placeholder %s (fix: use %s, or quote the word to send it as it is)", clip(s), rest[i:i+4+j], placeholderList)
		}
	}
	return a, nil
}

// UnmarshalYAML reads a commands item: a template string, or a map of
// name, command and weight (an unknown key is an error).
func (c *Command) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*c = Command{Command: n.Value}
		return nil
	case yaml.MappingNode:
		*c = Command{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: commands: %s is not a string (fix: e.g. command: LPUSH __key__ __data__)", v.Line, k.Value)
			}
			switch k.Value {
			case "name":
				c.Name = v.Value
			case "command":
				c.Command = v.Value
			case "weight":
				f, err := strconv.ParseFloat(v.Value, 64)
				if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
					return fmt.Errorf("line %d: commands: weight %q is not a number above 0 (fix: e.g. weight: 2)", v.Line, v.Value)
				}
				c.Weight = f
			default:
				return fmt.Errorf("line %d: commands: field %q not known (fix: a command has name, command and weight)", k.Line, k.Value)
			}
		}
		return nil
	}
	return fmt.Errorf("line %d: commands: an item is not a string or a map (fix: write - LPUSH __key__ __data__ or {name: lpush, command: ..., weight: 2})", n.Line)
}

// commandDefaults names the templates that have no name and gives weight 1
// to those without one (NameCommands), then adds them to the mix with their
// weights, unless the mix names one of them already (--mix lpush=2,read=1).
func (s *Spec) commandDefaults() {
	if len(s.Commands) == 0 || s.CQL != nil {
		return
	}
	s.NameCommands()
	for _, m := range s.Mix {
		if m.Op.Named() {
			return
		}
	}
	for i, c := range s.Commands {
		if i < vocab.MaxNamed {
			s.Mix = append(s.Mix, vocab.Mix{Op: vocab.OpNamed0 + vocab.Op(i), Weight: c.Weight})
		}
	}
}

// NameCommands fills the templates' default names and weights and makes
// their names the workload's named operations, so that a mix may name them
// (the command line's --mix is parsed after it). It does nothing to a
// workload whose named operations are set.
func (s *Spec) NameCommands() {
	if len(s.Commands) == 0 || len(s.NamedOps) > 0 {
		return
	}
	used := map[string]bool{}
	for _, c := range s.Commands {
		used[strings.ToLower(c.Name)] = c.Name != ""
	}
	for i := range s.Commands {
		c := &s.Commands[i]
		if c.Weight == 0 {
			c.Weight = 1
		}
		if c.Name == "" {
			base := "command"
			if f := strings.Fields(c.Command); len(f) > 0 {
				base = strings.ToLower(strings.Trim(f[0], `"'`))
			}
			c.Name = base
			for n := 2; used[c.Name]; n++ {
				c.Name = base + strconv.Itoa(n)
			}
			used[c.Name] = true
		}
		s.NamedOps = append(s.NamedOps, c.Name)
	}
}

// commandProblems checks the templates: each parses, names are distinct and
// there are at most MaxNamed of them.
func (s *Spec) commandProblems(p *usererr.List) {
	if len(s.Commands) == 0 {
		return
	}
	if s.CQL != nil {
		p.Add("commands", "are given with a cassandra-stress profile (fix: use one or the other)")
	}
	if len(s.Commands) > vocab.MaxNamed {
		p.Add("commands", "are %d (fix: give at most %d command templates)", len(s.Commands), vocab.MaxNamed)
	}
	seen := map[string]bool{}
	for _, c := range s.Commands {
		if _, err := ParseCommand(c.Command); err != nil {
			p.Add("commands", "%v", err)
		}
		n := strings.ToLower(c.Name)
		if seen[n] {
			p.Add("commands", "name %q is given twice (fix: give each command its own name)", c.Name)
		}
		seen[n] = true
		if math.IsNaN(c.Weight) || math.IsInf(c.Weight, 0) || c.Weight < 0 {
			p.Add("commands", "weight of %s is %v (fix: use a finite weight above 0)", c.Name, c.Weight)
		}
	}
}
