package csprofile

// sizePartitions and sizeRows are how many partitions, and rows of each,
// Size encodes to take a partition's mean bytes.
const sizePartitions, sizeRows = 64, 16

// Size is a mean partition of the profile as Prepare compiled it (call it
// after Prepare: the columns' types come from the prepared statements):
// its rows, the product of the clustering columns' mean cluster draws
// (cstress.Profile.RowsPerPartition), and its bytes, the partition
// key's values once plus the rows times the mean bytes of a row's other
// values, encoded as the inserts encode them for a sample of partitions and
// rows. What the server adds (cell timestamps, row headers, the replicas,
// compression) is not counted: it is the data the load writes.
func (pr *Profile) Size() (rows, bytes float64) {
	var ck []string
	for _, c := range pr.CK {
		ck = append(ck, c.Name)
	}
	rows = pr.Def.RowsPerPartition(ck)
	var buf []byte
	var keyB, rowB, n float64
	for p := range uint64(sizePartitions) {
		part := p * 0x9E3779B97F4A7C15 // spread over the key numbers
		for _, c := range pr.PK {
			if c.typ != nil {
				buf = pr.AppendValue(buf[:0], c, part, 0)
				keyB += float64(len(buf))
			}
		}
		in := pr.RowsIn(part)
		for r := range min(in, sizeRows) {
			row := r * max(in/sizeRows, 1)
			for _, c := range pr.Cols {
				if !c.PK && c.typ != nil {
					buf = pr.AppendValue(buf[:0], c, part, row)
					rowB += float64(len(buf))
				}
			}
			n++
		}
	}
	return rows, keyB/sizePartitions + rows*rowB/max(n, 1)
}
