//go:build !linux

package host

// qdiscReader reads nothing where there is no rtnetlink.
type qdiscReader struct{}

func newQdiscReader() *qdiscReader                 { return nil }
func (r *qdiscReader) close()                      {}
func (r *qdiscReader) read() ([]qdiscStats, error) { return nil, nil }
func (r *qdiscReader) name(int32) string           { return "" }
