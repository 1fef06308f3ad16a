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

// A secret given as --target-opt still works, with one warning line each
// naming the safer ways; the secret itself is in no line platbench writes.
func TestTargetOptSecretWarns(t *testing.T) {
	for _, cmd := range [][]string{
		{"run", "--records", "10", "--ops", "10", "--quiet", "--out", filepath.Join(t.TempDir(), "r.json")},
		{"clean"},
	} {
		args := append(cmd, "--target", "cql://127.0.0.1:1", "--target-opt", "password=s3cr3t-pw", "--target-opt", "token=s3cr3t-tk", "--target-opt", "keyspace=ks")
		code, stdout, stderr := run(t, args...)
		if code == 0 {
			t.Errorf("%s against no server: exit 0", cmd[0])
		}
		if strings.Contains(stdout+stderr, "s3cr3t") {
			t.Errorf("%s: a secret in the output:\n%s\n%s", cmd[0], stdout, stderr)
		}
		var warns []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, "platbench: warning: --target-opt") {
				warns = append(warns, l)
			}
		}
		if len(warns) != 2 || !strings.Contains(warns[0], "password=...") || !strings.Contains(warns[0], "--target-password-file FILE, or $"+envTargetPassword) ||
			!strings.Contains(warns[1], "token=...") || !strings.Contains(warns[1], "$"+envTargetSecretOpts+"='token=VALUE'") {
			t.Errorf("%s: warnings %q, want one for password (naming the file and $%s) and one for token (naming $%s)", cmd[0], warns, envTargetPassword, envTargetSecretOpts)
		}
		t.Logf("%s: %q", cmd[0], warns)
	}
}

// clean takes the target's password from a file too (--target-password-file),
// against the real password-protected Redis (database 3): a run's kept
// dataset is removed.
func TestCleanPasswordFromFile(t *testing.T) {
	u, _, pw := redisAuthPasswordFile(t)
	u.Path = "/3"
	spec := []string{"--workload", "ycsb-c", "--records", "50"}
	out := filepath.Join(filepath.Dir(pw), "r.json")
	code, stdout, stderr := run(t, append([]string{"run", "--target", u.String(), "--target-password-file", pw, "--ops", "100", "--quiet", "--keep-dataset", "--out", out}, spec...)...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = run(t, "clean", "--target", u.String(), "--target-password-file", pw, "--workload", "ycsb-c")
	if code != 0 || !strings.Contains(stdout, "removed") {
		t.Fatalf("clean with --target-password-file: exit %d: %s\n%s", code, stdout, stderr)
	}
	t.Logf("%s", stdout)
}
