package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteEventsText writes the fault events section of the terminal report:
// for each event what was done and when, then its measured cost (see
// analysis.EventImpacts). imps may be nil: the events are still listed.
func WriteEventsText(w io.Writer, r *result.Result, imps []result.EventImpact) error {
	if r == nil || len(r.Events) == 0 {
		return nil
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "\nFault events\n")
	for i, ev := range r.Events {
		fmt.Fprintf(ew, "  [%d] %s  %s %s", i+1, units.Seconds(float64(ev.AtNs)/1e9), ev.Kind, evClip(ev.Arg, 100))
		if ev.Error != "" {
			fmt.Fprintf(ew, "  FAILED: %s", evOneLine(ev.Error))
		} else if ev.Output != "" {
			fmt.Fprintf(ew, "  (%s)", evClip(evOneLine(ev.Output), 80))
		}
		fmt.Fprintln(ew)
		im := evFind(imps, i)
		if im == nil {
			continue
		}
		if im.BaselineOpsPerS <= 0 {
			fmt.Fprintf(ew, "      %s\n", im.Verdict)
			continue
		}
		t := evTable(im)
		var b strings.Builder
		t.text(&b)
		for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			fmt.Fprintf(ew, "      %s\n", line)
		}
		if len(im.ErrorsByClass) > 0 {
			fmt.Fprintf(ew, "      errors by class: %s\n", classList(im.ErrorsByClass))
		}
		fmt.Fprintf(ew, "      %s\n", im.Verdict)
	}
	fmt.Fprintf(ew, "  (%s)\n", evDefinitions)
	return ew.err
}

// evTable is the before/during table of one event's cost.
func evTable(im *result.EventImpact) *table {
	t := &table{head: []string{"", "before", "during", "change"}, right: []bool{false, true, true, true}}
	t.add("throughput", units.OpsPerSec(im.BaselineOpsPerS), "lowest 1 s "+units.OpsPerSec(im.Min1sOpsPerS), "-"+units.Sig3(im.DipPercent)+"%")
	if im.FineWidthNs > 0 {
		t.add("", "", fmt.Sprintf("lowest %s %s", units.Latency(float64(im.FineWidthNs)), units.OpsPerSec(im.MinFineOpsPerS)), "")
	}
	if im.Max1sOpsPerS > im.BaselineOpsPerS*1.1 {
		t.add("", "", "highest 1 s "+units.OpsPerSec(im.Max1sOpsPerS), "catch-up")
	}
	t.add("latency p99", units.Latency(float64(im.BaselineP99Ns)), units.Latency(float64(im.P99Ns)), evRatio(float64(im.P99Ns), float64(im.BaselineP99Ns)))
	t.add("errors", units.Percent(im.BaselineErrorRate), fmt.Sprintf("%s (%s)", units.Percent(im.ErrorRate), units.Int(float64(im.Errors))), "")
	if im.AckedWritesLost != nil {
		t.add("acknowledged writes lost", "", units.Int(float64(*im.AckedWritesLost)), "whole run, verified after it")
	}
	if im.LongestStallNs > 0 {
		t.add("longest stall", "", units.Latency(float64(im.LongestStallNs)), "")
	}
	rec := "not recovered by the end of the phase"
	if im.Recovered {
		rec = units.Seconds(float64(im.RecoveryNs) / 1e9)
	}
	t.add("recovery", "", rec, "")
	return t
}

const evDefinitions = "window = from the event to recovery, in whole 1 s intervals; recovered = 1 s throughput within 10% of the level before for 3 s"

// writeEventsMarkdown writes the fault events and their cost as a Markdown
// section of the report.
func writeEventsMarkdown(w io.Writer, r *result.Result, imps []result.EventImpact) {
	if r == nil || len(r.Events) == 0 {
		return
	}
	fmt.Fprintf(w, "\n### Fault events\n")
	ew := w
	for i, ev := range r.Events {
		fmt.Fprintf(ew, "\n**[%d] %s: %s %s**", i+1, units.Seconds(float64(ev.AtNs)/1e9), ev.Kind, evClip(ev.Arg, 100))
		if ev.Error != "" {
			fmt.Fprintf(ew, " (failed: %s)", evOneLine(ev.Error))
		}
		fmt.Fprintln(ew)
		if im := evFind(imps, i); im != nil {
			fmt.Fprintf(ew, "\n%s\n", im.Verdict)
			if im.BaselineOpsPerS > 0 {
				fmt.Fprintln(ew)
				evTable(im).markdown(ew)
			}
		}
	}
	fmt.Fprintf(ew, "\n%s.\n", upperFirst(evDefinitions))
}

// eventsSectionHTML is the HTML section of the fault events and their cost
// ("" when the run had no events). The HTML report puts it after the charts,
// which mark the events on their time axis.
func eventsSectionHTML(r *result.Result, imps []result.EventImpact) (template.HTML, error) {
	if r == nil || len(r.Events) == 0 {
		return "", nil
	}
	type eventView struct {
		N            int
		Title, Error string
		Measured     bool
		Verdict      string
		Table        *tableView
	}
	data := struct {
		Events      []eventView
		Definitions string
	}{Definitions: upperFirst(evDefinitions)}
	for i, ev := range r.Events {
		v := eventView{N: i + 1, Title: units.Seconds(float64(ev.AtNs)/1e9) + ": " + ev.Kind + " " + evClip(ev.Arg, 100)}
		if ev.Error != "" {
			v.Error = evOneLine(ev.Error)
		}
		if im := evFind(imps, i); im != nil {
			v.Measured, v.Verdict = true, im.Verdict
			if im.BaselineOpsPerS > 0 {
				t := viewOf(evTable(im))
				v.Table = &t
			}
		}
		data.Events = append(data.Events, v)
	}
	return execute("events", data)
}

func evFind(imps []result.EventImpact, i int) *result.EventImpact {
	for k := range imps {
		if imps[k].Index == i {
			return &imps[k]
		}
	}
	return nil
}

func evRatio(v, base float64) string {
	if base <= 0 || v <= 0 {
		return ""
	}
	return "x" + units.Sig3(v/base)
}

func evOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func evClip(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "..."
}
