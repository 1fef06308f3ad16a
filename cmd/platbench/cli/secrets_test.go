package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gopkg.in/yaml.v3"
)

// singleLine reports whether stderr is one line.
func singleLine(s string) bool { return strings.Count(strings.TrimSpace(s), "\n") == 0 }

// A secret or password file is read only when it is a regular file of a few
// KiB: /dev/zero, a FIFO, a directory or a large file are refused with one
// line, before anything is read (a FIFO would block, /dev/zero never end).
func TestSecretFilesBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, []byte(strings.Repeat("x", maxSecretFile+1)), 0o600)
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("0123456789abcdef0123\n"), 0o600)
	for path, want := range map[string]string{"/dev/zero": "a character device", fifo: "a FIFO", dir: "a directory", big: "over the 4096"} {
		if _, err := readSecretFile(path); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("readSecretFile(%s) = %v, want %q and the fix", path, err, want)
		}
		for _, args := range [][]string{
			{"run", "--target", "redis://127.0.0.1:6379", "--target-password-file", path, "--duration", "1s"},
			{"run", "--target", "null", "--shard", "0/2", "--rendezvous", "127.0.0.1:0", "--rendezvous-secret-file", path, "--duration", "1s"},
			{"k8s", "--loaders", "2", "--secret-out", filepath.Join(dir, "s.yaml"), "--", "--target", "cql://db:9042", "--target-password-file", path},
		} {
			code, _, stderr := run(t, args...)
			if code != 2 || !strings.Contains(stderr, want) || !singleLine(stderr) {
				t.Errorf("%s %v: exit %d, %q; want 2 and one line", args[0], args[len(args)-3:], code, stderr)
			}
		}
	}
	if s, err := readSecretFile(ok); err != nil || s != "0123456789abcdef0123" {
		t.Errorf("a plain secret file: %q %v", s, err)
	}
}

// A target URL that does not parse, or whose port is out of range, is bad
// input for every scheme (exit 2), in one line with the fix that does not
// repeat the password.
func TestMalformedTargetURLs(t *testing.T) {
	for _, target := range []string{"redis://127.0.0.1:99999", "redis://:s3cret@127.0.0.1:0", "kafka://u:s3cret@h:65536", "hazelcast://h:70000",
		"cql://admin:s3cret@db:9042/%zz", "cql://admin:s3cret@[db:9042", "redis://admin:s3cret", "cql://admin:12/s3cret@db"} {
		code, _, stderr := run(t, "run", "--target", target, "--duration", "1s", "--quiet", "--out", filepath.Join(t.TempDir(), "r.json"))
		if code != 2 || strings.Contains(stderr, "s3cret") || !strings.Contains(stderr, "fix:") || !singleLine(stderr) {
			t.Errorf("run --target %s: exit %d, %q; want 2, one line with the fix, no password", target, code, stderr)
		}
	}
}

// More workers than one loader runs are refused with the fix.
func TestConcurrencyRefused(t *testing.T) {
	code, _, stderr := run(t, "run", "--target", "null", "--concurrency", "1000000", "--duration", "2s", "--quiet", "--out", filepath.Join(t.TempDir(), "r.json"))
	if code != 2 || !strings.Contains(stderr, "--concurrency") || !strings.Contains(stderr, "fix:") {
		t.Errorf("--concurrency 1000000: exit %d, %q", code, stderr)
	}
}

// k8sFiles runs platbench k8s with the Job's manifest in dir and returns
// the exit code, stderr, and every file written in dir but the Secret's,
// by name, and the Secret's stringData.
func k8sFiles(t *testing.T, dir string, runFlags ...string) (int, string, map[string]string, map[string]string) {
	t.Helper()
	out := filepath.Join(dir, "job.yaml")
	code, stdout, stderr := run(t, append([]string{"k8s", "--loaders", "3", "--name", "bench", "--out", out, "--"}, runFlags...)...)
	files := map[string]string{"stdout": stdout, "stderr": stderr}
	var secret map[string]string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if e.Name() == "bench-secret.yaml" {
			var sec struct {
				StringData map[string]string `yaml:"stringData"`
			}
			parts := strings.SplitN(string(b), "---\n", 2)
			if len(parts) == 2 {
				yaml.Unmarshal([]byte(parts[1]), &sec)
			}
			secret = sec.StringData
			if fi, _ := os.Stat(filepath.Join(dir, e.Name())); fi.Mode().Perm() != 0o600 {
				t.Errorf("the Secret's file has mode %v", fi.Mode().Perm())
			}
			continue
		}
		files[e.Name()] = string(b)
	}
	return code, stderr, files, secret
}

// Every way a secret can reach a URL given to platbench k8s: it is in the
// Secret and in no other file, not in the Job's command, not on stderr; the
// pods get it back through their environment. What cannot be moved (a
// secret in another flag's URL, a URL that does not parse) is refused.
func TestK8sNoSecretOutsideTheSecret(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flags   []string
		secrets []string          // what must be in the Secret alone
		env     map[string]string // what the pods' environment must give back
		target  string            // the URL the pod's run then reads
	}{
		{"user-info", []string{"--target", "cql://admin:s3cret@db:9042"}, []string{"s3cret"}, nil, "cql://admin:s3cret@db:9042"},
		{"cql query", []string{"--target", "cql://db:9042?password=s3cret&dc=dc1"}, []string{"s3cret"}, nil, "cql://db:9042?dc=dc1&password=s3cret"},
		{"kafka query", []string{"--target=kafka://b:9092?sasl=plain&user=u&password=s3cret"}, []string{"s3cret"}, nil, "kafka://b:9092?sasl=plain&user=u&password=s3cret"},
		{"redis lone name", []string{"--target", "redis://s3cret@h:6379"}, []string{"s3cret"}, nil, "redis://:s3cret@h:6379"},
		{"redis user and password alike", []string{"--target", "redis://s3cret:s3cret@h:6379"}, []string{"s3cret"}, nil, "redis://s3cret:s3cret@h:6379"},
		{"store", []string{"--target", "null", "--store", "postgres://perf:hunter2@pg/perf"}, []string{"hunter2"}, map[string]string{"PGPASSWORD": "hunter2"}, "null"},
		{"store query", []string{"--target", "null", "--store=postgres://perf@pg/perf?password=hunter2&sslmode=disable"}, []string{"hunter2"}, map[string]string{"PGPASSWORD": "hunter2"}, "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, stderr, files, secret := k8sFiles(t, dir, tc.flags...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for name, body := range files {
				for _, s := range append(tc.secrets, secret[secretRendezvous]) {
					if strings.Contains(body, s) {
						t.Errorf("%s holds %q:\n%s", name, s, body)
					}
				}
			}
			joined := strings.Join(mapValues(secret), "\n")
			for _, s := range tc.secrets {
				if !strings.Contains(joined, s) {
					t.Errorf("the Secret lacks %q: %v", s, secret)
				}
			}
			secretFile, job := filepath.Join(dir, "bench-secret.yaml"), filepath.Join(dir, "job.yaml")
			first, second := strings.Index(stderr, "kubectl apply -f "+secretFile+"\n"), strings.Index(stderr, "kubectl apply -f "+job+"\n")
			if first < 0 || second < first || !strings.Contains(stderr, "wrote the Secret bench-secrets") {
				t.Errorf("stderr does not name the Secret's file and the kubectl commands in order:\n%s", stderr)
			}
			if !strings.Contains(files["job.yaml"], "#   kubectl apply -f "+secretFile) {
				t.Errorf("the manifest's comment does not say to apply the Secret first:\n%.600s", files["job.yaml"])
			}
			// The pod: its command's --target, its environment from the Secret.
			cmdTarget := podTarget(t, files["job.yaml"])
			env := map[string]string{}
			for _, e := range secretEnv {
				if v, ok := secret[e.key]; ok {
					env[e.env] = v
				}
			}
			for k, v := range tc.env {
				if env[k] != v {
					t.Errorf("the pod's $%s is %q, want %q", k, env[k], v)
				}
			}
			for _, e := range []string{envTargetUser, envTargetPassword, envTargetSecretOpts, envRendezvous, envStorePassword} {
				t.Setenv(e, env[e])
			}
			got, err := (&credFlags{}).apply(cmdTarget)
			if err != nil || got != tc.target {
				t.Errorf("the pod reads --target %s as %q (%v), want %q", cmdTarget, got, err, tc.target)
			}
		})
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// podTarget is the value of --target in the Job's container command.
func podTarget(t *testing.T, manifest string) string {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(manifest))
	for {
		var doc struct {
			Kind string
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct{ Command []string }
					}
				}
			}
		}
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("no Job in the manifest: %v", err)
		}
		if doc.Kind != "Job" {
			continue
		}
		cmd := doc.Spec.Template.Spec.Containers[0].Command
		for i, a := range cmd {
			if a == "--target" && i+1 < len(cmd) {
				return cmd[i+1]
			}
		}
		t.Fatalf("no --target in %v", cmd)
	}
}

// What platbench k8s cannot move into the Secret is refused, in one line
// that does not repeat it: a URL that does not parse, a secret in the URL
// of a flag other than --target and --store, a secret target option.
func TestK8sRefusesWhatWouldLeak(t *testing.T) {
	for _, flags := range [][]string{
		{"--target", "cql://admin:s3cret@db:9042/%zz"},
		{"--target", "cql://admin:s3cret@[db:9042"},
		{"--target", "cql://admin:12/s3cret@db"},
		{"--target", "null", "--store", "postgres://perf:s3cret@[pg/perf"},
		{"--target", "null", "--db-metrics-url", "http://h:7070/metrics?token=s3cret"},
		{"--target", "null", "--server-metrics=http://u:s3cret@h:9100/metrics"},
		{"--target", "null", "--server-metrics", "u:s3cret@h:9100"},
		{"--target", "cql://db", "--target-opt", "sasl_password=s3cret"},
		{"--target", "fake?token=s3cret"},
		{"--target", "cql://db", "--target-opt", "tls_key=/dev/zero"},
		{"--target", "cql://db?tls_ca=/dev/zero"},
	} {
		dir := t.TempDir()
		code, stderr, files, _ := k8sFiles(t, dir, flags...)
		if code != 2 || strings.Contains(stderr, "s3cret") || !singleLine(stderr) || !strings.Contains(stderr, "fix:") {
			t.Errorf("%v: exit %d, %q; want 2, one line with the fix, no secret", flags, code, stderr)
		}
		if len(files) > 2 {
			t.Errorf("%v: files written: %v", flags, files)
		}
	}
}

// A password given twice, in the URL and in a file, is refused in either
// order: which one was meant cannot be guessed.
func TestK8sPasswordTwice(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("filepass\n"), 0o600)
	for _, flags := range [][]string{
		{"--target-password-file", pw, "--target", "cql://a:s3cret@db:9042"},
		{"--target", "cql://a:s3cret@db:9042", "--target-password-file", pw},
	} {
		code, stderr, _, _ := k8sFiles(t, t.TempDir(), flags...)
		if code != 2 || !strings.Contains(stderr, "given twice") || strings.Contains(stderr, "s3cret") {
			t.Errorf("%v: exit %d, %q", flags, code, stderr)
		}
	}
}

// The Secret's file is never replaced: a second k8s run refuses, with the
// fix, and the first file is intact. --secret-in-manifest puts the Secret
// into the manifest instead, first, and the file is private.
func TestK8sSecretFile(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, "k8s", "--loaders", "2", "--out", filepath.Join(dir, "job.yaml"), "--", "--target", "null"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	secretFile := filepath.Join(dir, "platbench-secret.yaml")
	before, err := os.ReadFile(secretFile)
	if err != nil {
		t.Fatalf("the Secret is not beside the manifest: %v", err)
	}
	code, _, stderr := run(t, "k8s", "--loaders", "2", "--out", filepath.Join(dir, "job2.yaml"), "--", "--target", "null")
	if after, _ := os.ReadFile(secretFile); code != 2 || !strings.Contains(stderr, "exists") || !strings.Contains(stderr, "--secret-out") || string(after) != string(before) {
		t.Errorf("over an existing Secret file: exit %d, %q; the file changed: %v", code, stderr, string(after) != string(before))
	}
	if _, err := os.Stat(filepath.Join(dir, "job2.yaml")); err == nil {
		t.Error("the manifest was written although its Secret was not")
	}
	os.Remove(secretFile)
	if code, _, stderr := run(t, "k8s", "--loaders", "2", "--out", filepath.Join(dir, "job.yaml"), "--", "--target", "null"); code != 2 || !strings.Contains(stderr, "--force") {
		t.Errorf("over an existing manifest: exit %d, %q; want 2 naming --force", code, stderr)
	}
	if code, _, stderr := run(t, "k8s", "--loaders", "2", "--force", "--out", filepath.Join(dir, "job.yaml"), "--", "--target", "null"); code != 0 {
		t.Errorf("--force over an existing manifest: exit %d, %q", code, stderr)
	}
	in := filepath.Join(dir, "all.yaml")
	code, _, stderr = run(t, "k8s", "--loaders", "2", "--name", "inside", "--secret-in-manifest", "--out", in, "--", "--target", "cql://u:s3cret@db:9042")
	body, _ := os.ReadFile(in)
	fi, _ := os.Stat(in)
	if code != 0 || fi == nil || fi.Mode().Perm() != 0o600 || !strings.Contains(stderr, "kubectl apply -f "+in) || strings.Contains(stderr, "s3cret") {
		t.Fatalf("--secret-in-manifest: exit %d, %q, %v", code, stderr, fi)
	}
	var kinds []string
	dec := yaml.NewDecoder(strings.NewReader(string(body)))
	for {
		var doc struct{ Kind string }
		if dec.Decode(&doc) != nil {
			break
		}
		kinds = append(kinds, doc.Kind)
	}
	if strings.Join(kinds, " ") != "Secret Service NetworkPolicy Job" || strings.Count(string(body), "s3cret") != 1 {
		t.Errorf("--secret-in-manifest wrote %v:\n%s", kinds, body)
	}
	if code, _, _ := run(t, "k8s", "--secret-in-manifest", "--secret-out", filepath.Join(dir, "x.yaml")); code != 2 {
		t.Errorf("--secret-in-manifest with --secret-out: exit %d", code)
	}
}

// Loader 0 listens on the address it is given, not on every address.
func TestListenAddr(t *testing.T) {
	for _, tc := range []struct{ host, want string }{{"127.0.0.1", "127.0.0.1:7070"}, {"", ":7070"}, {"::1", "[::1]:7070"}} {
		if got, _ := listenAddr(tc.host, "7070"); got != tc.want {
			t.Errorf("listenAddr(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
	if got, _ := listenAddr("localhost", "7070"); got == ":7070" {
		t.Errorf("localhost listens on every address")
	}
	if got, note := listenAddr("platbench-0.platbench.invalid", "7070"); got != ":7070" || !strings.Contains(note, "does not resolve yet") {
		t.Errorf("a name that does not resolve: %q %q", got, note)
	}
}

// Against the real Redis with a password: a verified run whose result keeps
// no password is verified again with the password from a file, as the
// refusal without it says; the result holds no password either time.
func TestVerifyPasswordFromFile(t *testing.T) {
	u, pass, pw := redisAuthPasswordFile(t)
	out := filepath.Join(filepath.Dir(pw), "r.json")
	t.Setenv(envTargetPassword, "")
	code, stdout, stderr := run(t, "run", "--target", u.String(), "--target-password-file", pw, "--verify", "--records", "200", "--ops", "500", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("verified run: exit %d: %s\n%s", code, stderr, stdout)
	}
	code, _, stderr = run(t, "verify", out)
	if code != 2 || !strings.Contains(stderr, "$PLATBENCH_TARGET_PASSWORD") || strings.Contains(stderr, pass) {
		t.Errorf("verify without the password: exit %d, %q; want 2 naming $PLATBENCH_TARGET_PASSWORD", code, stderr)
	}
	code, stdout, stderr = run(t, "verify", out, "--target-password-file", pw)
	if code != 0 || !strings.Contains(stdout, "none lost") {
		t.Errorf("verify with the password file: exit %d: %s\n%s", code, stderr, stdout)
	}
	if b, _ := os.ReadFile(out); strings.Contains(string(b), pass) {
		t.Error("the result holds the password")
	}
}
