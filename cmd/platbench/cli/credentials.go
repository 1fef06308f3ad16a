package cli

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Credentials kept out of the command line, where `ps`, shell history and a
// Kubernetes pod spec show them: a target's user and password from a file or
// the environment, and the rendezvous secret likewise. The URL form
// (cql://user:pass@host) keeps working for local use.
const (
	envTargetUser     = "PLATBENCH_TARGET_USER"
	envTargetPassword = "PLATBENCH_TARGET_PASSWORD"
	envRendezvous     = "PLATBENCH_RENDEZVOUS_SECRET"
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
	if user == "" && pass == "" {
		return target, nil
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", usagef("a target user or password is given (%s) but --target %q is not a URL with a host (fix: e.g. --target cql://db:9042)", strings.TrimPrefix(passFrom+" "+userFrom(f.user), " "), target)
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

func userFrom(flagUser string) string {
	if flagUser != "" {
		return "--target-user"
	}
	return ""
}

// readSecretFile reads a secret: the file's first line, trailing spaces and
// line ends dropped.
func readSecretFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %v (fix: a readable file holding the secret)", path, err)
	}
	s, _, _ := strings.Cut(string(b), "\n")
	s = strings.TrimRight(s, " \t\r")
	if s == "" {
		return "", fmt.Errorf("%s is empty (fix: the secret on its first line)", path)
	}
	return s, nil
}
