package history

import (
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// StoredFigures are the figures a store keeps for a run and for each of
// its op types (cost for the whole run only), in column order.
var StoredFigures = []string{"sustained", "peak", "mean", "p50", "p90", "p95", "p99", "p99.9", "max",
	"service.p99", "lag.p99", "errors", "cost"}

// AllOps is the op column of the row of a whole run.
const AllOps = "ALL"

// Row is one row of a store: a run, or one op type of it.
type Row struct {
	Time     time.Time
	Label    string
	Platform string
	Target   string
	Workload string
	Op       string // an op type, or AllOps
	// Values are by figure name (StoredFigures); a figure the run did not
	// measure is absent.
	Values     map[string]float64
	Thresholds []result.ThresholdOutcome
	ResultPath string
}

// RowsOf are r's rows: the whole run (Op AllOps), then one per op type
// of its main phase. path is the result file ("" when none was written).
func RowsOf(r *result.Result, path string) ([]Row, error) {
	p := r.MainPhase()
	if p == nil {
		return nil, nil
	}
	ops := []string{AllOps}
	for _, o := range p.Ops {
		ops = append(ops, o.Op)
	}
	platform := r.Platform.InstanceType
	if platform == "" {
		platform = r.Platform.CPUModel
	}
	var rows []Row
	for _, op := range ops {
		var ms []analysis.Metric
		for _, f := range StoredFigures {
			if op != AllOps && f == "cost" {
				continue
			}
			m, err := analysis.ParseMetrics(f)
			if err != nil {
				return nil, err
			}
			if op != AllOps {
				m[0].Op, m[0].Name = op, op+"."+m[0].Name
			}
			ms = append(ms, m[0])
		}
		vals, ok, err := analysis.MetricValues(r, ms)
		if err != nil {
			return nil, err
		}
		row := Row{Time: r.StartedAt, Label: r.Label, Platform: platform, Target: r.Config.Target,
			Workload: r.Config.Workload.Name, Op: op, Values: map[string]float64{}, ResultPath: path}
		if op == AllOps {
			row.Thresholds = r.Thresholds
		}
		for i, m := range ms {
			if ok[i] {
				row.Values[m.Figure] = vals[i]
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// RunsOfRows turns a store's rows into runs for metrics ms: a metric of an
// op type reads that op's row, the others the whole run's.
func RunsOfRows(rows []Row, ms []analysis.Metric) []Run {
	type key struct {
		t                         time.Time
		label, target, wl, source string
	}
	var runs []Run
	at := map[key]int{}
	for _, row := range rows {
		k := key{row.Time.UTC(), row.Label, row.Target, row.Workload, row.ResultPath}
		i, ok := at[k]
		if !ok {
			i = len(runs)
			at[k] = i
			runs = append(runs, Run{Time: row.Time, Workload: row.Workload, Target: row.Target, Label: row.Label,
				Source: row.ResultPath, Values: map[string]float64{}})
		}
		var ops []string
		if row.Op != AllOps {
			ops = []string{row.Op}
			runs[i].Ops = append(runs[i].Ops, row.Op)
		}
		for _, m := range analysis.ExpandMetrics(ms, ops) {
			if v, ok := row.Values[m.Figure]; ok && (m.Op == "" && row.Op == AllOps || m.Op != "" && m.Op == row.Op) {
				runs[i].Values[m.Name] = v
			}
		}
	}
	return runs
}
