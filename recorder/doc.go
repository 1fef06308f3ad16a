// Package recorder turns completed operations into the series a result holds:
// HDR histograms per op type per 1 s interval and in total (latency from the
// intended start, and service time), completions in fine buckets (100 ms by
// default), and errors by op and class. Nothing is allocated per operation and
// no per-operation sample is kept: memory stays flat however long the run.
//
// Usage (the runner does this):
//
//	rec := recorder.New(recorder.Config{Shards: n})
//	rec.Start()                      // t=0 of the phase; starts the 100 ms / 1 s ticker
//	sh := rec.Shard(workerID)        // each worker records through its shard
//	t0 := rec.Now()                  // monotonic ns since Start
//	sh.Begin()                       // one more request in flight
//	... do the op ...
//	sh.Record(op, intended, t0, rec.Now(), bytes, class) // also ends the in-flight request
//	// or, when the worker's next request starts right away (closed loop):
//	sh.RecordBegin(op, intended, t0, rec.Now(), bytes, class) // Record + Begin, one lock
//	phase := rec.Stop()              // a result.Phase with Ops, Intervals, Buckets filled
//
// rec.RecordAsync implements adapter.Sink for ops completed outside workers.
package recorder
