package redis

import (
	"context"
	"os"
	"testing"
)

// The result records which server answered and its version: Redis and
// Valkey both speak RESP, and scripts/test.sh runs this package against each
// with PLATBENCH_REDIS_EXPECT set to the server it started.
func TestServerIdentity(t *testing.T) {
	for _, env := range []string{"PLATBENCH_REDIS_URL", "PLATBENCH_REDIS_CLUSTER_URL"} {
		tg := open(t, serverURL(t, env), nil)
		info := tg.Describe(context.Background())
		server := info.Details["server"]
		if server != "redis" && server != "valkey" || info.Version == "" {
			t.Errorf("%s: server %q version %q; want redis or valkey and a version", env, server, info.Version)
		}
		if want := os.Getenv("PLATBENCH_REDIS_EXPECT"); want != "" && server != want {
			t.Errorf("%s: the server says it is %q; the test script started %q", env, server, want)
		}
		t.Logf("%s: %s %s", env, server, info.Version)
	}
}
