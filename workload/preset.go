package workload

import (
	"maps"
	"strings"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
)

// presets is the ordered preset table `platbench workloads` prints. Add one
// line per preset; fields left zero take EnsureDefaults' values. Aliases are
// in presetAliases.
var presets = []Spec{
	// YCSB core workloads A-F (workloads/workloada..workloadf).
	{Name: "ycsb-a", Description: "YCSB A update heavy: 50% read, 50% update, zipfian", Mix: MixList{{Op: vocab.OpRead, Weight: 0.5}, {Op: vocab.OpUpdate, Weight: 0.5}}, Distribution: DistZipfian},
	{Name: "ycsb-b", Description: "YCSB B read mostly: 95% read, 5% update, zipfian", Mix: MixList{{Op: vocab.OpRead, Weight: 0.95}, {Op: vocab.OpUpdate, Weight: 0.05}}, Distribution: DistZipfian},
	{Name: "ycsb-c", Description: "YCSB C read only: 100% read, zipfian", Mix: MixList{{Op: vocab.OpRead, Weight: 1}}, Distribution: DistZipfian},
	{Name: "ycsb-d", Description: "YCSB D read latest: 95% read, 5% insert, latest", Mix: MixList{{Op: vocab.OpRead, Weight: 0.95}, {Op: vocab.OpInsert, Weight: 0.05}}, Distribution: DistLatest},
	{Name: "ycsb-e", Description: "YCSB E short ranges: 95% scan (1..100 records), 5% insert, zipfian", Mix: MixList{{Op: vocab.OpScan, Weight: 0.95}, {Op: vocab.OpInsert, Weight: 0.05}}, Distribution: DistZipfian, MaxScanLength: 100},
	{Name: "ycsb-f", Description: "YCSB F read-modify-write: 50% read, 50% RMW, zipfian", Mix: MixList{{Op: vocab.OpRead, Weight: 0.5}, {Op: vocab.OpRMW, Weight: 0.5}}, Distribution: DistZipfian},
	// cassandra-stress commands over its default Standard1 row: 5 columns of
	// 34 bytes. write walks the population in sequence (its -pop seq=1..N
	// default); read and mixed draw from its -pop dist=gaussian(1..N) default.
	{Name: "write", Description: "cassandra-stress write: 100% WRITE, keys in sequence, 5 fields x 34 B", Mix: MixList{{Op: vocab.OpWrite, Weight: 1}}, Distribution: DistSequential, FieldCount: 5, FieldLength: 34},
	{Name: "read", Description: "cassandra-stress read: 100% READ, gaussian keys, 5 fields x 34 B", Mix: MixList{{Op: vocab.OpRead, Weight: 1}}, Distribution: DistGaussian, FieldCount: 5, FieldLength: 34},
	{Name: "mixed", Description: "cassandra-stress mixed: READ=1,WRITE=1 (change the mix, e.g. to read=3,write=1), gaussian keys", Mix: MixList{{Op: vocab.OpRead, Weight: 1}, {Op: vocab.OpWrite, Weight: 1}}, Distribution: DistGaussian, FieldCount: 5, FieldLength: 34},
	// DataStax's published ratios (seed 003): the YCSB record shape, uniform keys.
	{Name: "ds-100w", Description: "DataStax ratio 100% write (update of loaded records), uniform", Mix: MixList{{Op: vocab.OpUpdate, Weight: 1}}, Distribution: DistUniform},
	{Name: "ds-100r", Description: "DataStax ratio 100% read, uniform", Mix: MixList{{Op: vocab.OpRead, Weight: 1}}, Distribution: DistUniform},
	{Name: "ds-80-20", Description: "DataStax ratio 80% read, 20% write, uniform", Mix: MixList{{Op: vocab.OpRead, Weight: 0.8}, {Op: vocab.OpUpdate, Weight: 0.2}}, Distribution: DistUniform},
	{Name: "ds-20-80", Description: "DataStax ratio 20% read, 80% write, uniform", Mix: MixList{{Op: vocab.OpRead, Weight: 0.2}, {Op: vocab.OpUpdate, Weight: 0.8}}, Distribution: DistUniform},
	{Name: "ds-50-50", Description: "DataStax ratio 50% read, 50% write, uniform", Mix: MixList{{Op: vocab.OpRead, Weight: 0.5}, {Op: vocab.OpUpdate, Weight: 0.5}}, Distribution: DistUniform},
	// Kafka-protocol brokers (target kafka; docs/targets-kafka.md). 1000-byte messages as in the Redpanda report.
	{Name: "produce", Description: "stream: 100% PRODUCE of 1000-byte messages (load phase: a 10 MB warm-up fill)", Mix: MixList{{Op: vocab.OpProduce, Weight: 1}}, Distribution: DistUniform, Records: 10000, FieldCount: 1, FieldLength: 1000},
	{Name: "stream", Description: "stream: PRODUCE 1000-byte messages while a consumer group reads them (end-to-end latency, lost/duplicated)", Mix: MixList{{Op: vocab.OpProduce, Weight: 1}}, Distribution: DistUniform, Records: 10000, FieldCount: 1, FieldLength: 1000, Options: map[string]string{"consumers": "1"}},
	{Name: "consume", Description: "stream: 100% CONSUME (load phase fills 100 MB; or skip the load phase and set the target option topic=NAME to read an existing topic)", Mix: MixList{{Op: vocab.OpConsume, Weight: 1}}, Distribution: DistUniform, Records: 100000, FieldCount: 1, FieldLength: 1000},
	{Name: "backlog-drain", Description: "stream: fill 1 GB of 1000-byte messages (more records for more), then consume it as fast as possible", Mix: MixList{{Op: vocab.OpConsume, Weight: 1}}, Distribution: DistUniform, Records: 1000000, FieldCount: 1, FieldLength: 1000},
	// Hazelcast CP subsystem (the seed's IAtomicReference.set of 128 KB values on a 3-member CP group).
	{Name: "cp-reference-set", Description: "Hazelcast CP: 100% IAtomicReference.set of 131072-byte values on one reference (load phase sets it once)", Mix: MixList{{Op: vocab.OpSet, Weight: 1}}, Distribution: DistUniform, Records: 1, FieldCount: 1, FieldLength: 131072},
	{Name: "cp-atomic-long", Description: "Hazelcast CP: IAtomicLong 50% incrementAndGet, 50% get", Mix: MixList{{Op: vocab.OpIncr, Weight: 0.5}, {Op: vocab.OpGet, Weight: 0.5}}, Distribution: DistUniform, Records: 1, FieldCount: 1, FieldLength: 8, Options: map[string]string{"cp": "long"}},
	// Hazelcast CP locks: the object is named after the key, so --records and --distribution set the contention (records 1: one hot lock).
	{Name: "cp-lock", Description: "Hazelcast CP: 100% FencedLock lock+unlock (SET) on one hot lock (--records for more locks)", Mix: MixList{{Op: vocab.OpSet, Weight: 1}}, Distribution: DistUniform, Records: 1, FieldCount: 1, FieldLength: 8, Options: map[string]string{"cp": "lock"}},
	{Name: "cp-trylock", Description: "Hazelcast CP: 100% FencedLock tryLock(try_timeout)+unlock (CAS); not getting the lock counts in lock_busy", Mix: MixList{{Op: vocab.OpCAS, Weight: 1}}, Distribution: DistUniform, Records: 1, FieldCount: 1, FieldLength: 8, Options: map[string]string{"cp": "lock"}},
	{Name: "cp-semaphore", Description: "Hazelcast CP: 100% ISemaphore acquire+release of one permit (SET) on one semaphore (permits=N)", Mix: MixList{{Op: vocab.OpSet, Weight: 1}}, Distribution: DistUniform, Records: 1, FieldCount: 1, FieldLength: 8, Options: map[string]string{"cp": "semaphore"}},
}

// presetAliases maps short names onto preset names.
var presetAliases = map[string]string{
	"a": "ycsb-a", "b": "ycsb-b", "c": "ycsb-c", "d": "ycsb-d", "e": "ycsb-e", "f": "ycsb-f",
	"workloada": "ycsb-a", "workloadb": "ycsb-b", "workloadc": "ycsb-c",
	"workloadd": "ycsb-d", "workloade": "ycsb-e", "workloadf": "ycsb-f",
}

// Preset returns a copy of the named preset with defaults filled in. Names
// are case-insensitive; "a".."f" and "workloada".."workloadf" name the YCSB
// presets.
func Preset(name string) (Spec, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := presetAliases[n]; ok {
		n = a
	}
	for _, p := range presets {
		if p.Name == n {
			return clonePreset(p), nil
		}
	}
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return Spec{}, usererr.New("unknown workload %q (fix: use one of %s, or a YAML or YCSB property file)", name, strings.Join(names, ", "))
}

// Presets returns copies of all presets, defaults filled in, in table order.
func Presets() []Spec {
	out := make([]Spec, len(presets))
	for i, p := range presets {
		out[i] = clonePreset(p)
	}
	return out
}

func clonePreset(p Spec) Spec {
	p.Mix = append(MixList(nil), p.Mix...)
	p.Options = maps.Clone(p.Options)
	p.EnsureDefaults()
	return p
}
