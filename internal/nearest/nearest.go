// Package nearest finds the known name closest to a mistyped one, for the
// "did you mean" of every parser of names (flags, target options).
package nearest

import "strings"

// Name is the name of names closest to k (case ignored) when it is a likely
// typo: at most maxEdits edits, and fewer edits than k has letters; "" when
// none is. Ties go to the name first in alphabetical order.
func Name(k string, names []string, maxEdits int) string {
	best, bestD := "", maxEdits+1
	lk := strings.ToLower(k)
	for _, name := range names {
		d := Distance(lk, strings.ToLower(name))
		if d < bestD || (d == bestD && name < best) {
			best, bestD = name, d
		}
	}
	if bestD > maxEdits || bestD >= len(k) {
		return ""
	}
	return best
}

// Distance is the Levenshtein distance of a and b (in bytes).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
