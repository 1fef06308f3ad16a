package cli

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/platbench/platbench/internal/bounded"
	"github.com/platbench/platbench/internal/redact"
)

// Credentials kept out of the command line, where `ps`, shell history and a
// Kubernetes pod spec show them: a target's user and password from a file or
// the environment, and the rendezvous secret likewise. The URL form
// (cql://user:pass@host) keeps working for local use.
const (
	envTargetUser     = "PLATBENCH_TARGET_USER"
	envTargetPassword = "PLATBENCH_TARGET_PASSWORD"
	envRendezvous     = "PLATBENCH_RENDEZVOUS_SECRET"
	// envTargetSecretOpts holds the secret options of the target's URL
	// (a query: "sasl_password=...&token=..."), which platbench k8s moves
	// from the URL into the Secret; they are added to the URL's query.
	envTargetSecretOpts = "PLATBENCH_TARGET_SECRET_OPTS"
)

type credFlags struct {
	user, passwordFile string
}

func (f *credFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.user, "target-user", "", "the target's user name (default: the URL's, else $"+envTargetUser+")")
	fs.StringVar(&f.passwordFile, "target-password-file", "", "a file whose first line is the target's password, kept off the command line (default: the URL's, else $"+envTargetPassword+")")
}

// apply puts the user and password given outside the URL into it. A
// password given twice (URL and file or environment) is refused: which one
// was meant cannot be guessed.
func (f *credFlags) apply(target string) (string, error) {
	user, pass := f.user, ""
	passFrom := ""
	if f.passwordFile != "" {
		p, err := readSecretFile(f.passwordFile)
		if err != nil {
			return "", usagef("--target-password-file: %v", err)
		}
		pass, passFrom = p, "--target-password-file"
	} else if p := os.Getenv(envTargetPassword); p != "" {
		pass, passFrom = p, "$"+envTargetPassword
	}
	if user == "" {
		user = os.Getenv(envTargetUser)
	}
	opts := os.Getenv(envTargetSecretOpts)
	if user == "" && pass == "" && opts == "" {
		return target, nil
	}
	u, err := redact.Check(target)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", usagef("a target user or password is given (%s) but --target %s is not a URL with a host (fix: e.g. --target cql://db:9042)", strings.TrimPrefix(strings.TrimSpace(passFrom+" "+userFrom(f.user)+" "+optsFrom(opts)), " "), redact.URL(target))
	}
	if err := addSecretOpts(u, opts); err != nil {
		return "", err
	}
	if user == "" && pass == "" {
		return u.String(), nil
	}
	if _, has := u.User.Password(); has && pass != "" {
		return "", usagef("the target's password is given twice, in --target's URL and in %s (fix: keep one, e.g. drop it from the URL)", passFrom)
	}
	if user == "" {
		user = u.User.Username()
	}
	if pass == "" {
		if p, has := u.User.Password(); has {
			pass = p
		}
	}
	if pass != "" {
		u.User = url.UserPassword(user, pass)
	} else {
		u.User = url.User(user)
	}
	return u.String(), nil
}

// verifyTarget is the target platbench verify opens: given (--target),
// else the result's URL (stored) without what the result masked, with the
// user and password given outside the URL, as apply puts them.
func (f *credFlags) verifyTarget(given, stored string) (string, error) {
	if f.user == "" && f.passwordFile == "" && os.Getenv(envTargetPassword) == "" && os.Getenv(envTargetUser) == "" && os.Getenv(envTargetSecretOpts) == "" {
		return given, nil
	}
	if given == "" {
		given = redact.Unmasked(stored)
	}
	return f.apply(given)
}

func optsFrom(opts string) string {
	if opts != "" {
		return "$" + envTargetSecretOpts
	}
	return ""
}

// addSecretOpts adds the options of $PLATBENCH_TARGET_SECRET_OPTS to u's
// query; one the URL has already is refused.
func addSecretOpts(u *url.URL, opts string) error {
	if opts == "" {
		return nil
	}
	add, err := url.ParseQuery(opts)
	if err != nil {
		return usagef("$%s is not a query of options (fix: name=value&name=value, as platbench k8s writes it)", envTargetSecretOpts)
	}
	q := u.Query()
	for k := range add {
		if q.Has(k) {
			return usagef("the target option %s is given twice, in --target's URL and in $%s (fix: keep one)", k, envTargetSecretOpts)
		}
	}
	if u.RawQuery != "" {
		u.RawQuery += "&"
	}
	u.RawQuery += add.Encode()
	return nil
}

func userFrom(flagUser string) string {
	if flagUser != "" {
		return "--target-user"
	}
	return ""
}

// maxSecretFile bounds a secret or password file: a secret is a line, a
// few hundred bytes at most; a file far larger is the wrong file.
const maxSecretFile = 4 << 10

// readSecretFile reads a secret: the file's first line, trailing spaces and
// line ends dropped. Only a regular file of at most maxSecretFile bytes is
// read: a device (/dev/zero), a FIFO or a directory is refused before it is
// opened (a FIFO is opened without blocking, in case it replaced the file
// since), so no file makes it read without end or wait for a writer.
func readSecretFile(path string) (string, error) {
	b, err := readBounded(path, maxSecretFile)
	if err != nil {
		return "", err
	}
	s, _, _ := strings.Cut(string(b), "\n")
	s = strings.TrimRight(s, " \t\r")
	if s == "" {
		return "", fmt.Errorf("%s is empty (fix: the secret on its first line)", path)
	}
	return s, nil
}

// readBounded reads a regular file of at most limit bytes; anything else
// is refused before it is read (internal/bounded), with the fix.
func readBounded(path string, limit int64) ([]byte, error) {
	b, err := bounded.ReadFile(path, limit)
	if err != nil {
		return nil, fmt.Errorf("%v (fix: a readable file holding the secret alone)", err)
	}
	return b, nil
}
