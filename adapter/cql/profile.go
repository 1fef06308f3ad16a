package cql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/cql/csprofile"
	"github.com/platbench/platbench/cstress"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// profile is a cassandra-stress profile (package csprofile: the model of
// its table, its statements, the plan of each operation) with the session
// its statements were prepared on.
type profile struct {
	*csprofile.Profile
	session *gocql.Session
	cfg     Config // the target's, with the profile's keyspace as the session's
}

// setupProfile creates what the profile defines and does not exist yet,
// compiles the table's columns and prepares every statement.
func (t *Target) setupProfile(ctx context.Context, w *workload.Spec) error {
	p := w.CQL
	admin, err := t.adminSession(ctx)
	if err != nil {
		return err
	}
	defer admin.Close()
	t.cfg.Keyspace, t.cfg.Table = p.Keyspace, p.Table // what Close drops
	if err := t.createProfileSchema(ctx, admin, p); err != nil {
		return err
	}
	tm, err := tableMeta(ctx, admin, p.Keyspace, p.Table)
	if err != nil {
		return err
	}
	model, err := csprofile.New(p, w.Records, tm, t.cfg.Driver == DriverNative)
	if err != nil {
		return err
	}
	pr := &profile{Profile: model, cfg: t.cfg}
	pr.cfg.sessionKeyspace = p.Keyspace
	if pr.session, err = connect(ctx, &pr.cfg, pr.cfg.Timeout, nil); err != nil {
		return err
	}
	server := csprofile.Server{
		Metadata: func(ctx context.Context, q string) (gocql.StatementMetadata, error) {
			return pr.session.StatementMetadata(ctx, q, p.Keyspace)
		},
		Classify: classify,
	}
	if err := pr.Prepare(ctx, csprofile.Settings{ReadCL: t.cfg.ReadCL, WriteCL: t.cfg.WriteCL, PageSize: t.cfg.PageSize}, server); err != nil {
		pr.session.Close()
		return err
	}
	t.prof = pr
	return nil
}

func (t *Target) createProfileSchema(ctx context.Context, admin *gocql.Session, p *cstress.Profile) error {
	ks, err := admin.KeyspaceMetadata(p.Keyspace)
	ksExists := err == nil
	if err != nil && !errors.Is(err, gocql.ErrKeyspaceDoesNotExist) {
		return fmt.Errorf("cql: reading the schema of keyspace %s: %w", p.Keyspace, classify(err))
	}
	if !ksExists {
		if p.KeyspaceDef == "" || !t.cfg.Create {
			return t.missing("keyspace "+p.Keyspace, adapter.Configf("cql: keyspace %q of the profile does not exist (fix: give keyspace_definition in the profile, and do not set create=false)", p.Keyspace))
		}
		if err := profileDDL(ctx, admin, "keyspace_definition", p.KeyspaceDef); err != nil {
			return err
		}
		t.createdKS = true
	}
	if ksExists && ks.Tables[p.Table] != nil {
		return nil
	}
	if p.TableDef == "" || !t.cfg.Create {
		return t.missing("table "+p.Keyspace+"."+p.Table, adapter.Configf("cql: table %s.%s of the profile does not exist (fix: give table_definition in the profile, and do not set create=false)", p.Keyspace, p.Table))
	}
	for _, d := range p.ExtraDefs {
		if err := profileDDL(ctx, admin, "extra_definitions", csprofile.QualifyTable(d, p.Keyspace)); err != nil {
			return err
		}
		t.createdExtra = true
	}
	if err := profileDDL(ctx, admin, "table_definition", csprofile.QualifyTable(p.TableDef, p.Keyspace)); err != nil {
		return err
	}
	if t.tableID, err = tableIDOf(ctx, admin, p.Keyspace, p.Table); err != nil {
		return err
	}
	t.createdTbl = true
	return nil
}

// profileDDL runs one of the profile's definitions; a definition the server
// refuses is reported with the server's message and, where known, the fix.
func profileDDL(ctx context.Context, s *gocql.Session, key, q string) error {
	ctx, cancel := context.WithTimeout(ctx, ddlTimeout)
	defer cancel()
	q = strings.TrimSuffix(strings.TrimSpace(q), ";")
	err := s.Query(q).Consistency(gocql.One).ExecContext(ctx)
	if err == nil {
		return nil
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	fix := "correct the profile's " + key + " so that the server accepts it"
	switch {
	case strings.Contains(strings.ToUpper(q), "COMPACT STORAGE"):
		fix = "remove WITH COMPACT STORAGE from table_definition: Cassandra 4.0 and later do not support it"
	case strings.Contains(msg, "already exists"):
		fix = "the object exists with another definition; drop it or remove the definition from the profile"
	}
	if classOf(err) == vocab.ClassRejected || strings.Contains(msg, "rror") {
		return adapter.Configf("cql: the server refused the profile's %s: %s (fix: %s)", key, msg, fix)
	}
	return fmt.Errorf("cql: profile %s: %w", key, classify(err))
}

// tableMeta waits for the driver's schema view to show the table.
func tableMeta(ctx context.Context, s *gocql.Session, ks, table string) (*gocql.TableMetadata, error) {
	for i := 0; ; i++ {
		km, err := s.KeyspaceMetadata(ks)
		if err == nil && km.Tables[table] != nil {
			return km.Tables[table], nil
		}
		if i == 50 || ctx.Err() != nil {
			return nil, fmt.Errorf("cql: table %s.%s not in the schema after creating it: %v", ks, table, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
