package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteDBMetricsText writes the data system's own figures (analysis.DB):
// per node, the server-side latency beside the client's, and per command.
// It writes nothing when the result has none.
func WriteDBMetricsText(w io.Writer, r *result.Result) {
	fitted(w, func(w io.Writer) { writeDBMetricsText(w, r) })
}

func writeDBMetricsText(w io.Writer, r *result.Result) {
	for i, s := range dbSections(r) {
		if i > 0 {
			fmt.Fprintln(w)
		}
		s.textHead(w)
		s.t.text(w)
	}
}

// writeDBMetricsMarkdown is WriteDBMetricsText's Markdown.
func writeDBMetricsMarkdown(w io.Writer, r *result.Result) {
	for _, s := range dbSections(r) {
		s.markdown(w)
	}
}

// dbSections are the server's figures per node, the server-side latency
// beside the client's, and the commands.
func dbSections(r *result.Result) []section {
	f, ok := analysis.DB(r)
	if !ok {
		return nil
	}
	who := f.Server
	if who == "" {
		who = "server"
	}
	notes := []string{fmt.Sprintf("Read from each %s node (%s) every telemetry interval; rates are means over the sampled time, max the highest sample.", who, f.Source)}
	if f.ClientOps > 0 {
		what := "operations"
		if f.Server == "kafka" {
			what = "operations that produce"
		}
		notes = append(notes, fmt.Sprintf("The servers counted %s %s; platbench completed or failed %s %s (%s per operation).",
			units.Int(float64(f.ServerCount)), f.CountName, units.Int(float64(f.ClientOps)), what, units.Fixed(float64(f.ServerCount)/float64(f.ClientOps), 2)))
	}
	if f.Server == "hazelcast" {
		notes = append(notes, "Hazelcast members publish their statistics once per metrics collection period (5 s by default; set metrics collection-frequency-seconds: 1 to match the samples): the last period of a run reaches the exporters after the run, so the count can fall short by that much.")
	}
	if len(f.Unavailable) > 0 {
		notes = append(notes, "Not available from this server: "+strings.Join(f.Unavailable, ", ")+".")
	}
	t := &table{head: []string{"node", "version", "samples", "missing", "figure", "mean", "max"}, right: []bool{false, false, true, true, false, true, true}}
	for _, n := range f.Nodes {
		first := []string{n.Node, n.Version, fmt.Sprint(n.Samples), fmt.Sprint(n.Missing)}
		if n.HasHitRatio {
			t.add(append(first, "keyspace hit ratio", units.Percent(n.HitRatio), "")...)
			first = []string{"", "", "", ""}
		}
		for _, v := range n.Values {
			t.add(append(first, v.Name, dbValue(v.Name, v.Mean), dbValue(v.Name, v.Max))...)
			first = []string{"", "", "", ""}
		}
		for _, g := range n.Gaps {
			t.add(append(first, "no answer", fmt.Sprintf("%s to %s", units.Seconds(float64(g.StartNs)/1e9), units.Seconds(float64(g.EndNs)/1e9)), g.Error)...)
			first = []string{"", "", "", ""}
		}
	}
	out := []section{{id: "db-metrics", title: "The server's own figures (" + f.Source + ")", notes: notes, t: t}}
	if s, ok := serverLatencySection(f); ok {
		out = append(out, s)
	}
	return append(out, commandsSection(f))
}

// serverLatencySection compares the server-side time per operation with
// the client's latency (seed 001's figure 6 as numbers).
func serverLatencySection(f analysis.DBFigures) (section, bool) {
	if len(f.Timeline) == 0 {
		return section{}, false
	}
	lat := units.Latency
	t := &table{head: []string{"", "server time per " + f.Per, "client latency", "gap"}, right: []bool{false, true, true, true}}
	t.add("mean", lat(f.ServerMeanNs), lat(f.ClientMeanNs), lat(f.GapMeanNs))
	lo, hi := f.Timeline[0], f.Timeline[0]
	for _, p := range f.Timeline {
		if p.GapNs < lo.GapNs {
			lo = p
		}
		if p.GapNs > hi.GapNs {
			hi = p
		}
	}
	t.add("smallest gap, at "+units.Seconds(lo.AtS), lat(lo.ServerNs), lat(lo.ClientNs), lat(lo.GapNs))
	t.add("largest gap, at "+units.Seconds(hi.AtS), lat(hi.ServerNs), lat(hi.ClientNs), lat(hi.GapNs))
	what := fmt.Sprintf("Over %d samples of the main phase: the servers' time in data commands (by difference of their cumulative counters, all nodes) per operation platbench completed, and the client's mean latency of those operations. The gap is the network, the client's queueing and the server's queueing before a command runs.", len(f.Timeline))
	if f.Per == "request" {
		what = fmt.Sprintf("Over %d samples of the main phase: the mean time of a %s request on the servers (by difference of their cumulative counters, all nodes), and the client's mean latency of its operations. The gap is the network and the client's queueing and batching.", len(f.Timeline), strings.Join(f.ServerCommands, " or "))
	}
	return section{id: "server-latency", title: "Server-side latency beside the client's", t: t, notes: []string{what}}, true
}

// commandsSection lists each node's commands with their server-side time.
func commandsSection(f analysis.DBFigures) section {
	note := "Calls and mean are by difference of the server's cumulative counters over the recording (Redis: commandstats, time spent executing the command). Percentiles are the server's (INFO latencystats) at the end of the recording, cumulative since its statistics were last reset."
	switch {
	case f.Source != "redis INFO":
		note = "Calls and mean are by difference of the server's cumulative counters over the recording. Percentiles are the server's own at the end of the recording, over its recent window (the JMX histograms decay: about the last five minutes), not the run's."
	case f.Reset:
		note = "Calls and mean are by difference of the server's cumulative counters over the recording (Redis: commandstats, time spent executing the command). Percentiles are the server's (INFO latencystats) since the start of the recording (statistics reset then, load phase included)."
	}
	t := &table{head: []string{"node", "command", "calls", "calls/s", "mean", "p50", "p99", "p99.9"}, right: []bool{false, false, true, true, true, true, true, true}}
	na := "not available"
	for _, n := range f.Nodes {
		for _, c := range n.Commands {
			mean, p50, p99, p999 := na, na, na, na
			if c.HasMean {
				mean = units.Latency(c.MeanNs)
			}
			if c.HasPercentiles {
				p50, p99, p999 = units.Latency(c.P50Ns), units.Latency(c.P99Ns), units.Latency(c.P999Ns)
			}
			t.add(n.Node, c.Name, units.Int(float64(c.Calls)), units.Short(c.CallsPerS), mean, p50, p99, p999)
		}
	}
	return section{id: "db-commands", title: "Server-side time per command", t: t, notes: []string{note}}
}

// dbValue formats a figure by its name's unit.
func dbValue(name string, v float64) string {
	switch {
	case strings.HasSuffix(name, "_bytes_per_s"):
		return units.Bytes(v) + "/s"
	case strings.HasSuffix(name, "_bytes"):
		return units.Bytes(v)
	case strings.HasSuffix(name, "_per_s"):
		return units.Short(v) + "/s"
	}
	return units.Short(v)
}

// serverLatencyChart draws the timeline: the server's time per operation,
// the client's latency and the gap, per second of the main phase.
func serverLatencyChart(r *result.Result) *chart {
	f, ok := analysis.DB(r)
	if !ok || len(f.Timeline) == 0 {
		return nil
	}
	c := &chart{id: "server-latency", title: "Server-side latency beside the client's", x: xSeconds, y: yLatency,
		xLabel: "time since the start of the main phase", yLabel: "mean (log)",
		note: "server: time on the servers per " + f.Per + "; gap: client minus server (network and queueing)"}
	get := []func(p analysis.ServerClientPoint) float64{
		func(p analysis.ServerClientPoint) float64 { return p.ClientNs },
		func(p analysis.ServerClientPoint) float64 { return p.ServerNs },
		func(p analysis.ServerClientPoint) float64 { return p.GapNs },
	}
	for i, name := range []string{"client", "server", "gap"} {
		s := series{name: name, color: i, dashed: name == "gap"}
		for _, p := range f.Timeline {
			s.xs = append(s.xs, p.AtS)
			s.ys = append(s.ys, get[i](p))
		}
		c.series = append(c.series, s)
	}
	return c
}
