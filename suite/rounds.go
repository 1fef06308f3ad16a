package suite

import (
	"fmt"
	"math/rand/v2"
)

// Rounds is the order of a repeated experiment over alternatives
// alternatives (suite cells, or the one benchmark of `run --repeat`):
// repeat rounds, each running every alternative once in a fresh random
// order. This is Abedi and Brecht's randomized multiple interleaved trials
// (RMIT, "Conducting repeatable experiments in highly variable cloud
// computing environments", ICPE 2017): warm-up of the machine, drift and
// the time of day fall on every alternative alike, and no alternative
// always runs right after another. seed makes the order reproducible (it is
// printed and recorded). Each element is an alternative's index.
func Rounds(repeat, alternatives int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 0x524d4954)) // "RMIT"
	out := make([][]int, repeat)
	for i := range out {
		out[i] = rng.Perm(alternatives)
	}
	return out
}

// RepeatName is the result file name of round round (0-based) of a
// repeated alternative named name: "name.r01" (the width grows with
// repeat), so the files of one alternative sort together and compare finds
// them by their shared label.
func RepeatName(name string, round, repeat int) string {
	w := len(fmt.Sprint(repeat))
	w = max(w, 2)
	return fmt.Sprintf("%s.r%0*d", name, w, round+1)
}
