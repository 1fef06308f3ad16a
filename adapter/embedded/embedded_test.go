package embedded

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

func TestParseConfig(t *testing.T) {
	cases := []struct {
		url  string
		opts map[string]string
		want Config
		err  []string // substrings of the error, one per problem
	}{
		{"embedded://", nil, Config{Cache: 64 << 20}, nil},
		// Sizes follow the one units grammar: binary multiples, fractions.
		{"embedded:///d?cache=1.5GB&sync=true", nil, Config{Dir: "/d", Cache: 3 << 29, Sync: true}, nil},
		{"embedded://?cache=8MiB", map[string]string{"cache": "64k", "keep": "true"}, Config{Cache: 64 << 10, Keep: true}, nil},
		// Every problem at once.
		{"embedded://?cache=big&sync=yes", map[string]string{"kep": "true"}, Config{},
			[]string{`embedded: unknown option "kep" (fix: did you mean keep?`, `embedded: sync="yes" is not true or false`, `embedded: cache="big" is not a size in bytes`}},
		{"embedded://?cache=0", nil, Config{}, []string{`cache="0" must be more than 0`}},
	}
	for _, tc := range cases {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ParseConfig(u, tc.opts)
		if tc.err == nil {
			if err != nil || *c != tc.want {
				t.Errorf("%s %v: got %+v, %v; want %+v", tc.url, tc.opts, c, err, tc.want)
			}
			continue
		}
		if !usererr.Is(err) {
			t.Errorf("%s %v: got %v, want a user error", tc.url, tc.opts, err)
			continue
		}
		for _, w := range tc.err {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %v: %q does not mention %q", tc.url, tc.opts, err, w)
			}
		}
	}
}

// The options reach pebble: a temporary directory with sync and a small cache.
func TestOpenWithOptions(t *testing.T) {
	u, _ := url.Parse("embedded://?sync=true&cache=1MiB") // a temporary directory, removed by Close
	tg, err := Open(context.Background(), u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	info := tg.(*Target).Describe(context.Background())
	if info.Details["sync"] != "true" || info.Details["cache_bytes"] != "1048576" {
		t.Fatalf("details %v", info.Details)
	}
	w, _ := tg.NewWorker(0)
	if err := w.Do(context.Background(), &workload.Request{Op: vocab.OpInsert, Key: []byte("k"), Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
}
