package redis

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unsafe"

	goredis "github.com/redis/go-redis/v9"

	"github.com/platbench/platbench/target"
	"github.com/platbench/platbench/workload"
)

// Command templates (workload.Command, memtier's --command): each is encoded
// to RESP once, at Setup, as the text between its placeholders; an operation
// appends that text with the key, data, score or member between, into the
// connection's write buffer, so a templated op allocates nothing and
// pipelines as GET and SET do. Any reply but an error reply is a success
// (a nil reply too: an LPOP of an empty list did run).

// tmpl is one compiled template.
type tmpl struct {
	parts [][]byte // RESP text around the holes; parts[0] starts with the array header
	holes []workload.ArgKind
	args  []workload.CommandArg // for the cluster path (go-redis)
}

// notTemplates are commands that change the connection's protocol or state,
// so that the replies of a pipeline would no longer match its commands.
var notTemplates = map[string]string{
	"SUBSCRIBE": "switches the connection to pub/sub", "PSUBSCRIBE": "switches the connection to pub/sub",
	"SSUBSCRIBE": "switches the connection to pub/sub", "MONITOR": "streams every command to the connection",
	"MULTI": "starts a transaction the other ops would join", "EXEC": "ends a transaction", "DISCARD": "ends a transaction",
	"WATCH": "watches keys for a transaction", "QUIT": "closes the connection", "RESET": "resets the connection",
	"HELLO": "changes the protocol", "SELECT": "changes the database", "AUTH": "changes the user",
	"CLIENT": "changes the connection's settings", "SYNC": "turns the connection into a replica", "PSYNC": "turns the connection into a replica",
	"SHUTDOWN": "stops the server",
}

// compileTemplates compiles the workload's templates; a template that
// cannot run is a user error naming it.
func compileTemplates(cmds []workload.Command) ([]*tmpl, error) {
	out := make([]*tmpl, len(cmds))
	for i, c := range cmds {
		args, err := workload.ParseCommand(c.Command)
		if err != nil {
			return nil, target.Configf("redis: command %s: %v", c.Name, err)
		}
		name := strings.ToUpper(args[0].Text)
		if why, bad := notTemplates[name]; bad {
			return nil, target.Configf("redis: command %s (%q) cannot be a template: %s %s, which would put the pipeline's replies out of step (fix: benchmark another command)", c.Name, c.Command, name, why)
		}
		t := &tmpl{args: args}
		cur := appendArray(nil, len(args))
		for _, a := range args {
			if a.Kind == workload.ArgLiteral {
				cur = appendBulkString(cur, a.Text)
				continue
			}
			t.parts = append(t.parts, cur)
			t.holes = append(t.holes, a.Kind)
			cur = nil
		}
		t.parts = append(t.parts, cur)
		out[i] = t
	}
	return out, nil
}

// appendTo appends the command of req (a named op) to buf.
func (t *tmpl) appendTo(buf []byte, req *workload.Request, w *worker) []byte {
	buf = append(buf, t.parts[0]...)
	for i, h := range t.holes {
		switch h {
		case workload.ArgKey:
			buf = appendBulk(buf, req.Key)
		case workload.ArgData:
			buf = appendBulk(buf, req.Value)
		case workload.ArgScore:
			buf = appendBulkUint(buf, w.next()>>33)
		case workload.ArgMember:
			buf = appendBulkHex(buf, w.next())
		}
		buf = append(buf, t.parts[i+1]...)
	}
	return buf
}

// appendBulkUint appends u in decimal as a bulk string.
func appendBulkUint(b []byte, u uint64) []byte {
	var d [20]byte
	n := len(strconv.AppendUint(d[:0], u, 10))
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, '\r', '\n')
	b = append(b, d[:n]...)
	return append(b, '\r', '\n')
}

// appendBulkHex appends u as 16 hex digits, a bulk string.
func appendBulkHex(b []byte, u uint64) []byte {
	const hex = "0123456789abcdef"
	b = append(b, "$16\r\n"...)
	for s := 60; s >= 0; s -= 4 {
		b = append(b, hex[(u>>uint(s))&15])
	}
	return append(b, '\r', '\n')
}

// clusterTemplate runs a template through go-redis (cluster mode; it
// allocates, as the rest of the cluster path does).
func (w *worker) clusterTemplate(ctx context.Context, t *tmpl, req *workload.Request) error {
	args := make([]any, len(t.args))
	for i, a := range t.args {
		switch a.Kind {
		case workload.ArgLiteral:
			args[i] = a.Text
		case workload.ArgKey:
			args[i] = unsafe.String(unsafe.SliceData(req.Key), len(req.Key))
		case workload.ArgData:
			args[i] = req.Value
		case workload.ArgScore:
			args[i] = w.next() >> 33
		case workload.ArgMember:
			args[i] = string(appendBulkHex(nil, w.next())[5:21])
		}
	}
	err := w.cc.Do(ctx, args...).Err()
	if errors.Is(err, goredis.Nil) {
		return nil
	}
	return classifyGoRedis(err)
}
