package cli

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
)

// The user and password from a file or the environment go into the target's
// URL; given twice, or to a target that is not a URL, they are refused.
func TestCredentialsApply(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("p@ss word\r\nsecond line\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	for _, tc := range []struct {
		name   string
		f      credFlags
		env    map[string]string
		target string
		want   string // the URL, or an error's words
		fails  bool
	}{
		{"nothing given", credFlags{}, nil, "cql://db:9042", "cql://db:9042", false},
		{"a name, not a URL", credFlags{}, nil, "embedded", "embedded", false},
		{"file", credFlags{user: "admin", passwordFile: pw}, nil, "cql://db:9042", "cql://admin:p%40ss%20word@db:9042", false},
		{"environment", credFlags{}, map[string]string{envTargetUser: "u", envTargetPassword: "e"}, "redis://127.0.0.1:6379", "redis://u:e@127.0.0.1:6379", false},
		{"password alone keeps the URL's user", credFlags{passwordFile: pw}, nil, "kafka://bench@b:9092", "kafka://bench:p%40ss%20word@b:9092", false},
		{"user alone keeps the URL's password", credFlags{user: "other"}, nil, "cql://a:b@db:9042", "cql://other:b@db:9042", false},
		{"twice", credFlags{passwordFile: pw}, nil, "cql://a:b@db:9042", "given twice", true},
		{"not a URL", credFlags{passwordFile: pw}, nil, "embedded", "not a URL with a host", true},
		{"empty file", credFlags{passwordFile: empty}, nil, "cql://db:9042", "is empty", true},
		{"missing file", credFlags{passwordFile: filepath.Join(dir, "none")}, nil, "cql://db:9042", "cannot read", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envTargetUser, "")
			t.Setenv(envTargetPassword, "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			got, err := tc.f.apply(tc.target)
			switch {
			case tc.fails && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix:")):
				t.Errorf("apply(%q) = %q, %v; want an error with %q and a fix", tc.target, got, err, tc.want)
			case !tc.fails && (err != nil || got != tc.want):
				t.Errorf("apply(%q) = %q, %v; want %q", tc.target, got, err, tc.want)
			}
		})
	}
}

// Against the real Redis with a password: the URL without it and the
// password from a file run, and the result holds no password.
func TestRunPasswordFromFile(t *testing.T) {
	u, pass, pw := redisAuthPasswordFile(t)
	out := filepath.Join(filepath.Dir(pw), "r.json")
	code, stdout, stderr := run(t, "run", "--target", u.String(), "--target-password-file", pw, "--records", "100", "--ops", "500", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	b, _ := os.ReadFile(out)
	if strings.Contains(string(b), pass) {
		t.Errorf("the result holds the password")
	}
	if _, err := result.Read(out); err != nil {
		t.Fatal(err)
	}
	// Without it the server refuses, and says so.
	code, _, stderr = run(t, "run", "--target", u.String(), "--records", "100", "--ops", "500", "--quiet", "--out", filepath.Join(filepath.Dir(pw), "r2.json"))
	if code == 0 || !strings.Contains(stderr, "NOAUTH") && !strings.Contains(strings.ToLower(stderr), "auth") {
		t.Errorf("without the password: exit %d: %s", code, stderr)
	}
}

// redisAuthPasswordFile is the password-protected Redis of
// $PLATBENCH_REDIS_AUTH_URL (skipped without it): its URL without the
// password, the password, and a file holding it, in a test directory.
func redisAuthPasswordFile(t *testing.T) (u *url.URL, pass, file string) {
	t.Helper()
	u, err := url.Parse(testenv.URL(t, "PLATBENCH_REDIS_AUTH_URL"))
	if err != nil {
		t.Fatal(err)
	}
	pass, _ = u.User.Password()
	u.User = nil
	file = filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte(pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return u, pass, file
}
