package cli

import (
	"bytes"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/platbench/platbench/internal/redact"
)

// The manifest is a headless Service and an Indexed Job with one completion
// per loader; each pod runs its own shard, meets loader 0 at NAME-0.NAME
// (the pods' subdomain is the Service), and prints its result on stdout.
func TestK8sIndexedJob(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := run(t, "k8s", "--loaders", "4", "--name", "bench", "--secret-out", filepath.Join(dir, "s.yaml"), "--", "--target", "cql://db:9042", "--workload", "write", "--rate", "40k", "--event", "$(not expanded)")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type doc struct {
		Kind string
		Spec struct {
			ClusterIP      string `yaml:"clusterIP"`
			Selector       map[string]string
			CompletionMode string `yaml:"completionMode"`
			Completions    int
			Parallelism    int
			Template       struct {
				Metadata struct{ Labels map[string]string }
				Spec     struct {
					Subdomain  string
					Containers []struct {
						Command []string
						Ports   []struct {
							ContainerPort int `yaml:"containerPort"`
						}
					}
					Volumes []any
				}
			}
		}
	}
	var docs []doc
	dec := yaml.NewDecoder(strings.NewReader(out))
	for {
		var d doc
		if err := dec.Decode(&d); err != nil {
			break
		}
		docs = append(docs, d)
	}
	if len(docs) != 3 || docs[0].Kind != "Service" || docs[1].Kind != "NetworkPolicy" || docs[2].Kind != "Job" {
		t.Fatalf("want a Service, a NetworkPolicy and a Job, got %d documents:\n%s", len(docs), out)
	}
	svc, job := docs[0], docs[2]
	if svc.Spec.ClusterIP != "None" || svc.Spec.Selector["job"] != "bench" || job.Spec.Template.Metadata.Labels["job"] != "bench" {
		t.Errorf("the headless Service does not select the job's pods: %+v / %+v", svc.Spec, job.Spec.Template.Metadata)
	}
	if job.Spec.CompletionMode != "Indexed" || job.Spec.Completions != 4 || job.Spec.Parallelism != 4 || job.Spec.Template.Spec.Subdomain != "bench" {
		t.Fatalf("job spec = %+v", job.Spec)
	}
	c := job.Spec.Template.Spec.Containers[0]
	cmd := strings.Join(c.Command, " ")
	for _, want := range []string{"/platbench run", "--shard $(JOB_COMPLETION_INDEX)/4", "--rendezvous bench-0.bench:7070", "--out -",
		"--target cql://db:9042", "--rate 40k", "--event $$(not expanded)"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("loader command lacks %q: %s", want, cmd)
		}
	}
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 7070 || len(job.Spec.Template.Spec.Volumes) != 0 {
		t.Errorf("ports %+v volumes %v: want the rendezvous port and no shared volume", c.Ports, job.Spec.Template.Spec.Volumes)
	}
	// With --pvc, every loader also writes its result to the claim (loader
	// 0's is the merged one).
	code, out, stderr = run(t, "k8s", "--loaders", "2", "--pvc", "results", "--secret-out", filepath.Join(dir, "s2.yaml"), "--", "--target", "null")
	if code != 0 || !strings.Contains(out, "claimName: results") || !strings.Contains(out, "mountPath: /results") ||
		!strings.Contains(out, "/results/platbench-shard-$(JOB_COMPLETION_INDEX).json") {
		t.Errorf("--pvc: exit %d %s\n%s", code, stderr, out)
	}
	for _, bad := range [][]string{
		{"k8s", "--", "--shard", "0/2"},
		{"k8s", "--", "--rendezvous=x:1"},
		{"k8s", "--loaders", "1"},
		{"k8s", "--name", "Not_A_Label"},
		{"k8s", "--", "--rendezvous-secret-file", "x"},
		{"k8s", "--", "--target-opt", "password=s3cret"},
	} {
		if code, _, _ := run(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// Credentials given to platbench k8s (in --target's URL or a password file)
// go into the Secret file, mode 0600, never into the Job's YAML; the pods
// read them, and the run's rendezvous secret, through secretKeyRef; the
// NetworkPolicy admits only the job's own pods to the rendezvous port.
func TestK8sCredentialsInSecret(t *testing.T) {
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "pw")
	os.WriteFile(pwFile, []byte("filepass-42\n"), 0o600)
	secretOut := filepath.Join(dir, "secret.yaml")
	for _, args := range [][]string{
		{"--target", "cql://admin:s3cret@db:9042", "--workload", "write"},
		{"--target=cql://db:9042", "--target-user", "admin", "--target-password-file", pwFile, "--metrics-addr", ":9464"},
	} {
		os.Remove(secretOut) // the Secret's file is never replaced
		code, out, stderr := run(t, append([]string{"k8s", "--loaders", "3", "--name", "bench", "--secret-out", secretOut, "--"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		secret, err := os.ReadFile(secretOut)
		if err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(secretOut); fi.Mode().Perm() != 0o600 {
			t.Errorf("the Secret file has mode %v, want 0600", fi.Mode().Perm())
		}
		var sec struct {
			Kind       string
			StringData map[string]string `yaml:"stringData"`
		}
		if err := yaml.Unmarshal([]byte(strings.SplitN(string(secret), "---\n", 2)[1]), &sec); err != nil || sec.Kind != "Secret" {
			t.Fatalf("secret file: %v\n%s", err, secret)
		}
		pass := sec.StringData[secretPassword]
		if (pass != "s3cret" && pass != "filepass-42") || sec.StringData[secretUser] != "admin" || len(sec.StringData[secretRendezvous]) < 40 {
			t.Errorf("Secret holds %v", sec.StringData)
		}
		for _, leak := range []string{pass, sec.StringData[secretRendezvous], "admin", pwFile} {
			if strings.Contains(out, leak) {
				t.Errorf("the Job's YAML holds %q:\n%s", leak, out)
			}
		}
		for _, want := range []string{"--target\n", "cql://db:9042", "name: PLATBENCH_TARGET_PASSWORD", "name: PLATBENCH_RENDEZVOUS_SECRET",
			"name: bench-secrets", "key: target-password", "kind: NetworkPolicy", "port: 7070"} {
			if !strings.Contains(out, want) {
				t.Errorf("the Job's YAML lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(strings.Join(args, " "), "metrics-addr") && !strings.Contains(out, "port: 9464") {
			t.Errorf("the NetworkPolicy does not open the metrics port:\n%s", out)
		}
	}
}

// The TLS files a target option or the URL's query names (a client key
// above all) go into the Secret, not the Job: the pods read them from the
// Secret mounted read-only at /etc/platbench/tls, and the run flags name
// that path. A file that cannot be read is refused with the option named.
func TestK8sTLSFilesInSecret(t *testing.T) {
	dir := t.TempDir()
	key := "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIKEYMATERIAL\n-----END PRIVATE KEY-----\n"
	files := map[string]string{"key.pem": key, "cert.pem": "-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n", "ca.pem": "CA-PEM\n"}
	for n, body := range files {
		os.WriteFile(filepath.Join(dir, n), []byte(body), 0o600)
	}
	secretOut := filepath.Join(dir, "secret.yaml")
	code, out, stderr := run(t, "k8s", "--loaders", "2", "--name", "tls", "--secret-out", secretOut, "--",
		"--target", "cql://db:9042?tls_ca="+filepath.Join(dir, "ca.pem"),
		"--target-opt", "tls_cert="+filepath.Join(dir, "cert.pem"), "--target-opt", "tls_key="+filepath.Join(dir, "key.pem"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	secret, _ := os.ReadFile(secretOut)
	var sec struct {
		StringData map[string]string `yaml:"stringData"`
	}
	if err := yaml.Unmarshal([]byte(strings.SplitN(string(secret), "---\n", 2)[1]), &sec); err != nil {
		t.Fatal(err)
	}
	if sec.StringData["tls-key"] != key || sec.StringData["tls-cert"] != files["cert.pem"] || sec.StringData["tls-ca"] != files["ca.pem"] {
		t.Errorf("the Secret holds %v", sec.StringData)
	}
	for _, leak := range []string{"KEYMATERIAL", "CERT\n", "key.pem", "cert.pem", "ca.pem"} {
		if strings.Contains(out, leak) {
			t.Errorf("the Job's YAML holds %q:\n%s", leak, out)
		}
	}
	for _, want := range []string{"tls_key=/etc/platbench/tls/tls-key", "tls_cert=/etc/platbench/tls/tls-cert",
		"tls_ca=%2Fetc%2Fplatbench%2Ftls%2Ftls-ca", "mountPath: /etc/platbench/tls", "secretName: tls-secrets", "defaultMode: 256", "readOnly: true"} {
		if !strings.Contains(out, want) {
			t.Errorf("the Job's YAML lacks %q:\n%s", want, out)
		}
	}
	code, _, stderr = run(t, "k8s", "--loaders", "2", "--secret-out", secretOut, "--", "--target", "cql://db", "--target-opt", "tls_key="+filepath.Join(dir, "missing.pem"))
	if code != 2 || !strings.Contains(stderr, "tls_key=") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || strings.Count(stderr, "(fix:") != 1 {
		t.Errorf("a missing key file: exit %d, %q; want 2 and one line naming tls_key and one fix", code, stderr)
	}
}

// FuzzTakeCredentials: any run flags given to platbench k8s either are
// refused or come back with no URL that holds a secret (user-info password,
// secret query parameter) or the password they held, and with no URL that
// does not parse.
func FuzzTakeCredentials(f *testing.F) {
	f.Add("--target", "cql://admin:s3cret@db:9042", "--workload")
	f.Add("--target=redis://:pw@h:6379", "--target-opt", "password=x")
	f.Add("--target-user", "u", "-target=kafka://a:b@c")
	f.Add("--target", "cql://db:9042?password=s3cret&dc=x", "--store=postgres://u:hunter2@pg/db")
	f.Add("--db-metrics-url", "http://h:1/m?token=abc", "--target=redis://s3cret@h")
	f.Add("--store", "postgres://u@pg/db?password=p&sslpassword=q", "x")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		args := []string{a, b, c}
		out, secrets, err := takeCredentials(args)
		if err != nil {
			return
		}
		for _, o := range out {
			if name, val, ok := strings.Cut(o, "="); ok && strings.HasPrefix(name, "-") {
				o = val // --flag=URL
			}
			if !strings.Contains(o, "://") {
				continue
			}
			if found, ok := redact.Secrets(o); !ok || len(found) > 0 {
				t.Fatalf("the run flags %q keep %q, which holds a secret or does not parse (from %q)", out, o, args)
			}
			for _, k := range []string{secretPassword, secretStore} {
				if p := secrets[k]; len(p) > 3 && strings.Contains(o, ":"+p+"@") {
					t.Fatalf("the password %q stayed in the run flags %q", p, out)
				}
			}
		}
	})
}

// FuzzSecretOpts: the secret options a pod reads from its environment are
// added to the URL's query or refused; never a URL that does not parse.
func FuzzSecretOpts(f *testing.F) {
	f.Add("cql://db:9042?dc=x", "password=s3cret")
	f.Add("kafka://b:9092", "sasl_password=a%26b&token=t")
	f.Add("cql://db?password=1", "password=2")
	f.Fuzz(func(t *testing.T, target, opts string) {
		u, err := url.Parse(target)
		if err != nil {
			return
		}
		if err := addSecretOpts(u, opts); err != nil {
			return
		}
		if _, err := url.Parse(u.String()); err != nil {
			t.Fatalf("addSecretOpts(%q, %q) made %q, which does not parse: %v", target, opts, u, err)
		}
		want, _ := url.ParseQuery(opts)
		got := u.Query()
		for k, vs := range want {
			if got.Get(k) != vs[0] {
				t.Fatalf("addSecretOpts(%q, %q): %s=%q, want %q", target, opts, k, got.Get(k), vs[0])
			}
		}
	})
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// A manifest that cannot be written takes the Secret's file written for it
// along (it would refuse the next try), and says so.
func TestK8sSecretFileRemovedWhenManifestFails(t *testing.T) {
	secretFile := filepath.Join(t.TempDir(), "s.yaml")
	var stderr bytes.Buffer
	env := &Env{Stdout: failingWriter{}, Stderr: &stderr}
	err := writeK8s(env, k8sJob{name: "bench", secretFile: secretFile}, "", []byte("job\n"), []byte("secret\n"))
	if err == nil || !strings.Contains(err.Error(), "broken pipe") || !strings.Contains(err.Error(), "is removed") {
		t.Fatalf("err = %v, want the write's error and that the Secret's file is removed", err)
	}
	if _, serr := os.Stat(secretFile); !errors.Is(serr, fs.ErrNotExist) {
		t.Errorf("the Secret's file is left after the manifest failed: %v", serr)
	}
}
