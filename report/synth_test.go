package report

// synthResult builds deterministic synthetic results for the report
// package's tests, golden files, benchmarks and browser test. The figures are
// made up but shaped like real runs: a warm-up ramp, noise, a few stalls,
// per-interval latency summaries and real HDR histograms in the totals.

import (
	"math"
	"math/rand/v2"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// synthOptions shape a synthetic result. Zero values give a 60 s, two-op run.
type synthOptions struct {
	Seconds  int      // run phase length; default 60
	Ops      []string // op types; default READ, UPDATE
	Rate     float64  // mean ops/s of the whole run at steady state; default 20000
	LatScale float64  // multiplies every latency; default 1
	Label    string
	Instance string // instance type
	Arch     string
	CPU      string
	Seed     uint64
	Errors   bool   // add timeouts now and then
	Open     bool   // fixed-rate run: latency and service time differ
	Host     bool   // add host telemetry
	Workload string // workload name; default "ycsb-a"
	// IntervalHists encodes an HDR histogram in every interval (slow for long runs).
	IntervalHists bool
	// Events adds a fault event (a stop and a cont of a server process) at a third of the run.
	Events bool
}

// synthResult returns a complete, valid result.
func synthResult(o synthOptions) *result.Result {
	if o.Seconds <= 0 {
		o.Seconds = 60
	}
	if len(o.Ops) == 0 {
		o.Ops = []string{"READ", "UPDATE"}
	}
	if o.Rate <= 0 {
		o.Rate = 20000
	}
	if o.LatScale <= 0 {
		o.LatScale = 1
	}
	if o.Workload == "" {
		o.Workload = "ycsb-a"
	}
	if o.Arch == "" {
		o.Arch = "x86_64"
	}
	if o.CPU == "" {
		o.CPU = "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	mix := make([]vocab.Mix, len(o.Ops))
	for i, op := range o.Ops {
		p, _ := vocab.ParseOp(op)
		mix[i] = vocab.Mix{Op: p, Weight: 1}
	}
	mode := "closed"
	if o.Open {
		mode = "open"
	}
	r := &result.Result{
		Schema:    result.SchemaVersion,
		Tool:      result.Tool{Name: "platbench", Version: "test", GoVersion: "go1.26"},
		StartedAt: start,
		EndedAt:   start.Add(time.Duration(o.Seconds+5) * time.Second),
		Label:     o.Label,
		Config: result.Config{
			Target:      "null",
			Workload:    result.Workload{Name: o.Workload, Records: 100000, FieldCount: 10, FieldLength: 100, KeyPrefix: "user", Mix: mix, Distribution: "zipfian"},
			DurationNs:  int64(o.Seconds) * 1e9,
			Concurrency: 16,
			Seed:        int64(o.Seed),
			Load:        true,
			Warmup:      "auto",
		},
		Platform: result.Platform{
			Hostname: "bench-1", OS: "linux", Arch: o.Arch, CPUModel: o.CPU, Cores: 8, Threads: 16,
			RAMBytes: 64 << 30, Kernel: "6.1.0-27-amd64", Virtualization: "kvm", InstanceType: o.Instance, Cloud: cloudOf(o.Instance),
			Disks: []result.Disk{{Name: "nvme0n1", Model: "Amazon EC2 NVMe Instance Storage", SizeBytes: 950 << 30}},
		},
		Target:  vocab.Info{Kind: "null", URL: "null", Version: "1.0", Nodes: []string{"127.0.0.1"}},
		Dataset: result.Dataset{Records: 100000, RecordBytes: 1000, LogicalBytes: 100000 * 1000, HostRAMBytes: 64 << 30},
	}
	if o.Open {
		r.Config.RateOpsPerS = o.Rate
	}
	const width = int64(100 * time.Millisecond)
	nb := o.Seconds * 10
	ph := result.Phase{
		Name: "run", Mode: mode, Concurrency: 16, StartedAt: start.Add(5 * time.Second),
		DurationNs: int64(o.Seconds) * 1e9,
		Buckets:    result.Buckets{WidthNs: width, Counts: map[string][]uint32{}, Outstanding: make([]bool, nb)},
	}
	if o.Open {
		ph.RateOpsPerS = o.Rate
	}
	perOp := o.Rate / float64(len(o.Ops))
	warm := o.Seconds / 10
	// stalls: two half-second stalls at fixed places.
	stall := func(b int) bool {
		s := b / 10
		return (s == o.Seconds/2 || s == o.Seconds*3/4) && b%10 < 5
	}
	totals := make([]*histPair, len(o.Ops))
	for i := range totals {
		totals[i] = &histPair{lat: result.NewHist(), svc: result.NewHist()}
	}
	errTot := make([]map[string]uint64, len(o.Ops))
	for k, op := range o.Ops {
		counts := make([]uint32, nb)
		base := 400e3 * o.LatScale * (1 + 0.5*float64(k))
		for b := 0; b < nb; b++ {
			ramp := 1.0
			if s := b / 10; s < warm {
				ramp = 0.4 + 0.6*float64(s)/float64(warm)
			}
			c := perOp / 10 * ramp * (1 + 0.08*rng.NormFloat64())
			if stall(b) {
				c = 0
			}
			if c < 0 {
				c = 0
			}
			counts[b] = uint32(c)
			ph.Buckets.Outstanding[b] = true
		}
		ph.Buckets.Counts[op] = counts
		for s := 0; s < o.Seconds; s++ {
			if len(ph.Intervals) <= s {
				ph.Intervals = append(ph.Intervals, result.Interval{StartNs: int64(s) * 1e9, DurationNs: 1e9})
			}
			var n uint64
			for b := s * 10; b < s*10+10; b++ {
				n += uint64(counts[b])
			}
			io := result.IntervalOp{Op: op, Count: n}
			slow := 1.0
			if s < warm {
				slow = 2 - float64(s)/float64(warm)
			}
			if s == o.Seconds/2 || s == o.Seconds*3/4 {
				slow = 8
			}
			med := base * slow * (1 + 0.05*rng.NormFloat64())
			io.Latency = result.Summary{
				Count: int64(n), MinNs: int64(med * 0.2), MeanNs: med * 1.2, P50Ns: int64(med),
				P90Ns: int64(med * 2), P95Ns: int64(med * 2.6), P99Ns: int64(med * 4.5),
				P999Ns: int64(med * 9), MaxNs: int64(med * (14 + 4*rng.Float64())), StdDevNs: med,
			}
			if o.Errors && s%7 == 3 {
				io.Errors = map[string]uint64{"timeout": uint64(1 + s%5)}
				if s%21 == 3 {
					io.Errors["unavailable"] = 2
				}
				if errTot[k] == nil {
					errTot[k] = map[string]uint64{}
				}
				for c, v := range io.Errors {
					errTot[k][c] += v
				}
			}
			// The per-second figures feed the totals through a few representative values.
			tp := totals[k]
			for _, q := range [...]struct{ f, frac float64 }{{0.5, 0.5}, {1, 0.3}, {2.2, 0.15}, {4.5, 0.04}, {9, 0.009}, {15, 0.001}} {
				v := int64(med * q.f)
				cnt := int64(float64(n) * q.frac)
				tp.lat.RecordValues(v, cnt)
				sv := v
				if o.Open {
					sv = int64(float64(v) * 0.8) // service time excludes the queueing
				}
				tp.svc.RecordValues(sv, cnt)
			}
			if o.IntervalHists {
				h := result.NewHist()
				h.RecordValues(int64(med), int64(n))
				io.Hist = result.EncodeHist(h)
			}
			ph.Intervals[s].Ops = append(ph.Intervals[s].Ops, io)
		}
	}
	for k, op := range o.Ops {
		var n uint64
		for _, in := range ph.Intervals {
			n += in.Ops[k].Count
		}
		t := result.OpTotal{
			Op: op, Count: n, Errors: errTot[k],
			Latency: result.Summarize(totals[k].lat), Service: result.Summarize(totals[k].svc),
			Hist: result.EncodeHist(totals[k].lat), ServiceHist: result.EncodeHist(totals[k].svc),
		}
		ph.Ops = append(ph.Ops, t)
	}
	load := result.Phase{Name: "load", Mode: "closed", Concurrency: 16, StartedAt: start, DurationNs: 5e9,
		Ops:     []result.OpTotal{{Op: "INSERT", Count: 100000}},
		Buckets: result.Buckets{WidthNs: width, Counts: map[string][]uint32{}}}
	r.Phases = []result.Phase{load, ph}
	if o.Host {
		hs := &result.HostSeries{StartedAt: ph.StartedAt}
		for s := 0; s < o.Seconds; s++ {
			u := 0.55 + 0.1*math.Sin(float64(s)/7) + 0.02*rng.NormFloat64()
			hs.Samples = append(hs.Samples, result.HostSample{
				CPUUser: u, CPUSystem: 0.18, CPUIOWait: 0.03, CPUSteal: 0.01, CPUIdle: 1 - u - 0.22,
				CPUMaxCore: u + 0.2, Load1: 6, MemUsedBytes: 20 << 30, PageCacheBytes: int64(30+s/10) << 30,
				Disks: map[string]result.DiskIO{"nvme0n1": {Reads: 900, Writes: 400, ReadBytes: uint64(900 * 4096 * (1 + u)), WriteBytes: 400 * 131072}},
				Nets:  map[string]result.NetIO{"eth0": {RxBytes: uint64(o.Rate * 1100), TxBytes: uint64(o.Rate * 200)}},
			})
		}
		hs.Self = &result.SelfUsage{CPUSeconds: float64(o.Seconds) * 0.9, MaxCoreBusy: 0.6, NumGC: 12}
		r.Host = hs
	}
	if o.Events {
		at := int64(o.Seconds/3) * 1e9
		r.Events = []result.Event{{AtNs: at, Kind: "stop", Arg: "4242"}, {AtNs: at + 2e9, Kind: "cont", Arg: "4242"}}
	}
	r.Notes = []string{"synthetic result for tests"}
	return r
}

type histPair struct{ lat, svc *hdr.Histogram }

func cloudOf(instance string) string {
	if instance == "" {
		return ""
	}
	return "aws"
}
