package hazelcast

import (
	"testing"

	"github.com/platbench/platbench/workload"
)

// Checked reads: IMap workloads are accepted, a CP op is refused naming it.
func TestChecksReads(t *testing.T) {
	tg := &Target{}
	imap := &workload.Spec{Mix: workload.MixList{{Op: workload.OpRead, Weight: 1}, {Op: workload.OpUpdate, Weight: 1}, {Op: workload.OpRMW, Weight: 1}, {Op: workload.OpDelete, Weight: 1}}}
	if err := tg.ChecksReads(imap); err != nil {
		t.Fatalf("IMap workload refused: %v", err)
	}
	for _, op := range []workload.Op{workload.OpSet, workload.OpGet, workload.OpCAS, workload.OpIncr} {
		w := &workload.Spec{Mix: workload.MixList{{Op: workload.OpRead, Weight: 1}, {Op: op, Weight: 1}}}
		if err := tg.ChecksReads(w); err == nil {
			t.Errorf("%s accepted with validate", op)
		}
	}
}
