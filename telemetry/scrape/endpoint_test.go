package scrape

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/testenv"
)

// A token in an exporter's URL goes as an Authorization header, never in
// the request line a server logs; an endpoint that wants it in the query
// (401 to the header) gets it there, from then on; no error names it.
func TestEndpointToken(t *testing.T) {
	const tok = "s3cr3t-tk"
	var mu sync.Mutex
	var seen []string
	log := func(r *http.Request) {
		mu.Lock()
		seen = append(seen, r.RequestURI)
		mu.Unlock()
	}
	header := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log(r)
		if r.Header.Get("Authorization") != "Bearer "+tok {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("up 1\n"))
	}))
	defer header.Close()
	query := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log(r)
		if r.URL.Query().Get("token") != tok {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		w.Write([]byte("up 1\n"))
	}))
	defer query.Close()
	ctx := context.Background()
	client := &http.Client{Timeout: 5 * time.Second}
	get := func(e *Endpoint) int {
		t.Helper()
		resp, err := e.Get(ctx, client, "text/plain")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	e := NewEndpoint(header.URL + "/metrics?x=1&token=" + tok)
	for range 2 {
		if code := get(e); code != http.StatusOK {
			t.Fatalf("the header endpoint answered %d", code)
		}
	}
	if strings.Contains(strings.Join(seen, " "), tok) || len(seen) != 2 || seen[0] != "/metrics?x=1" {
		t.Errorf("request lines %q: want the token in none, and two requests", seen)
	}

	seen = nil
	e = NewEndpoint(query.URL + "/metrics?token=" + tok)
	for range 2 {
		if code := get(e); code != http.StatusOK {
			t.Fatalf("the query endpoint answered %d", code)
		}
	}
	if len(seen) != 3 || strings.Contains(seen[0], tok) || !strings.Contains(seen[2], tok) {
		t.Errorf("request lines %q: want the header tried once, then the query kept", seen)
	}

	for _, u := range []string{"http://127.0.0.1:1/metrics?token=" + tok, "http://[::1/metrics?token=" + tok, "http://127.0.0.1:1/metrics?access_token=" + tok} {
		_, err := NewEndpoint(u).Get(ctx, client, "text/plain")
		if err == nil || strings.Contains(err.Error(), tok) {
			t.Errorf("%s: error %v, want one without the token", strings.ReplaceAll(u, tok, "TOKEN"), err)
		}
	}
}

// The real node_exporter, which ignores an Authorization header, is read
// with a token in its URL.
func TestEndpointTokenNodeExporter(t *testing.T) {
	u := testenv.URL(t, "PLATBENCH_NODE_EXPORTER_URL")
	resp, err := NewEndpoint(u+"?token=abc").Get(context.Background(), &http.Client{Timeout: 10 * time.Second}, "text/plain;version=0.0.4")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("node_exporter answered %s", resp.Status)
	}
}

// Whatever the URL, an endpoint with a token keeps no token parameter in
// the URL it requests first.
func FuzzEndpoint(f *testing.F) {
	for _, s := range []string{"http://h:9100/metrics?token=abc", "http://h/m?access_token=a&token=b&token=c&x=1", "http://h/m?token=", "http://[::1/m?token=a", "h:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := NewEndpoint(s)
		if e.bad != nil || e.token == "" {
			return
		}
		u, err := url.Parse(e.bare)
		if err != nil {
			t.Fatalf("%q: the bare URL %q does not parse: %v", s, e.bare, err)
		}
		for _, p := range tokenParams {
			if u.Query().Has(p) {
				t.Fatalf("%q: the bare URL %q keeps %s", s, e.bare, p)
			}
		}
	})
}
