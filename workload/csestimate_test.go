package workload

import (
	"math"
	"path/filepath"
	"testing"
)

// A partition's mean row count is the product of its clustering columns'
// mean cluster draws, as the docs' examples describe: the blog posts of the
// LWT example have fixed(1000) posts per domain; the types example
// uniform(20..40) dates x uniform(1..4) lvals (30 x 2.5 = 75), the other
// clustering columns fixed(1) by default.
func TestRowsPerPartition(t *testing.T) {
	for _, c := range []struct {
		file       string
		clustering []string
		want       float64
	}{
		{"cqlstress-lwt-example.yaml", []string{"published_date"}, 1000},
		{"cqlstress-example.yaml", []string{"date", "address", "dbl", "lval", "ival", "uid"}, 75},
		{"cqlstress-counter-example.yaml", nil, 1},
		{"cqlstress-insanity-example.yaml", []string{"date"}, 10.5},
	} {
		l, err := Open(filepath.Join("testdata", "cassandra-stress", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Spec.CQL.RowsPerPartition(c.clustering); math.Abs(got-c.want) > 0.01*c.want {
			t.Errorf("%s: %v rows per partition, want %v", c.file, got, c.want)
		}
	}
}
