package result

import (
	"github.com/platbench/platbench/cstress"
	"github.com/platbench/platbench/vocab"
)

// Workload is the workload a run ran, as the file stores it: the plain data
// of workload.Spec, field for field and with the same JSON, so that result
// needs nothing above vocab and cstress (whose Profile is the one type of a
// cassandra-stress profile, the Spec's and the file's). Package workload
// converts both ways (workload.Spec.Record, workload.FromRecord); its test
// checks that a Spec and its Workload encode to the same bytes.
type Workload struct {
	Name           string            `json:"name"`
	Description    string            `json:"description,omitempty"`
	Records        uint64            `json:"records"`
	FieldCount     int               `json:"field_count"`
	FieldLength    int               `json:"field_length"`
	KeyPrefix      string            `json:"key_prefix"`
	OrderedInserts bool              `json:"ordered_inserts"`
	KeyPadding     int               `json:"key_padding,omitempty"`
	Mix            MixList           `json:"mix"`
	Distribution   string            `json:"distribution"`
	ZipfConstant   float64           `json:"zipf_constant,omitempty"`
	HotsetFraction float64           `json:"hotset_fraction,omitempty"`
	HotOpnFraction float64           `json:"hot_opn_fraction,omitempty"`
	MaxScanLength  int               `json:"max_scan_length,omitempty"`
	WriteAllFields bool              `json:"write_all_fields,omitempty"`
	CheckValues    bool              `json:"validate,omitempty"`
	NamedOps       []string          `json:"named_ops,omitempty"`
	CQL            *cstress.Profile  `json:"cql_profile,omitempty"`
	Commands       []Command         `json:"commands,omitempty"`
	Options        map[string]string `json:"options,omitempty"`
}

// MixList is a workload's op mix.
type MixList []vocab.Mix

// String formats the mix as workload.ParseMix reads it ("read=0.5,update=0.5").
func (ml MixList) String() string { return vocab.FormatMix(ml, vocab.Op.String) }

// OpName is the name of op in results and reports: the workload's own name
// for a named slot (e.g. "simple1"), the built-in name otherwise.
func (w *Workload) OpName(op vocab.Op) string { return vocab.OpName(op, w.NamedOps) }

// MixString formats the mix with the operations' own names ("insert=1,simple1=9").
func (w *Workload) MixString() string { return vocab.FormatMix(w.Mix, w.OpName) }

// Command is a command template of the workload (workload.Command).
type Command struct {
	Name    string  `json:"name"`
	Command string  `json:"command"`
	Weight  float64 `json:"weight"`
}
