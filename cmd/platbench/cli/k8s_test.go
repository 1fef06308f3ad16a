package cli

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The manifest is a headless Service and an Indexed Job with one completion
// per loader; each pod runs its own shard, meets loader 0 at NAME-0.NAME
// (the pods' subdomain is the Service), and prints its result on stdout.
func TestK8sIndexedJob(t *testing.T) {
	code, out, stderr := run(t, "k8s", "--loaders", "4", "--name", "bench", "--", "--target", "cql://db:9042", "--workload", "write", "--rate", "40k", "--event", "$(not expanded)")
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
	if len(docs) != 2 || docs[0].Kind != "Service" || docs[1].Kind != "Job" {
		t.Fatalf("want a Service and a Job, got %d documents:\n%s", len(docs), out)
	}
	svc, job := docs[0], docs[1]
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
	code, out, stderr = run(t, "k8s", "--loaders", "2", "--pvc", "results", "--", "--target", "null")
	if code != 0 || !strings.Contains(out, "claimName: results") || !strings.Contains(out, "mountPath: /results") ||
		!strings.Contains(out, "/results/platbench-shard-$(JOB_COMPLETION_INDEX).json") {
		t.Errorf("--pvc: exit %d %s\n%s", code, stderr, out)
	}
	for _, bad := range [][]string{
		{"k8s", "--", "--shard", "0/2"},
		{"k8s", "--", "--rendezvous=x:1"},
		{"k8s", "--loaders", "1"},
		{"k8s", "--name", "Not_A_Label"},
	} {
		if code, _, _ := run(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}
