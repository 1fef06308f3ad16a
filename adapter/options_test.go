package adapter

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/usererr"
)

// testConfig has one option of every kind.
type testConfig struct {
	Name     string
	Secure   bool
	Insecure bool
	Conns    int
	Cache    int64
	Timeout  time.Duration
	Connect  time.Duration
	Mode     string
	Hosts    []string
	Pair     [2]string
	Password string
}

func (c *testConfig) options() *OptionSet {
	s := NewOptionSet("t")
	s.String(&c.Name, "name", "pb", "a name").FromWorkload()
	s.Bool(&c.Secure, "secure", "false", "a flag")
	s.Bool(&c.Insecure, "tls_insecure", "false", "skip verification").NegatedAlias("tls_verify_host")
	s.Count(&c.Conns, "conns", "2", "connections").Range(1, 100).FromWorkload()
	s.Size(&c.Cache, "cache", "64MiB", "cache size").Positive()
	s.Duration(&c.Timeout, "timeout", "5s", "request timeout").Positive()
	s.Duration(&c.Connect, "connect_timeout", "5s", "dial timeout").Alias("dial_timeout")
	s.Enum(&c.Mode, "mode", "kv", "layout", "kv", "hash").Synonyms("hashes", "hash").FromWorkload()
	s.List(&c.Hosts, "hosts", "", "contact points")
	s.Func(KindString, "pair", "", "a:b", func(v string) error {
		a, b, ok := strings.Cut(v, ":")
		if !ok {
			return errors.New("is not a:b")
		}
		c.Pair = [2]string{a, b}
		return nil
	}, func() { c.Pair = [2]string{} })
	s.String(&c.Password, "password", "", "secret").Hidden().FromWorkload()
	return s
}

func parse(t *testing.T, src Sources) (testConfig, *OptionSet, error) {
	t.Helper()
	var c testConfig
	s := c.options()
	s.Parse(src)
	return c, s, s.Err()
}

func query(t *testing.T, q string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOptionsParse(t *testing.T) {
	cases := []struct {
		name  string
		src   Sources
		check func(c testConfig, s *OptionSet) bool
	}{
		{"defaults", Sources{}, func(c testConfig, s *OptionSet) bool {
			return c.Name == "pb" && !c.Secure && c.Conns == 2 && c.Cache == 64<<20 && c.Timeout == 5*time.Second &&
				c.Mode == "kv" && c.Hosts == nil && !s.IsSet("conns")
		}},
		// Units: sizes are binary, counts decimal, a bare duration is seconds.
		{"units", Sources{Query: query(t, "cache=1.5GB&conns=1_0&timeout=75&connect_timeout=250ms")}, func(c testConfig, s *OptionSet) bool {
			return c.Cache == 3<<29 && c.Conns == 10 && c.Timeout == 75*time.Second && c.Connect == 250*time.Millisecond
		}},
		{"count suffix", Sources{Opts: map[string]string{"cache": "64KiB", "conns": "0.05k"}}, func(c testConfig, s *OptionSet) bool {
			return c.Cache == 64<<10 && c.Conns == 50
		}},
		// Target options win over the query, which wins over the workload.
		{"precedence", Sources{
			Workload: map[string]string{"name": "w", "conns": "3", "mode": "hash"},
			Query:    query(t, "name=q&conns=4"),
			Opts:     map[string]string{"name": "o"},
		}, func(c testConfig, s *OptionSet) bool {
			return c.Name == "o" && c.Conns == 4 && c.Mode == "hash" && s.IsSet("mode")
		}},
		// A workload's keys that are unknown, not declared FromWorkload or
		// secret are ignored, not errors.
		{"workload is free-form", Sources{Workload: map[string]string{"bogus": "1", "secure": "true", "password": "x"}},
			func(c testConfig, s *OptionSet) bool { return !c.Secure && c.Password == "" }},
		// A key repeated in one place: the last value wins.
		{"repeat: last wins", Sources{Query: query(t, "conns=3&conns=7")}, func(c testConfig, s *OptionSet) bool { return c.Conns == 7 }},
		// An alias sets the option; a negated alias sets its opposite.
		{"alias", Sources{Query: query(t, "dial_timeout=2s&tls_verify_host=false")}, func(c testConfig, s *OptionSet) bool {
			return c.Connect == 2*time.Second && c.Insecure && s.IsSet("connect_timeout") && s.IsSet("dial_timeout")
		}},
		{"negated alias true", Sources{Opts: map[string]string{"tls_verify_host": "true"}}, func(c testConfig, s *OptionSet) bool { return !c.Insecure }},
		// The same option under two names in different places: precedence.
		{"alias across sources", Sources{Query: query(t, "dial_timeout=2s"), Opts: map[string]string{"connect_timeout": "3s"}},
			func(c testConfig, s *OptionSet) bool { return c.Connect == 3*time.Second }},
		// Enums ignore case and store the declared spelling; synonyms map.
		{"enum case", Sources{Query: query(t, "mode=HASH")}, func(c testConfig, s *OptionSet) bool { return c.Mode == "hash" }},
		{"enum synonym", Sources{Query: query(t, "mode=Hashes")}, func(c testConfig, s *OptionSet) bool { return c.Mode == "hash" }},
		{"list", Sources{Query: query(t, "hosts=a, b,,c")}, func(c testConfig, s *OptionSet) bool {
			return strings.Join(c.Hosts, "|") == "a|b|c"
		}},
		{"func", Sources{Query: query(t, "pair=x:y")}, func(c testConfig, s *OptionSet) bool { return c.Pair == [2]string{"x", "y"} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, s, err := parse(t, tc.src)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !tc.check(c, s) {
				t.Fatalf("unexpected config %+v", c)
			}
		})
	}
}

func TestOptionsErrors(t *testing.T) {
	cases := []struct {
		name string
		src  Sources
		want []string // one substring per problem, in order
	}{
		{"bool", Sources{Query: query(t, "secure=yes")}, []string{`t: secure="yes" is not true or false (fix: secure=true or secure=false)`}},
		{"negated alias bad", Sources{Query: query(t, "tls_verify_host=maybe")}, []string{`tls_verify_host="maybe" is not true or false`}},
		{"count", Sources{Query: query(t, "conns=two")}, []string{`conns="two" is not a whole number`, "fix: e.g. conns=2"}},
		{"count range", Sources{Query: query(t, "conns=101")}, []string{`conns="101" must be from 1 to 100`}},
		{"size", Sources{Query: query(t, "cache=lots")}, []string{`cache="lots" is not a size in bytes`, "fix: e.g. cache=64MiB"}},
		{"size positive", Sources{Query: query(t, "cache=0")}, []string{`cache="0" must be more than 0`}},
		{"duration", Sources{Query: query(t, "timeout=-1s")}, []string{`timeout="-1s" is not a duration`}},
		{"enum", Sources{Query: query(t, "mode=json")}, []string{`mode="json" is not kv or hash (fix: mode=kv or mode=hash)`}},
		{"func", Sources{Query: query(t, "pair=x")}, []string{`pair="x" is not a:b`}},
		{"from a workload", Sources{Workload: map[string]string{"conns": "many"}}, []string{`conns="many" (from the workload's options) is not a whole number`}},
		{"unknown with a hint", Sources{Opts: map[string]string{"conn": "3"}}, []string{`t: unknown option "conn" (fix: did you mean conns? the options are name, secure, `}},
		{"unknown without a hint", Sources{Opts: map[string]string{"zzzzzzzz": "3"}}, []string{`unknown option "zzzzzzzz" (fix: the options are`}},
		// One option under two names in one place is refused: which one
		// was meant cannot be told.
		{"two names in one place", Sources{Query: query(t, "connect_timeout=1s&dial_timeout=2s")},
			[]string{"connect_timeout is given twice in the URL query, as connect_timeout and as dial_timeout (fix: give it once)"}},
		// Every problem at once, from every source.
		{"every problem", Sources{Query: query(t, "conns=0&mode=x"), Opts: map[string]string{"cache": "1.5", "nope": "1"}},
			[]string{`unknown option "nope"`, `conns="0" must be from 1 to 100`, `cache="1.5" is not a size`, `mode="x" is not kv or hash`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parse(t, tc.src)
			if err == nil {
				t.Fatal("no error")
			}
			if !usererr.Is(err) {
				t.Fatalf("%v is not a user error", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Fatalf("not one line: %q", msg)
			}
			at := 0
			for _, w := range tc.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q does not mention %q (after offset %d)", msg, w, at)
				}
				at += i + len(w)
			}
			if n := strings.Count(msg, "fix:"); n != len(strings.Split(msg, "; ")) {
				t.Fatalf("%d fixes for %q: every problem names its fix", n, msg)
			}
			var list interface{ Unwrap() []error }
			if n := strings.Count(msg, "fix:"); n > 1 && (!errors.As(err, &list) || len(list.Unwrap()) != n) {
				t.Fatalf("%v does not unwrap to each problem", err)
			}
		})
	}
}

// A refused value leaves the default in place, and the secret's value is
// never in a message.
func TestOptionsBadValueKeepsDefault(t *testing.T) {
	c, s, err := parse(t, Sources{Query: query(t, "conns=500&password=")})
	if err == nil || c.Conns != 2 || s.IsSet("conns") {
		t.Fatalf("conns=%d set=%v err=%v", c.Conns, s.IsSet("conns"), err)
	}
	var d testConfig
	hs := d.options()
	hs.Func(KindString, "pin", "", "a secret with a parser", func(string) error { return errors.New("is wrong") }, func() {}).Hidden()
	hs.Parse(Sources{Opts: map[string]string{"pin": "s3cret"}})
	if err := hs.Err(); err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "pin=(hidden)") {
		t.Fatalf("secret in %v", err)
	}
}

func TestOptionsProblemAndTable(t *testing.T) {
	var c testConfig
	s := c.options()
	s.ParseURL(&url.URL{RawQuery: "conns=0"}, nil)
	s.Problem("hosts and pair go together (fix: give both)")
	err := s.Err()
	if err == nil || !strings.HasSuffix(err.Error(), "; t: hosts and pair go together (fix: give both)") {
		t.Fatalf("got %v", err)
	}
	o := s.Lookup("dial_timeout")
	if o == nil || o.Name != "connect_timeout" || o.DefaultText() != "5s" || o.Type() != "duration" {
		t.Fatalf("lookup by alias: %+v", o)
	}
	if m := s.Lookup("mode"); m.Type() != "kv|hash" || m.DefaultText() != "kv" {
		t.Fatalf("enum shows %q default %q", m.Type(), m.DefaultText())
	}
	if h := s.Lookup("hosts"); h.DefaultText() != "none" {
		t.Fatalf("empty default shows %q", h.DefaultText())
	}
	if got := s.Lookup("cache").Unit; got != "bytes" {
		t.Fatalf("size unit %q", got)
	}
}

func TestNoOptions(t *testing.T) {
	s := NewOptionSet("null")
	s.Parse(Sources{Opts: map[string]string{"x": "1"}})
	if err := s.Err(); err == nil || err.Error() != `null: takes no options, got "x" (fix: remove it)` {
		t.Fatalf("got %v", err)
	}
}

// FuzzOptions feeds arbitrary URL queries and target options through the
// layer: it must not panic, and its errors are one-line user errors, each
// problem with its fix.
func FuzzOptions(f *testing.F) {
	f.Add("conns=3&mode=hash", "cache=64MiB;timeout=5")
	f.Add("dial_timeout=1s&connect_timeout=2s", "tls_verify_host=false")
	f.Add("conns=1e9&cache=-1&pair=", "zz=1;mode=")
	f.Add("%zz&&=&a=b=c", ";=;x")
	f.Fuzz(func(t *testing.T, rawQuery, opts string) {
		q, _ := url.ParseQuery(rawQuery)
		o := map[string]string{}
		for _, kv := range strings.Split(opts, ";") {
			k, v, _ := strings.Cut(kv, "=")
			o[k] = v
		}
		var c testConfig
		s := c.options()
		s.Parse(Sources{Workload: o, Query: q, Opts: o})
		err := s.Err()
		if err == nil {
			return
		}
		if !usererr.Is(err) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("not a one-line user error: %q", err)
		}
		probs := []error{err}
		if l, ok := err.(interface{ Unwrap() []error }); ok {
			probs = l.Unwrap()
		}
		for _, p := range probs {
			if m := p.Error(); !strings.HasPrefix(m, "t: ") || !strings.Contains(m, "(fix: ") {
				t.Fatalf("a problem without its target or its fix: %q", m)
			}
		}
	})
}
