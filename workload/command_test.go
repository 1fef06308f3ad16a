package workload

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/platbench/platbench/vocab"
)

func TestParseCommand(t *testing.T) {
	args, err := ParseCommand(`EVAL "return redis.call('INCR', KEYS[1]) -- \"x\"" 1  __key__ 'a b' __data__ __score__ __member__`)
	if err != nil {
		t.Fatal(err)
	}
	want := []CommandArg{{Text: "EVAL"}, {Text: `return redis.call('INCR', KEYS[1]) -- "x"`}, {Text: "1"}, {Kind: ArgKey},
		{Text: "a b"}, {Kind: ArgData}, {Kind: ArgScore}, {Kind: ArgMember}}
	if len(args) != len(want) {
		t.Fatalf("got %d words %+v, want %+v", len(args), args, want)
	}
	for i := range want {
		if args[i] != want[i] {
			t.Errorf("word %d: got %+v, want %+v", i, args[i], want[i])
		}
	}
	if a, err := ParseCommand(`LPUSH list:__key__:x __data__`); err != nil || a[1] != (CommandArg{Kind: ArgKey, Text: "list:", Suffix: ":x"}) {
		t.Errorf("placeholder inside a word: %+v %v", a, err)
	}
	// A quoted placeholder is sent as it is.
	if a, err := ParseCommand(`SET "__key__" x`); err != nil || a[1] != (CommandArg{Text: "__key__"}) {
		t.Errorf("quoted placeholder: %+v %v", a, err)
	}
	for in, msg := range map[string]string{
		"":                       "empty",
		"   ":                    "empty",
		"__key__ GET":            "does not start with a command name",
		`SET "a`:                 "unterminated",
		`SET a"b`:                "quote inside a word",
		`SET "a"b`:               "closing quote",
		"SET a__key____data__ v": "two placeholders",
		"SET __key____key__ v":   "two placeholders",
		"SET __keys__ v":         "unknown placeholder __keys__",
		"SET a\nGET b":           "line break",
		`"" a`:                   "does not start with a command name",
		"ZADD __key__ __x__":     "unknown placeholder",
	} {
		_, err := ParseCommand(in)
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("ParseCommand(%q) = %v, want an error with %q and a fix", in, err, msg)
		}
	}
}

func TestCommandsInSpec(t *testing.T) {
	s := Spec{Name: "t", Commands: []Command{{Command: "LPUSH __key__ __data__", Weight: 2}, {Command: "SET __key__ __data__"}, {Command: "set __key__ x"}, {Name: "z", Command: "ZADD __key__ __score__ __member__"}}}
	s.EnsureDefaults()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.NamedOps, ","); got != "lpush,set,set2,z" {
		t.Errorf("names %s", got)
	}
	if len(s.Mix) != 4 || s.Mix[0] != (vocab.Mix{Op: vocab.OpNamed0, Weight: 2}) || s.Mix[3] != (vocab.Mix{Op: vocab.OpNamed0 + 3, Weight: 1}) {
		t.Errorf("mix %+v", s.Mix)
	}
	if s.OpName(vocab.OpNamed0+2) != "set2" {
		t.Errorf("OpName %s", s.OpName(vocab.OpNamed0+2))
	}
	s.EnsureDefaults() // idempotent
	if len(s.Mix) != 4 || len(s.NamedOps) != 4 {
		t.Errorf("second EnsureDefaults changed the spec: %+v %v", s.Mix, s.NamedOps)
	}

	// A mix given after naming the commands (the command line's --mix).
	s = Spec{Name: "t", Commands: []Command{{Name: "push", Command: "LPUSH __key__ __data__"}}}
	s.NameCommands()
	m, err := s.ParseMix("push=3,read=1")
	if err != nil {
		t.Fatal(err)
	}
	s.Mix = m
	s.EnsureDefaults()
	if len(s.Mix) != 2 || s.Mix[0] != (vocab.Mix{Op: vocab.OpNamed0, Weight: 3}) {
		t.Errorf("mix %+v", s.Mix)
	}

	bad := Spec{Name: "t", Commands: []Command{{Name: "a", Command: "SET __nope__"}, {Name: "a", Command: "GET __key__"}}}
	bad.EnsureDefaults()
	err = bad.Validate()
	if err == nil || !strings.Contains(err.Error(), "unknown placeholder") || !strings.Contains(err.Error(), "twice") {
		t.Errorf("Validate = %v", err)
	}
}

func TestCommandsFile(t *testing.T) {
	s, err := ParseFile([]byte("base: ycsb-c\nmix: read=1\ncommands:\n  - LPUSH __key__ __data__\n  - {name: hits, command: HINCRBY __key__ f 1, weight: 3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.NamedOps, ",") != "lpush,hits" || len(s.Mix) != 3 || s.Mix[2] != (vocab.Mix{Op: vocab.OpNamed0 + 1, Weight: 3}) {
		t.Errorf("named %v mix %+v", s.NamedOps, s.Mix)
	}
	for _, f := range []string{"commands:\n  - {command: GET __key__, ratio: 2}\n", "commands:\n  - {command: GET __key__, weight: -1}\n", "commands:\n  - GET __k__\n"} {
		if _, err := ParseFile([]byte(f)); err == nil || !strings.Contains(err.Error(), "fix") {
			t.Errorf("ParseFile(%q) = %v", f, err)
		}
	}
}

func TestNamedOpsGetValues(t *testing.T) {
	s := Spec{Name: "t", Records: 100, FieldCount: 2, FieldLength: 10, Commands: []Command{{Command: "LPUSH __key__ __data__"}}}
	s.EnsureDefaults()
	ks := NewKeyspace(&s, 0, 1)
	g := NewGenerator(&s, ks, 1, 0)
	var req Request
	g.Next(&req)
	if req.Op != vocab.OpNamed0 || len(req.Value) != 20 || req.KeyNum >= 100 {
		t.Errorf("request %+v", req)
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"SET __key__ __data__", `EVAL "a \"b\" \\" 1 __key__`, "ZADD __key__ __score__ __member__", "'x y' __z__", `SET "a`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args, err := ParseCommand(s)
		if err != nil {
			if !strings.Contains(err.Error(), "fix:") {
				t.Fatalf("error without a fix: %v", err)
			}
			return
		}
		if len(args) == 0 || args[0].Kind != ArgLiteral || args[0].Text == "" {
			t.Fatalf("parsed %q to %+v", s, args)
		}
		for _, a := range args {
			if a.Kind == ArgLiteral && a.Suffix != "" {
				t.Fatalf("literal with a suffix: %+v", a)
			}
			if utf8.ValidString(s) && !utf8.ValidString(a.Text) {
				t.Fatalf("word %q of valid %q is not valid UTF-8", a.Text, s)
			}
		}
	})
}
