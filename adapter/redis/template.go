package redis

import (
	"strconv"
	"strings"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/redis/resp"
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
	holes []workload.CommandArg
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
			return nil, adapter.Configf("redis: command %s: %v", c.Name, err)
		}
		name := strings.ToUpper(args[0].Text)
		if why, bad := notTemplates[name]; bad {
			return nil, adapter.Configf("redis: command %s (%q) cannot be a template: %s %s, which would put the pipeline's replies out of step (fix: benchmark another command)", c.Name, c.Command, name, why)
		}
		t := &tmpl{}
		cur := resp.AppendArray(nil, len(args))
		for _, a := range args {
			if a.Kind == workload.ArgLiteral {
				cur = resp.AppendBulkString(cur, a.Text)
				continue
			}
			t.parts = append(t.parts, cur)
			t.holes = append(t.holes, a)
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
		var d [20]byte
		var v []byte
		switch h.Kind {
		case workload.ArgKey:
			v = req.Key
		case workload.ArgData:
			v = req.Value
		case workload.ArgScore:
			v = strconv.AppendUint(d[:0], w.next()>>33, 10)
		case workload.ArgMember:
			v = appendHex(d[:0], w.next())
		}
		buf = append(buf, '$')
		buf = strconv.AppendInt(buf, int64(len(h.Text)+len(v)+len(h.Suffix)), 10)
		buf = append(buf, '\r', '\n')
		buf = append(buf, h.Text...)
		buf = append(buf, v...)
		buf = append(buf, h.Suffix...)
		buf = append(buf, '\r', '\n')
		buf = append(buf, t.parts[i+1]...)
	}
	return buf
}

// appendHex appends u as 16 hex digits.
func appendHex(b []byte, u uint64) []byte {
	const hex = "0123456789abcdef"
	for s := 60; s >= 0; s -= 4 {
		b = append(b, hex[(u>>uint(s))&15])
	}
	return b
}
