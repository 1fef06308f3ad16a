package cql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// Datasets stay put (adapter.Retainer, adapter.DatasetChecker,
// adapter.Cleaner): `platbench load` keeps the keyspace and table it created;
// a run without a load creates nothing and checks the first and the last
// record first. A load keeps its manifest in the keyspace's table
// platbench_datasets; clean removes what it names: the table (and the
// keyspace, when the load created it and nothing else is in it), or the
// rows of its keys from a table that was there before.

var (
	_ adapter.Retainer       = (*Target)(nil)
	_ adapter.DatasetChecker = (*Target)(nil)
	_ adapter.Cleaner        = (*Target)(nil)
)

// Retain makes Close keep what Setup created.
func (t *Target) Retain() { t.cfg.Keep = true }

// Retained reports whether Close keeps what Setup created.
func (t *Target) Retained() bool { return t.cfg.Keep }

// UseExisting makes Setup create nothing: a missing keyspace or table is a
// adapter.MissingDataset error (see missing).
func (t *Target) UseExisting() { t.cfg.Create, t.existing = false, true }

// missing is the error of a keyspace or table that is not there: bad input
// when the user said create=false, a dataset to load first otherwise.
func (t *Target) missing(what string, configErr error) error {
	if t.existing {
		return adapter.MissingDataset("cql: the dataset is not there: %s does not exist (fix: load it first: platbench load with the same target and workload; then run without the load phase)", what)
	}
	return configErr
}

// CheckDataset reads the first and the last record's key (YCSB and stress
// schemas); a profile's table must hold at least one row.
func (t *Target) CheckDataset(ctx context.Context, w *workload.Spec) error {
	if !w.ReadsRecords() || w.Records == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, ddlTimeout)
	defer cancel()
	if w.CQL != nil {
		ks, tbl := w.CQL.Keyspace, w.CQL.Table
		var n int
		it := t.session.Query(fmt.Sprintf("SELECT * FROM %s.%s LIMIT 1", ks, tbl)).IterContext(ctx)
		n = it.NumRows()
		if err := it.Close(); err != nil {
			return fmt.Errorf("cql: checking the dataset: %w", classify(err))
		}
		if n == 0 {
			return adapter.MissingDataset("cql: the dataset is not there: table %s.%s is empty (fix: load it first: platbench load with the same target and profile; then run without the load phase)", ks, tbl)
		}
		return nil
	}
	c := &t.cfg
	key, _ := columnNames(c, max(w.FieldCount, 1))
	q := fmt.Sprintf("SELECT %s FROM %s.%s WHERE %s = ?", key, c.Keyspace, c.Table, key)
	for _, k := range []uint64{0, w.Records - 1} {
		name := w.KeyName(k)
		var arg any = name
		if c.Schema == SchemaStress {
			arg = []byte(name)
		}
		var got []byte
		err := t.session.Query(q, arg).Consistency(gocql.One).ScanContext(ctx, &got)
		if errors.Is(err, gocql.ErrNotFound) {
			return adapter.MissingDataset("cql: the dataset is not there: record %d of %d (key %q) is not in %s.%s (fix: load it first: platbench load with the same target and workload; then run without the load phase)",
				k, w.Records, name, c.Keyspace, c.Table)
		}
		if err != nil {
			return fmt.Errorf("cql: checking the dataset: %w", classify(err))
		}
	}
	return nil
}

// manifestTarget is the manifest's target.
const manifestTarget = "cql"

// manifestTable keeps the manifests (adapter.Manifest, JSON) of the
// datasets of a keyspace, one row per data table: a small table of
// platbench's beside them, written with plain writes (a run raising a
// manifest makes no schema change), dropped by clean when it is empty.
const manifestTable = "platbench_datasets"

// dataTable is the table a workload's records are in.
func (t *Target) dataTable(w *workload.Spec) (ks, tbl string) {
	if w.CQL != nil {
		return w.CQL.Keyspace, w.CQL.Table
	}
	return t.cfg.Keyspace, t.cfg.Table
}

// NewManifest: the table of the workload, and the keyspace and table this
// target's Setup created.
func (t *Target) NewManifest(_ context.Context, w *workload.Spec, version, loadID string) *adapter.Manifest {
	ks, tbl := t.dataTable(w)
	m := adapter.NewManifest(manifestTarget, version, loadID, w, time.Now())
	m.Dataset = fmt.Sprintf("table %s.%s", ks, tbl)
	if t.createdKS {
		m.Created = append(m.Created, "keyspace "+ks)
	}
	if t.createdTbl {
		m.Created = append(m.Created, "table "+ks+"."+tbl)
		m.ObjectID = t.tableID
	}
	return m
}

// A table has an id (system_schema.tables.id), new each time a table of
// that name is created: the manifest keeps the id of the table its load
// created (Manifest.ObjectID), and clean (and Close) drop a table only
// while its id is still that one, never one that someone dropped and
// created again under the same name since. A keyspace has no id: one that
// a load created is dropped only when nothing is left in it once
// platbench's own tables are gone (an application's table, type, function
// or view keeps it), so a keyspace made again by someone else, or one that
// someone added a table to, stays.

// tableIDOf is the id of table ks.tbl ("" when it is not there).
func tableIDOf(ctx context.Context, s *gocql.Session, ks, tbl string) (string, error) {
	var id gocql.UUID
	err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", ks, tbl).Consistency(gocql.One).ScanContext(ctx, &id)
	if errors.Is(err, gocql.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("cql: reading the id of table %s.%s: %w", ks, tbl, classify(err))
	}
	return id.String(), nil
}

// sameTable is nil when table ks.tbl is the one load m created (its id is
// the manifest's); else the refusal, removing nothing.
func sameTable(ctx context.Context, s *gocql.Session, ks, tbl string, m *adapter.Manifest) error {
	id, err := tableIDOf(ctx, s, ks, tbl)
	if err != nil || id == "" || id == m.ObjectID {
		return err
	}
	stale := fmt.Sprintf("if the table is yours, keep it and delete the stale manifest: DELETE FROM %s.%s WHERE dataset = '%s'; if it is platbench's, drop it by hand, then clean again", ks, manifestTable, tbl)
	if m.ObjectID == "" {
		return adapter.MissingDataset("cql: table %s.%s: the manifest of load %s (platbench %s) does not say which table it created (no table id), so platbench cannot tell the table there now (id %s) is that one and not one made again since under the same name: nothing removed (fix: %s)", ks, tbl, m.LoadID, m.Version, id, stale)
	}
	return adapter.MissingDataset("cql: table %s.%s is not the one load %s created (its id is %s, the load's was %s): someone dropped it and created it again since; nothing removed (fix: %s)", ks, tbl, m.LoadID, id, m.ObjectID, stale)
}

// WriteManifest keeps m in the keyspace's manifestTable (created when
// missing), in the row of the data table; a nil m makes the table alone.
func (t *Target) WriteManifest(ctx context.Context, w *workload.Spec, m *adapter.Manifest) error {
	ks, tbl := t.dataTable(w)
	if !t.manTable {
		admin, err := t.adminSession(ctx)
		if err != nil {
			return err
		}
		err = ddl(ctx, admin, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (dataset text PRIMARY KEY, manifest text) WITH comment = 'platbench: the manifests of the datasets platbench loaded into this keyspace (platbench clean)'", ks, manifestTable))
		admin.Close()
		if err != nil {
			return err
		}
		t.manTable = true
	}
	if m == nil {
		return nil // the table alone (SwapManifest)
	}
	q := fmt.Sprintf("INSERT INTO %s.%s (dataset, manifest) VALUES (?, ?)", ks, manifestTable)
	if err := t.session.Query(q, tbl, string(m.Marshal())).Consistency(gocql.Quorum).ExecContext(ctx); err != nil {
		return fmt.Errorf("cql: writing the manifest of %s.%s: %w", ks, tbl, classify(err))
	}
	return nil
}

var _ adapter.ManifestSwapper = (*Target)(nil)

// SwapManifest stores m in the data table's row while old is what is there
// (a lightweight transaction: INSERT IF NOT EXISTS, UPDATE IF manifest =).
func (t *Target) SwapManifest(ctx context.Context, w *workload.Spec, old, m *adapter.Manifest) (bool, error) {
	ks, tbl := t.dataTable(w)
	if old == nil {
		if err := t.WriteManifest(ctx, w, nil); err != nil { // the manifests' table
			return false, err
		}
	}
	q := t.session.Query(fmt.Sprintf("INSERT INTO %s.%s (dataset, manifest) VALUES (?, ?) IF NOT EXISTS", ks, manifestTable), tbl, string(m.Marshal()))
	if old != nil {
		q = t.session.Query(fmt.Sprintf("UPDATE %s.%s SET manifest = ? WHERE dataset = ? IF manifest = ?", ks, manifestTable), string(m.Marshal()), tbl, string(old.Stored()))
	}
	applied, err := q.Consistency(gocql.Quorum).SerialConsistency(gocql.Serial).MapScanCASContext(ctx, map[string]any{})
	if err != nil {
		return false, fmt.Errorf("cql: writing the manifest of %s.%s (a lightweight transaction): %w", ks, tbl, classify(err))
	}
	return applied, nil
}

// ReadManifest reads the manifest of the workload's table (nil when the
// keyspace, the manifests' table or the row is not there).
func (t *Target) ReadManifest(ctx context.Context, w *workload.Spec) (*adapter.Manifest, error) {
	ks, tbl := t.dataTable(w)
	admin, meta, err := t.keyspaceMeta(ctx, ks)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	if meta == nil {
		return nil, nil
	}
	if meta.Tables[manifestTable] == nil {
		return nil, nil
	}
	t.manTable = true
	var js string
	err = admin.Query(fmt.Sprintf("SELECT manifest FROM %s.%s WHERE dataset = ?", ks, manifestTable), tbl).Consistency(gocql.Quorum).ScanContext(ctx, &js)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cql: reading the manifest of %s.%s: %w", ks, tbl, classify(err))
	}
	m, err := adapter.ParseManifest([]byte(js))
	if err == nil && (m.Target != manifestTarget || m.Dataset != "table "+ks+"."+tbl) {
		err = fmt.Errorf("it names the %s dataset %q", m.Target, m.Dataset)
	}
	if err != nil {
		return nil, adapter.MissingDataset("cql: the row %q of %s.%s is not a dataset manifest of platbench's for table %s.%s (%v): nothing removed (fix: look at it; delete the row by hand if it is a stale one)", tbl, ks, manifestTable, ks, tbl, err)
	}
	return m, nil
}

// keyspaceMeta opens an admin session and reads the schema of keyspace ks:
// a nil meta when ks is not there. The caller closes admin.
func (t *Target) keyspaceMeta(ctx context.Context, ks string) (*gocql.Session, *gocql.KeyspaceMetadata, error) {
	admin, err := t.adminSession(ctx)
	if err != nil {
		return nil, nil, err
	}
	meta, err := admin.KeyspaceMetadata(ks)
	if errors.Is(err, gocql.ErrKeyspaceDoesNotExist) {
		return admin, nil, nil
	}
	if err != nil {
		admin.Close()
		return nil, nil, fmt.Errorf("cql: reading the schema of keyspace %s: %w", ks, classify(err))
	}
	return admin, meta, nil
}

// Unmarked names the workload's table when it is there.
func (t *Target) Unmarked(ctx context.Context, w *workload.Spec) error {
	ks, tbl := t.dataTable(w)
	admin, meta, err := t.keyspaceMeta(ctx, ks)
	if err != nil {
		return err
	}
	defer admin.Close()
	if meta == nil {
		return nil
	}
	if meta.Tables[tbl] == nil {
		return nil
	}
	what := fmt.Sprintf("table %s.%s (keyspace %s has %d tables)", ks, tbl, ks, len(meta.Tables))
	return adapter.Unmarked("cql keyspace "+ks, fmt.Sprintf("no row %q in %s.%s", tbl, ks, manifestTable), []string{what})
}

// dropCreated drops, for Close, what Setup created: the table while its id
// is the one Setup saw; the keyspace Setup created when nothing is in it
// besides that table and platbench's manifests of it (DROP KEYSPACE takes
// them along), and the types and functions of the profile's
// extra_definitions when Setup ran them. What it leaves, it names in its
// error.
func (t *Target) dropCreated(ctx context.Context, admin *gocql.Session) error {
	ks, tbl := t.cfg.Keyspace, t.cfg.Table
	meta, err := admin.KeyspaceMetadata(ks)
	if errors.Is(err, gocql.ErrKeyspaceDoesNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cql: reading the schema of keyspace %s: %w", ks, classify(err))
	}
	id, err := tableIDOf(ctx, admin, ks, tbl)
	if err != nil {
		return err
	}
	if id != "" && id != t.tableID {
		return fmt.Errorf("cql: table %s.%s is not the one this run's setup created (its id is %s, the setup's was %s): someone made it again since; it and keyspace %s were left there", ks, tbl, id, t.tableID, ks)
	}
	var others []string
	for name := range meta.Tables {
		if name != tbl && name != manifestTable {
			others = append(others, "table "+name)
		}
	}
	if n := len(meta.UserTypes) + len(meta.Functions) + len(meta.Aggregates) + len(meta.MaterializedViews); n > 0 && !t.createdExtra {
		others = append(others, fmt.Sprintf("%d types, functions or views", n))
	}
	if meta.Tables[manifestTable] != nil {
		var name string
		it := admin.Query(fmt.Sprintf("SELECT dataset FROM %s.%s", ks, manifestTable)).Consistency(gocql.Quorum).IterContext(ctx)
		for it.Scan(&name) {
			if name != tbl {
				others = append(others, fmt.Sprintf("the manifest of %s.%s", ks, name))
			}
		}
		if err := it.Close(); err != nil {
			return fmt.Errorf("cql: reading %s.%s: %w", ks, manifestTable, classify(err))
		}
	}
	if t.createdKS && len(others) == 0 {
		return ddl(ctx, admin, "DROP KEYSPACE IF EXISTS "+ks)
	}
	if id != "" {
		if err := ddl(ctx, admin, "DROP TABLE IF EXISTS "+ks+"."+tbl); err != nil {
			return err
		}
	}
	if t.createdKS {
		slices.Sort(others)
		return fmt.Errorf("cql: keyspace %s, which this run's setup created, was left there: it holds what the run did not make (%s)", ks, strings.Join(others, ", "))
	}
	return nil
}

// cleanWorkers delete rows at once, for a table that was there before the
// load.
const cleanWorkers = 16

// Clean drops the table when the load created it, else deletes the rows of
// the manifest's keys from it (a YCSB or stress table; a profile's rows
// cannot be named from a key number, so its table that platbench did not
// create is refused); then the manifest's row, the manifests' table when no
// row is left, and the keyspace when the load created it and no table is
// left in it (an application's table, type, function or view beside
// platbench's keeps it).
func (t *Target) Clean(ctx context.Context, w *workload.Spec, m *adapter.Manifest, dryRun bool) ([]string, error) {
	ks, tbl := t.dataTable(w)
	admin, meta, err := t.keyspaceMeta(ctx, ks)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	if meta == nil {
		return nil, nil
	}
	var out []string
	tables := len(meta.Tables)
	switch {
	case meta.Tables[tbl] == nil:
	case slices.Contains(m.Created, "table "+ks+"."+tbl):
		if err := sameTable(ctx, admin, ks, tbl, m); err != nil {
			return nil, err
		}
		if !dryRun {
			if err := ddl(ctx, admin, fmt.Sprintf("DROP TABLE IF EXISTS %s.%s", ks, tbl)); err != nil {
				return nil, err
			}
		}
		tables--
		out = append(out, fmt.Sprintf("table %s.%s (load %s created it)", ks, tbl, m.LoadID))
	case w.CQL != nil:
		return nil, adapter.MissingDataset("cql: table %s.%s was there before load %s: platbench will not drop it, and a profile's rows cannot be named from their key numbers: nothing removed (fix: delete platbench's rows by hand, then the row %q of %s.%s)", ks, tbl, m.LoadID, tbl, ks, manifestTable)
	default:
		n, err := t.deleteRows(ctx, admin, ks, tbl, m, dryRun)
		if err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%d rows %s<n> of table %s.%s (of the %d key numbers 0..%d that load %s and later runs may have written; the table was there before, and stays)", n, m.KeyPrefix, ks, tbl, m.KeyHigh, int64(m.KeyHigh)-1, m.LoadID))
	}
	if meta.Tables[manifestTable] != nil {
		if !dryRun {
			q := fmt.Sprintf("DELETE FROM %s.%s WHERE dataset = ?", ks, manifestTable)
			if err := admin.Query(q, tbl).Consistency(gocql.Quorum).ExecContext(ctx); err != nil {
				return out, fmt.Errorf("cql: removing the manifest of %s.%s: %w", ks, tbl, classify(err))
			}
		}
		out = append(out, fmt.Sprintf("the manifest of %s.%s (row %q of %s.%s)", ks, tbl, tbl, ks, manifestTable))
		others := 0
		it := admin.Query(fmt.Sprintf("SELECT dataset FROM %s.%s LIMIT 2", ks, manifestTable)).Consistency(gocql.Quorum).IterContext(ctx)
		var name string
		for it.Scan(&name) {
			if name != tbl {
				others++
			}
		}
		if err := it.Close(); err != nil {
			return out, fmt.Errorf("cql: reading %s.%s: %w", ks, manifestTable, classify(err))
		}
		if others == 0 {
			if !dryRun {
				if err := ddl(ctx, admin, fmt.Sprintf("DROP TABLE IF EXISTS %s.%s", ks, manifestTable)); err != nil {
					return out, err
				}
				t.manTable = false
			}
			tables--
			out = append(out, fmt.Sprintf("table %s.%s (no manifest left in it)", ks, manifestTable))
		}
	}
	// A type, function or view of anyone's in the keyspace keeps it as a
	// table does: DROP KEYSPACE would take it along.
	besides := len(meta.UserTypes) + len(meta.Functions) + len(meta.Aggregates) + len(meta.MaterializedViews)
	if slices.Contains(m.Created, "keyspace "+ks) && tables == 0 && besides == 0 {
		if !dryRun {
			if err := ddl(ctx, admin, "DROP KEYSPACE IF EXISTS "+ks); err != nil {
				return out, err
			}
		}
		out = append(out, fmt.Sprintf("keyspace %s (load %s created it; no table is left in it)", ks, m.LoadID))
	}
	if !dryRun {
		t.createdKS, t.createdTbl = false, false // nothing left for Close to drop
	}
	return out, nil
}

// deleteRows deletes (or, dry, counts) the rows of the manifest's keys.
func (t *Target) deleteRows(ctx context.Context, admin *gocql.Session, ks, tbl string, m *adapter.Manifest, dryRun bool) (int64, error) {
	c := &t.cfg
	key, _ := columnNames(c, 1)
	q := fmt.Sprintf("DELETE FROM %s.%s WHERE %s = ?", ks, tbl, key)
	if dryRun {
		q = fmt.Sprintf("SELECT %s FROM %s.%s WHERE %s = ?", key, ks, tbl, key)
	}
	s := m.KeySpec()
	records := func(fn func(key string) error) error {
		for k := uint64(0); k < m.KeyHigh; k++ {
			if err := fn(s.KeyName(k)); err != nil {
				return err
			}
		}
		return nil
	}
	n, err := adapter.EachKey(ctx, cleanWorkers, records, func(ctx context.Context, k string) (bool, error) {
		var arg any = k
		if c.Schema == SchemaStress {
			arg = []byte(k)
		}
		if dryRun {
			var got []byte
			err := admin.Query(q, arg).Consistency(gocql.Quorum).ScanContext(ctx, &got)
			if errors.Is(err, gocql.ErrNotFound) {
				return false, nil
			}
			return err == nil, err
		}
		// a delete of a row that is not there is counted: a tombstone all the same
		return true, admin.Query(q, arg).Consistency(gocql.Quorum).ExecContext(ctx)
	})
	if err != nil {
		return 0, fmt.Errorf("cql: deleting platbench's rows of %s.%s: %w", ks, tbl, classify(err))
	}
	return n, nil
}

// RecordSize is a record of w as set up: a profile's mean partition
// (csprofile.Profile.Size), or the workload's record of one row.
func (t *Target) RecordSize(w *workload.Spec) (rows, bytes float64) {
	if t.prof != nil {
		return t.prof.Size()
	}
	return 1, float64(w.RecordBytes())
}

// Resize makes the profile's inserts choose their extra partitions among
// w.Records (a dataset budget lowered it after Setup).
func (t *Target) Resize(w *workload.Spec) {
	if t.prof != nil {
		t.prof.Records = w.Records
	}
}
