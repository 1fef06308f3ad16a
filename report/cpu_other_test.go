//go:build !unix

package report

// cpuNs is not measured on this system; the cpu-ns/op metric reads 0.
func cpuNs() int64 { return 0 }
