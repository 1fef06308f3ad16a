package workload

import (
	"path/filepath"
	"strconv"
	"testing"
)

// Apache's own example profiles (testdata/cassandra-stress, copied
// unchanged with their source and commit) parse as cassandra-stress reads
// them: the insert section's partitions, select ratio, batch type and LWT
// condition, the columnspec (gaussian(1..20) is mean 10.5 and stdev
// (10.5-1)/3: cassandra-stress's default of 3 deviations to each end) and
// the queries.
func TestApacheExampleProfiles(t *testing.T) {
	for _, c := range []struct {
		file, table, partitions, sel, batch, cond string
		ops                                       []string
		cluster                                   map[string]string
	}{
		{"cqlstress-example.yaml", "typestest", "uniform(1..50)", "uniform(1..10)/10", "LOGGED", "",
			[]string{"insert", "simple1", "range1"}, map[string]string{"date": "uniform(20..40)", "lval": "uniform(1..4)"}},
		{"cqlstress-counter-example.yaml", "counttest", "fixed(1)", "fixed(1)/1", "LOGGED", "",
			[]string{"insert", "simple1"}, nil},
		{"cqlstress-insanity-example.yaml", "insanitytest", "fixed(1)", "fixed(1)/1", "LOGGED", "",
			[]string{"insert", "simple1"}, map[string]string{"date": "gaussian(1..20,10.5,3.1666666666666665)"}},
		{"cqlstress-lwt-example.yaml", "blogposts", "fixed(1)", "fixed(1)/1000", "UNLOGGED", "IF body = NULL",
			[]string{"insert", "singlepost", "timeline"}, map[string]string{"published_date": "fixed(1000)"}},
	} {
		l, err := Open(filepath.Join("testdata", "cassandra-stress", c.file))
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		p := l.Spec.CQL
		if p == nil {
			t.Errorf("%s: not read as a cassandra-stress profile", c.file)
			continue
		}
		in := p.Insert
		sel := in.Select.String() + "/" + strconv.FormatInt(in.SelectDiv, 10)
		if p.Table != c.table || in.Partitions.String() != c.partitions || sel != c.sel || in.BatchType != c.batch || in.Condition != c.cond {
			t.Errorf("%s: table %s partitions %s select %s batchtype %q condition %q", c.file, p.Table, in.Partitions, sel, in.BatchType, in.Condition)
		}
		if got := p.OpNames(); len(got) != len(c.ops) {
			t.Errorf("%s: ops %v, want %v", c.file, got, c.ops)
		} else {
			for i := range got {
				if got[i] != c.ops[i] {
					t.Errorf("%s: ops %v, want %v", c.file, got, c.ops)
				}
			}
		}
		for col, d := range c.cluster {
			if got := p.Column(col).Cluster.String(); got != d {
				t.Errorf("%s: %s cluster %s, want %s", c.file, col, got, d)
			}
		}
	}
}
