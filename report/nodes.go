package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteNodesText writes the server nodes' section of the terminal report
// (figures from analysis.Nodes): the cluster summary, one row per node,
// then a table per node with its CPU, cores, memory, disks, interfaces,
// the gaps when its exporter did not answer, and what saturated. It writes
// nothing when the result has no node series.
func WriteNodesText(w io.Writer, r *result.Result) {
	fitted(w, func(w io.Writer) { writeNodesText(w, r) })
}

func writeNodesText(w io.Writer, r *result.Result) {
	for i, s := range nodeSections(r) {
		if i > 0 {
			fmt.Fprintln(w)
		}
		s.textHead(w)
		if i == 0 {
			s.t.text(w)
			continue
		}
		// A node's table reads as the host section does: a label, its figures.
		width := 0
		for _, row := range s.t.rows {
			width = max(width, len(row[0]))
		}
		for _, row := range s.t.rows {
			fmt.Fprintf(w, "  %-*s  %s\n", width, row[0], row[1])
		}
	}
}

// writeNodesMarkdown is WriteNodesText's Markdown, one ### section each.
func writeNodesMarkdown(w io.Writer, r *result.Result) {
	for _, s := range nodeSections(r) {
		s.markdown(w)
	}
}

// nodeSections are the cluster summary and one section per node.
func nodeSections(r *result.Result) []section {
	nodes, c, ok := analysis.Nodes(r)
	if !ok {
		return nil
	}
	pct, b := units.Percent, units.Bytes
	t := &table{head: []string{"node", "samples", "missing", "cpu busy", "busiest core", "irq core", "mem used", "page cache",
		"disk read", "disk write", "IOPS", "net rx", "net tx", "saturated"},
		right: []bool{false, true, true, true, true, true, true, true, true, true, true, true, true, false}}
	for _, n := range nodes {
		if n.Samples == 0 {
			t.add(n.Node, "0", fmt.Sprint(n.Missing), "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "no samples")
			continue
		}
		var rd, wr, iops, rx, tx float64
		for _, d := range n.Disks {
			rd, wr, iops = rd+d.ReadBytesPerS, wr+d.WriteBytesPerS, iops+d.ReadIOPS+d.WriteIOPS
		}
		for _, x := range n.Nets {
			rx, tx = rx+x.RxBytesPerS, tx+x.TxBytesPerS
		}
		busy, core, irq := pct(n.CPUBusy), pct(n.BusiestCoreMax), pct(n.IRQCoreMax)
		if n.CPUSamples == 0 {
			busy, core, irq = "n/a", "n/a", "n/a" // its CPU counters never moved
		}
		t.add(n.Node, fmt.Sprint(n.Samples), fmt.Sprint(n.Missing), busy, core, irq,
			b(n.MemUsedMax), b(n.PageCacheEnd), b(rd)+"/s", b(wr)+"/s", units.Short(iops), b(rx)+"/s", b(tx)+"/s", saturatedList(n.Saturated))
	}
	if len(nodes) > 1 {
		clusterBusy := "n/a" // no node's CPU counters moved
		for _, n := range nodes {
			if n.CPUSamples > 0 {
				clusterBusy = pct(c.CPUBusyMean) + " mean"
				break
			}
		}
		t.add("cluster", "", fmt.Sprint(c.Missing), clusterBusy, "", "", "", "",
			b(c.DiskReadBytesPerS)+"/s", b(c.DiskWriteBytesPerS)+"/s", units.Short(c.DiskIOPS),
			b(c.NetRxBytesPerS)+"/s", b(c.NetTxBytesPerS)+"/s", fmt.Sprintf("%d of %d nodes", c.SaturatedNodes, c.Nodes))
	}
	notes := []string{fmt.Sprintf("Scraped from each node's node_exporter every %s. CPU busy excludes iowait; busiest core and irq core are the highest of any core in any sample; memory used is the maximum, page cache at the end; rates are means over the sampled time.",
		units.Latency(float64(nodes[0].IntervalNs)))}
	if c.Nodes > 1 && c.BusiestNode != "" {
		notes = append(notes, fmt.Sprintf("Busiest node: %s (%s CPU busy).", c.BusiestNode, pct(c.CPUBusyMax)))
	}
	if c.NodesWithGaps > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d nodes missed scrapes (%d in all): their figures cover the samples that answered.", c.NodesWithGaps, c.Nodes, c.Missing))
	}
	out := []section{{id: "nodes", title: "Server nodes", notes: notes, t: t}}
	for _, n := range nodes {
		out = append(out, nodeSection(n))
	}
	return out
}

// nodeSection is one node's table.
func nodeSection(n analysis.NodeFigures) section {
	pct, b := units.Percent, units.Bytes
	t := &table{head: []string{"resource", "figures"}}
	title := fmt.Sprintf("Node %s: %d samples of %s", n.Node, n.Samples, units.Latency(float64(n.IntervalNs)))
	if n.Missing > 0 {
		title += fmt.Sprintf(", %d missing", n.Missing)
	}
	if n.Samples > 0 && n.CPUSamples == 0 {
		t.add("cpu", "unknown: the exporter's CPU counters did not move between scrapes (not the node's /proc/stat, or a static exposition)")
	} else if n.Samples > 0 {
		t.add("cpu", fmt.Sprintf("busy %s: user %s, system %s, iowait %s, irq %s, softirq %s, steal %s, idle %s (%d CPUs)",
			pct(n.CPUBusy), pct(n.CPUUser), pct(n.CPUSystem), pct(n.CPUIOWait), pct(n.CPUIRQ), pct(n.CPUSoftIRQ), pct(n.CPUSteal), pct(n.CPUIdle), n.CPUs))
	}
	if n.Samples > 0 {
		if n.CPUSamples > 0 {
			t.add("cores", fmt.Sprintf("busiest core %s mean, %s max; interrupts on one core %s max", pct(n.BusiestCoreMean), pct(n.BusiestCoreMax), pct(n.IRQCoreMax)))
		}
		t.add("memory", fmt.Sprintf("used %s max of %s, available %s min; page cache %s at the start, %s at the end (%s max); dirty %s max",
			b(n.MemUsedMax), b(n.MemTotal), b(n.MemAvailableMin), b(n.PageCacheStart), b(n.PageCacheEnd), b(n.PageCacheMax), b(n.DirtyMax)))
		if n.Memory.Known {
			t.add("paging", pagingLine(n.Memory))
		}
	}
	for _, d := range n.Disks {
		t.add("disk "+d.Name, diskLine(d))
	}
	for _, x := range n.Nets {
		link := ""
		if x.SpeedBytesPerS > 0 {
			link = fmt.Sprintf(", link %s/s, %s used max", b(x.SpeedBytesPerS), pct(x.UseMax))
		}
		t.add("net "+x.Name, fmt.Sprintf("%s, dropped %s rx %s tx%s", netLine(x.RxBytesPerS, x.RxPacketsPerS, x.TxBytesPerS, x.TxPacketsPerS),
			units.Int(float64(x.RxDrops)), units.Int(float64(x.TxDrops)), link))
	}
	for _, g := range n.Gaps {
		t.add("no answer", fmt.Sprintf("%s to %s: %d scrapes failed (%s)", units.Seconds(float64(g.StartNs)/1e9), units.Seconds(float64(g.EndNs)/1e9), g.Samples, g.Error))
	}
	for _, c := range n.Checks {
		verdict := ""
		if c.Saturated {
			verdict = ": SATURATED"
		}
		if c.Kind == analysis.SatQueue {
			t.add("check "+checkName(c), fmt.Sprintf("its qdiscs dropped, held back or queued packets in %s of the time%s", pct(c.Share), verdict))
			continue
		}
		t.add("check "+checkName(c), fmt.Sprintf("peak %s, %s of the time at or over %s%s", pct(c.Peak), pct(c.Share), pct(c.Threshold), verdict))
	}
	if n.Samples > 0 {
		t.add("saturated", saturatedList(n.Saturated))
	}
	switch n.PageCache {
	case analysis.NodeCacheServed:
		t.add("page cache", fmt.Sprintf("reads served from memory: the node read %s/s from its disks (page cache %s max of %s RAM)",
			units.Bytes(n.DiskReadBytesPerS), units.Bytes(n.PageCacheMax), units.Bytes(n.MemTotal)))
	case analysis.NodeCacheMissed:
		t.add("page cache", fmt.Sprintf("reads went to disk: the node read %s/s from its disks; the page cache (%s max of %s RAM) did not hold what it served",
			units.Bytes(n.DiskReadBytesPerS), units.Bytes(n.PageCacheMax), units.Bytes(n.MemTotal)))
	}
	return section{id: "node-" + n.Node, title: title, t: t}
}

func checkName(c analysis.Saturation) string {
	if c.Name != "" {
		return c.Kind + " " + c.Name
	}
	return c.Kind
}

// saturatedList names the saturated resources, or says none did.
func saturatedList(ss []analysis.Saturation) string {
	if len(ss) == 0 {
		return "nothing"
	}
	names := make([]string, len(ss))
	for i, c := range ss {
		names[i] = checkName(c)
	}
	return strings.Join(names, ", ")
}
