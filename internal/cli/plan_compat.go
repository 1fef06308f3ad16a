package cli

import "github.com/platbench/platbench/internal/units"

// rateFlag keeps plan.go (helper h1's file, which reads thr.v) building now
// that the CLI's own number flags are units values. When plan.go binds
// --throughput to a units.Rate, delete this file.
type rateFlag struct{ v float64 }

func (r *rateFlag) String() string { return units.Rate(r.v).String() }
func (r *rateFlag) Set(s string) error {
	v, err := units.ParseRate(s)
	r.v = v
	return err
}
