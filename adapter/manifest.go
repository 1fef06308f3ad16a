package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platbench/platbench/workload"
)

// A dataset is what platbench made (docs/datasets.md). A load writes, on the
// target itself and before its first record, a Manifest naming what it
// makes: the objects it created (keyspace, table, topic, map), the key
// format and the key numbers it writes, the load's id, platbench's version.
// A run that inserts raises the manifest's key range before its inserts go
// past it. `platbench clean` removes exactly what a manifest names (the key
// names regenerated from the key format over the range, never a pattern an
// application's keys could match) and refuses a target without one.

// ManifestFormat is the version of the manifest's JSON this platbench
// writes and reads; a manifest of a later format is refused, not guessed.
const ManifestFormat = 1

// MaxManifestBytes bounds a manifest read from a target: a real one is a
// few hundred bytes; anything past this is not platbench's.
const MaxManifestBytes = 64 << 10

// Manifest names one dataset of platbench's on a target. It is stored as
// JSON (Marshal) by the target beside the dataset: Redis and the embedded
// store under the key ManifestKey(prefix), Hazelcast in the map itself under
// the same key, CQL in a table of the keyspace (platbench_datasets), Kafka
// in a compacted topic (platbench-datasets) keyed by the topic's name.
type Manifest struct {
	Format int    `json:"format"`
	Tool   string `json:"tool"` // always "platbench"
	// Version is the platbench that wrote the manifest first.
	Version string `json:"version"`
	// Target is the adapter (redis, cql, kafka, hazelcast, embedded).
	Target string `json:"target"`
	// Dataset is where the records are, for a person: "keys user<n> in
	// database 0", "table ks.usertable", "topic t", "map m".
	Dataset string `json:"dataset"`
	// Created lists the objects the load created and clean may drop whole,
	// as "kind name": "keyspace ks", "table ks.t", "topic t", "map m". An
	// object that was there before the load is not listed: clean removes
	// only its records (by key) from it, or, where a record cannot be
	// removed alone (a Kafka message), leaves it and says so.
	Created []string `json:"created,omitempty"`
	// The key format: KeyPrefix, then the key number (hashed unless
	// OrderedInserts), left-padded to KeyPadding digits (workload.Spec).
	KeyPrefix      string `json:"key_prefix"`
	OrderedInserts bool   `json:"ordered_inserts,omitempty"`
	KeyPadding     int    `json:"key_padding,omitempty"`
	// KeyForms are the other key names a record has, "BEFORE{key}AFTER"
	// (a Redis command template's "list:__key__"; a SCAN workload's index
	// is in Extra).
	KeyForms []string `json:"key_forms,omitempty"`
	// ObjectID is the id the system gave the object the load created,
	// where it gives one (a Kafka topic's id): clean leaves an object of
	// that name with another id alone (someone else's, made since).
	ObjectID string `json:"object_id,omitempty"`
	// Extra are keys of the dataset besides its records (a scan index).
	Extra []string `json:"extra_keys,omitempty"`
	// Records is the number of records the load writes: key numbers
	// [0, Records).
	Records uint64 `json:"records"`
	// KeyHigh bounds every key number platbench may have written: key
	// numbers [0, KeyHigh) are the load's and the inserts of later runs.
	// A run that inserts raises it before its inserts reach it.
	KeyHigh uint64 `json:"key_high"`
	// LoadID is the load that made the dataset (result.Dataset.LoadID).
	LoadID string `json:"load_id"`
	// Runs counts the runs that inserted records after the load; LastRun is
	// the last one's id.
	Runs    int    `json:"runs,omitempty"`
	LastRun string `json:"last_run,omitempty"`
	// Complete is set once the load has written every record: a manifest
	// left incomplete is a load that failed or was killed (clean removes
	// what it may have written all the same).
	Complete  bool      `json:"complete"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`

	// stored is the JSON as read from the target (ParseManifest), which a
	// ManifestSwapper compares with what is there now; nil for a manifest
	// made here.
	stored []byte
}

// Stored is the manifest's JSON exactly as ReadManifest read it from the
// target (nil for one made in this process).
func (m *Manifest) Stored() []byte { return m.stored }

// ManifestKey is the key under which Redis, Hazelcast and the embedded
// store keep the manifest of the dataset whose keys start with prefix:
// outside platbench's key format (prefix then digits), so no run reads it.
func ManifestKey(prefix string) string { return "platbench:dataset:" + prefix }

// NewManifest is the manifest of a load of w by platbench version, made at
// now by the load loadID.
func NewManifest(target, version, loadID string, w *workload.Spec, now time.Time) *Manifest {
	return &Manifest{
		Format: ManifestFormat, Tool: "platbench", Version: version, Target: target,
		KeyPrefix: w.KeyPrefix, OrderedInserts: w.OrderedInserts, KeyPadding: w.KeyPadding,
		Records: w.Records, KeyHigh: w.Records, LoadID: loadID,
		CreatedAt: now.UTC(), UpdatedAt: now.UTC(),
	}
}

// KeySpec is a workload whose key function is the manifest's: its
// KeyName(n) is the name of record n as the load wrote it.
func (m *Manifest) KeySpec() *workload.Spec {
	return &workload.Spec{KeyPrefix: m.KeyPrefix, OrderedInserts: m.OrderedInserts, KeyPadding: m.KeyPadding, Records: m.Records}
}

// Keys calls fn with every key name of the dataset's records, [0, KeyHigh)
// in each of its forms, until fn returns an error. It allocates one string
// per key; a target removing them batches its calls.
func (m *Manifest) Keys(fn func(key string) error) error {
	s := m.KeySpec()
	for n := uint64(0); n < m.KeyHigh; n++ {
		k := s.KeyName(n)
		if err := fn(k); err != nil {
			return err
		}
		for _, f := range m.KeyForms {
			before, after, _ := strings.Cut(f, "{key}")
			if err := fn(before + k + after); err != nil {
				return err
			}
		}
	}
	return nil
}

// EachKey calls do with every key that keys yields (Manifest.Keys, or
// another walk of the range), from workers goroutines at once, for a target
// that removes keys one by one. It stops at the first error, which it
// returns, and counts the calls for which do returned true (a key that was
// there).
func EachKey(ctx context.Context, workers int, keys func(fn func(key string) error) error, do func(ctx context.Context, key string) (bool, error)) (int64, error) {
	ch := make(chan string, 1024)
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var n atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var werr error
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range ch {
				there, err := do(gctx, k)
				if err != nil {
					once.Do(func() { werr = err; cancel() })
					continue // drain
				}
				if there {
					n.Add(1)
				}
			}
		}()
	}
	err := keys(func(k string) error {
		select {
		case ch <- k:
			return nil
		case <-gctx.Done():
			return gctx.Err()
		}
	})
	close(ch)
	wg.Wait()
	if werr != nil {
		err = werr
	}
	return n.Load(), err
}

// KeyCount is the number of key names Keys yields (records and their forms).
func (m *Manifest) KeyCount() uint64 { return m.KeyHigh * uint64(1+len(m.KeyForms)) }

// Describe is the manifest for a person, in one line.
func (m *Manifest) Describe() string {
	by := "loaded by " + m.LoadID
	if strings.HasPrefix(m.LoadID, "run-") {
		by = "written by a run without a load, " + m.LoadID
	}
	s := fmt.Sprintf("%s: %d records (key numbers 0..%d), %s (platbench %s) at %s", m.Dataset, m.Records, int64(m.KeyHigh)-1, by, m.Version, m.CreatedAt.Format(time.RFC3339))
	if !m.Complete {
		s += ", a load that did not finish"
	}
	return s
}

// Marshal is the manifest's JSON, as targets store it.
func (m *Manifest) Marshal() []byte {
	b, err := json.Marshal(m)
	if err != nil { // a struct of plain fields: cannot fail
		panic(err)
	}
	return b
}

// ParseManifest reads a manifest a target kept (what Marshal wrote). The
// bytes come from the target, where anyone could have written them: what is
// not a manifest of this format, whole and consistent, is an error naming
// the problem, never a guess (clean removes by it).
func ParseManifest(b []byte) (*Manifest, error) {
	if len(b) > MaxManifestBytes {
		return nil, fmt.Errorf("%d bytes, more than a manifest's %d", len(b), MaxManifestBytes)
	}
	var m Manifest
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a manifest's JSON: %v", err)
	}
	if d.More() {
		return nil, fmt.Errorf("not a manifest's JSON: more after the object")
	}
	if m.Tool != "platbench" {
		return nil, fmt.Errorf("tool %q, not platbench", m.Tool)
	}
	if m.Format > ManifestFormat {
		return nil, fmt.Errorf("format %d, written by a later platbench (%s) than this one, which reads format %d (fix: clean with platbench %s or later)", m.Format, m.Version, ManifestFormat, m.Version)
	}
	if m.Format < 1 {
		return nil, fmt.Errorf("format %d, not a manifest's", m.Format)
	}
	switch {
	case m.KeyPrefix == "":
		return nil, fmt.Errorf("no key prefix")
	case m.KeyPadding < 0 || m.KeyPadding > workload.MaxKeyPadding:
		return nil, fmt.Errorf("key padding %d outside 0..%d", m.KeyPadding, workload.MaxKeyPadding)
	case m.KeyHigh < m.Records:
		return nil, fmt.Errorf("key range 0..%d below its %d records", m.KeyHigh, m.Records)
	case m.KeyHigh > 1<<62:
		return nil, fmt.Errorf("key range 0..%d past any dataset's", m.KeyHigh)
	case m.Target == "":
		return nil, fmt.Errorf("no target")
	}
	for _, f := range m.KeyForms {
		if strings.Count(f, "{key}") != 1 {
			return nil, fmt.Errorf("key form %q without exactly one {key}", f)
		}
	}
	for _, c := range m.Created {
		if kind, name, ok := strings.Cut(c, " "); !ok || kind == "" || name == "" {
			return nil, fmt.Errorf("created object %q is not \"kind name\"", c)
		}
	}
	m.stored = bytes.Clone(b)
	return &m, nil
}

// ManifestSwapper is implemented by targets that can replace a dataset's
// manifest atomically, only while it is still the one last read: two
// platbench processes writing one dataset's manifest (two loads, a load
// and a run raising its range, the loaders of a distributed run) then
// never lose each other's objects or keys; bench reads the manifest,
// merges what another wrote since into its own, and swaps, again until
// the swap holds. A target without it is written read, merge, write (a
// narrow window, not none).
type ManifestSwapper interface {
	// SwapManifest stores m where the manifest of w's dataset is, only
	// while what is there is old (its Stored bytes; nil old: nothing is
	// there); false, storing nothing, when something else is there.
	SwapManifest(ctx context.Context, w *workload.Spec, old, m *Manifest) (bool, error)
}

// ErrNoSwap says the server refused the compare-and-swap itself (a Redis
// user whose ACL does not allow scripts): bench then writes the manifest
// read, merge, write, as for a target without one.
var ErrNoSwap = errors.New("the server refuses the compare-and-swap")

// Manifester is implemented by targets that keep a dataset's manifest on
// the target (every target with a dataset: Redis and Valkey, CQL, Kafka,
// Hazelcast, the embedded store). Each is called after Setup.
type Manifester interface {
	// NewManifest is the manifest of a load of w about to start on this
	// target, as Setup left it (what it created, where the records go),
	// by platbench version and load loadID; bench writes it.
	// It returns nil when w keeps no records there (a CP object).
	NewManifest(ctx context.Context, w *workload.Spec, version, loadID string) *Manifest
	// WriteManifest stores m, replacing the one of the same dataset.
	WriteManifest(ctx context.Context, w *workload.Spec, m *Manifest) error
	// ReadManifest reads the manifest of w's dataset: nil with a nil error
	// when there is none; an error naming what is there when what is
	// stored is not a manifest (ParseManifest).
	ReadManifest(ctx context.Context, w *workload.Spec) (*Manifest, error)
}

// Cleaner is implemented by targets that can remove a dataset of
// platbench's, and only it, for `platbench clean` and for a run that
// removes what its own load made.
type Cleaner interface {
	Manifester
	// Clean removes exactly what m names (the objects it created, else the
	// keys of its range, then the manifest) and returns what it removed,
	// described for a person; with dryRun it removes nothing and returns
	// what it would remove.
	Clean(ctx context.Context, w *workload.Spec, m *Manifest, dryRun bool) ([]string, error)
	// Unmarked, for a clean that found no manifest, looks where w's
	// dataset would be: nil when nothing is there; else an Unmarked error
	// naming what is (a table, a topic, keys that look like platbench's),
	// which clean returns, removing nothing.
	Unmarked(ctx context.Context, w *workload.Spec) error
}

// Unmarked is the error of a clean on a target that holds no manifest of
// platbench's for the workload (none at manifestAt) but something where its
// dataset would be: it names what it found and why it is left alone.
func Unmarked(where, manifestAt string, found []string) error {
	return &DatasetError{Msg: fmt.Sprintf("%s: no dataset manifest of platbench's (%s), so nothing was removed: found %s, which platbench cannot prove it made (fix: remove it by hand if it is yours to remove; what a load of this platbench makes, clean removes by its manifest)",
		where, manifestAt, strings.Join(found, "; "))}
}
