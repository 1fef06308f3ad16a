package scrape

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync/atomic"
)

// tokenParams are the query parameters of an exporter's URL that carry a
// bearer token (a proxy in front of an exporter: ?token=, OAuth's
// ?access_token=).
var tokenParams = []string{"token", "access_token"}

// Endpoint is an exporter's URL as scrapes request it. A bearer token in
// its query is sent as an Authorization header instead, off the URL that
// servers, proxies and their logs keep; an endpoint that refuses the
// header (401 or 403) is asked with the token in the query again, from
// then on. No error of an Endpoint names its URL: the caller names it,
// redacted (the series' URL).
type Endpoint struct {
	full, bare string // the URL as given; without the token
	token      string
	inQuery    atomic.Bool // the endpoint wants the token in the query
	bad        error       // the URL does not parse
}

// NewEndpoint is the endpoint of rawURL (as URL normalized it).
func NewEndpoint(rawURL string) *Endpoint {
	e := &Endpoint{full: rawURL, bare: rawURL}
	u, err := url.Parse(rawURL)
	if err != nil {
		e.bad = errors.New("not a valid URL")
		return e
	}
	q := u.Query()
	for _, p := range tokenParams {
		if v := q.Get(p); v != "" && e.token == "" {
			e.token = v
		}
	}
	if e.token != "" { // every token parameter leaves the bare URL
		for _, p := range tokenParams {
			q.Del(p)
		}
		u.RawQuery = q.Encode()
		e.bare = u.String()
	}
	return e
}

// Get requests the endpoint with the Accept header accept. The caller
// closes the response's body.
func (e *Endpoint) Get(ctx context.Context, client *http.Client, accept string) (*http.Response, error) {
	if e.bad != nil {
		return nil, e.bad
	}
	resp, err := e.get(ctx, client, accept)
	if err == nil && e.token != "" && !e.inQuery.Load() && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		e.inQuery.Store(true)
		resp, err = e.get(ctx, client, accept)
	}
	return resp, err
}

func (e *Endpoint) get(ctx context.Context, client *http.Client, accept string) (*http.Response, error) {
	u := e.bare
	if e.inQuery.Load() {
		u = e.full
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, errors.New("not a valid URL")
	}
	req.Header.Set("Accept", accept)
	if e.token != "" && !e.inQuery.Load() {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its text holds the URL
			return nil, ue.Err
		}
		return nil, err
	}
	return resp, nil
}
