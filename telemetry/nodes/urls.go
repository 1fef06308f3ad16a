package nodes

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/telemetry/scrape"
)

// Problems checks what a person gave: exporter URLs (config field
// server_metrics) and the port to scrape on the target's nodes
// (server_metrics_port). Every problem is reported at once.
func Problems(explicit []string, port int) usererr.List {
	var l usererr.List
	for _, s := range explicit {
		if isAuto(s) {
			if len(explicit) > 1 {
				l.Add("server_metrics", "auto stands for the target's nodes and cannot be given with exporter URLs (fix: either auto, or each node's URL)")
			}
			continue
		}
		if _, err := normalize(s); err != nil {
			l = append(l, err)
		}
	}
	if port < 0 || port > 65535 {
		l.Add("server_metrics_port", "%d is not a TCP port (fix: node_exporter's port on the target's nodes, usually 9100)", port)
	}
	return l
}

// DefaultPort is node_exporter's port, which "auto" scrapes on the target's
// nodes when no port is given.
const DefaultPort = 9100

// isAuto reports whether an explicit entry is the keyword "auto": the
// target's discovered nodes, on port (DefaultPort when 0).
func isAuto(s string) bool { return strings.EqualFold(strings.TrimSpace(s), "auto") }

// URLs is the list of exporters to scrape: the explicit URLs normalised
// (see normalize) when there are any; else, when port is set (or the one
// explicit entry is "auto": port, or DefaultPort),
// http://HOST:port/metrics for each distinct host among the target's nodes
// as the target described them ("10.0.0.5:9042 (dc dc1, UP)", "broker:9092",
// "local" for a target inside platbench). Duplicates are dropped: three
// servers on one machine share its one exporter.
func URLs(explicit []string, port int, targetNodes []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(u string) {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	if len(explicit) == 1 && isAuto(explicit[0]) {
		explicit = nil
		if port == 0 {
			port = DefaultPort
		}
	}
	if len(explicit) > 0 {
		for _, s := range explicit {
			u, err := normalize(s)
			if err != nil {
				return nil, err // Problems reported it first when the config was validated
			}
			add(u)
		}
		return out, nil
	}
	if port == 0 {
		return nil, nil
	}
	for _, n := range targetNodes {
		if h := hostOf(n); h != "" {
			add("http://" + net.JoinHostPort(h, strconv.Itoa(port)) + "/metrics")
		}
	}
	if len(out) == 0 {
		return nil, usererr.Field("server_metrics_port", "is set but the target named no nodes to scrape (fix: give each node's node_exporter URL instead of a port)")
	}
	return out, nil
}

// normalize reads an exporter address (see scrape.URL; config field
// server_metrics).
func normalize(s string) (string, *usererr.Error) {
	return scrape.URL(s, "server_metrics", "a node_exporter URL such as http://10.0.0.5:9100/metrics", false)
}

// hostOf is the host of one of vocab.Info's Nodes: its first word, without
// a port; "local" (the embedded target) is this machine.
func hostOf(node string) string {
	f := strings.Fields(node)
	if len(f) == 0 {
		return ""
	}
	h := f[0]
	if h == "local" {
		return "127.0.0.1"
	}
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return strings.Trim(h, "[]")
}

// nodeName names a node in reports: the exporter URL's host:port.
func nodeName(u string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		return p.Host
	}
	return u
}
