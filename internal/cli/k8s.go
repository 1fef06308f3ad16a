package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// runK8s writes a Kubernetes Indexed Job that runs N loaders, one pod per
// shard: Kubernetes gives each pod its index in JOB_COMPLETION_INDEX, the
// pods start their run phase together at --start-at, and write their results
// to a shared volume for `platbench merge`.
func runK8s(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "k8s", "--loaders N [flags] -- RUN-FLAGS...", "Write a Kubernetes Indexed Job (YAML, to stdout or --out) running N platbench loaders, one pod per shard, results to a volume. Flags after -- are passed to 'platbench run'.")
	loaders := fs.Int("loaders", 3, "number of loader pods (shards)")
	name := fs.String("name", "platbench", "job name")
	image := fs.String("image", "platbench:"+ToolVersion(), "container image with the platbench binary at /platbench, as 'make image' builds it (its tag is this version)")
	pvc := fs.String("pvc", "platbench-results", "PersistentVolumeClaim the results are written to (mounted at /results)")
	lead := units.Duration(2 * time.Minute)
	fs.Var(&lead, "lead", "how far in the future (a `duration`) the loaders start their run phase together")
	startAt := fs.String("start-at", "", "RFC 3339 start time of the run phase (default now + --lead)")
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
	if *loaders < 1 {
		return usagef("--loaders must be at least 1")
	}
	start := *startAt
	if start == "" {
		start = time.Now().Add(time.Duration(lead)).UTC().Format(time.RFC3339)
	} else if _, err := time.Parse(time.RFC3339, start); err != nil {
		return usagef("bad --start-at %q: use RFC 3339", start)
	}
	for _, a := range rest {
		if strings.HasPrefix(a, "--shard") || strings.HasPrefix(a, "--out") || strings.HasPrefix(a, "--start-at") {
			return usagef("%s is set by the job itself; leave it out of the run flags", a)
		}
	}
	data, err := indexedJob(*name, *image, *pvc, *cpu, *mem, *loaders, start, rest)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = env.Stdout.Write(data)
		return err
	}
	return result.WriteFileAtomic(*out, data)
}

// indexedJob builds the Job manifest.
func indexedJob(name, image, pvc, cpu, mem string, n int, start string, runArgs []string) ([]byte, error) {
	// No shell in the image: Kubernetes itself expands $(JOB_COMPLETION_INDEX)
	// in a container's command (the Job controller sets it in the pod's env);
	// a literal "$(" in the user's flags is escaped as "$$(".
	command := []any{"/platbench", "run", "--quiet",
		"--shard", fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", n), "--start-at", start,
		"--label", "loader-$(JOB_COMPLETION_INDEX)", "--out", "/results/" + name + "-shard-$(JOB_COMPLETION_INDEX).json"}
	for _, a := range runArgs {
		command = append(command, strings.ReplaceAll(a, "$(", "$$("))
	}
	res := map[string]any{"cpu": cpu, "memory": mem}
	job := map[string]any{
		"apiVersion": "batch/v1",
		"kind":       "Job",
		"metadata":   map[string]any{"name": name, "labels": map[string]any{"app": "platbench"}},
		"spec": map[string]any{
			"completionMode": "Indexed",
			"completions":    n,
			"parallelism":    n,
			"backoffLimit":   0,
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "platbench", "job": name}},
				"spec": map[string]any{
					"restartPolicy": "Never",
					// One loader per node, so loaders do not share cores.
					"affinity": map[string]any{"podAntiAffinity": map[string]any{
						"preferredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
							"weight": 100,
							"podAffinityTerm": map[string]any{
								"topologyKey":   "kubernetes.io/hostname",
								"labelSelector": map[string]any{"matchLabels": map[string]any{"job": name}},
							},
						}},
					}},
					"containers": []any{map[string]any{
						"name":         "loader",
						"image":        image,
						"command":      command,
						"resources":    map[string]any{"requests": res, "limits": res},
						"volumeMounts": []any{map[string]any{"name": "results", "mountPath": "/results"}},
					}},
					"volumes": []any{map[string]any{"name": "results", "persistentVolumeClaim": map[string]any{"claimName": pvc}}},
				},
			},
		},
	}
	body, err := yaml.Marshal(job)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf("# platbench: %d loaders, run phase starts at %s.\n# kubectl apply -f this.yaml; when the job completes, copy /results and run:\n#   platbench merge %s-shard-*.json --out merged.json\n", n, start, name)
	return append([]byte(head), body...), nil
}

