package bench

import (
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// nameOps gives a phase's named op slots (NAMED0..., as the recorder, which
// does not know the workload, calls them) the workload's own names, through
// Spec.OpName: the one place an op becomes its name in a result file.
func nameOps(p *result.Phase, spec *workload.Spec) {
	names := opNames(spec)
	if names == nil {
		return
	}
	rename := func(s *string) {
		if n, ok := names[*s]; ok {
			*s = n
		}
	}
	for i := range p.Ops {
		rename(&p.Ops[i].Op)
	}
	for i := range p.ErrorMessages {
		rename(&p.ErrorMessages[i].Op)
	}
	for i := range p.Intervals {
		for j := range p.Intervals[i].Ops {
			rename(&p.Intervals[i].Ops[j].Op)
		}
	}
	p.Buckets.Counts = renameKeys(p.Buckets.Counts, names)
	p.Buckets.Bytes = renameKeys(p.Buckets.Bytes, names)
}

// opNames maps the recorder's names of the named op slots to the
// workload's (nil when it names none).
func opNames(spec *workload.Spec) map[string]string {
	if len(spec.NamedOps) == 0 {
		return nil
	}
	names := map[string]string{}
	for i := range spec.NamedOps {
		op := vocab.OpNamed0 + vocab.Op(i)
		names[op.String()] = spec.OpName(op)
	}
	return names
}

// namedIntervals is f (the journal's interval writer) given the workload's
// op names, so that the seconds file, the .hlog and a journal read after a
// kill name the ops as the result does. Nil for a nil f.
func namedIntervals(f func(string, result.Interval), spec *workload.Spec) func(string, result.Interval) {
	names := opNames(spec)
	if f == nil || names == nil {
		return f
	}
	return func(phase string, iv result.Interval) {
		// A copy: the recorder keeps the interval it handed over.
		ops := make([]result.IntervalOp, len(iv.Ops))
		for i, o := range iv.Ops {
			if n, ok := names[o.Op]; ok {
				o.Op = n
			}
			ops[i] = o
		}
		iv.Ops = ops
		f(phase, iv)
	}
}

func renameKeys[V any](m map[string]V, names map[string]string) map[string]V {
	for old, n := range names {
		if v, ok := m[old]; ok {
			delete(m, old)
			m[n] = v
		}
	}
	return m
}
