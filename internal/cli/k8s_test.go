package cli

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The Indexed Job is valid YAML with one completion per loader, and each pod
// runs its own shard with the common start time and writes to the volume.
func TestK8sIndexedJob(t *testing.T) {
	code, out, stderr := run(t, "k8s", "--loaders", "4", "--start-at", "2026-11-22T10:00:00Z", "--", "--target", "cql://db:9042", "--workload", "write", "--rate", "40k")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var job struct {
		Kind string
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int
			Parallelism    int
			Template       struct {
				Spec struct {
					Containers []struct {
						Command []string
					}
					Volumes []struct {
						PersistentVolumeClaim struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal([]byte(out), &job); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, out)
	}
	if job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || job.Spec.Completions != 4 || job.Spec.Parallelism != 4 {
		t.Fatalf("job spec = %+v", job.Spec)
	}
	script := strings.Join(job.Spec.Template.Spec.Containers[0].Command, " ")
	for _, want := range []string{"/platbench run", "--shard $(JOB_COMPLETION_INDEX)/4", "--start-at 2026-11-22T10:00:00Z", "--target cql://db:9042", "--rate 40k", "/results/"} {
		if !strings.Contains(script, want) {
			t.Errorf("loader command lacks %q: %s", want, script)
		}
	}
	if job.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "platbench-results" {
		t.Error("results volume missing")
	}
	if code, _, _ := run(t, "k8s", "--", "--shard", "0/2"); code == 0 {
		t.Error("--shard in the run flags accepted")
	}
}
