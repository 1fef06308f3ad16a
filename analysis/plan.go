package analysis

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// PlanInput is one measured platform.
type PlanInput struct {
	// File names the result in the plan's table.
	File   string
	Result *result.Result
	// Platform overrides the result's instance type for pricing.
	Platform string
}

// PlanOptions is the capacity objective and the cluster rules.
type PlanOptions struct {
	// ThroughputOpsPerS is the target throughput of the whole cluster (required).
	ThroughputOpsPerS float64
	// P99 is the latency objective: the 99th percentile of every op, measured
	// from the intended start, over the steady window (required).
	P99 time.Duration
	// RF is the replication factor: the smallest cluster has RF nodes. Default 3.
	RF int
	// Step is how many nodes are added at a time (3: one per rack or zone, for
	// quorum). Default: RF.
	Step int
	// Nodes is the number of server nodes each result measured. Default: the
	// nodes the target reported, else 1.
	Nodes int
	// PricePerHour overrides the catalog's price for every input.
	PricePerHour float64
	// MaxErrorRatio is the share of failed ops above which a phase is left
	// out. Default 0.01 (1%); negative means no failures allowed.
	MaxErrorRatio float64
	// Warmup is applied to every phase as in Options.Warmup.
	Warmup string
	// CatalogFile and Catalog are as in Options.
	CatalogFile string
	Catalog     *catalog.Catalog
	// Bill is the storage per node and the zones the cluster spans, priced
	// with the instances; its RF is the plan's and its loaders are not
	// priced (a plan does not size them).
	Bill Bill
}

// PlanRow is the answer for one platform.
type PlanRow struct {
	Rank          int     `json:"rank"`
	File          string  `json:"file"`
	Label         string  `json:"label"`
	InstanceType  string  `json:"instance_type,omitempty"`
	Phase         string  `json:"phase,omitempty"`
	MeasuredNodes int     `json:"measured_nodes"`
	MeasuredOps   float64 `json:"measured_ops_per_s"`
	MeasuredP99Ns int64   `json:"measured_p99_ns"`
	Errors        uint64  `json:"errors"`
	PerNodeOps    float64 `json:"per_node_ops_per_s"`
	// Runs is how many runs of the platform at one size the row stands
	// for (0 or 1: one); then MeasuredOps is their centre, MeasuredOpsLow
	// and MeasuredOpsHigh its 95% interval, and NodesAtLow the node count
	// planned from the low end (a USL row: from the curve fitted to the low
	// ends of the sizes run more than once; uslLowEnd).
	Runs            int     `json:"runs,omitempty"`
	MeasuredOpsLow  float64 `json:"measured_ops_per_s_low,omitempty"`
	MeasuredOpsHigh float64 `json:"measured_ops_per_s_high,omitempty"`
	NodesAtLow      int     `json:"nodes_at_low,omitempty"`
	// Feasible is false when no phase met the latency objective.
	Feasible    bool    `json:"feasible"`
	Nodes       int     `json:"nodes"`
	PriceKnown  bool    `json:"price_known"`
	PricePerH   float64 `json:"price_per_hour_usd,omitempty"`
	PriceSource string  `json:"price_source,omitempty"`
	// MonthlyUSD is the whole bill of Nodes nodes: the sum of Bill.
	MonthlyUSD float64 `json:"monthly_usd,omitempty"`
	// Bill is the planned cluster's bill item by item (instances, storage,
	// cross-zone traffic at the target throughput); NotPriced what it leaves out.
	Bill      []result.CostItem `json:"bill,omitempty"`
	NotPriced []string          `json:"not_priced,omitempty"`
	Reason    string            `json:"reason,omitempty"`
	// Model is how throughput grows with nodes: "linear" (one size
	// measured) or "usl" (the Universal Scalability Law fitted to two or
	// more sizes; Fit, Points and Curve are then set, File names every
	// result, and the Measured fields are the largest size's).
	Model string `json:"model"`
	// PlannedOps is the throughput the plan expects of Nodes nodes.
	PlannedOps float64          `json:"planned_ops_per_s,omitempty"`
	Fit        *USLFit          `json:"usl,omitempty"`
	Points     []PlanPoint      `json:"points,omitempty"`
	Curve      []PlanCurvePoint `json:"curve,omitempty"`

	closedLoop bool
	planPrice  Price
	planBill   planBill
}

// PlanReport is a ranked capacity plan.
type PlanReport struct {
	ThroughputOpsPerS float64   `json:"throughput_ops_per_s"`
	P99Ns             int64     `json:"p99_ns"`
	RF                int       `json:"rf"`
	Step              int       `json:"step"`
	Rows              []PlanRow `json:"rows"`
	Assumptions       []string  `json:"assumptions"`
}

// Validate reports every problem with o at once, naming the PlanOptions
// fields in snake case (throughput_ops_per_s, p99, rf...).
func (o *PlanOptions) Validate() error {
	var probs usererr.List
	if !(o.ThroughputOpsPerS > 0) || math.IsInf(o.ThroughputOpsPerS, 0) {
		probs.Add("throughput_ops_per_s", "must be a positive number of ops/s (fix: the cluster's target throughput, e.g. 500000)")
	}
	if o.P99 <= 0 {
		probs.Add("p99", "must be a positive duration (fix: the latency objective, e.g. 10ms)")
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"rf", o.RF}, {"step", o.Step}, {"nodes", o.Nodes}} {
		if f.v < 0 {
			probs.Add(f.name, "%d is negative (fix: a number of nodes, or 0 for the default)", f.v)
		}
	}
	if o.PricePerHour < 0 {
		probs.Add("price_per_hour", "cannot be negative (fix: one node's US dollars per hour, or 0 for the catalog's)")
	}
	if o.MaxErrorRatio >= 1 {
		probs.Add("max_error_ratio", "must be below 1 (fix: e.g. 0.01 for 1%%)")
	}
	if _, _, err := parseWarmup(o.Warmup); err != nil {
		probs = append(probs, err)
	}
	o.Bill.validate(&probs)
	return probs.Err()
}

// Plan answers, for each input, how many nodes reach the throughput while
// meeting the p99 objective, and what they cost a month, ranked cheapest
// first (platforms without a price after those with one, platforms that
// never met the objective last).
func Plan(in []PlanInput, o PlanOptions) (*PlanReport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return nil, usererr.New("no result to plan from (fix: give at least one result file)")
	}
	if o.RF == 0 {
		o.RF = 3
	}
	if o.Step == 0 {
		o.Step = o.RF
	}
	switch {
	case o.MaxErrorRatio == 0:
		o.MaxErrorRatio = 0.01
	case o.MaxErrorRatio < 0:
		o.MaxErrorRatio = 0
	}
	cat := o.Catalog
	if cat == nil {
		var err error
		if cat, err = catalog.Load(o.CatalogFile); err != nil {
			return nil, err
		}
	}
	rep := &PlanReport{ThroughputOpsPerS: o.ThroughputOpsPerS, P99Ns: int64(o.P99), RF: o.RF, Step: o.Step}
	for _, pi := range in {
		row, err := planRow(pi, o, cat)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pi.File, err)
		}
		rep.Rows = append(rep.Rows, row)
	}
	rep.Rows = planScaling(rep.Rows, o)
	class := func(r PlanRow) int {
		switch {
		case r.Feasible && r.PriceKnown:
			return 0
		case r.Feasible:
			return 1
		}
		return 2
	}
	sort.SliceStable(rep.Rows, func(i, j int) bool {
		a, b := rep.Rows[i], rep.Rows[j]
		if class(a) != class(b) {
			return class(a) < class(b)
		}
		if a.MonthlyUSD != b.MonthlyUSD {
			return a.MonthlyUSD < b.MonthlyUSD
		}
		return a.Nodes < b.Nodes
	})
	for i := range rep.Rows {
		rep.Rows[i].Rank = i + 1
	}
	rep.Assumptions = []string{
		fmt.Sprintf("Per-node throughput is the sustained throughput of the steady window of each result's best phase whose p99 (every op, from the intended start) was at or below %s and that failed at most %.2g%% of its ops, divided by the nodes it measured.", o.P99, 100*o.MaxErrorRatio),
		"A platform measured at two or more cluster sizes (results of the same instance type) is planned from Gunther's Universal Scalability Law, X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted by least squares to the best throughput of each size: σ is contention, κ the coherency cost that makes throughput peak at N* = sqrt((1−σ)/κ). A platform measured at one size is assumed to scale linearly with nodes; real clusters lose some to coordination, so treat that node count as a lower bound and measure the size you pick.",
		fmt.Sprintf("A cluster has at least %d nodes (the replication factor) and grows in sets of %d (one node per rack or zone, for quorum).", o.RF, o.Step),
		fmt.Sprintf("Monthly cost is the whole bill of the planned cluster for %.0f h: the on-demand price per node-hour x nodes, a volume per node when one is named, and cross-zone traffic at the target throughput (the chosen phase's cross-zone bytes per op x the target) when the zones are given; each row names what it does not price.", catalog.HoursPerMonth),
		"Each result was measured with the replication factor and consistency level of the plan; a run with different settings does not transfer.",
		"Several runs of one platform at one cluster size are one group: the plan takes the centre of their throughput (the geometric mean) and also says how many nodes the low end of its 95% interval would need.",
	}
	return rep, nil
}

func planRow(pi PlanInput, o PlanOptions, cat *catalog.Catalog) (PlanRow, error) {
	r := pi.Result
	row := PlanRow{File: pi.File, Label: r.Label}
	platform := pi.Platform
	if platform == "" {
		platform = r.Platform.InstanceType
	}
	row.InstanceType = platform
	if row.Label == "" {
		row.Label = platform
	}
	if row.Label == "" {
		row.Label = r.Platform.Hostname
	}
	row.MeasuredNodes = o.Nodes
	if row.MeasuredNodes == 0 {
		row.MeasuredNodes = len(r.Target.Nodes)
	}
	if row.MeasuredNodes == 0 {
		row.MeasuredNodes = 1
	}
	var price Price
	if platform != "" || o.PricePerHour > 0 {
		var err error
		if price, err = ResolvePrice(cat, platform, o.PricePerHour); err != nil {
			return row, err
		}
	}
	best := -1.0
	var bestW result.Window
	tooManyErrors := 0
	var lowestP99 int64 = -1
	for i := range r.Phases {
		p := &r.Phases[i]
		if p.Name == "load" && len(r.Phases) > 1 {
			continue
		}
		st, err := SteadyStateOf(p, o.Warmup)
		if err != nil {
			return row, err
		}
		w := window(p, st.First, len(p.Intervals))
		lat, err := SteadyLatency(p, st.First)
		if err != nil {
			return row, err
		}
		p99 := lat.P99Ns
		if lowestP99 < 0 || p99 < lowestP99 {
			lowestP99 = p99
		}
		// Failed ops are often fast (rejections, timeouts cut short), so a
		// phase that failed many of them would meet any latency objective.
		if tot := w.Ops + w.Errors; tot > 0 && float64(w.Errors) > o.MaxErrorRatio*float64(tot) {
			tooManyErrors++
			continue
		}
		if p99 <= int64(o.P99) && w.SustainedOpsPerS > best {
			best, bestW = w.SustainedOpsPerS, w
			row.Phase, row.MeasuredOps, row.MeasuredP99Ns, row.Errors = p.Name, w.SustainedOpsPerS, p99, w.Errors
			row.closedLoop = p.Mode == "closed"
		}
	}
	if best <= 0 {
		row.Reason = fmt.Sprintf("no phase met p99 <= %s (lowest p99 %s)", o.P99, time.Duration(max(lowestP99, 0)).Round(time.Microsecond))
		if tooManyErrors > 0 {
			row.Reason += fmt.Sprintf("; %d phase(s) left out for failing more than %.2g%% of their ops", tooManyErrors, 100*o.MaxErrorRatio)
		}
		return row, nil
	}
	row.Feasible = true
	row.PerNodeOps = row.MeasuredOps / float64(row.MeasuredNodes)
	n := nodesFor(row.PerNodeOps, o)
	row.Nodes = n
	row.Model = "linear"
	row.PlannedOps = row.PerNodeOps * float64(n)
	if row.Errors > 0 {
		row.Reason = fmt.Sprintf("the measured phase had %d errors", row.Errors)
	}
	if row.closedLoop {
		// METHOD.md: percentiles at saturation are service time, not an SLO figure.
		row.Reason = joinReason(row.Reason, "closed-loop phase: its p99 is service time at saturation, not an SLO figure; a fixed-rate run measures the objective")
	}
	if platform == "" && o.PricePerHour <= 0 {
		row.Reason = joinReason(row.Reason, "no price: the instance type is unknown (fix: name the instance type of the result, or give a price per hour)")
		return row, nil
	}
	return row, row.priceAt(r, bestW, o, price, cat)
}

// priceAt prices row's cluster from the chosen phase's window w.
func (row *PlanRow) priceAt(r *result.Result, w result.Window, o PlanOptions, price Price, cat *catalog.Catalog) error {
	pb, err := newPlanBill(r, w, o, price, cat)
	if err != nil {
		return err
	}
	row.PriceKnown = true
	row.PricePerH = price.PerHourUSD
	row.PriceSource = price.Source
	row.planPrice, row.planBill = price, pb
	row.price(row.Nodes, o.ThroughputOpsPerS)
	return nil
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
