package workload

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
)

// Defaults applied by EnsureDefaults. They are YCSB's core workload defaults
// except Records, which is YCSB's recordcount of 1000 scaled to something
// that exercises a cache.
const (
	DefaultRecords        = 100000
	DefaultFieldCount     = 10
	DefaultFieldLength    = 100
	DefaultKeyPrefix      = "user"
	DefaultDistribution   = DistZipfian
	DefaultZipfConstant   = 0.99
	DefaultHotsetFraction = 0.2
	DefaultHotOpnFraction = 0.8
	DefaultMaxScanLength  = 100
	// MaxKeyPadding bounds KeyPadding (a uint64 has at most 20 digits).
	MaxKeyPadding = 32
)

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("invalid workload")

// EnsureDefaults fills every zero field with its default (see the Default*
// constants); an empty Mix becomes YCSB A (READ=0.5, UPDATE=0.5). Fields that
// are set, even to bad values, are left for Validate to report.
func (s *Spec) EnsureDefaults() {
	s.Records = cmp.Or(s.Records, DefaultRecords)
	s.FieldCount = cmp.Or(s.FieldCount, DefaultFieldCount)
	s.FieldLength = cmp.Or(s.FieldLength, DefaultFieldLength)
	s.KeyPrefix = cmp.Or(s.KeyPrefix, DefaultKeyPrefix)
	s.Distribution = cmp.Or(s.Distribution, DefaultDistribution)
	s.ZipfConstant = cmp.Or(s.ZipfConstant, DefaultZipfConstant)
	s.HotsetFraction = cmp.Or(s.HotsetFraction, DefaultHotsetFraction)
	s.HotOpnFraction = cmp.Or(s.HotOpnFraction, DefaultHotOpnFraction)
	s.MaxScanLength = cmp.Or(s.MaxScanLength, DefaultMaxScanLength)
	s.commandDefaults()
	if len(s.Mix) == 0 {
		s.Mix = MixList{{Op: vocab.OpRead, Weight: 0.5}, {Op: vocab.OpUpdate, Weight: 0.5}}
	}
}

// Dists lists the known key distributions in the order docs show them.
var Dists = []Dist{DistUniform, DistZipfian, DistLatest, DistHotspot, DistSequential, DistGaussian}

// Validate reports every problem of s at once, as one line that names each
// fix; the error wraps ErrInvalid and the usererr.Error of each problem,
// whose Field is the YAML name of the field ("records", "field_count").
// Call EnsureDefaults first: Validate treats zero values as errors.
func (s *Spec) Validate() error {
	p := s.Problems()
	if len(p) == 0 {
		return nil
	}
	name := s.Name
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Errorf("%w %s: %w", ErrInvalid, name, p.Err())
}

// Problems lists what Validate reports, for a caller that validates a
// larger config and reports everything at once (bench.Config.Validate).
func (s *Spec) Problems() usererr.List {
	var p usererr.List
	if s.Records == 0 {
		p.Add("records", "is 0 (fix: set records to the dataset size, e.g. 100000)")
	}
	if s.Records > math.MaxInt64/2 {
		p.Add("records", "is %d, too large (fix: use at most %d)", s.Records, uint64(math.MaxInt64/2))
	}
	if s.FieldCount <= 0 {
		p.Add("field_count", "is %d (fix: use 1 or more fields, default %d)", s.FieldCount, DefaultFieldCount)
	}
	if s.FieldLength <= 0 {
		p.Add("field_length", "is %d (fix: use 1 or more bytes per field, default %d)", s.FieldLength, DefaultFieldLength)
	}
	if s.FieldCount > 0 && s.FieldLength > 0 && int64(s.FieldCount)*int64(s.FieldLength) > 64<<20 {
		p.Add("field_length", "x field_count = %d bytes a record exceeds 64 MiB (fix: lower field_count or field_length)", int64(s.FieldCount)*int64(s.FieldLength))
	}
	if s.CheckValues && s.FieldLength > 0 && s.FieldLength < ValueHeader {
		p.Add("field_length", "is %d, too short for checked values (fix: use at least %d bytes per field with validate)", s.FieldLength, ValueHeader)
	}
	if s.CheckValues && s.FieldCount > 256 {
		p.Add("field_count", "is %d, too many for checked values (fix: use at most 256 fields with validate)", s.FieldCount)
	}
	if s.KeyPadding < 0 || s.KeyPadding > MaxKeyPadding {
		p.Add("key_padding", "is %d (fix: use 0 to %d digits)", s.KeyPadding, MaxKeyPadding)
	}
	s.distProblems(&p)
	s.commandProblems(&p)
	s.mixProblems(&p)
	return p
}

func (s *Spec) distProblems(p *usererr.List) {
	if !slices.Contains(Dists, s.Distribution) {
		p.Add("distribution", "%q is unknown (fix: use one of %s)", s.Distribution, distNames())
	}
	if s.Distribution == DistZipfian || s.Distribution == DistLatest {
		if !(s.ZipfConstant > 0 && s.ZipfConstant < 1) {
			p.Add("zipf_constant", "is %v (fix: use a value in (0, 1), YCSB uses 0.99)", s.ZipfConstant)
		}
	}
	if s.Distribution == DistHotspot {
		if !(s.HotsetFraction > 0 && s.HotsetFraction < 1) {
			p.Add("hotset_fraction", "is %v (fix: use a value in (0, 1), default 0.2)", s.HotsetFraction)
		}
		if !(s.HotOpnFraction >= 0 && s.HotOpnFraction <= 1) {
			p.Add("hot_opn_fraction", "is %v (fix: use a value in [0, 1], default 0.8)", s.HotOpnFraction)
		}
	}
}

func (s *Spec) mixProblems(p *usererr.List) {
	if len(s.Mix) == 0 {
		p.Add("mix", "is empty (fix: give op weights, e.g. mix: read=0.5,update=0.5)")
	}
	var total float64
	hasScan := false
	for _, m := range s.Mix {
		if m.Op >= vocab.NumOps {
			p.Add("mix", "has unknown op %d (fix: use one of %s)", m.Op, vocab.OpList())
			continue
		}
		if m.Op.Named() && int(m.Op-vocab.OpNamed0) >= len(s.NamedOps) {
			p.Add("mix", "names %s, which this workload does not define (fix: use the names of the profile's insert and queries, or of the commands)", m.Op)
			continue
		}
		if math.IsNaN(m.Weight) || math.IsInf(m.Weight, 0) || m.Weight < 0 {
			p.Add("mix", "weight of %s is %v (fix: use a finite weight >= 0)", m.Op, m.Weight)
			continue
		}
		total += m.Weight
		if m.Op == vocab.OpScan && m.Weight > 0 {
			hasScan = true
		}
	}
	if len(s.Mix) > 0 && total == 0 {
		p.Add("mix", "weights sum to 0 (fix: give at least one op a positive weight)")
	}
	if hasScan && s.MaxScanLength <= 0 {
		p.Add("max_scan_length", "is %d (fix: use 1 or more, default %d)", s.MaxScanLength, DefaultMaxScanLength)
	}
}

func distNames() string {
	n := make([]string, len(Dists))
	for i, d := range Dists {
		n[i] = string(d)
	}
	return strings.Join(n, ", ")
}
