package workload

import (
	"testing"

	"github.com/platbench/platbench/vocab"
)

func checkedSpec() *Spec {
	s := &Spec{Records: 1000, FieldCount: 4, FieldLength: 50, Mix: MixList{{Op: vocab.OpInsert, Weight: 1}, {Op: vocab.OpUpdate, Weight: 1}, {Op: vocab.OpRead, Weight: 1}}, Distribution: DistUniform, CheckValues: true}
	s.EnsureDefaults()
	return s
}

func TestCheckedValuesRoundTrip(t *testing.T) {
	s := checkedSpec()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	g := NewGenerator(s, NewKeyspace(s, 0, 1), 1, 0)
	var req Request
	for k := uint64(0); k < 50; k++ {
		g.Load(&req, k)
		if v := CheckRecord(req.Value, req.Key, s.FieldLength, s.FieldCount); v != ValueOK {
			t.Fatalf("load of %d: verdict %d", k, v)
		}
	}
	ones := 0
	for range 2000 {
		g.Next(&req)
		if req.Value == nil {
			continue
		}
		if req.Fields == 1 {
			ones++
			if !CheckField(req.Value, req.Key, req.Field) || (req.Field > 0 && CheckField(req.Value, req.Key, req.Field-1)) {
				t.Fatalf("one-field write of field %d does not check as that field", req.Field)
			}
		}
		if v := CheckRecord(req.Value, req.Key, s.FieldLength, s.FieldCount); v != ValueOK {
			t.Fatalf("%s of %s: verdict %d", req.Op, req.Key, v)
		}
	}
	if ones == 0 {
		t.Fatal("no one-field update")
	}
}

func TestCheckedValuesCatchChanges(t *testing.T) {
	s := checkedSpec()
	g := NewGenerator(s, NewKeyspace(s, 0, 1), 1, 0)
	var req Request
	g.Load(&req, 7)
	v := append([]byte(nil), req.Value...)
	key := append([]byte(nil), req.Key...)
	if CheckRecord(nil, key, 50, 4) != ValueMissing {
		t.Fatal("empty is not missing")
	}
	for i := range v { // any one byte changed
		w := append([]byte(nil), v...)
		w[i] ^= 1
		if CheckRecord(w, key, 50, 4) != ValueCorrupt {
			t.Fatalf("byte %d changed: not corrupt", i)
		}
	}
	if CheckRecord(v, []byte("user1"), 50, 4) != ValueCorrupt {
		t.Fatal("another key's value is not corrupt")
	}
	if CheckRecord(v[:120], key, 50, 4) != ValueCorrupt {
		t.Fatal("a truncated value is not corrupt")
	}
	// Fields swapped: each field checks only at its own position.
	w := append(append([]byte(nil), v[50:100]...), v[0:50]...)
	if CheckRecord(w, key, 50, 2) != ValueCorrupt {
		t.Fatal("swapped fields are not corrupt")
	}
	if CheckRecord([]byte("junk"), key, 50, 4) != ValueCorrupt {
		t.Fatal("junk is not corrupt")
	}
}

func TestCheckedSpecProblems(t *testing.T) {
	s := checkedSpec()
	s.FieldLength = 4
	if s.Validate() == nil {
		t.Fatal("4-byte fields accepted with validate")
	}
}

func TestCheckedWritesDoNotAllocate(t *testing.T) {
	s := checkedSpec()
	g := NewGenerator(s, NewKeyspace(s, 0, 1), 1, 0)
	var req Request
	if n := testing.AllocsPerRun(1000, func() {
		g.Next(&req)
		if req.Value != nil && CheckRecord(req.Value, req.Key, s.FieldLength, s.FieldCount) != ValueOK {
			t.Fatal("bad value")
		}
	}); n != 0 {
		t.Fatalf("%v allocations per op", n)
	}
}

func FuzzCheckRecord(f *testing.F) {
	f.Add([]byte("junk"), []byte("user1"))
	f.Fuzz(func(t *testing.T, v, key []byte) {
		if CheckRecord(v, key, 10, 4) == ValueOK {
			// Only a value fillField made checks: rebuild it and compare.
			w := make([]byte, len(v))
			for i := 0; i < len(v); i += 10 {
				var h uint64
				for j := ValueHeader - 1; j >= 0; j-- {
					h = h<<6 | uint64(v[i+j]-' ')
				}
				f := i / 10
				if len(v) == 10 {
					f = int(h >> 16 & 0xFF)
				}
				fillField(w[i:i+10], keyHash(key), f, h&0xFFFF)
			}
			if string(w) != string(v) {
				t.Fatalf("%q checks for %q but is not what fillField writes", v, key)
			}
		}
	})
}

func TestValidateInFile(t *testing.T) {
	s, err := ParseFile([]byte("records: 10\nvalidate: true\n"))
	if err != nil || !s.CheckValues {
		t.Fatalf("validate: true gave %v, %v", s.CheckValues, err)
	}
}
