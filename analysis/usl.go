package analysis

import (
	"fmt"
	"math"
	"sort"
)

// USLPoint is one measured cluster size: N nodes reached X ops/s.
type USLPoint struct {
	N float64
	X float64
}

// USLFit is Gunther's Universal Scalability Law fitted to measured sizes:
// X(N) = λN / (1 + σ(N−1) + κN(N−1)).
type USLFit struct {
	// Lambda is the throughput of one node with no contention or coherency
	// cost (ops/s).
	Lambda float64 `json:"lambda_ops_per_s"`
	// Sigma is contention: the share of work that is serialised.
	Sigma float64 `json:"sigma"`
	// Kappa is coherency: the cost of every node keeping in step with every
	// other, which makes throughput fall past the peak.
	Kappa float64 `json:"kappa"`
	// R2 is the coefficient of determination of the fit on the measured
	// throughputs (1 when the curve goes through every point).
	R2 float64 `json:"r2"`
	// PeakNodes is N* = sqrt((1−σ)/κ), where throughput peaks; 0 when κ = 0
	// (the curve rises for ever, towards λ/σ when σ > 0).
	PeakNodes float64 `json:"peak_nodes,omitempty"`
	// PeakOpsPerS is X(N*) (κ > 0), else the ceiling λ/σ (σ > 0), else 0.
	PeakOpsPerS float64 `json:"peak_ops_per_s,omitempty"`
	// Sizes is the number of distinct cluster sizes measured.
	Sizes int `json:"sizes"`
	// Method says how the parameters were found and what the data could not
	// tell.
	Method string `json:"method"`
}

// At is the fitted throughput of n nodes.
func (f *USLFit) At(n float64) float64 {
	return uslX(f.Lambda, f.Sigma, f.Kappa, n)
}

func uslX(l, s, k, n float64) float64 {
	return l * n / (1 + s*(n-1) + k*n*(n-1))
}

// FitUSL fits the USL to points at two or more distinct sizes by nonlinear
// least squares (Levenberg–Marquardt, σ and κ kept at or above 0). With four
// or more sizes λ, σ and κ are all fitted. With three, λ is pinned so the
// curve goes through the smallest size and σ and κ are solved from the other
// two; with two, κ cannot be told apart from σ and is set to 0.
func FitUSL(pts []USLPoint) (*USLFit, error) {
	pts = append([]USLPoint(nil), pts...)
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].N < pts[j].N })
	sizes := map[float64]bool{}
	for _, p := range pts {
		if !(p.N >= 1) || !(p.X > 0) || math.IsInf(p.X, 0) || math.IsInf(p.N, 0) {
			return nil, fmt.Errorf("USL point N=%g X=%g: sizes must be at least 1 node and throughputs positive", p.N, p.X)
		}
		sizes[p.N] = true
	}
	if len(sizes) < 2 {
		return nil, fmt.Errorf("the USL needs two or more cluster sizes, got %d", len(sizes))
	}
	f := &USLFit{Sizes: len(sizes)}
	// The smallest size anchors λ: its mean throughput, per node.
	n0, x0 := pts[0].N, meanAt(pts, pts[0].N)
	from := "the smallest size measured"
	if n0 == 1 {
		from = "the 1-node measurement"
	}
	switch {
	case len(sizes) == 2:
		s := lmFit(pts, []float64{guessSigma(pts, n0, x0)}, func(p []float64, n float64) float64 {
			return anchored(n0, x0, p[0], 0, n)
		})
		f.Sigma = s[0]
		f.Lambda = x0 / n0 * (1 + f.Sigma*(n0-1))
		f.Method = fmt.Sprintf("two sizes: λ from %s, σ fitted, κ cannot be estimated and is taken as 0, so the curve never turns down; measure a third and fourth size before trusting sizes beyond %g nodes", from, pts[len(pts)-1].N)
	case len(sizes) == 3:
		s0, k0 := guessSigmaKappa(pts, n0, x0)
		p := lmFit(pts, []float64{s0, k0}, func(p []float64, n float64) float64 {
			return anchored(n0, x0, p[0], p[1], n)
		})
		f.Sigma, f.Kappa = p[0], p[1]
		f.Lambda = x0 / n0 * (1 + f.Sigma*(n0-1) + f.Kappa*n0*(n0-1))
		f.Method = fmt.Sprintf("three sizes: λ from %s, σ and κ solved from the other two (no degree of freedom is left, so R² says nothing about the fit); measure a fourth size to test the curve", from)
	default:
		s0, k0 := guessSigmaKappa(pts, n0, x0)
		l0 := x0 / n0 * (1 + s0*(n0-1) + k0*n0*(n0-1))
		p := lmFit(pts, []float64{l0, s0, k0}, func(p []float64, n float64) float64 {
			return uslX(p[0], p[1], p[2], n)
		})
		f.Lambda, f.Sigma, f.Kappa = p[0], p[1], p[2]
		f.Method = fmt.Sprintf("%d sizes: λ, σ and κ fitted by nonlinear least squares (Levenberg–Marquardt)", len(sizes))
	}
	f.R2 = rSquared(pts, f.At)
	switch {
	case f.Kappa > 0 && f.Sigma < 1:
		f.PeakNodes = math.Sqrt((1 - f.Sigma) / f.Kappa)
		f.PeakOpsPerS = f.At(f.PeakNodes)
	case f.Kappa > 0 || f.Sigma >= 1:
		f.PeakNodes, f.PeakOpsPerS = 1, f.At(1)
	case f.Sigma > 0:
		f.PeakOpsPerS = f.Lambda / f.Sigma
	}
	return f, nil
}

// anchored is the USL with λ chosen so that X(n0) = x0.
func anchored(n0, x0, s, k, n float64) float64 {
	l := x0 / n0 * (1 + s*(n0-1) + k*n0*(n0-1))
	return uslX(l, s, k, n)
}

func meanAt(pts []USLPoint, n float64) float64 {
	var sum float64
	var c int
	for _, p := range pts {
		if p.N == n {
			sum += p.X
			c++
		}
	}
	return sum / float64(c)
}

// guessSigma and guessSigmaKappa start the fit from the linearised USL:
// with λ = x0/n0, N·λ/X − 1 = σ(N−1) + κN(N−1) (least squares, no intercept).
func guessSigma(pts []USLPoint, n0, x0 float64) float64 {
	var sxy, sxx float64
	for _, p := range pts {
		y := p.N*x0/n0/p.X - 1
		a := p.N - 1
		sxy += a * y
		sxx += a * a
	}
	if sxx == 0 {
		return 0
	}
	return math.Max(sxy/sxx, 0)
}

func guessSigmaKappa(pts []USLPoint, n0, x0 float64) (float64, float64) {
	var a11, a12, a22, b1, b2 float64
	for _, p := range pts {
		y := p.N*x0/n0/p.X - 1
		u, v := p.N-1, p.N*(p.N-1)
		a11 += u * u
		a12 += u * v
		a22 += v * v
		b1 += u * y
		b2 += v * y
	}
	det := a11*a22 - a12*a12
	if det == 0 {
		return guessSigma(pts, n0, x0), 0
	}
	s := (b1*a22 - b2*a12) / det
	k := (a11*b2 - a12*b1) / det
	if s < 0 || k < 0 {
		// One of them is pinned at 0: fit the other alone.
		if k <= 0 {
			return guessSigma(pts, n0, x0), 0
		}
		return 0, math.Max(b2/a22, 0)
	}
	return s, k
}

func rSquared(pts []USLPoint, f func(float64) float64) float64 {
	var mean float64
	for _, p := range pts {
		mean += p.X
	}
	mean /= float64(len(pts))
	var res, tot float64
	for _, p := range pts {
		res += (p.X - f(p.N)) * (p.X - f(p.N))
		tot += (p.X - mean) * (p.X - mean)
	}
	if tot == 0 {
		return 1
	}
	return 1 - res/tot
}
