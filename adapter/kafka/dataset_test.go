package kafka

import (
	"testing"

	"github.com/platbench/platbench/adapter"
)

// Clean deletes the topics a manifest says its load created, by name: a
// manifest in the registry (anyone's to write) naming a topic outside its
// dataset is refused, not followed.
func TestCreatedTopicsOfTheDatasetOnly(t *testing.T) {
	for _, c := range []struct {
		topic   string // the registry's key
		created []string
		ok      bool
	}{
		{"t", nil, true},
		{"t", []string{"topic t"}, true},
		{"t", []string{"topic t-0", "topic t-1", "topic t-12"}, true},
		{"t-0", []string{"topic t-0", "topic t-1", "topic t-12"}, true}, // several: the key is the first
		{"t", []string{"topic payments"}, false},
		{"t", []string{"topic t", "topic payments"}, false},
		{"t-0", []string{"topic t-0", "topic payments"}, false},
		{"t", []string{"topic t-"}, false},
		{"t", []string{"topic t-x"}, false},
		{"t", []string{"topic t-0-audit"}, false},
		{"t", []string{"topic tt"}, false},
		{"t", []string{"map t"}, false},
	} {
		err := createdTopics(&adapter.Manifest{Created: c.created}, c.topic)
		if (err == nil) != c.ok {
			t.Errorf("createdTopics(%q, %s): %v, want ok %v", c.created, c.topic, err, c.ok)
		}
	}
}
