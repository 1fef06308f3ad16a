package cql

import "github.com/platbench/platbench/adapter"

// ExecForTest runs one CQL statement on tg's own session (tg a *Target):
// another client, for the tests of package cql_test (verify_test.go).
func ExecForTest(tg adapter.Target, stmt string) error {
	return tg.(*Target).session.Query(stmt).Exec()
}
