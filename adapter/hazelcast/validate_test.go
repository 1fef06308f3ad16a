package hazelcast

import (
	"testing"

	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Checked reads: IMap workloads are accepted, a CP op is refused naming it.
func TestChecksReads(t *testing.T) {
	tg := &Target{}
	imap := &workload.Spec{Mix: workload.MixList{{Op: vocab.OpRead, Weight: 1}, {Op: vocab.OpUpdate, Weight: 1}, {Op: vocab.OpRMW, Weight: 1}, {Op: vocab.OpDelete, Weight: 1}}}
	if err := tg.ChecksReads(imap); err != nil {
		t.Fatalf("IMap workload refused: %v", err)
	}
	for _, op := range []vocab.Op{vocab.OpSet, vocab.OpGet, vocab.OpCAS, vocab.OpIncr} {
		w := &workload.Spec{Mix: workload.MixList{{Op: vocab.OpRead, Weight: 1}, {Op: op, Weight: 1}}}
		if err := tg.ChecksReads(w); err == nil {
			t.Errorf("%s accepted with validate", op)
		}
	}
}
