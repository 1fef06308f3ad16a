package workload

import (
	"github.com/platbench/platbench/cstress"
	"github.com/platbench/platbench/vocab"
)

// CQLProfile is the cassandra-stress user profile a Spec runs: the type of
// package cstress (its one declaration), named here for the Spec's callers.
type CQLProfile = cstress.Profile

// ParseCSProfile reads a cassandra-stress user profile (cstress.Parse) into a
// Spec whose named ops are "insert", then the queries, then the token-range
// queries (in file order), and whose mix is insert=1 until --mix says otherwise.
func ParseCSProfile(data []byte) (Spec, error) {
	top, err := fileNode(data)
	if err != nil {
		return Spec{}, err
	}
	p, err := cstress.Parse(top)
	if err != nil {
		return Spec{}, err
	}
	s := Spec{Name: "profile-" + p.Table, CQL: p, NamedOps: p.OpNames()}
	s.Mix = MixList{{Op: vocab.OpNamed0, Weight: 1}}
	s.EnsureDefaults()
	if probs := s.Problems(); len(probs) > 0 {
		return Spec{}, probs.Err()
	}
	return s, nil
}
