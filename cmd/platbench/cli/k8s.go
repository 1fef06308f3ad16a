package cli

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/platbench/platbench/internal/bounded"
	"github.com/platbench/platbench/internal/redact"
	"github.com/platbench/platbench/result"
)

// runK8s writes a Kubernetes Indexed Job that runs N loaders, one pod per
// shard, and the headless Service through which they find loader 0:
// Kubernetes gives each pod its index in JOB_COMPLETION_INDEX; the loaders
// meet at loader 0 (--rendezvous) once each has loaded, start their run phase
// together, and send their results to loader 0, which prints the merged
// result to its log (no shared volume, no start time fixed in advance).
func runK8s(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "k8s", "--loaders N [flags] -- RUN-FLAGS...", "Write a Kubernetes Indexed Job and its headless Service (YAML, to stdout or --out) running N platbench loaders, one pod per shard: they start the run phase together once all have loaded, and loader 0 prints the merged result to its log. Flags after -- are passed to 'platbench run'.")
	loaders := fs.Int("loaders", 3, "number of loader pods (shards)")
	name := fs.String("name", "platbench", "job and service name (a DNS label)")
	image := fs.String("image", "platbench:"+ToolVersion(), "container image with the platbench binary at /platbench, as 'make image' builds it (its tag is this version)")
	port := fs.Int("port", 7070, "port loader 0 listens on for the others")
	pvc := fs.String("pvc", "", "also write each loader's result to this PersistentVolumeClaim at /results (loader 0's is the merged one); every pod mounts it, so it must be ReadWriteMany when pods land on different nodes (default: none; the merged result is loader 0's log)")
	cpu := fs.String("cpu", "2", "CPU request and limit per loader")
	mem := fs.String("memory", "2Gi", "memory request and limit per loader")
	out := fs.String("out", "", "write the YAML here (default stdout)")
	secretOut := fs.String("secret-out", "", "write the Secret (the run's rendezvous secret and the credentials) here, mode 0600, apart from the Job's YAML; an existing file is not replaced (default NAME-secret.yaml beside --out, else in the current directory)")
	force := fs.Bool("force", false, "replace the --out manifest when it exists (never the Secret's file)")
	secretIn := fs.Bool("secret-in-manifest", false, "put the Secret into the manifest itself, as its first document (the manifest then holds the credentials: keep it private), instead of a file of its own")
	var rest []string
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i+1:]
			break
		}
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q: put the run flags after --", fs.Arg(0))
	}
	if *loaders < 2 {
		return usagef("--loaders must be at least 2 (fix: one loader needs no Job: platbench run)")
	}
	if !dnsLabel.MatchString(*name) {
		return usagef("--name %q is not a DNS label (fix: lower-case letters, digits and '-', e.g. platbench)", *name)
	}
	if *port < 1 || *port > 65535 {
		return usagef("--port %d is not a port", *port)
	}
	for _, a := range rest {
		for _, f := range []string{"--shard", "--out", "--start-at", "--rendezvous", "--rendezvous-secret-file", "--quiet"} {
			if a == f || strings.HasPrefix(a, f+"=") {
				return usagef("%s is set by the job itself; leave it out of the run flags", f)
			}
		}
	}
	if *secretIn && *secretOut != "" {
		return usagef("--secret-in-manifest and --secret-out both say where the Secret goes (fix: keep one)")
	}
	if !*secretIn { // a manifest holding the Secret is never replaced (writeNew)
		if err := checkOut(*out, "manifest", *force); err != nil {
			return err
		}
	}
	rest, secrets, err := takeCredentials(rest)
	if err != nil {
		return err
	}
	secrets[secretRendezvous] = newSecret()
	j := k8sJob{name: *name, image: *image, cpu: *cpu, mem: *mem, n: *loaders, port: *port, pvc: *pvc, secrets: secrets,
		metricsPort: metricsPort(rest)}
	if !*secretIn && *secretOut == "" {
		*secretOut = *name + "-secret.yaml"
		if *out != "" {
			*secretOut = filepath.Join(filepath.Dir(*out), *secretOut)
		}
	}
	j.secretFile = *secretOut
	data, err := indexedJob(j, rest)
	if err != nil {
		return err
	}
	sdata, err := secretManifest(j)
	if err != nil {
		return err
	}
	return writeK8s(env, j, *out, data, sdata)
}

// writeK8s writes the Secret (to its own file, which must not exist yet,
// or into the manifest) and the manifest, then says on stderr what it
// wrote and the kubectl commands that apply them, in order.
func writeK8s(env *Env, j k8sJob, out string, data, sdata []byte) error {
	manifest := out
	if out == "" || out == "-" {
		manifest = "JOB.yaml"
	}
	if j.secretFile == "" {
		data = append(sdata, data...)
		if err := writeManifest(env, out, data, true); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "platbench k8s: the manifest holds the Secret %s-secrets (the credentials): keep it private.\n", j.name)
		fmt.Fprintf(env.Stderr, "  apply it: kubectl apply -f %s\n", manifest)
		return nil
	}
	// The Secret first: a Job whose Secret is missing would not start.
	if err := writeNew(j.secretFile, sdata); err != nil {
		return err
	}
	if err := writeManifest(env, out, data, false); err != nil {
		// The Secret just written (O_EXCL: this run's) goes with the
		// manifest it was for; left, it would refuse the next try.
		if rerr := os.Remove(j.secretFile); rerr != nil {
			return fmt.Errorf("%w (the Secret's file %s stays: %v)", err, j.secretFile, rerr)
		}
		return fmt.Errorf("%w (the Secret's file %s, written first, is removed)", err, j.secretFile)
	}
	where := "to stdout (save it, e.g. as JOB.yaml)"
	if out != "" && out != "-" {
		where = "to " + out
	}
	fmt.Fprintf(env.Stderr, "platbench k8s: wrote the Secret %s-secrets (the credentials, mode 0600: keep it private) to %s, and the Job %s.\n", j.name, j.secretFile, where)
	fmt.Fprintf(env.Stderr, "  apply them in this order:\n    kubectl apply -f %s\n    kubectl apply -f %s\n", j.secretFile, manifest)
	return nil
}

// writeManifest writes the manifest to stdout or out (mode 0600 when it
// holds the Secret).
func writeManifest(env *Env, out string, data []byte, private bool) error {
	if out == "" || out == "-" {
		_, err := env.Stdout.Write(data)
		return err
	}
	if private {
		return writeNew(out, data)
	}
	return result.WriteFileAtomic(out, data)
}

// Keys of the Secret platbench k8s writes, and the environment variables
// the loaders read them from.
const (
	secretRendezvous = "rendezvous-secret"
	secretUser       = "target-user"
	secretPassword   = "target-password"

	secretOpts  = "target-secret-opts"
	secretStore = "store-password"
)

// envStorePassword is where the store's client (pgx, as libpq) reads the
// password of a --store URL that has none.
const envStorePassword = "PGPASSWORD"

var secretEnv = []struct{ key, env string }{
	{secretRendezvous, envRendezvous}, {secretUser, envTargetUser}, {secretPassword, envTargetPassword},
	{secretOpts, envTargetSecretOpts}, {secretStore, envStorePassword},
}

// takeCredentials moves every credential out of the run flags: the user,
// password and secret query parameters of --target's URL, --target-user and
// --target-password-file (read here, on the machine that writes the Job),
// the password of --store's URL, and the TLS files (tls_ca, tls_cert,
// tls_key) named by --target-opt or the URL's query, which the pods read
// from the Secret mounted at tlsMount. A secret target option, a URL that
// does not parse, or any other flag whose URL holds a secret is refused: it
// would stay in the pod spec.
func takeCredentials(args []string) ([]string, map[string]string, error) {
	secrets := map[string]string{}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		if !strings.HasPrefix(name, "-") {
			if err := noSecretIn("", a); err != nil {
				return nil, nil, err
			}
			out = append(out, a)
			continue
		}
		flagName := strings.TrimLeft(name, "-")
		switch flagName {
		case "target", "target-user", "target-password-file", "target-opt", "store":
		default:
			check := noSecretIn("", a) // its value, if apart, is checked as the next argument
			if hasVal {
				check = noSecretIn(name, val)
			}
			if check != nil {
				return nil, nil, check
			}
			out = append(out, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, nil, usagef("%s needs a value", name)
			}
			i++
			val = args[i]
		}
		v, keep, err := takeFlag(flagName, val, secrets)
		if err != nil {
			return nil, nil, err
		}
		if keep {
			out = append(out, "--"+flagName, v)
		}
	}
	if secrets[secretUser] == "" {
		delete(secrets, secretUser)
	}
	return out, secrets, nil
}

// takeFlag moves the credentials of one run flag into secrets and returns
// the value left, and whether the flag stays in the command.
func takeFlag(flagName, val string, secrets map[string]string) (string, bool, error) {
	switch flagName {
	case "target":
		v, err := targetCredentials(val, secrets)
		return v, true, err
	case "store":
		v, err := storeCredentials(val, secrets)
		return v, true, err
	case "target-user":
		secrets[secretUser] = val
		return "", false, nil
	case "target-password-file":
		p, err := readSecretFile(val)
		if err != nil {
			return "", false, usagef("--target-password-file: %v", err)
		}
		if _, twice := secrets[secretPassword]; twice {
			return "", false, usagef("the target's password is given twice, in --target's URL and in --target-password-file (fix: keep one, the file)")
		}
		secrets[secretPassword] = p
		return "", false, nil
	case "target-opt":
		k, v, _ := strings.Cut(val, "=")
		if redact.SecretKey(k) {
			return "", false, usagef("--target-opt %s=... would put a secret in the pod spec (fix: the password in --target-password-file FILE or $%s, or the option in --target's URL: platbench k8s moves both into a Secret)", strings.TrimSpace(k), envTargetPassword)
		}
		p, err := tlsFileToSecret(strings.TrimSpace(k), v, secrets)
		if err != nil {
			return "", false, err
		}
		if p != v {
			val = k + "=" + p
		}
		return val, true, nil
	}
	return val, true, nil
}

// noSecretIn refuses a run flag's value that is a URL holding a secret (or
// a URL that does not parse, which could): it would be in the pod spec.
func noSecretIn(flagName, val string) error {
	if !strings.Contains(val, "://") {
		// host:port with a user-info, as --server-metrics takes an
		// exporter (u:pass@h:9100), is a URL's rest; user@host and e-mail
		// addresses hold no password, and what does not parse so is no URL.
		if strings.Contains(val, "@") {
			if found, ok := redact.Secrets("x://" + val); ok && len(found) > 0 {
				return usagef("%s holds a secret that would be in the pod spec (fix: give the address without it: platbench k8s moves only --target's and --store's credentials into the Secret)", strings.TrimSpace(flagName+" "+redact.URL(val)))
			}
		}
		return nil
	}
	found, ok := redact.Secrets(val)
	switch {
	case !ok:
		return usagef("%s does not parse as a URL and could hold a secret that would be in the pod spec (fix: a valid URL; credentials in --target-password-file or $%s)", strings.TrimSpace(flagName+" "+redact.URL(val)), envTargetPassword)
	case len(found) > 0:
		return usagef("%s holds a secret that would be in the pod spec (fix: give the URL without it: platbench k8s moves only --target's and --store's credentials into the Secret)", strings.TrimSpace(flagName+" "+redact.URL(val)))
	}
	return nil
}

// targetCredentials takes the user, password and secret query parameters
// out of --target's URL, and the TLS files its query names, into secrets;
// it returns the URL left. A URL that does not parse is refused.
func targetCredentials(val string, secrets map[string]string) (string, error) {
	if !strings.Contains(val, "://") && !strings.Contains(val, "@") {
		// A bare name: null, embedded?sync=true.
		if redact.URL(val) != val {
			return "", usagef("--target %s carries a secret option that would be in the pod spec (fix: a target without it)", redact.URL(val))
		}
		return val, nil
	}
	u, err := redact.Check(val)
	if err != nil {
		return "", usagef("--target %s is not a URL: %v (fix: a URL such as cql://db:9042, its password in --target-password-file or $%s)", redact.URL(val), err, envTargetPassword)
	}
	found, _ := redact.Secrets(val)
	if u.User != nil {
		pass, has := u.User.Password()
		lone, ok := found["password"]
		if _, twice := secrets[secretPassword]; twice && (has || ok) {
			return "", usagef("the target's password is given twice, in --target's URL and in --target-password-file (fix: keep one, the file)")
		}
		switch {
		case !has && ok && u.User.Username() == lone: // redis://PASSWORD@host
			secrets[secretPassword] = lone
		case has:
			secrets[secretUser], secrets[secretPassword] = u.User.Username(), pass
		default:
			secrets[secretUser] = u.User.Username()
		}
		u.User = nil
	}
	var kept, moved []string
	for _, p := range strings.FieldsFunc(u.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(p, "=")
		name, _ := url.QueryUnescape(k)
		if redact.SecretKey(name) || redact.SecretKey(k) {
			moved = append(moved, p)
			continue
		}
		if file, err := url.QueryUnescape(v); err == nil {
			pod, err := tlsFileToSecret(name, file, secrets)
			if err != nil {
				return "", err
			}
			if pod != file {
				p = k + "=" + url.QueryEscape(pod)
			}
		}
		kept = append(kept, p)
	}
	if len(moved) > 0 {
		secrets[secretOpts] = strings.Join(moved, "&")
	}
	u.RawQuery = strings.Join(kept, "&")
	left := u.String()
	if found, ok := redact.Secrets(left); !ok || len(found) > 0 {
		return "", usagef("--target %s keeps a secret platbench k8s cannot move into the Secret (fix: the password in --target-password-file)", redact.URL(val))
	}
	return left, nil
}

// storeCredentials takes the password out of --store's URL (user-info or
// ?password=) into secrets: the pods' store client reads it from
// $PGPASSWORD.
func storeCredentials(val string, secrets map[string]string) (string, error) {
	u, err := redact.Check(val)
	if err != nil {
		return "", usagef("--store %s is not a URL: %v (fix: postgres://USER@HOST:PORT/DATABASE, the password in $%s)", redact.URL(val), err, envStorePassword)
	}
	if u.User != nil {
		if p, has := u.User.Password(); has {
			secrets[secretStore] = p
			u.User = url.User(u.User.Username())
		}
	}
	q := u.Query()
	if p := q.Get("password"); p != "" {
		if _, twice := secrets[secretStore]; twice {
			return "", usagef("--store gives its password twice, in the user-info and in ?password= (fix: keep one)")
		}
		secrets[secretStore] = p
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	left := u.String()
	if found, ok := redact.Secrets(left); !ok || len(found) > 0 {
		return "", usagef("--store %s keeps a secret platbench k8s cannot move into the Secret (fix: the password in its user-info, postgres://USER:PASSWORD@HOST/DB)", redact.URL(val))
	}
	return left, nil
}

// The target options that name a TLS file on the machine that writes the
// Job: platbench k8s puts each file into the Secret under key, mounted in
// every pod at tlsMount/key, and passes that path on.
var tlsOptions = []struct{ opt, key string }{
	{"tls_ca", "tls-ca"}, {"tls_cert", "tls-cert"}, {"tls_key", "tls-key"},
}

const tlsMount = "/etc/platbench/tls"

// maxTLSFile bounds a TLS file put into the Secret (a Secret holds 1 MiB
// in all; a certificate chain is a few KiB).
const maxTLSFile = 256 << 10

// tlsFileToSecret moves the file a TLS option names into secrets and
// returns its path in the pod; other options come back as they are.
func tlsFileToSecret(opt, path string, secrets map[string]string) (string, error) {
	for _, k := range tlsOptions {
		if k.opt != opt {
			continue
		}
		b, err := bounded.ReadFile(path, maxTLSFile) // its own fix below, not readBounded's
		if err != nil {
			return "", usagef("%s=%s: %v (fix: the path of a readable PEM file on this machine: platbench k8s puts it into the Secret)", opt, path, err)
		}
		if len(b) == 0 {
			return "", usagef("%s=%s is empty (fix: a PEM file)", opt, path)
		}
		secrets[k.key] = string(b)
		return tlsMount + "/" + k.key, nil
	}
	return path, nil
}

// tlsVolume mounts the TLS files in the Secret (if any) read-only at
// tlsMount, readable by the pod's user alone.
func tlsVolume(j k8sJob) (volume, mount map[string]any) {
	var items []any
	for _, k := range tlsOptions {
		if _, ok := j.secrets[k.key]; ok {
			items = append(items, map[string]any{"key": k.key, "path": k.key})
		}
	}
	if items == nil {
		return nil, nil
	}
	volume = map[string]any{"name": "tls", "secret": map[string]any{
		"secretName": j.name + "-secrets", "items": items, "defaultMode": 0o400}}
	return volume, map[string]any{"name": "tls", "mountPath": tlsMount, "readOnly": true}
}

// metricsPort is the port of --metrics-addr in the run flags, if any (the
// NetworkPolicy lets Prometheus reach it).
func metricsPort(args []string) string {
	for i, a := range args {
		v, ok := strings.CutPrefix(a, "--metrics-addr=")
		if !ok && a == "--metrics-addr" && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if ok {
			if _, port, found := strings.Cut(v, ":"); found {
				return port
			}
		}
	}
	return ""
}

// newSecret is a fresh rendezvous secret: 32 random bytes, base64.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// writeNew writes a file only its owner can read, refusing one that
// exists: it may be another run's Secret, still applied.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return usagef("%s exists: platbench k8s does not replace a file holding a Secret (fix: remove it if it is an old job's, or write to another path: --secret-out, or --out with --secret-in-manifest)", path)
	}
	if err != nil {
		return usagef("cannot write %s: %v (fix: --secret-out in a writable directory)", path, errors.Unwrap(err))
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// secretManifest is the Secret the Job's pods read their credentials from.
func secretManifest(j k8sJob) ([]byte, error) {
	doc := map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"metadata":   map[string]any{"name": j.name + "-secrets", "labels": map[string]any{"app": "platbench", "job": j.name}},
		"type":       "Opaque",
		"stringData": j.secrets,
	}
	body, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf("# platbench: the secrets of the job %s (the loaders' rendezvous secret, the credentials).\n# Keep this file private; kubectl apply -f it before the job's manifest. No other file holds these values.\n---\n", j.name)
	if j.secretFile == "" {
		head = fmt.Sprintf("# platbench: the job %s with its Secret (the loaders' rendezvous secret, the credentials) first: keep this file private.\n---\n", j.name)
	}
	return append([]byte(head), body...), nil
}

// secretEnvOf is the loaders' environment: credentials reach them as
// variables from the Secret (secretKeyRef), never in the command, the pod
// spec or the Job's YAML.
func secretEnvOf(j k8sJob) []any {
	var env []any
	for _, e := range secretEnv {
		if _, ok := j.secrets[e.key]; ok {
			env = append(env, map[string]any{"name": e.env, "valueFrom": map[string]any{
				"secretKeyRef": map[string]any{"name": j.name + "-secrets", "key": e.key}}})
		}
	}
	return env
}

// networkPolicy admits only the job's own pods to the rendezvous port (and,
// with --metrics-addr, anyone to the metrics port); it is enforced by the
// cluster's network plugin where that supports NetworkPolicies.
func networkPolicy(j k8sJob) map[string]any {
	ingress := []any{map[string]any{
		"from":  []any{map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"job": j.name}}}},
		"ports": []any{map[string]any{"protocol": "TCP", "port": j.port}},
	}}
	if j.metricsPort != "" {
		ingress = append(ingress, map[string]any{"ports": []any{map[string]any{"protocol": "TCP", "port": portValue(j.metricsPort)}}})
	}
	return map[string]any{
		"apiVersion": "networking.k8s.io/v1",
		"kind":       "NetworkPolicy",
		"metadata":   map[string]any{"name": j.name + "-rendezvous", "labels": map[string]any{"app": "platbench"}},
		"spec": map[string]any{
			"podSelector": map[string]any{"matchLabels": map[string]any{"job": j.name}},
			"policyTypes": []any{"Ingress"},
			"ingress":     ingress,
		},
	}
}

// portValue is a port number as Kubernetes wants it (an int), or a named port.
func portValue(p string) any {
	var n int
	if _, err := fmt.Sscan(p, &n); err == nil && n > 0 && n < 65536 {
		return n
	}
	return p
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$`)

type k8sJob struct {
	name, image, cpu, mem, pvc string
	n, port                    int
	secrets                    map[string]string // key -> value, in the Secret NAME-secrets
	secretFile                 string            // where the Secret's manifest is written
	metricsPort                string            // --metrics-addr's port, reachable from anywhere
}

// addVolumes gives the Job's pods the results claim (--pvc) and the TLS
// files of the Secret, when there are any.
func addVolumes(job map[string]any, j k8sJob) {
	var volumes, mounts []any
	if j.pvc != "" {
		volumes = append(volumes, map[string]any{"name": "results", "persistentVolumeClaim": map[string]any{"claimName": j.pvc}})
		mounts = append(mounts, map[string]any{"name": "results", "mountPath": "/results"})
	}
	if v, m := tlsVolume(j); v != nil {
		volumes, mounts = append(volumes, v), append(mounts, m)
	}
	if volumes == nil {
		return
	}
	spec := job["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	spec["volumes"] = volumes
	spec["containers"].([]any)[0].(map[string]any)["volumeMounts"] = mounts
}

// indexedJob builds the Service and the Job manifest.
func indexedJob(j k8sJob, runArgs []string) ([]byte, error) {
	// No shell in the image: Kubernetes itself expands $(JOB_COMPLETION_INDEX)
	// in a container's command (the Job controller sets it in the pod's env);
	// a literal "$(" in the user's flags is escaped as "$$(". Indexed Job pods
	// are named NAME-INDEX, and with the Service as their subdomain loader 0
	// is NAME-0.NAME.
	command := []any{"/platbench", "run", "--quiet",
		"--shard", fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", j.n),
		"--rendezvous", fmt.Sprintf("%s-0.%s:%d", j.name, j.name, j.port),
		"--label", "loader-$(JOB_COMPLETION_INDEX)", "--out", "-"}
	if j.pvc != "" {
		command[len(command)-1] = "/results/" + j.name + "-shard-$(JOB_COMPLETION_INDEX).json"
	}
	for _, a := range runArgs {
		command = append(command, strings.ReplaceAll(a, "$(", "$$("))
	}
	res := map[string]any{"cpu": j.cpu, "memory": j.mem}
	env, policy := secretEnvOf(j), networkPolicy(j)
	svc := map[string]any{
		"apiVersion": "v1",
		"kind":       "Service",
		"metadata":   map[string]any{"name": j.name, "labels": map[string]any{"app": "platbench"}},
		"spec": map[string]any{
			"clusterIP": "None",
			"selector":  map[string]any{"job": j.name},
			"ports":     []any{map[string]any{"name": "rendezvous", "port": j.port}},
			// Loader 0 must be found before it is ready: it listens before it loads.
			"publishNotReadyAddresses": true,
		},
	}
	job := map[string]any{
		"apiVersion": "batch/v1",
		"kind":       "Job",
		"metadata":   map[string]any{"name": j.name, "labels": map[string]any{"app": "platbench"}},
		"spec": map[string]any{
			"completionMode": "Indexed",
			"completions":    j.n,
			"parallelism":    j.n,
			"backoffLimit":   0,
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "platbench", "job": j.name}},
				"spec": map[string]any{
					"restartPolicy": "Never",
					"subdomain":     j.name,
					// One loader per node, so loaders do not share cores.
					"affinity": map[string]any{"podAntiAffinity": map[string]any{
						"preferredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
							"weight": 100,
							"podAffinityTerm": map[string]any{
								"topologyKey":   "kubernetes.io/hostname",
								"labelSelector": map[string]any{"matchLabels": map[string]any{"job": j.name}},
							},
						}},
					}},
					"containers": []any{map[string]any{
						"name":      "loader",
						"image":     j.image,
						"command":   command,
						"ports":     []any{map[string]any{"name": "rendezvous", "containerPort": j.port}},
						"resources": map[string]any{"requests": res, "limits": res},
						"env":       env,
					}},
				},
			},
		},
	}
	addVolumes(job, j)
	var b strings.Builder
	fmt.Fprintf(&b, "# platbench: %d loaders; they start the run phase together once all have loaded.\n", j.n)
	if j.secretFile == "" {
		fmt.Fprintf(&b, "# Their secrets are in the Secret %s-secrets, the first document of this file: keep it private.\n#   kubectl apply -f this.yaml\n", j.name)
	} else {
		fmt.Fprintf(&b, "# Their secrets are in the Secret %s-secrets, in %s apart from this file; apply it first, then this file:\n", j.name, j.secretFile)
		fmt.Fprintf(&b, "#   kubectl apply -f %s\n#   kubectl apply -f this.yaml\n", j.secretFile)
	}
	if j.pvc != "" {
		fmt.Fprintf(&b, "# When the job completes, the merged result is %s-shard-0.json on the claim %s.\n", j.name, j.pvc)
	} else {
		fmt.Fprintf(&b, "# When the job completes, the merged result is loader 0's log:\n")
		fmt.Fprintf(&b, "#   kubectl logs -l job-name=%s,batch.kubernetes.io/job-completion-index=0 --tail=-1 > merged.json\n", j.name)
	}
	for _, doc := range []any{svc, policy, job} {
		body, err := yaml.Marshal(doc)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(body)
	}
	return []byte(b.String()), nil
}
