package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/history"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

func TestParseURL(t *testing.T) {
	for _, ok := range []string{"postgres://platbench@127.0.0.1:15432/platbench?sslmode=disable", "postgresql://u:p@db/x", "postgres:///platbench"} {
		if err := ParseURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "mysql://db/x", "127.0.0.1:5432", "postgres://u:secret@db:notaport/x", "host=db user=x"} {
		err := ParseURL(bad)
		if err == nil || !usererr.Is(err) {
			t.Errorf("%q: %v, want a user error", bad, err)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: the error repeats the password: %v", bad, err)
		}
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"postgres://platbench@127.0.0.1:15432/platbench?sslmode=disable", "postgresql://u:p@[::1]:5/x", "postgres://%zz", "postgres:x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := ParseURL(s); err != nil && !usererr.Is(err) {
			t.Fatalf("%q: %v is not a user error", s, err)
		}
	})
}

func TestAppendAndReadBack(t *testing.T) {
	dsn := testenv.URL(t, "PLATBENCH_POSTGRES_URL")
	r, err := result.Read("../../report/testdata/graviton-write.result.json")
	if err != nil {
		t.Fatal(err)
	}
	// A label of this test's own: other tests (cmd/platbench/cli's) share the table.
	r.Label = fmt.Sprintf("append-test-%d", time.Now().UnixNano())
	r.Thresholds = []result.ThresholdOutcome{{Expr: "p99<1s", Figure: "p99", Comparison: "<", Unit: result.UnitNs, Limit: 1e9, Value: 5e6, Measured: true, Pass: true}}
	ctx := context.Background()
	var want []history.Row
	for i := range 3 {
		r.StartedAt = time.Date(2026, 11, 1+i, 12, 0, 0, 0, time.UTC)
		rows, err := history.RowsOf(r, fmt.Sprintf("run%d.json", i))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0].Op != history.AllOps || rows[1].Op != "WRITE" {
			t.Fatalf("rows %+v, want the whole run and WRITE", rows)
		}
		if err := Append(ctx, dsn, rows); err != nil {
			t.Fatal(err)
		}
		want = append(want, rows...)
	}
	all, err := Rows(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	var got []history.Row
	for _, row := range all {
		if row.Label == r.Label {
			got = append(got, row)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("read %d rows back, stored %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if !g.Time.Equal(w.Time) || g.Label != w.Label || g.Op != w.Op || g.Workload != w.Workload || g.Target != w.Target || g.ResultPath != w.ResultPath || g.Platform != w.Platform {
			t.Errorf("row %d: %+v, stored %+v", i, g, w)
		}
		if len(g.Values) != len(w.Values) || len(w.Values) < 8 {
			t.Errorf("row %d: %d figures back of %d stored", i, len(g.Values), len(w.Values))
		}
		for f, v := range w.Values {
			if g.Values[f] != v {
				t.Errorf("row %d %s: %v back, %v stored", i, f, g.Values[f], v)
			}
		}
	}
	// The thresholds are stored as JSON with the verdict beside them.
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var passed bool
	var expr string
	if err := conn.QueryRow(ctx, "SELECT thresholds_passed, thresholds->0->>'expr' FROM "+Table+" WHERE op = 'ALL' AND label = $1 LIMIT 1", r.Label).Scan(&passed, &expr); err != nil {
		t.Fatal(err)
	}
	if !passed || expr != "p99<1s" {
		t.Errorf("thresholds: passed %v expr %q", passed, expr)
	}
	// And history reads them as a series per metric.
	ms, err := analysis.ParseMetrics("sustained,write.p99,cost")
	if err != nil {
		t.Fatal(err)
	}
	h := history.Build(history.RunsOfRows(got, ms), history.Options{Metrics: ms})
	if h.Runs != 3 || len(h.Series) < 2 || len(h.Series[0].Points) != 3 {
		t.Errorf("history of the stored rows: %d runs, %d series %+v", h.Runs, len(h.Series), h.Series)
	}
}

func TestAppendToAServerThatIsDown(t *testing.T) {
	// A port nothing listens on (the store's own server is not touched).
	err := Append(context.Background(), "postgres://platbench:secret@127.0.0.1:1/platbench?sslmode=disable&connect_timeout=2", []history.Row{{Op: history.AllOps}})
	if err == nil {
		t.Fatal("stored a row in a server that is down")
	}
	if !strings.Contains(err.Error(), "cannot connect to postgres://platbench:xxxxx@127.0.0.1:1/platbench") || strings.Contains(err.Error(), "secret") {
		t.Errorf("error %q: want it to name the server, without the password", err)
	}
}
