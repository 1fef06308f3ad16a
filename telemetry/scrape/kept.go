package scrape

import "github.com/platbench/platbench/result"

// Kept is one source's samples as both collectors keep them: each sample is
// handed to the sinks first (the run's journal writes it), then to a
// result.Thin that bounds the series past the first hour. The caller
// serialises Add (the collectors hold their node's lock).
type Kept[T any] struct {
	// Thin makes the series' Thin (result.NodeThin, result.DBMetricsThin).
	Thin func() *result.Thin[T]
	// Wrap is a sample as the sinks take it (the node's name and start with it).
	Wrap  func(s *T) result.TelemetrySample
	Sinks []func(result.TelemetrySample)
	thin  *result.Thin[T]
}

// Add keeps s and returns the series kept so far (the Thin's own slice:
// copy it to keep it past the next Add).
func (k *Kept[T]) Add(s T) []T {
	if k.thin == nil {
		k.thin = k.Thin()
		k.thin.Wide = len(k.Sinks) > 0 // read back from the journal at the end
	}
	for _, f := range k.Sinks {
		f(k.Wrap(&s))
	}
	k.thin.Add(s)
	return k.thin.Samples()
}
