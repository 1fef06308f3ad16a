package cstress

import "strings"

// RowsPerPartition is the mean number of rows in one of the profile's
// partitions: the product of the clustering columns' mean cluster draws
// (each at least 1), as cassandra-stress builds a partition: every
// clustering level repeats under each value of the level above, with its
// own cluster draw. clustering names the table's clustering columns (the
// profile alone does not say which columns they are); a table without
// any has one row per partition.
func (p *Profile) RowsPerPartition(clustering []string) float64 {
	n := 1.0
	for _, name := range clustering {
		n *= p.Column(strings.Trim(name, `"`)).Cluster.Expected(1)
	}
	return n
}
