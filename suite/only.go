package suite

import (
	"path"

	"github.com/platbench/platbench/internal/usererr"
)

// Only keeps the cells whose name matches glob (path.Match: cassandra.*.1k)
// out of the matrix: a part of a suite, e.g. its smallest dataset size, or
// a cell that failed, run again into the same output directory. A bad glob
// is an error.
func (f *File) Only(glob string) error {
	if _, err := path.Match(glob, ""); err != nil {
		return usererr.New("cells %q is not a glob (fix: a pattern of cell names such as 'cassandra.*.1k')", glob)
	}
	f.only = glob
	return nil
}

// onlyCells are the cells Only keeps; none kept is an error naming them.
func (f *File) onlyCells(cells []Cell) ([]Cell, error) {
	if f.only == "" {
		return cells, nil
	}
	var out []Cell
	for _, c := range cells {
		if ok, _ := path.Match(f.only, c.Name); ok {
			out = append(out, c)
		}
	}
	if len(out) == 0 && len(cells) > 0 {
		return nil, usererr.New("cells %q match none of the suite's cells, e.g. %s (fix: a glob of cell names; a dry run lists them)", f.only, cells[0].Name)
	}
	return out, nil
}
