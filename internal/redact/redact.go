// Package redact is the one place that takes secrets out of URLs before a
// URL is printed, written into a result or placed in a manifest: the
// password of the user-info (and a lone user name where a scheme reads it as
// the password, as redis:// does), and the value of every query parameter
// whose name speaks of a secret (password, pass, pwd, token, secret,
// sasl_..., api_key, ...). A URL that does not parse is never passed on
// whole: URL shows only its scheme, and Check refuses it with a reason that
// quotes none of it.
package redact

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
)

// Mask replaces a secret. A result that holds it kept no secret (Masked).
const Mask = "xxxxx"

// secretWords are the pieces of a parameter's name that make its value a
// secret, matched anywhere in the lower-cased name.
var secretWords = []string{"pass", "pwd", "token", "secret", "sasl_", "apikey", "api_key", "api-key",
	"access_key", "access-key", "accesskey", "private_key", "private-key", "privatekey", "credential", "signature", "auth_key"}

// secretNames are whole parameter names whose value is a secret, though
// the name is too short to match as a piece of another ("sig" of an
// Azure SAS URL, "auth" of a bearer token). "key" is not among them: the
// kafka target's key option names a distribution.
var secretNames = map[string]bool{"sig": true, "auth": true, "authorization": true}

// notSecret are option names that contain a secret word but hold none.
var notSecret = map[string]bool{"token_aware": true}

// SecretKey reports whether a query parameter or target option named k
// holds a secret.
func SecretKey(k string) bool {
	k = strings.ToLower(strings.TrimSpace(k))
	if notSecret[k] {
		return false
	}
	if secretNames[k] {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// loneNameIsPassword are the schemes whose user-info without a ':' is the
// password (redis-cli -u reads redis://pass@host so).
var loneNameIsPassword = map[string]bool{"redis": true, "rediss": true, "valkey": true, "valkeys": true}

// Check parses raw as a URL and refuses one that does not parse, or that
// carries an '@' after its host (a password holding an unescaped '/', '?'
// or '#' cuts the URL there, and the rest would be read as a path or a
// query). The error names the problem without quoting any of raw.
func Check(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New(reason(err))
	}
	if afterHost(u) {
		return nil, errors.New("an '@' after the host (a '/', '?' or '#' in a password must be percent-encoded: %2F, %3F, %23; an '@' in a query value: %40)")
	}
	return u, nil
}

// quoted matches the quoted part of net/url's errors ("invalid port
// \":s3cret\" after host"), which may be part of a secret.
var quoted = regexp.MustCompile(`\s*"(?:[^"\\]|\\.)*"`)

// reason is a parse error without the URL or any part of it.
func reason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	s := quoted.ReplaceAllString(err.Error(), "")
	if i := strings.IndexByte(s, '"'); i >= 0 { // an unbalanced quote: cut there
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// afterHost reports an '@' in the path, the query or the fragment: where
// the rest of a user-info lands when a password cuts the URL (an '@' in a
// query value is written %40).
func afterHost(u *url.URL) bool {
	return strings.Contains(u.Path, "@") || strings.Contains(u.RawPath, "@") || strings.Contains(u.Fragment, "@") ||
		strings.Contains(u.RawQuery, "@")
}

// URL is raw without its secrets, for messages and results. A bare name
// ("null", "embedded") comes back as it is; a URL that Check refuses comes
// back as its scheme alone ("cql://…"), or "(a URL that does not parse)".
func URL(raw string) string {
	if !strings.Contains(raw, ":") && !strings.Contains(raw, "@") {
		// A bare name, maybe with options ("embedded?sync=true").
		name, q, ok := strings.Cut(raw, "?")
		if !ok {
			return raw
		}
		return name + "?" + query(q)
	}
	u, err := Check(raw)
	if err != nil && !strings.Contains(raw, "://") {
		// host:port, as exporter addresses are typed: read as a URL's rest.
		if u, err := Check("x://" + raw); err == nil {
			return strings.TrimPrefix(String(u), "x://")
		}
	}
	if err != nil {
		return unparsed(raw)
	}
	return String(u)
}

// unparsed shows what of a URL that does not parse is safe: its scheme.
func unparsed(raw string) string {
	scheme, _, ok := strings.Cut(raw, "://")
	if ok && scheme != "" && validScheme(scheme) {
		return scheme + "://…"
	}
	return "(a URL that does not parse)"
}

func validScheme(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return len(s) <= 32
}

// String is u without its secrets. The fragment, which no target reads, is
// left out.
func String(u *url.URL) string {
	v := *u
	v.Fragment, v.RawFragment = "", ""
	if v.User != nil {
		name := v.User.Username()
		if strings.Contains(name, "@") {
			name = Mask // user-info of several '@': which part is the password cannot be told
		}
		if _, has := v.User.Password(); has {
			v.User = url.UserPassword(name, Mask)
		} else if loneNameIsPassword[strings.ToLower(v.Scheme)] && name != "" {
			v.User = url.User(Mask)
		} else {
			v.User = url.User(name)
		}
	}
	if v.Opaque != "" {
		// cql:user:pass@host: everything before the last '@' may be a secret.
		if at := strings.LastIndex(v.Opaque, "@"); at >= 0 {
			v.Opaque = Mask + v.Opaque[at:]
		}
	}
	v.Host = hosts(v.Host)
	v.RawQuery = query(v.RawQuery)
	v.ForceQuery = false
	return v.String()
}

// hosts masks a host of a list ("h1,h2:9042") whose port is not a number:
// "admin:s3cret,h:6379" is a user-info whose '@' was lost.
func hosts(h string) string {
	if !strings.Contains(h, ",") {
		return h // url.Parse checked a lone host's port
	}
	parts := strings.Split(h, ",")
	for i, p := range parts {
		if j := strings.LastIndex(p, "]"); j >= 0 {
			p = p[j+1:]
		}
		if _, port, ok := strings.Cut(p, ":"); ok && strings.Trim(port, "0123456789") != "" {
			parts[i] = Mask
		}
	}
	return strings.Join(parts, ",")
}

// pair is one parameter of a raw query.
type pair struct {
	raw, name, value string
	hasVal, secret   bool
}

// pairs splits a raw query at '&' and ';'. A name that does not unescape is
// taken as secret, and so is a value-less pair holding an '@'.
func pairs(raw string) []pair {
	var out []pair
	for _, p := range strings.FieldsFunc(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, hasVal := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = "?"
		}
		val, verr := url.QueryUnescape(v)
		if verr != nil {
			val = v
		}
		secret := err != nil || SecretKey(name) || SecretKey(k) || !hasVal && strings.Contains(p, "@") || nestedKey(v)
		out = append(out, pair{raw: p, name: name, value: val, hasVal: hasVal, secret: secret})
	}
	return out
}

// nestedKey reports a value that itself reads as secret=...
// ("k=password=s3cret"): the value is taken as a secret.
func nestedKey(v string) bool {
	segs := strings.Split(v, "=")
	for _, s := range segs[:len(segs)-1] {
		if SecretKey(s) {
			return true
		}
	}
	return false
}

// query masks the values of the secret parameters of a raw query, keeping
// the rest byte for byte (empty pairs dropped).
func query(raw string) string {
	var b strings.Builder
	for i, p := range pairs(raw) {
		if i > 0 {
			b.WriteByte('&')
		}
		switch {
		case p.secret && p.hasVal:
			b.WriteString(url.QueryEscape(p.name) + "=" + Mask)
		case p.secret:
			b.WriteString(Mask)
		default:
			b.WriteString(p.raw)
		}
	}
	return b.String()
}

// Opts is a copy of target options with the values of secret ones masked.
func Opts(o map[string]string) map[string]string {
	if len(o) == 0 {
		return nil
	}
	out := make(map[string]string, len(o))
	for k, v := range o {
		if SecretKey(k) {
			v = Mask
		}
		out[k] = v
	}
	return out
}

// Masked reports whether raw, read back from a result, lost a secret to
// the mask (the password of its user-info, or a secret parameter), so that
// connecting with it would only fail to log in. It returns what was masked:
// "password" or the parameter's name.
func Masked(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	if u.User != nil {
		if p, ok := u.User.Password(); ok && p == Mask {
			return "password", true
		}
		if u.User.Username() == Mask {
			return "password", true
		}
	}
	for _, p := range pairs(u.RawQuery) {
		if p.secret && p.value == Mask {
			return p.name, true
		}
	}
	return "", false
}

// Secrets are the secrets raw carries: the user-info's password (or a
// lone name of a scheme that reads it as the password) and the values of
// the secret query parameters, by the name platbench k8s files them
// under ("password" for the user-info's). ok is false when raw does not
// parse as Check does.
func Secrets(raw string) (found map[string]string, ok bool) {
	u, err := Check(raw)
	if err != nil {
		return nil, false
	}
	found = map[string]string{}
	if u.User != nil {
		if p, has := u.User.Password(); has && p != "" {
			found["password"] = p
		} else if !has && loneNameIsPassword[strings.ToLower(u.Scheme)] && u.User.Username() != "" {
			found["password"] = u.User.Username()
		}
	}
	for _, p := range pairs(u.RawQuery) {
		if p.secret {
			found[p.name] = p.value
		}
	}
	if u.Opaque != "" && strings.Contains(u.Opaque, "@") {
		found["opaque"] = u.Opaque
	}
	return found, true
}

// Scrub takes raw, and every secret it carries, out of msg (a driver's
// error that may quote the URL it was given, whole or in parts).
func Scrub(msg, raw string) string {
	if raw == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, raw, URL(raw))
	found, _ := Secrets(raw)
	for _, v := range found {
		if len(v) >= 3 && v != Mask {
			msg = strings.ReplaceAll(msg, v, Mask)
		}
	}
	return msg
}

// Unmasked is raw, read back from a result, without what the mask
// replaced: the user-info's masked password (or masked lone name) and the
// masked parameters, so that the secrets can be given again from elsewhere.
// A URL that does not parse comes back as it is.
func Unmasked(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.User != nil {
		switch p, has := u.User.Password(); {
		case u.User.Username() == Mask:
			u.User = nil
		case has && p == Mask:
			u.User = url.User(u.User.Username())
		}
	}
	var kept []string
	for _, p := range pairs(u.RawQuery) {
		if !(p.secret && p.value == Mask) {
			kept = append(kept, p.raw)
		}
	}
	u.RawQuery = strings.Join(kept, "&")
	return u.String()
}
