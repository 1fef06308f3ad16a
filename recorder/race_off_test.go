//go:build !race

package recorder

// raceOn: see race_on_test.go.
const raceOn = false
