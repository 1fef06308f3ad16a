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
	if len(spec.NamedOps) == 0 {
		return
	}
	names := map[string]string{}
	for i := range spec.NamedOps {
		op := vocab.OpNamed0 + vocab.Op(i)
		names[op.String()] = spec.OpName(op)
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

func renameKeys[V any](m map[string]V, names map[string]string) map[string]V {
	for old, n := range names {
		if v, ok := m[old]; ok {
			delete(m, old)
			m[n] = v
		}
	}
	return m
}
