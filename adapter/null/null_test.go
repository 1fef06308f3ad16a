package null

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/platbench/platbench/workload"
)

// The null target takes no option: one given is refused by name.
func TestOpenRefusesOptions(t *testing.T) {
	u, _ := url.Parse("null")
	if _, err := Open(context.Background(), u, nil); err != nil {
		t.Fatalf("null: %v", err)
	}
	u, _ = url.Parse("null://?depth=3")
	if _, err := Open(context.Background(), u, nil); err == nil || !strings.Contains(err.Error(), "depth") {
		t.Errorf("an option: %v, want it refused by name", err)
	}
	if _, err := Open(context.Background(), &url.URL{Scheme: "null"}, map[string]string{"x": "1"}); err == nil {
		t.Error("a --target-opt: accepted, want it refused")
	}
}

// Do allocates nothing: the null target measures platbench's own overhead.
func TestDoAllocatesNothing(t *testing.T) {
	w, err := (&Target{}).NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, req := context.Background(), &workload.Request{}
	if n := testing.AllocsPerRun(1000, func() { _ = w.Do(ctx, req) }); n != 0 {
		t.Errorf("Do allocates %.1f times", n)
	}
}
