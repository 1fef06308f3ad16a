package analysis

import (
	"math"
	"sort"
	"strings"

	"github.com/platbench/platbench/result"
)

// DBFigures are the data system's own figures over the run (result
// DBMetrics: Redis INFO, the JMX exporter), reduced per node, with the
// servers' command count against the operations platbench completed and
// the server-side time per operation beside the client's, second by
// second (seed 001's figure 6).
type DBFigures struct {
	Source, Server string
	Reset          bool
	Unavailable    []string
	Nodes          []DBNodeFigures
	// ServerCount is what the servers counted of the client's operations
	// over the recording, and ClientOps the operations platbench completed
	// or failed that it counts, in every phase (CountName says what):
	// Redis's data commands (administrative ones such as INFO, CONFIG, PING,
	// CLIENT, HELLO, AUTH, SELECT, CLUSTER, COMMAND left out) against every
	// operation, so one command per operation gives a ratio of 1 and a
	// read-modify-write 2; Kafka's messages in against the operations that
	// produce (PRODUCE, WRITE, UPDATE, INSERT);
	// Cassandra's coordinator requests against every operation. Other
	// clients of the servers add to ServerCount.
	ServerCount, ClientOps uint64
	CountName              string
	// Per says what the timeline's server time is per: "operation" (Redis:
	// the data commands' time over the client's operations, so an
	// operation of two commands counts both) or "request" (Kafka, Cassandra:
	// the mean time of a request of ServerCommands).
	Per            string
	ServerCommands []string
	// Timeline is the main phase's server-side time beside the client's.
	Timeline []ServerClientPoint
	// ServerMeanNs, ClientMeanNs and GapMeanNs are the timeline's means,
	// weighted by the client operations of each point.
	ServerMeanNs, ClientMeanNs, GapMeanNs float64
}

// dbSide is how one kind of server lines up with the client.
type dbSide struct {
	countName string
	per       string
	commands  []string // nil: every data command
	clientOps []string // nil: every op
	counter   string   // a counter value whose total is ServerCount, instead of the commands' calls
}

func dbSideOf(m *result.DBMetrics) dbSide {
	switch m.Server {
	case "kafka":
		return dbSide{countName: "messages in", per: "request", commands: []string{"Produce"}, clientOps: []string{"PRODUCE", "WRITE", "UPDATE", "INSERT"}, counter: "messages_in_per_s"}
	case "hazelcast":
		// The members' IMap statistics: each counts the operations on the
		// partitions it owns, so the members add up to the cluster's.
		return dbSide{countName: "map operations", per: "request", commands: []string{"get", "set", "put", "remove"}}
	case "cassandra":
		return dbSide{countName: "coordinator requests", per: "request", commands: []string{"Read", "Write", "CASRead", "CASWrite", "RangeSlice"}}
	}
	return dbSide{countName: "data commands", per: "operation"}
}

// counts reports whether a command's time and calls belong to the client's
// operations.
func (d dbSide) counts(cmd string) bool {
	if d.commands == nil {
		return IsDataCommand(cmd)
	}
	for _, c := range d.commands {
		if c == cmd {
			return true
		}
	}
	return false
}

func (d dbSide) clientOp(op string) bool {
	if d.clientOps == nil {
		return true
	}
	for _, o := range d.clientOps {
		if o == op {
			return true
		}
	}
	return false
}

// DBNodeFigures are one server node's figures over its good samples.
type DBNodeFigures struct {
	Node, Version    string
	Samples, Missing int
	Gaps             []NodeGap
	// Values are each figure's mean and maximum over the samples, by name.
	Values []DBValue
	// HitRatio is keyspace hits / (hits + misses); HasHitRatio is false
	// when there were no lookups or the server does not count them.
	HitRatio    float64
	HasHitRatio bool
	Commands    []DBCommand
}

// DBValue is one figure of a node over the run.
type DBValue struct {
	Name      string
	Mean, Max float64
}

// DBCommand is one command of a node over the run: calls, their rate and
// mean server-side time (by difference of the cumulative counters), and
// the percentiles of the last sample (cumulative since the statistics were
// last reset).
type DBCommand struct {
	Name                 string
	Calls                uint64
	CallsPerS, MeanNs    float64
	HasMean              bool
	P50Ns, P99Ns, P999Ns float64
	HasPercentiles       bool
}

// ServerClientPoint is one server sample's span of the main phase: the
// server-side time of the data commands of every node divided by the
// client operations that completed in the span, the client's mean latency
// of those operations (from the intended start in an open loop, from the
// send in a closed one), and the gap between them: the network, the
// client's own queueing and the server's queueing before a command runs
// (Redis's command time starts when the command is executed).
type ServerClientPoint struct {
	AtS                       float64 // start of the span within the main phase, seconds from its start
	Ops                       float64 // client operations in the span
	ServerNs, ClientNs, GapNs float64
}

// adminCommands are not the workload's: the telemetry's own INFO and the
// connections' set-up.
var adminCommands = []string{"info", "config", "ping", "client", "hello", "auth", "select", "cluster", "command", "readonly"}

// IsDataCommand reports whether a Redis command name (as commandstats
// names it, "config|resetstat" for a subcommand) is a workload's rather
// than an administrative one.
func IsDataCommand(name string) bool {
	base, _, _ := strings.Cut(strings.ToLower(name), "|")
	for _, a := range adminCommands {
		if base == a {
			return false
		}
	}
	return true
}

// DB reduces r.DBMetrics; ok is false when the result has none.
func DB(r *result.Result) (f DBFigures, ok bool) {
	m := r.DBMetrics
	if m == nil || len(m.Nodes) == 0 {
		return f, false
	}
	side := dbSideOf(m)
	f = DBFigures{Source: m.Source, Server: m.Server, Reset: m.Reset, Unavailable: m.Unavailable,
		CountName: side.countName, Per: side.per, ServerCommands: side.commands}
	for _, s := range m.Nodes {
		n := dbNode(s)
		f.ServerCount += serverCount(s, side)
		f.Nodes = append(f.Nodes, n)
	}
	for _, p := range r.Phases {
		for _, o := range p.Ops {
			if !side.clientOp(o.Op) {
				continue
			}
			f.ClientOps += o.Count
			for _, e := range o.Errors {
				f.ClientOps += e
			}
		}
	}
	f.Timeline = serverVsClient(r, side)
	var w float64
	for _, p := range f.Timeline {
		w += p.Ops
		f.ServerMeanNs += p.ServerNs * p.Ops
		f.ClientMeanNs += p.ClientNs * p.Ops
	}
	if w > 0 {
		f.ServerMeanNs /= w
		f.ClientMeanNs /= w
		f.GapMeanNs = f.ClientMeanNs - f.ServerMeanNs
	}
	return f, true
}

// serverCount is one node's count of the client's operations over its
// good samples: the side's counter, or the calls of its commands.
func serverCount(s result.DBMetricsSeries, side dbSide) uint64 {
	var n float64
	for _, x := range s.Samples {
		if x.Missing {
			continue
		}
		if side.counter != "" {
			n += x.Values[side.counter] * float64(x.DurationNs) / 1e9
			continue
		}
		for name, c := range x.Commands {
			if side.counts(name) {
				n += float64(c.Calls)
			}
		}
	}
	return uint64(math.Round(n))
}

// dbNode reduces one node's series.
func dbNode(s result.DBMetricsSeries) DBNodeFigures {
	n := DBNodeFigures{Node: s.Node, Version: s.Version}
	vals := map[string]*DBValue{}
	cmds := map[string]*DBCommand{}
	times := map[string]float64{}
	var secs, hits, misses float64
	var last result.DBMetricsSample
	for _, x := range s.Samples {
		if x.Missing {
			n.Missing++
			continue
		}
		n.Samples++
		last = x
		d := float64(x.DurationNs) / 1e9
		secs += d
		for k, v := range x.Values {
			dv := vals[k]
			if dv == nil {
				dv = &DBValue{Name: k, Max: v}
				vals[k] = dv
			}
			dv.Mean += v * d
			dv.Max = max(dv.Max, v)
		}
		hits += x.Values["keyspace_hits_per_s"] * d
		misses += x.Values["keyspace_misses_per_s"] * d
		for name, c := range x.Commands {
			dc := cmds[name]
			if dc == nil {
				dc = &DBCommand{Name: name}
				cmds[name] = dc
			}
			dc.Calls += c.Calls
			times[name] += c.TimeNs
		}
	}
	n.Gaps = scrapeGaps(s.Samples, s.IntervalNs, func(x result.DBMetricsSample) (bool, int64, string) {
		return x.Missing, x.OffsetNs, x.Error
	})
	for _, k := range dbValueOrder(keys(vals)) {
		v := *vals[k]
		if secs > 0 {
			v.Mean /= secs
		}
		n.Values = append(n.Values, v)
	}
	if hits+misses > 0 {
		n.HitRatio, n.HasHitRatio = hits/(hits+misses), true
	}
	for _, k := range keys(cmds) {
		c := *cmds[k]
		if c.Calls == 0 {
			continue // not called during the recording: its percentiles are older
		}
		if secs > 0 {
			c.CallsPerS = float64(c.Calls) / secs
		}
		if c.Calls > 0 && times[k] > 0 {
			c.MeanNs, c.HasMean = times[k]/float64(c.Calls), true
		}
		if p := last.Commands[k].Percentiles; len(p) > 0 {
			c.P50Ns, c.P99Ns, c.P999Ns, c.HasPercentiles = p["p50"], p["p99"], p["p99.9"], true
		}
		n.Commands = append(n.Commands, c)
	}
	sort.Slice(n.Commands, func(i, j int) bool {
		a, b := n.Commands[i], n.Commands[j]
		return a.Calls > b.Calls || a.Calls == b.Calls && a.Name < b.Name
	})
	return n
}

// dbValueFirst is the order figures are listed in; others follow by name.
var dbValueFirst = []string{"ops_per_s", "instantaneous_ops_per_s", "keyspace_hits_per_s", "keyspace_misses_per_s",
	"used_memory_bytes", "used_memory_rss_bytes", "keys", "connected_clients", "blocked_clients",
	"net_input_bytes_per_s", "net_output_bytes_per_s"}

func dbValueOrder(names []string) []string {
	rank := func(n string) int {
		for i, f := range dbValueFirst {
			if f == n {
				return i
			}
		}
		return len(dbValueFirst)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		return ri < rj || ri == rj && names[i] < names[j]
	})
	return names
}
