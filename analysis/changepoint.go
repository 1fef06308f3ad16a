package analysis

import (
	"math"
	"slices"
)

// Change-point detection over a series of runs: E-divisive means (Matteson
// and James, "A Nonparametric Approach for Multiple Change Point Analysis of
// Multivariate Data", 2014) with the modifications of Fleming et al.,
// "Hunter: Using Change Point Detection to Hunt for Performance Regressions"
// (ICPE 2023), as Apache Otava 0.8.0 runs it by default:
//
//  1. Split: slide a window of ChangePointOptions.Window points over the
//     series, half a window at a time. In each window, E-divisive splits
//     recursively at the point that maximises the energy statistic q̂, and
//     keeps a split while a two-sided Student's t-test between the two
//     sides gives a p-value at or below a relaxed level (10x MaxPValue
//     below 0.05). The union over the windows are the weak change points.
//  2. Merge: recompute each weak point's t-test between its neighbours;
//     repeatedly drop the point with the highest p-value while it is not
//     below MaxPValue (then the one with the smallest relative change while
//     that change is not above MinMagnitude), recomputing the points after
//     it.
//
// scripts/check-otava.sh installs Otava and TestChangePointsMatchOtava
// requires the same change points from both on the same series.

// ChangePointOptions are the detector's settings; the zero value of a
// field means Otava's default.
type ChangePointOptions struct {
	// Window is the length of the sliding window of the split step (Otava's
	// --window; default 50, at least 2).
	Window int
	// MaxPValue is the significance level (Otava's --pvalue; default 0.001).
	MaxPValue float64
	// MinMagnitude is the smallest relative change kept, 0.05 for 5%
	// (Otava's --magnitude; default 0).
	MinMagnitude float64
}

// DefaultChangePointOptions are Otava 0.8.0's defaults.
var DefaultChangePointOptions = ChangePointOptions{Window: 50, MaxPValue: 0.001}

// ChangePoint is a point where a series' distribution changed: Index is the
// first point after the change. The statistics compare the points between
// the previous change point (or the start) and this one with the points
// between this one and the next (or the end).
type ChangePoint struct {
	Index      int     `json:"index"`
	MeanBefore float64 `json:"mean_before"`
	MeanAfter  float64 `json:"mean_after"`
	// StdBefore and StdAfter are population standard deviations, as Otava's.
	StdBefore float64 `json:"stddev_before"`
	StdAfter  float64 `json:"stddev_after"`
	// PValue is the two-sided Student's t-test's (pooled variance).
	PValue float64 `json:"pvalue"`
}

// RelChange is MeanAfter/MeanBefore - 1 (0.1 for 10% higher); 0 when the
// mean before is 0.
func (c ChangePoint) RelChange() float64 {
	if c.MeanBefore == 0 {
		return 0
	}
	return c.MeanAfter/c.MeanBefore - 1
}

// magnitude is the larger of the forward and backward relative changes.
func (c ChangePoint) magnitude() float64 {
	back := 0.0
	if c.MeanAfter != 0 {
		back = c.MeanBefore/c.MeanAfter - 1
	}
	return math.Max(math.Abs(c.RelChange()), math.Abs(back))
}

// ChangePoints finds the change points of xs, in index order. Options left
// zero take Otava's defaults.
func ChangePoints(xs []float64, o ChangePointOptions) []ChangePoint {
	if o.Window < 2 {
		o.Window = DefaultChangePointOptions.Window
	}
	if o.MaxPValue <= 0 {
		o.MaxPValue = DefaultChangePointOptions.MaxPValue
	}
	first := o.MaxPValue
	switch {
	case first < 0.05:
		first *= 10
	case first < 0.5:
		first *= 2
	}
	weak := splitStep(xs, o.Window, first)
	return mergeStep(weak, xs, o.MaxPValue, o.MinMagnitude)
}

// splitStep is Otava's split: E-divisive in sliding windows, then each
// point's t-test recomputed between its neighbours.
func splitStep(xs []float64, window int, maxP float64) []ChangePoint {
	var idx []int
	step := window / 2
	for start := 0; start < len(xs); {
		end := min(start+window, len(xs))
		found := edivisive(xs[start:end], maxP)
		last := 0
		if len(found) > 0 {
			last = found[len(found)-1] + start
		}
		for _, i := range found {
			if !slices.Contains(idx, i+start) {
				idx = append(idx, i+start)
			}
		}
		start = max(last, start+step)
	}
	slices.Sort(idx)
	return statsAt(xs, idx)
}

// statsAt is the t-test at each of the sorted indexes idx, each between
// its neighbours.
func statsAt(xs []float64, idx []int) []ChangePoint {
	out := make([]ChangePoint, len(idx))
	for k, i := range idx {
		lo, hi := 0, len(xs)
		if k > 0 {
			lo = idx[k-1]
		}
		if k+1 < len(idx) {
			hi = idx[k+1]
		}
		out[k] = tTestAt(xs[lo:i], xs[i:hi], i)
	}
	return out
}

// mergeStep is Otava's merge: drop the weakest point until every point is
// significant below maxP and changes more than minMag. The comparisons
// follow IEEE semantics for a NaN p-value, as Otava's Python does.
func mergeStep(cps []ChangePoint, xs []float64, maxP, minMag float64) []ChangePoint {
	for len(cps) > 0 {
		w := 0
		for k := 1; k < len(cps); k++ {
			if cps[k].PValue > cps[w].PValue {
				w = k
			}
		}
		if cps[w].PValue < maxP {
			w = 0
			for k := 1; k < len(cps); k++ {
				if cps[k].magnitude() < cps[w].magnitude() {
					w = k
				}
			}
			if cps[w].magnitude() > minMag {
				return cps
			}
		}
		cps = slices.Delete(cps, w, w+1)
		// Otava recomputes the point that took the removed one's place and
		// the one after it.
		idx := make([]int, len(cps))
		for k := range cps {
			idx[k] = cps[k].Index
		}
		for _, k := range []int{w, w + 1} {
			if k < len(cps) {
				cps[k] = statsAt(xs, idx)[k]
			}
		}
	}
	return cps
}

// edivisive finds the change points of one window: repeatedly the
// candidate with the largest q̂ over the current segments, kept while its
// t-test against its segment's other side has a p-value at most maxP.
// Indexes are into xs, sorted.
func edivisive(xs []float64, maxP float64) []int {
	var cps []int
	for {
		bounds := append(append([]int{0}, cps...), len(xs))
		bestQ, bestAt, seg := math.Inf(-1), -1, -1
		for k := 0; k+1 < len(bounds); k++ {
			lo, hi := bounds[k], bounds[k+1]
			if hi-lo < 2 {
				continue
			}
			tau, q := qhatCandidate(xs[lo:hi])
			if bestAt < 0 || q > bestQ {
				bestQ, bestAt, seg = q, lo+tau, k
			}
		}
		if bestAt < 0 {
			return cps
		}
		cp := tTestAt(xs[bounds[seg]:bestAt], xs[bestAt:bounds[seg+1]], bestAt)
		if !(cp.PValue <= maxP) {
			return cps
		}
		cps = append(cps, bestAt)
		slices.Sort(cps)
	}
}

// qhatCandidate maximises the energy statistic
//
//	Q(τ, κ) = 2/(κ) Σ_{i<τ≤j<κ} |x_i−x_j|
//	        − 2(κ−τ)/(κ(τ−1)) Σ_{i<k<τ} |x_i−x_k|
//	        − 2τ/(κ(κ−τ−1)) Σ_{τ≤j<k<κ} |x_j−x_k|
//
// over 0 < τ < κ ≤ len(z) (a term whose denominator is 0 counts 0), and
// returns the first maximising τ in (τ, κ) order with the maximum.
func qhatCandidate(z []float64) (int, float64) {
	n := len(z)
	// w[a][b] is Σ_{a≤i<k<b} |z_i − z_k|.
	w := make([][]float64, n+1)
	for a := range w {
		w[a] = make([]float64, n+1)
	}
	for b := 2; b <= n; b++ {
		col := 0.0 // Σ_{a≤i<b−1} |z_i − z_{b−1}|, built from a = b−2 down
		for a := b - 2; a >= 0; a-- {
			col += math.Abs(z[a] - z[b-1])
			w[a][b] = w[a][b-1] + col
		}
	}
	bestQ, bestT := math.Inf(-1), -1
	for tau := 1; tau < n; tau++ {
		for kappa := tau + 1; kappa <= n; kappa++ {
			cross := w[0][kappa] - w[0][tau] - w[tau][kappa]
			k, t := float64(kappa), float64(tau)
			q := 2 / k * cross
			if tau > 1 {
				q -= 2 * (k - t) / (k * (t - 1)) * w[0][tau]
			}
			if kappa-tau > 1 {
				q -= 2 * t / (k * (k - t - 1)) * w[tau][kappa]
			}
			if bestT < 0 || q > bestQ {
				bestQ, bestT = q, tau
			}
		}
	}
	return bestT, bestQ
}

// tTestAt compares left and right with Otava's test: population standard
// deviations fed to scipy's ttest_ind_from_stats (pooled variance,
// two-sided). p is 1 with two points in all, NaN when both sides are
// constant and equal (0/0), as in Otava.
func tTestAt(left, right []float64, at int) ChangePoint {
	cp := ChangePoint{Index: at, PValue: 1}
	cp.MeanBefore, cp.StdBefore = meanPopStd(left)
	cp.MeanAfter, cp.StdAfter = meanPopStd(right)
	n1, n2 := float64(len(left)), float64(len(right))
	if len(left)+len(right) <= 2 {
		return cp
	}
	df := n1 + n2 - 2
	svar := ((n1-1)*cp.StdBefore*cp.StdBefore + (n2-1)*cp.StdAfter*cp.StdAfter) / df
	t := (cp.MeanBefore - cp.MeanAfter) / math.Sqrt(svar*(1/n1+1/n2))
	if math.IsNaN(t) {
		cp.PValue = math.NaN()
		return cp
	}
	cp.PValue = studentTwoSided(t, df)
	return cp
}

// meanPopStd is numpy's mean and std (ddof 0); the std of one point is 0.
func meanPopStd(x []float64) (mean, std float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(x)))
}
