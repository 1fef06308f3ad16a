package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// The header names the server that answered when it is not the target kind
// (the redis target answered by Valkey), beside its version.
func TestHeaderNamesTheServer(t *testing.T) {
	for server, want := range map[string]string{"valkey": "redis (valkey 8.1.8)", "redis": "redis (8.1.8)", "": "redis (8.1.8)"} {
		r := &result.Result{Target: vocab.Info{Kind: "redis", Version: "8.1.8", Details: map[string]string{"server": server}}}
		var b bytes.Buffer
		writeHeader(&b, r)
		if !strings.Contains(b.String(), " · "+want+" · ") {
			t.Errorf("server %q: header %q, want %q", server, b.String(), want)
		}
	}
}

// compare's target column names the server the same way, so Redis and Valkey
// runs of the redis target are told apart when they are grouped by target.
func TestTargetNameNamesTheServer(t *testing.T) {
	for server, want := range map[string]string{"valkey": "redis valkey 8.1.8", "redis": "redis 8.1.8", "": "redis 8.1.8"} {
		r := &result.Result{Target: vocab.Info{Kind: "redis", Version: "8.1.8", Details: map[string]string{"server": server}}}
		if got := targetName(r); got != want {
			t.Errorf("server %q: target %q, want %q", server, got, want)
		}
	}
	if got := targetName(&result.Result{Target: vocab.Info{Kind: "null"}}); got != "null" {
		t.Errorf("no version: %q, want null", got)
	}
}
