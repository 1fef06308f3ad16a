package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
)

// Loaded is a workload file as read: its Spec and, for a YCSB property file,
// what the file says beyond the workload itself. The library does not print:
// a caller shows Warnings to the user.
type Loaded struct {
	Spec Spec
	// Ops is YCSB's operationcount: the run phase's length in operations
	// (0: the file does not say).
	Ops uint64
	// Threads is the client's threadcount (0: the file does not say).
	Threads uint64
	// RateOpsPerS is the client's target, total operations per second
	// (0: as fast as possible, or the file does not say).
	RateOpsPerS float64
	// MaxExecution is the client's maxexecutiontime (0: not given): the run
	// phase ends then even if operationcount is not reached.
	MaxExecution time.Duration
	// Shard of Shards is what YCSB's insertstart and insertcount say when
	// they split recordcount into equal parts (Shards 0: the whole dataset).
	Shard, Shards int
	// Warnings are lines for the user, e.g. the properties not used.
	Warnings []string
}

// IsPropertyFile tells a YCSB property file from a YAML workload file by its
// name and content: a .yaml or .yml file is YAML; otherwise a file whose
// first line that is neither blank nor a comment is `key=value` (the key a
// single word without ':') is a property file.
func IsPropertyFile(name string, data []byte) bool {
	if ext := strings.ToLower(filepath.Ext(name)); ext == ".yaml" || ext == ".yml" {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		return ok && k != "" && !strings.ContainsAny(k, ": \t\"'{}[]")
	}
	return false
}

// property is one key=value line of a property file.
type property struct {
	value string
	line  int
}

// readProperties reads Java-properties-style lines: `key=value` or
// `key: value`, `#` and `!` comments, blank lines. A key given twice and a
// line continued with a trailing backslash are errors.
func readProperties(data []byte) (map[string]property, []string, error) {
	props := map[string]property{}
	var order, probs []string
	for i, raw := range strings.Split(string(data), "\n") {
		n := i + 1
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		sep := strings.IndexAny(line, "=:")
		if sep <= 0 {
			probs = append(probs, fmt.Sprintf("line %d: %q is not key=value (fix: write e.g. readproportion=0.5, or # before a comment)", n, clip(line)))
			continue
		}
		key, val := strings.TrimSpace(line[:sep]), strings.TrimSpace(line[sep+1:])
		if strings.HasSuffix(val, `\`) {
			probs = append(probs, fmt.Sprintf("line %d: %s continues on the next line (fix: write the value on one line)", n, key))
			continue
		}
		if p, ok := props[key]; ok {
			probs = append(probs, fmt.Sprintf("line %d: %s is given again (first on line %d) (fix: keep one)", n, key, p.line))
			continue
		}
		props[key] = property{val, n}
		order = append(order, key)
	}
	if len(probs) > 0 {
		return nil, nil, errors.New(strings.Join(probs, "; "))
	}
	return props, order, nil
}

// clip shortens a line quoted in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// propReader hands out the properties of a file, each parsed and checked,
// and remembers which it used and what was wrong.
type propReader struct {
	props map[string]property
	used  map[string]bool
	probs []string
}

// get returns key's value and marks it used.
func (r *propReader) get(key string) (property, bool) {
	p, ok := r.props[key]
	if ok {
		r.used[key] = true
	}
	return p, ok
}

// fail records a problem with key's line.
func (r *propReader) fail(key, format string, a ...any) {
	p := r.props[key]
	r.probs = append(r.probs, fmt.Sprintf("line %d: %s=%s %s", p.line, key, clip(p.value), fmt.Sprintf(format, a...)))
}

// count reads a units count; zeroOK says whether 0 is a value.
func (r *propReader) count(key string, def uint64, zeroOK bool) uint64 {
	p, ok := r.get(key)
	if !ok {
		return def
	}
	n, err := units.ParseCount(p.value)
	switch {
	case err != nil:
		r.fail(key, "%v", err)
	case n == 0 && !zeroOK:
		r.fail(key, "is 0, which is not a value here (fix: give 1 or more, or leave it out)")
	default:
		return n
	}
	return def
}

// small reads a count that must fit an int field, between lo and hi.
func (r *propReader) small(key string, def, lo, hi int) int {
	n := r.count(key, uint64(def), lo == 0)
	if n < uint64(lo) || n > uint64(hi) {
		r.fail(key, "is out of range (fix: use %d to %d)", lo, hi)
		return def
	}
	return int(n)
}

// fraction reads a float in [0, 1] (open at 0 when !zeroOK).
func (r *propReader) fraction(key string, def float64, zeroOK bool) float64 {
	p, ok := r.get(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(p.value, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 1 || (f == 0 && !zeroOK) {
		lo := "0"
		if !zeroOK {
			lo = "above 0"
		}
		r.fail(key, "is not a number from %s to 1 (fix: e.g. %s=%v)", lo, key, def)
		return def
	}
	return f
}

// boolean reads true or false, any case.
func (r *propReader) boolean(key string, def bool) bool {
	p, ok := r.get(key)
	if !ok {
		return def
	}
	switch strings.ToLower(p.value) {
	case "true":
		return true
	case "false":
		return false
	}
	r.fail(key, "is not true or false (fix: write %s=%v)", key, def)
	return def
}

// choice reads one of allowed (any case); refused values are known to YCSB
// but not to platbench, each with the reason.
func (r *propReader) choice(key, def string, allowed []string, refused map[string]string) string {
	p, ok := r.get(key)
	if !ok {
		return def
	}
	v := strings.ToLower(p.value)
	if slices.Contains(allowed, v) {
		return v
	}
	if why, ok := refused[v]; ok {
		r.fail(key, "is not supported: %s (fix: use %s)", why, strings.Join(allowed, " or "))
	} else {
		r.fail(key, "is unknown (fix: use %s)", strings.Join(allowed, " or "))
	}
	return def
}

// YCSB CoreWorkload's defaults where they differ from platbench's.
const (
	ycsbReadProportion   = 0.95
	ycsbUpdateProportion = 0.05
	ycsbMaxScanLength    = 1000
)

// ParsePropertyFile reads a YCSB CoreWorkload property file (see
// docs/workloads.md): the properties platbench uses become the Spec, with
// YCSB's defaults for those left out; a value platbench cannot honour is an
// error naming its line; the properties it does not use are named in one
// warning. The Spec has defaults filled in and is valid.
func ParsePropertyFile(data []byte) (Loaded, error) {
	props, order, err := readProperties(data)
	if err != nil {
		return Loaded{}, err
	}
	r := &propReader{props: props, used: map[string]bool{}}
	var l Loaded
	s := &l.Spec
	s.Description = "YCSB CoreWorkload property file"
	r.workloadClass()
	s.Records = r.count("recordcount", DefaultRecords, false)
	l.Ops = r.count("operationcount", 0, true)
	r.client(&l)
	s.Mix = r.mix()
	r.shape(s)
	r.keys(s)
	l.Shard, l.Shards = r.insertRange(s.Records)
	if len(r.probs) > 0 {
		return Loaded{}, errors.New(strings.Join(r.probs, "; "))
	}
	var unused []string
	for _, k := range order {
		if !r.used[k] {
			unused = append(unused, fmt.Sprintf("%s (line %d)", k, props[k].line))
		}
	}
	if len(unused) > 0 {
		l.Warnings = append(l.Warnings, "YCSB properties platbench does not use, ignored: "+strings.Join(unused, ", "))
	}
	s.EnsureDefaults()
	if p := s.Problems(); len(p) > 0 {
		return Loaded{}, errors.New(usererr.Render(p.Err(), nil))
	}
	return l, nil
}

// coreWorkloadNames are the names YCSB and go-ycsb give CoreWorkload in
// the workload property: YCSB loads the class by name (site.ycsb since
// 0.14, com.yahoo.ycsb before); go-ycsb registers "core" and YCSB's class
// name (pkg/workload/core.go).
var coreWorkloadNames = []string{"core", "site.ycsb.workloads.CoreWorkload", "com.yahoo.ycsb.workloads.CoreWorkload"}

// workloadClass accepts workload= any of CoreWorkload's names and refuses
// any other workload class: platbench runs CoreWorkload's model only.
func (r *propReader) workloadClass() {
	p, ok := r.get("workload")
	if ok && !slices.Contains(coreWorkloadNames, p.value) {
		r.fail("workload", "is not YCSB's CoreWorkload (fix: platbench reads CoreWorkload property files only; write workload=%s, or remove the line, if the file is one)", coreWorkloadNames[0])
	}
}

// client reads the properties of YCSB's and go-ycsb's client that a
// property file may carry (they are passed with -P like the workload's):
// threadcount, target (ops/s) and maxexecutiontime (seconds).
func (r *propReader) client(l *Loaded) {
	l.Threads = r.count("threadcount", 0, false)
	if l.Threads > math.MaxInt32 {
		r.fail("threadcount", "is out of range (fix: give 1 to %d)", math.MaxInt32)
		l.Threads = 0
	}
	if p, ok := r.get("target"); ok {
		v, err := units.ParseRate(p.value)
		if err != nil {
			r.fail("target", "%v", err)
		}
		l.RateOpsPerS = v
	}
	// Whole seconds, as YCSB reads it: "1m" would be a million seconds to
	// units.ParseCount and an error to YCSB.
	if p, ok := r.props["maxexecutiontime"]; ok && strings.Trim(p.value, "0123456789") != "" {
		r.used["maxexecutiontime"] = true
		r.fail("maxexecutiontime", "is not whole seconds (fix: e.g. maxexecutiontime=600)")
	} else if n := r.count("maxexecutiontime", 0, true); n > uint64(math.MaxInt64/time.Second) {
		r.fail("maxexecutiontime", "is out of range (fix: give seconds, e.g. 600)")
	} else {
		l.MaxExecution = time.Duration(n) * time.Second
	}
}

// ycsbOps are the *proportion properties in YCSB's order, with their
// defaults.
var ycsbOps = []struct {
	key string
	op  vocab.Op
	def float64
}{
	{"readproportion", vocab.OpRead, ycsbReadProportion},
	{"updateproportion", vocab.OpUpdate, ycsbUpdateProportion},
	{"insertproportion", vocab.OpInsert, 0},
	{"scanproportion", vocab.OpScan, 0},
	{"readmodifywriteproportion", vocab.OpRMW, 0},
}

// mix reads the proportions, which must sum to 1.
func (r *propReader) mix() MixList {
	var mix MixList
	var sum float64
	var terms []string
	bad := false
	for _, o := range ycsbOps {
		_, given := r.props[o.key]
		before := len(r.probs)
		w := r.fraction(o.key, o.def, true)
		bad = bad || len(r.probs) > before
		sum += w
		if w > 0 {
			mix = append(mix, vocab.Mix{Op: o.op, Weight: w})
		}
		if given {
			terms = append(terms, fmt.Sprintf("%s=%v", o.key, w))
		} else if w > 0 {
			terms = append(terms, fmt.Sprintf("%s=%v (YCSB's default)", o.key, w))
		}
	}
	if !bad && math.Abs(sum-1) > 1e-9 {
		r.probs = append(r.probs, fmt.Sprintf("%s sum to %v, not 1 (fix: make the proportions sum to 1; one left out takes YCSB's default)", strings.Join(terms, ", "), sum))
	}
	return mix
}

// shape reads the record shape, the scan lengths and writeallfields.
func (r *propReader) shape(s *Spec) {
	s.FieldCount = r.small("fieldcount", DefaultFieldCount, 1, math.MaxInt32)
	s.FieldLength = DefaultFieldLength
	if p, ok := r.get("fieldlength"); ok {
		n, err := units.ParseSize(p.value)
		switch {
		case err != nil:
			r.fail("fieldlength", "%v", err)
		case n <= 0 || n > math.MaxInt32:
			r.fail("fieldlength", "is out of range (fix: give 1 or more bytes, e.g. 100)")
		default:
			s.FieldLength = int(n)
		}
	}
	r.choice("fieldlengthdistribution", "constant", []string{"constant"}, map[string]string{
		"uniform": "platbench writes fields of one length", "zipfian": "platbench writes fields of one length",
		"histogram": "platbench writes fields of one length"})
	if !r.boolean("readallfields", true) {
		r.fail("readallfields", "is not supported: platbench reads whole records (fix: remove it or write readallfields=true)")
	}
	s.WriteAllFields = r.boolean("writeallfields", false)
	s.MaxScanLength = r.small("maxscanlength", ycsbMaxScanLength, 1, math.MaxInt32)
	if r.small("minscanlength", 1, 1, math.MaxInt32) != 1 {
		r.fail("minscanlength", "is not supported: platbench scans 1 to maxscanlength records (fix: remove it or write minscanlength=1)")
	}
	r.choice("scanlengthdistribution", "uniform", []string{"uniform"}, map[string]string{
		"zipfian": "platbench draws scan lengths uniformly"})
	// YCSB's scan pacing (its template writes the values that turn it off).
	if r.count("maxscanrate", 0, true) != 0 {
		r.fail("maxscanrate", "is not supported: platbench does not pace the records of a scan (fix: remove it or write maxscanrate=0)")
	}
	if r.count("scanoptimelimit", 0, true) != 0 {
		r.fail("scanoptimelimit", "is not supported: platbench does not cut scans short (fix: remove it or write scanoptimelimit=0)")
	}
	if r.boolean("discardscannedrecord", false) {
		r.fail("discardscannedrecord", "is not supported: platbench reads every scanned record (fix: remove it or write discardscannedrecord=false)")
	}
}

// keys reads how keys are chosen and formatted.
func (r *propReader) keys(s *Spec) {
	d := r.choice("requestdistribution", string(DistUniform),
		[]string{string(DistUniform), string(DistZipfian), string(DistLatest), string(DistHotspot), string(DistSequential)},
		map[string]string{"exponential": "platbench has no exponential key distribution"})
	s.Distribution = Dist(d)
	s.HotsetFraction = r.fraction("hotspotdatafraction", DefaultHotsetFraction, false)
	if s.HotsetFraction == 1 {
		r.fail("hotspotdatafraction", "leaves no cold keys (fix: use a value below 1, e.g. 0.2)")
	}
	s.HotOpnFraction = r.fraction("hotspotopnfraction", DefaultHotOpnFraction, false)
	s.OrderedInserts = r.choice("insertorder", "hashed", []string{"hashed", "ordered"}, nil) == "ordered"
	if pad := r.small("zeropadding", 1, 0, MaxKeyPadding); pad > 1 {
		s.KeyPadding = pad
	}
}

// insertRange reads insertstart and insertcount: the whole of recordcount,
// or one of N equal parts of it, which is platbench's shard i of N.
func (r *propReader) insertRange(records uint64) (shard, shards int) {
	start := r.count("insertstart", 0, true)
	if start >= records {
		r.fail("insertstart", "is not below recordcount %d (fix: give the first record of this loader's part)", records)
		return 0, 0
	}
	count := r.count("insertcount", records-start, false)
	switch {
	case count > records-start:
		r.fail("insertcount", "runs past recordcount %d from insertstart %d (fix: insertstart + insertcount <= recordcount)", records, start)
	case start == 0 && count == records:
		return 0, 0
	case records%count == 0 && start%count == 0 && records/count <= math.MaxInt32:
		return int(start / count), int(records / count)
	default:
		key := "insertcount"
		if _, ok := r.props[key]; !ok {
			key = "insertstart"
		}
		r.fail(key, "is not one of equal parts of recordcount (fix: insertcount = recordcount/N and insertstart = i*insertcount, which is shard i/N)")
	}
	return 0, 0
}
