package redis

import (
	"errors"
	"strings"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/redis/resp"
	"github.com/platbench/platbench/vocab"
)

// The classes of the server's error replies and of the transport's errors
// are RESP's (package resp: ServerError, ClassifyNet; they carry their
// class as resp.ClassError). What is the adapter's: the class of go-redis's
// errors (setup, the dataset's commands), its own errors, and what a
// cluster's redirects say.

// classify gives err a class (nil stays nil; an error that carries one
// keeps it).
func classify(err error) error { return adapter.WithClass(err, classOf) }

// classOf is the class of an error of go-redis or of the network that
// carries none: a timeout, a connection refused, reset or closed
// (unavailable), anything else other.
func classOf(err error) vocab.Class { return resp.ClassOf(resp.ClassifyNet(err)) }

// isRedirect reports a MOVED or ASK reply.
func isRedirect(err error) bool {
	var re *resp.Error
	return errors.As(err, &re) && (strings.HasPrefix(re.Msg, "redis: MOVED ") || strings.HasPrefix(re.Msg, "redis: ASK "))
}

// errNoMaster fails a key whose slot no master serves (a cluster being
// reshaped): it counts as unavailable and makes the worker refresh its map.
var errNoMaster = &adapter.Error{Class: vocab.ClassUnavailable, Err: errors.New("redis: no master serves the key's slot")}

// askTarget is the node an ASK reply sends to ("" for any other error).
func askTarget(err error) string {
	var re *resp.Error
	if !errors.As(err, &re) || !strings.HasPrefix(re.Msg, "redis: ASK ") {
		return ""
	}
	if f := strings.Fields(re.Msg); len(f) >= 4 {
		return f[3]
	}
	return ""
}

// errReplyMismatch means a reply of an unexpected type; the stream is kept.
var errReplyMismatch = &adapter.Error{Class: vocab.ClassOther, Err: errors.New("redis: unexpected reply type")}
