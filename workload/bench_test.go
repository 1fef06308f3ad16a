package workload

import (
	"fmt"
	"testing"

	"github.com/platbench/platbench/vocab"
)

// BenchmarkNext measures one run-phase request per distribution, YCSB A's
// mix over 10M records (E's for scans), and must report 0 allocs/op.
func BenchmarkNext(b *testing.B) {
	for _, d := range Dists {
		b.Run(string(d), func(b *testing.B) {
			s := spec(d, 10_000_000, vocab.Mix{Op: vocab.OpRead, Weight: 0.5}, vocab.Mix{Op: vocab.OpUpdate, Weight: 0.5})
			g := NewGenerator(s, NewKeyspace(s, 0, 1), 1, 0)
			var r Request
			b.ReportAllocs()
			for b.Loop() {
				g.Next(&r)
			}
		})
	}
	b.Run("ycsb-d-inserts", func(b *testing.B) {
		s, _ := Preset("ycsb-d")
		s.Records = 10_000_000
		g := NewGenerator(&s, NewKeyspace(&s, 0, 1), 1, 0)
		var r Request
		b.ReportAllocs()
		for b.Loop() {
			g.Next(&r)
		}
	})
}

// BenchmarkLoad measures one load-phase insert.
func BenchmarkLoad(b *testing.B) {
	s := spec(DistUniform, 10_000_000, vocab.Mix{Op: vocab.OpInsert, Weight: 1})
	g := NewGenerator(s, NewKeyspace(s, 0, 1), 1, 0)
	var r Request
	b.ReportAllocs()
	k := uint64(0)
	for b.Loop() {
		g.Load(&r, k)
		k++
	}
}

// BenchmarkChecked measures requests of a checked workload (validate): YCSB
// A's mix (each update fills one checked field) and a load-phase insert
// (every field), and the check of a loaded record.
func BenchmarkChecked(b *testing.B) {
	s := spec(DistUniform, 10_000_000, vocab.Mix{Op: vocab.OpRead, Weight: 0.5}, vocab.Mix{Op: vocab.OpUpdate, Weight: 0.5})
	s.CheckValues = true
	g := NewGenerator(s, NewKeyspace(s, 0, 1), 1, 0)
	var r Request
	b.Run("next", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			g.Next(&r)
		}
	})
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		k := uint64(0)
		for b.Loop() {
			g.Load(&r, k)
			k++
		}
	})
	g.Load(&r, 1)
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if CheckRecord(r.Value, r.Key, s.FieldLength, s.FieldCount) != ValueOK {
				b.Fatal("not ok")
			}
		}
	})
}

// BenchmarkNewKeyspace measures the per-run setup, dominated by zeta for the
// latest distribution (YCSB sums 1e8 terms, about a second).
func BenchmarkNewKeyspace(b *testing.B) {
	for _, n := range []uint64{1e6, 1e8, 1e10} {
		b.Run(fmt.Sprintf("latest-%.0e", float64(n)), func(b *testing.B) {
			s := spec(DistLatest, n, vocab.Mix{Op: vocab.OpRead, Weight: 1})
			for b.Loop() {
				NewKeyspace(s, 0, 1)
			}
		})
	}
}
