// Package postgres is the PostgreSQL store of run histories: `--store
// postgres://...` on run, sweep and suite appends one row per run and op
// type to the table platbench_runs (docs/history.md documents it and the
// Apache Otava configuration that reads it); `platbench history --store`
// reads the rows back. It is the one package outside adapter/ that imports a
// database driver (pgx).
package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/platbench/platbench/history"
	redactpkg "github.com/platbench/platbench/internal/redact"
	"github.com/platbench/platbench/internal/usererr"
)

// Table is the table the store writes and reads.
const Table = "platbench_runs"

// storeField is the config field every store error names.
const storeField = "store"

// Timeout bounds connecting and every statement: a store that does not
// answer must not hold a finished run back.
const Timeout = 10 * time.Second

// columns maps history.StoredFigures to the table's columns, in order.
var columns = map[string]string{
	"sustained": "sustained_ops_per_s", "peak": "peak_ops_per_s",
	"mean": "mean_ns", "p50": "p50_ns", "p90": "p90_ns", "p95": "p95_ns", "p99": "p99_ns", "p99.9": "p999_ns", "max": "max_ns",
	"service.p99": "service_p99_ns", "lag.p99": "lag_p99_ns", "errors": "error_rate", "cost": "usd_per_million_ops",
}

// Schema creates the table if it is missing (docs/history.md shows it).
var Schema = func() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + Table + ` (
  id bigserial PRIMARY KEY,
  time timestamptz NOT NULL,
  label text NOT NULL,
  platform text NOT NULL,
  target text NOT NULL,
  workload text NOT NULL,
  op text NOT NULL,
`)
	for _, f := range history.StoredFigures {
		fmt.Fprintf(&b, "  %s double precision,\n", columns[f])
	}
	b.WriteString(`  thresholds jsonb,
  thresholds_passed boolean,
  result_path text NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ` + Table + `_series ON ` + Table + ` (workload, target, label, op, time);`)
	return b.String()
}()

// ParseURL checks a --store value: a postgres:// or postgresql:// URL
// (libpq's form: postgres://user:password@host:port/database?sslmode=disable)
// that pgx can use. The error is a usererr naming the fix; it never repeats
// a password.
func ParseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" || u.Host == "" && u.Opaque != "" {
		return usererr.Field(storeField, "%q is not a PostgreSQL URL (fix: postgres://USER@HOST:PORT/DATABASE, e.g. postgres://platbench@127.0.0.1:5432/platbench, the password in $PGPASSWORD)", redact(s))
	}
	if _, err := pgconn.ParseConfig(s); err != nil {
		return usererr.Field(storeField, "%s: %v (fix: postgres://USER@HOST:PORT/DATABASE, the password in $PGPASSWORD)", redact(s), redactpkg.Scrub(err.Error(), s))
	}
	return nil
}

// redact is a URL without its secrets, for messages (package redact).
func redact(s string) string { return redactpkg.URL(s) }

// connect opens a connection and creates the table if it is missing.
func connect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	if err := ParseURL(dsn); err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.ConnectTimeout = Timeout
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s: %v", redact(dsn), redactpkg.Scrub(err.Error(), dsn))
	}
	if _, err := conn.Exec(ctx, Schema); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("cannot create the table %s: %v", Table, err)
	}
	return conn, nil
}

// Append stores rows in one transaction: all or none.
func Append(ctx context.Context, dsn string, rows []history.Row) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	conn, err := connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	cols := []string{"time", "label", "platform", "target", "workload", "op"}
	for _, f := range history.StoredFigures {
		cols = append(cols, columns[f])
	}
	cols = append(cols, "thresholds", "thresholds_passed", "result_path")
	ph := make([]string, len(cols))
	for i := range ph {
		ph[i] = fmt.Sprintf("$%d", i+1)
	}
	insert := "INSERT INTO " + Table + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(ph, ", ") + ")"
	batch := &pgx.Batch{}
	for _, r := range rows {
		args := []any{r.Time.UTC(), r.Label, r.Platform, r.Target, r.Workload, r.Op}
		for _, f := range history.StoredFigures {
			if v, ok := r.Values[f]; ok {
				args = append(args, v)
			} else {
				args = append(args, nil)
			}
		}
		var ths, passed any
		if len(r.Thresholds) > 0 {
			b, err := json.Marshal(r.Thresholds)
			if err != nil {
				return err
			}
			p := true
			for _, t := range r.Thresholds {
				p = p && t.Pass
			}
			ths, passed = string(b), p
		}
		batch.Queue(insert, append(args, ths, passed, r.ResultPath)...)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		_ = tx.Rollback(ctx)
		return err
	}
	return tx.Commit(ctx)
}

// Rows reads every row of the table, oldest first.
func Rows(ctx context.Context, dsn string) ([]history.Row, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	conn, err := connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	cols := []string{"time", "label", "platform", "target", "workload", "op", "result_path"}
	for _, f := range history.StoredFigures {
		cols = append(cols, columns[f])
	}
	rs, err := conn.Query(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM "+Table+" ORDER BY time, id")
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []history.Row
	for rs.Next() {
		var r history.Row
		vals := make([]*float64, len(history.StoredFigures))
		dst := []any{&r.Time, &r.Label, &r.Platform, &r.Target, &r.Workload, &r.Op, &r.ResultPath}
		for i := range vals {
			dst = append(dst, &vals[i])
		}
		if err := rs.Scan(dst...); err != nil {
			return nil, err
		}
		r.Values = map[string]float64{}
		for i, f := range history.StoredFigures {
			if vals[i] != nil {
				r.Values[f] = *vals[i]
			}
		}
		out = append(out, r)
	}
	return out, rs.Err()
}
