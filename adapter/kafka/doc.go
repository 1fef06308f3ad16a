// Package kafka drives any Kafka-protocol broker (Apache Kafka, Redpanda and
// their peers) with franz-go (github.com/twmb/franz-go), a pure-Go client with
// no cgo: it batches the records of concurrent in-flight produces of one client
// into one request per partition, so many synchronous produces from the runner's
// workers still send large batches, and every produce's latency is the real
// time from its send to its acknowledgement.
//
// The types that matter: Config (every setting, from the URL query and
// --target-opt, with its default), Open, and the Target it returns. A Target
// implements adapter.Target, adapter.Background (consumer group members that
// record end-to-end latency), adapter.Summarizer (consumer lag at the end, lost and duplicated
// messages), adapter.Describer and adapter.Sizer.
//
// Operations:
//
//	PRODUCE, WRITE, UPDATE  produce one record and wait for its ack
//	INSERT                  produce without waiting (the load phase's fill;
//	                        sync_insert=true waits like PRODUCE)
//	CONSUME                 return the next record of this worker's consumer
//	                        group member (consume-only, drain)
//
// Every payload starts with a 24-byte header: the send time (Unix ns), a run
// id, the producer id and a per-producer sequence number. Consumers read it to
// measure end-to-end latency and to count lost and duplicated messages.
//
// The package does not time produces (the runner does) and does not create
// brokers: scripts/servers/kafka.sh starts one on 127.0.0.1 for the tests.
package kafka
