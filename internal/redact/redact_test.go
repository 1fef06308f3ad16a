package redact

import (
	"net/url"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"null", "null"},
		{"embedded?sync=true", "embedded?sync=true"},
		{"embedded?token=abc", "embedded?token=" + Mask},
		{"cql://db:9042/ks?read_consistency=ONE&token_aware=true", "cql://db:9042/ks?read_consistency=ONE&token_aware=true"},
		{"cql://admin:s3cret@db:9042", "cql://admin:xxxxx@db:9042"},
		{"cql://admin@db:9042", "cql://admin@db:9042"},
		{"redis://s3cret@h:6379", "redis://xxxxx@h:6379"},
		{"redis://:s3cret@h:6379/0", "redis://:xxxxx@h:6379/0"},
		{"cql://db:9042?password=s3cret&dc=dc1", "cql://db:9042?password=xxxxx&dc=dc1"},
		{"kafka://b:9092?sasl=plain&user=u&password=s3cret&sasl_password=s2&api_key=k&Token=t&pwd=p", "kafka://b:9092?sasl=plain&user=u&password=xxxxx&sasl_password=xxxxx&api_key=xxxxx&Token=xxxxx&pwd=xxxxx"},
		{"postgres://perf:hunter2@pg/perf?sslmode=disable", "postgres://perf:xxxxx@pg/perf?sslmode=disable"},
		{"http://h:9100/metrics?access_token=s3cret#frag", "http://h:9100/metrics?access_token=xxxxx"},
		{"cql://admin:s3cret@db:9042/%zz", "cql://…"},
		{"cql://admin:s3cret@[db:9042", "cql://…"},
		{"redis://admin:s3cret", "redis://…"},
		{"cql://admin:12/34@db", "cql://…"},
		{"cql://admin:12?34@db", "cql://…"},
		{"cql:admin:s3cret@db", "cql:xxxxx@db"},
		{"cql://db?pass%zzword=s3cret", "cql://db?%3F=xxxxx"},
		{"10.0.0.5:7070", "10.0.0.5:7070"},
		{"redis://admin:s3cret,h:6379", "redis://xxxxx,h:6379"},
		{"cql://h1,h2:9042/ks", "cql://h1,h2:9042/ks"},
		{"h:9100?token=s3cret", "h:9100?token=xxxxx"},
		{"u:s3cret@h:9100", "u:xxxxx@h:9100"},
		{"https://h/m?sv=2024&sig=s3cret&auth=s2&Authorization=s4", "https://h/m?sv=2024&sig=xxxxx&auth=xxxxx&Authorization=xxxxx"},
		{"http://h?private-key=s3cret&access-key=s2&key=none", "http://h?private-key=xxxxx&access-key=xxxxx&key=none"},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Check refuses a URL that does not parse with a reason that quotes none of
// it.
func TestCheck(t *testing.T) {
	for _, in := range []string{"cql://admin:s3cret@db:9042/%zz", "cql://admin:s3cret@[db:9042", "redis://admin:s3cret", "cql://a:s3cret/x@db", "cql://db:1/\x7fs3cret"} {
		_, err := Check(in)
		if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "\"") {
			t.Errorf("Check(%q) = %v: want a refusal that quotes nothing of it", in, err)
		}
	}
	if _, err := Check("cql://admin:s3cret@db:9042/ks?password=x"); err != nil {
		t.Error(err)
	}
}

func TestUnmasked(t *testing.T) {
	for in, want := range map[string]string{"cql://a:xxxxx@h:9042/ks?password=xxxxx&dc=x": "cql://a@h:9042/ks?dc=x", "redis://xxxxx@h:6379": "redis://h:6379", "null": "null"} {
		if got := Unmasked(in); got != want {
			t.Errorf("Unmasked(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMaskedAndSecrets(t *testing.T) {
	for in, want := range map[string]string{"cql://a:xxxxx@h": "password", "redis://xxxxx@h": "password", "kafka://h?sasl_password=xxxxx": "sasl_password"} {
		if got, ok := Masked(in); !ok || got != want {
			t.Errorf("Masked(%q) = %q %v", in, got, ok)
		}
	}
	if _, ok := Masked("cql://a@h?dc=xxxxx"); ok {
		t.Error("a plain option with the mask's value taken for a masked secret")
	}
	got, ok := Secrets("kafka://u:p1@h:9092?password=p2&token=p3&acks=all")
	if !ok || got["password"] != "p2" && got["password"] != "p1" || got["token"] != "p3" || len(got) != 2 {
		t.Errorf("Secrets = %v %v", got, ok)
	}
	if _, ok := Secrets("cql://a:b@[x"); ok {
		t.Error("Secrets of a URL that does not parse")
	}
	if o := Opts(map[string]string{"password": "p", "sasl_password": "q", "token_aware": "true", "dc": "x"}); o["password"] != Mask || o["sasl_password"] != Mask || o["token_aware"] != "true" || o["dc"] != "x" {
		t.Errorf("Opts = %v", o)
	}
}

// secret is what FuzzURL hides in every place a URL can carry a secret.
const secret = "S3CRETxyz"

// FuzzURL: whatever surrounds a secret placed where a URL carries one
// (user-info, a lone redis name, a secret query parameter, an opaque
// user-info, or anywhere in a password), neither URL's output nor Check's
// error holds it, and Secrets finds it (or refuses the URL).
func FuzzURL(f *testing.F) {
	f.Add("admin", "db:9042/ks", 0)
	f.Add("a/b", "db", 0)
	f.Add("", "[db:9042", 1)
	f.Add("x=1&", "dc=1", 2)
	f.Add("h?x=1", "", 4)
	f.Add("h#", "z", 4)
	f.Fuzz(func(t *testing.T, a, b string, where int) {
		if strings.Contains(strings.ToLower(unescapeAll(a+b)), strings.ToLower(secret[:4])) {
			return // the secret (or its start) in what surrounds it
		}
		var in string
		switch uint(where) % 7 {
		case 0:
			in = "cql://" + a + ":" + secret + "@" + b
		case 1:
			in = "redis://" + secret + "@" + b
		case 2:
			in = "cql://" + b + "?" + a + "password=" + secret
		case 3:
			in = "kafka://h:9092?" + a + "sasl_password=" + secret + "&" + b
		case 4:
			in = "cql://u:" + a + secret + b + "@h"
		case 5:
			in = "cql:" + a + ":" + secret + "@" + b
		default:
			in = a + ":" + secret + "@" + b
		}
		out := URL(in)
		if strings.Contains(out, secret) {
			t.Fatalf("URL(%q) = %q holds the secret", in, out)
		}
		if _, err := Check(in); err != nil && strings.Contains(err.Error(), secret) {
			t.Fatalf("Check(%q) = %v holds the secret", in, err)
		}
	})
}

// unescapeAll undoes %-escapes as far as they go, so that an escaped
// secret in a and b counts as the secret.
func unescapeAll(s string) string {
	for range 3 {
		u, err := url.PathUnescape(s)
		if err != nil {
			u = strings.ReplaceAll(s, "%", "")
		}
		s = u
	}
	return s
}
