package suite

import (
	"slices"
	"testing"
)

// TestRounds: every round runs each alternative exactly once; the orders
// differ between rounds (the first alternative does not always lead); the
// same seed gives the same order.
func TestRounds(t *testing.T) {
	rs := Rounds(20, 3, 7)
	if len(rs) != 20 {
		t.Fatalf("%d rounds", len(rs))
	}
	first := map[int]int{}
	for i, r := range rs {
		s := slices.Clone(r)
		slices.Sort(s)
		if !slices.Equal(s, []int{0, 1, 2}) {
			t.Fatalf("round %d runs %v", i, r)
		}
		first[r[0]]++
	}
	if len(first) < 3 {
		t.Errorf("in 20 rounds only %v ever ran first: the order is not randomized", first)
	}
	if !slices.EqualFunc(rs, Rounds(20, 3, 7), slices.Equal) {
		t.Error("the same seed gave another order")
	}
	if one := Rounds(4, 1, 1); len(one) != 4 || one[3][0] != 0 {
		t.Errorf("one alternative: %v", one)
	}
}

func TestRepeatName(t *testing.T) {
	for _, c := range []struct {
		round, repeat int
		want          string
	}{{0, 3, "redis.r01"}, {9, 10, "redis.r10"}, {99, 120, "redis.r100"}, {0, 120, "redis.r001"}} {
		if got := RepeatName("redis", c.round, c.repeat); got != c.want {
			t.Errorf("RepeatName(%d, %d) = %s, want %s", c.round, c.repeat, got, c.want)
		}
	}
}
