package cql

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// Datasets stay put (adapter.Retainer, adapter.DatasetChecker,
// adapter.Cleaner): `platbench load` keeps the keyspace and table it created;
// a run without a load creates nothing and checks the first and the last
// record first; clean drops the table (and the keyspace, when nothing else
// is in it) that platbench's schema names.

var (
	_ adapter.Retainer       = (*Target)(nil)
	_ adapter.DatasetChecker = (*Target)(nil)
	_ adapter.Cleaner        = (*Target)(nil)
)

// Retain makes Close keep what Setup created.
func (t *Target) Retain() { t.cfg.Keep = true }

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

// Clean drops platbench's table, and its keyspace when no other table is
// left in it. Nothing there is nothing to do.
func (t *Target) Clean(ctx context.Context, w *workload.Spec) ([]string, error) {
	ksName, tbl := t.cfg.Keyspace, t.cfg.Table
	if w.CQL != nil {
		ksName, tbl = w.CQL.Keyspace, w.CQL.Table
	}
	admin, err := t.adminSession(ctx)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	ks, err := admin.KeyspaceMetadata(ksName)
	if errors.Is(err, gocql.ErrKeyspaceDoesNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cql: reading the schema of keyspace %s: %w", ksName, classify(err))
	}
	if ks.Tables[tbl] == nil {
		return nil, nil
	}
	if len(ks.Tables) == 1 {
		if err := ddl(ctx, admin, "DROP KEYSPACE IF EXISTS "+ksName); err != nil {
			return nil, err
		}
		return []string{fmt.Sprintf("keyspace %s (its only table was %s)", ksName, tbl)}, nil
	}
	if err := ddl(ctx, admin, fmt.Sprintf("DROP TABLE IF EXISTS %s.%s", ksName, tbl)); err != nil {
		return nil, err
	}
	return []string{fmt.Sprintf("table %s.%s", ksName, tbl)}, nil
}

var _ adapter.LoadMarker = (*Target)(nil)

// loadComment is the table comment that names the load that wrote it.
const loadComment = "platbench load "

// dataTable is the table a workload's records are in.
func (t *Target) dataTable(w *workload.Spec) (ks, tbl string) {
	if w.CQL != nil {
		return w.CQL.Keyspace, w.CQL.Table
	}
	return t.cfg.Keyspace, t.cfg.Table
}

// MarkLoad writes id into the table's comment, on a table this load
// created (a table that was there before keeps its own comment).
func (t *Target) MarkLoad(ctx context.Context, w *workload.Spec, id string) error {
	if !t.createdTbl {
		return nil
	}
	ks, tbl := t.dataTable(w)
	admin, err := t.adminSession(ctx)
	if err != nil {
		return err
	}
	defer admin.Close()
	return ddl(ctx, admin, fmt.Sprintf("ALTER TABLE %s.%s WITH comment = '%s%s'", ks, tbl, loadComment, id))
}

// LoadMark reads the id from the table's comment ("" when it names none).
func (t *Target) LoadMark(ctx context.Context, w *workload.Spec) (string, error) {
	ks, tbl := t.dataTable(w)
	var comment string
	err := t.session.Query("SELECT comment FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", ks, tbl).
		Consistency(gocql.One).ScanContext(ctx, &comment)
	if err != nil {
		return "", err
	}
	id, ok := strings.CutPrefix(comment, loadComment)
	if !ok {
		return "", nil
	}
	return id, nil
}
