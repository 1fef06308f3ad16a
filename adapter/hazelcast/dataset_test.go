package hazelcast

import (
	"regexp"
	"testing"
)

// javaQuote makes a key prefix a literal of the server's regular
// expressions, metacharacters and \E included (RE2 reads \Q...\E as Java
// does).
func TestJavaQuote(t *testing.T) {
	for _, p := range []string{"user", "a.b", `x\Ey`, `\E\Q`, "[*]", `\`} {
		re := regexp.MustCompile("^" + javaQuote(p) + "[0-9]+$")
		if !re.MatchString(p + "123") {
			t.Errorf("prefix %q: %s does not match %q", p, re, p+"123")
		}
		if re.MatchString("z"+p+"1") || re.MatchString(p) {
			t.Errorf("prefix %q: %s matches what is not the prefix then digits", p, re)
		}
	}
	if !regexp.MustCompile("^a.b[0-9]+$").MatchString("axb1") || regexp.MustCompile("^"+javaQuote("a.b")+"[0-9]+$").MatchString("axb1") {
		t.Error("a.b quoted still matches axb1")
	}
}
