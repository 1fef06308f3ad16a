package scrape

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/platbench/platbench/internal/redact"
	"github.com/platbench/platbench/internal/usererr"
)

// URL reads the address of a Prometheus-format exporter as a person typed
// it: a full http or https URL, or host:port (read as
// http://host:port/metrics); a URL without a path gets /metrics. A URL
// carrying a user name or password is refused, since the address is
// written into the result. With needPort, a URL without an explicit port
// is refused too (exporters that have no usual port).
//
// A bad address is a usererr naming field (the config field it came
// from), whose fix reads "fix: <fix>, or host:port", so fix names the
// exporter with an example URL.
func URL(s, field, fix string, needPort bool) (string, *usererr.Error) {
	bad := func(why string) *usererr.Error {
		return usererr.Field(field, "%q %s (fix: %s, or host:port)", redact.URL(s), why, fix)
	}
	raw := strings.TrimSpace(s)
	if raw == "" {
		return "", bad("is empty")
	}
	if strings.IndexFunc(raw, unicode.IsSpace) >= 0 {
		// url.Parse keeps a space in a query ("h? x"), which the
		// address would then carry into the result and read differently
		// the next time (the trailing space trimmed).
		return "", bad("contains a space")
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", bad("is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", bad("is not an http or https URL")
	case u.Hostname() == "":
		return "", bad("has no host")
	case u.User != nil:
		return "", bad("carries a user name or password, which would be written into the result")
	case needPort && u.Port() == "":
		return "", bad("has no port")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", bad("has no valid port")
		}
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/metrics"
	}
	u.Fragment = ""
	return u.String(), nil
}
