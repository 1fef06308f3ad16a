package analysis

import "math"

// lmFit minimises the sum of squared residuals X − model(p, N) over pts by
// Levenberg–Marquardt (Marquardt's scaling: the damping is a multiple of
// the diagonal of JᵀJ, so parameters of very different sizes, like λ in
// ops/s and κ near 1e-4, converge alike). Every parameter is kept at or above
// 0: a step that would make one negative stops it at 0. The Jacobian is
// taken by central differences. It returns the best parameters found.
func lmFit(pts []USLPoint, p0 []float64, model func(p []float64, n float64) float64) []float64 {
	k := len(p0)
	p := append([]float64(nil), p0...)
	sse := func(q []float64) float64 {
		var s float64
		for _, pt := range pts {
			r := pt.X - model(q, pt.N)
			s += r * r
		}
		if math.IsNaN(s) {
			return math.Inf(1)
		}
		return s
	}
	cur := sse(p)
	mu := 1e-3
	jac := make([][]float64, len(pts))
	for i := range jac {
		jac[i] = make([]float64, k)
	}
	q := make([]float64, k)
	for iter := 0; iter < 500 && cur > 0; iter++ {
		for j := 0; j < k; j++ {
			h := 1e-6*math.Abs(p[j]) + 1e-12
			copy(q, p)
			q[j] = p[j] + h
			lo := p[j] - h
			if lo < 0 {
				lo = p[j]
			}
			for i, pt := range pts {
				up := model(q, pt.N)
				q[j] = lo
				down := model(q, pt.N)
				q[j] = p[j] + h
				jac[i][j] = (up - down) / (p[j] + h - lo)
			}
		}
		a := make([][]float64, k)
		g := make([]float64, k)
		for r := 0; r < k; r++ {
			a[r] = make([]float64, k)
			for c := 0; c < k; c++ {
				for i := range pts {
					a[r][c] += jac[i][r] * jac[i][c]
				}
			}
			for i, pt := range pts {
				g[r] += jac[i][r] * (pt.X - model(p, pt.N))
			}
		}
		improved := false
		for tries := 0; tries < 30 && !improved; tries++ {
			m := make([][]float64, k)
			for r := range m {
				m[r] = append([]float64(nil), a[r]...)
				m[r][r] += mu*a[r][r] + 1e-300
			}
			step, ok := solveSmall(m, append([]float64(nil), g...))
			if ok {
				for j := range q {
					q[j] = math.Max(p[j]+step[j], 0)
				}
				if s := sse(q); s < cur {
					rel := (cur - s) / cur
					copy(p, q)
					cur = s
					mu = math.Max(mu/10, 1e-12)
					improved = true
					if rel < 1e-14 {
						return p
					}
					continue
				}
			}
			mu *= 10
		}
		if !improved {
			return p
		}
	}
	return p
}

// solveSmall solves m·x = b by Gaussian elimination with partial pivoting
// (m is at most 3×3 here); ok is false when m is singular.
func solveSmall(m [][]float64, b []float64) ([]float64, bool) {
	n := len(b)
	for c := 0; c < n; c++ {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[piv][c]) {
				piv = r
			}
		}
		if m[piv][c] == 0 || math.IsNaN(m[piv][c]) {
			return nil, false
		}
		m[c], m[piv] = m[piv], m[c]
		b[c], b[piv] = b[piv], b[c]
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for cc := c; cc < n; cc++ {
				m[r][cc] -= f * m[c][cc]
			}
			b[r] -= f * b[c]
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := b[r]
		for c := r + 1; c < n; c++ {
			s -= m[r][c] * x[c]
		}
		x[r] = s / m[r][r]
	}
	return x, true
}
