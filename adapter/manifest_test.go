package adapter

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platbench/platbench/workload"
)

// A manifest read back is the manifest written; each way a stored value
// can fail to be a manifest is refused with its reason.
func TestParseManifest(t *testing.T) {
	w := &workload.Spec{KeyPrefix: "user", Records: 200, KeyPadding: 8}
	m := NewManifest("redis", "v1.2.3", "20261128T200000Z-abcd", w, time.Date(2026, 11, 28, 20, 0, 0, 0, time.UTC))
	m.Dataset, m.KeyHigh, m.KeyForms, m.Created = "keys user<n>", 250, []string{"list:{key}"}, []string{"map m"}
	b := m.Marshal()
	got, err := ParseManifest(b)
	if err != nil || !bytes.Equal(got.Stored(), b) {
		t.Fatalf("ParseManifest(Marshal(m)) = %+v, %v; want it to keep the bytes it read (Stored)", got, err)
	}
	want := *m
	want.stored = got.stored
	if !reflect.DeepEqual(got, &want) {
		t.Fatalf("ParseManifest(Marshal(m)) = %+v, %v; want %+v", got, err, m)
	}
	cases := []struct{ json, want string }{
		{`not json`, "not a manifest's JSON"},
		{`{"tool":"platbench","format":1} {}`, "more after the object"},
		{`{"tool":"other","format":1}`, `tool "other"`},
		{`{"tool":"platbench","format":2,"version":"v9"}`, "later platbench (v9)"},
		{`{"tool":"platbench","format":0}`, "format 0"},
		{`{"tool":"platbench","format":1,"target":"redis"}`, "no key prefix"},
		{`{"tool":"platbench","format":1,"target":"redis","key_prefix":"u","key_padding":99}`, "key padding 99"},
		{`{"tool":"platbench","format":1,"target":"redis","key_prefix":"u","records":5,"key_high":4}`, "below its 5 records"},
		{`{"tool":"platbench","format":1,"target":"redis","key_prefix":"u","key_high":9223372036854775807}`, "past any dataset's"},
		{`{"tool":"platbench","format":1,"key_prefix":"u"}`, "no target"},
		{`{"tool":"platbench","format":1,"target":"redis","key_prefix":"u","key_forms":["x"]}`, "exactly one {key}"},
		{`{"tool":"platbench","format":1,"target":"redis","key_prefix":"u","created":["table"]}`, `"kind name"`},
		{strings.Repeat(" ", MaxManifestBytes+1), "more than a manifest's"},
	}
	for _, c := range cases {
		if _, err := ParseManifest([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseManifest(%.60q) = %v, want an error with %q", c.json, err, c.want)
		}
	}
}

// Keys yields the names the load's key function gives, in every form.
func TestManifestKeys(t *testing.T) {
	w := &workload.Spec{KeyPrefix: "user", Records: 3}
	m := NewManifest("redis", "v", "id", w, time.Now())
	m.KeyHigh, m.KeyForms = 4, []string{"list:{key}:x"}
	var got []string
	if err := m.Keys(func(k string) error { got = append(got, k); return nil }); err != nil {
		t.Fatal(err)
	}
	if uint64(len(got)) != m.KeyCount() || len(got) != 8 {
		t.Fatalf("%d keys, KeyCount %d, want 8", len(got), m.KeyCount())
	}
	for n := range uint64(4) {
		k := w.KeyName(n)
		if got[2*n] != k || got[2*n+1] != "list:"+k+":x" {
			t.Errorf("key %d: %q %q, want %q and its form", n, got[2*n], got[2*n+1], k)
		}
	}
}

// FuzzParseManifest: a manifest comes from the target, where anyone could
// have written it. Whatever it holds, parsing does not panic, and what is
// accepted is consistent (what clean removes by) and reads back the same.
func FuzzParseManifest(f *testing.F) {
	w := &workload.Spec{KeyPrefix: "user", Records: 10}
	m := NewManifest("cql", "v1", "id", w, time.Unix(0, 0))
	m.Created = []string{"table ks.t"}
	f.Add(m.Marshal())
	f.Add([]byte(`{"tool":"platbench","format":1,"target":"redis","key_prefix":"u","key_forms":["a{key}b"],"key_high":3}`))
	f.Add([]byte(`{"tool":"platbench","format":1,"target":"redis","key_prefix":"u","records":1e30}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseManifest(b)
		if err != nil {
			return
		}
		if m.KeyPrefix == "" || m.KeyHigh < m.Records || m.KeyHigh > 1<<62 || m.KeyPadding < 0 || m.KeyPadding > workload.MaxKeyPadding {
			t.Fatalf("accepted an inconsistent manifest: %+v", m)
		}
		for _, f := range m.KeyForms {
			if strings.Count(f, "{key}") != 1 {
				t.Fatalf("accepted key form %q", f)
			}
		}
		again, err := ParseManifest(m.Marshal())
		if err != nil {
			t.Fatalf("a manifest accepted then written is refused: %v", err)
		}
		if a, b := again.Marshal(), m.Marshal(); string(a) != string(b) {
			t.Fatalf("read back differs:\n%s\n%s", a, b)
		}
	})
}

// EachKey calls do once for every key and counts those it reports there;
// the first error stops the walk and is returned.
func TestEachKey(t *testing.T) {
	m := &Manifest{KeyPrefix: "u", KeyHigh: 1000, Records: 1000, KeyForms: []string{"l:{key}"}}
	var mu sync.Mutex
	seen := map[string]int{}
	n, err := EachKey(context.Background(), 4, m.Keys, func(_ context.Context, k string) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		seen[k]++
		return strings.HasPrefix(k, "l:"), nil
	})
	if err != nil || n != 1000 || len(seen) != 2000 {
		t.Fatalf("EachKey: %d counted, %d keys seen, %v; want 1000 of 2000, no error", n, len(seen), err)
	}
	for k, c := range seen {
		if c != 1 {
			t.Fatalf("key %q done %d times", k, c)
		}
	}
	boom := errors.New("boom")
	var calls atomic.Int64
	_, err = EachKey(context.Background(), 4, m.Keys, func(ctx context.Context, k string) (bool, error) {
		calls.Add(1)
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, boom
	})
	if !errors.Is(err, boom) || calls.Load() >= 2000 {
		t.Fatalf("EachKey after an error: %v after %d calls, want boom, the walk stopped", err, calls.Load())
	}
}
