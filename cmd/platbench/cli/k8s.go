package cli

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

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
		for _, f := range []string{"--shard", "--out", "--start-at", "--rendezvous", "--quiet"} {
			if a == f || strings.HasPrefix(a, f+"=") {
				return usagef("%s is set by the job itself; leave it out of the run flags", f)
			}
		}
	}
	data, err := indexedJob(k8sJob{name: *name, image: *image, cpu: *cpu, mem: *mem, n: *loaders, port: *port, pvc: *pvc}, rest)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = env.Stdout.Write(data)
		return err
	}
	return result.WriteFileAtomic(*out, data)
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$`)

type k8sJob struct {
	name, image, cpu, mem, pvc string
	n, port                    int
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
					}},
				},
			},
		},
	}
	if j.pvc != "" {
		spec := job["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		spec["volumes"] = []any{map[string]any{"name": "results", "persistentVolumeClaim": map[string]any{"claimName": j.pvc}}}
		c := spec["containers"].([]any)[0].(map[string]any)
		c["volumeMounts"] = []any{map[string]any{"name": "results", "mountPath": "/results"}}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# platbench: %d loaders; they start the run phase together once all have loaded.\n", j.n)
	if j.pvc != "" {
		fmt.Fprintf(&b, "# kubectl apply -f this.yaml; when the job completes, the merged result is %s-shard-0.json on the claim %s.\n", j.name, j.pvc)
	} else {
		fmt.Fprintf(&b, "# kubectl apply -f this.yaml; when the job completes, the merged result is loader 0's log:\n")
		fmt.Fprintf(&b, "#   kubectl logs -l job-name=%s,batch.kubernetes.io/job-completion-index=0 --tail=-1 > merged.json\n", j.name)
	}
	for _, doc := range []any{svc, job} {
		body, err := yaml.Marshal(doc)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(body)
	}
	return []byte(b.String()), nil
}
