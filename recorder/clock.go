package recorder

import (
	_ "unsafe" // for go:linkname
)

// nanotime is the runtime's monotonic clock: the same source as time.Now's
// monotonic reading, without building a time.Time (about half the cost, and
// the runner reads it twice per operation).
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
