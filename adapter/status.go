package adapter

import "context"

// StatusReader is implemented by targets whose servers describe themselves
// in a text status command (Redis and Valkey: INFO). Telemetry reads each
// node every interval (telemetry/dbmetrics) and parses the text; the
// adapter only carries the command over its own connection and
// credentials. ReadStatus is called from one goroutine per node, never
// concurrently for the same node.
type StatusReader interface {
	// StatusNodes lists the nodes to read (host:port), as after connecting.
	StatusNodes(ctx context.Context) []string
	// ReadStatus returns the node's status text, or an error within ctx's deadline.
	ReadStatus(ctx context.Context, node string) (string, error)
	// ResetStatus resets the node's cumulative statistics (Redis CONFIG
	// RESETSTAT), so cumulative figures start with the run.
	ResetStatus(ctx context.Context, node string) error
}
