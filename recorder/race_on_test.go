//go:build race

package recorder

// raceOn says the tests run under the race detector, whose shadow memory
// and instrumentation make heap figures meaningless and a long simulation
// twenty times slower.
const raceOn = true
