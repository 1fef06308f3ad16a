package redis

import (
	"fmt"
	"io"
	"strconv"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/redis/resp"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Scans (YCSB workload E) the way YCSB's redis binding does them: a sorted
// set indexes the records' keys; an INSERT also adds its key to it (ZADD),
// a DELETE removes it (ZREM), and a SCAN of n records from a key reads the
// next n keys of the index (ZRANGEBYSCORE index score +inf LIMIT 0 n) then
// each of those records (GET, or HGETALL in hash mode). YCSB scores a key
// by its Java hash code; here the score is the record's number, so a scan
// reads records in the order of their numbers, as an ordered store would.
// The index is kept only when the workload scans (a mix with SCAN), so the
// other workloads' inserts cost what they did.

// indexKey is the sorted set of the keys of prefix: outside platbench's key
// format, so no run reads it as a record.
func indexKey(prefix string) string { return "platbench:index:" + prefix }

// indexed runs an INSERT or DELETE and its index update, sent together.
func (w *worker) indexed(req *workload.Request) error {
	if w.c == nil {
		if err := w.redial(); err != nil {
			return err
		}
	}
	buf, _, err := w.build(w.c.wbuf[:0], req, req.Op)
	if err != nil {
		return err
	}
	w.c.wbuf = w.appendIndex(buf, req)
	if err := w.c.flush(); err != nil {
		return w.lost(err)
	}
	w.c.refreshRead()
	_, err1 := w.c.readReply()
	if err1 != nil && !resp.IsServerError(err1) {
		return w.lost(err1)
	}
	if _, err := w.c.readReply(); err != nil && !resp.IsServerError(err) {
		return w.lost(err)
	} else if err1 == nil {
		err1 = err
	}
	return err1
}

// appendIndex appends req's index update: ZADD for an insert, ZREM for a delete.
func (w *worker) appendIndex(buf []byte, req *workload.Request) []byte {
	if req.Op == vocab.OpDelete {
		buf = resp.AppendArray(buf, 3)
		buf = resp.AppendBulkString(buf, "ZREM")
		buf = resp.AppendBulkString(buf, w.t.index)
		return resp.AppendBulk(buf, req.Key)
	}
	buf = resp.AppendArray(buf, 4)
	buf = resp.AppendBulkString(buf, "ZADD")
	buf = resp.AppendBulkString(buf, w.t.index)
	buf = appendBulkUint(buf, req.KeyNum)
	return resp.AppendBulk(buf, req.Key)
}

// lost closes a connection whose stream is out of step and returns err.
func (w *worker) lost(err error) error {
	w.c.Close()
	w.c = nil
	return err
}

// scan reads req.ScanLen records from req.KeyNum on: their keys from the
// index, then the records, all requests of the second step in one write.
// The keys read stay in w.scanKeys (w.scanEnds) until the next scan; a scan
// that finds no key, or a key whose record is gone, is not_found.
func (w *worker) scan(req *workload.Request) error {
	if err := w.readIndex(req); err != nil {
		return err
	}
	c := w.c
	cmd := w.recordCmd()
	start := 0
	for _, end := range w.scanEnds {
		c.wbuf = resp.AppendArray(c.wbuf, 2)
		c.wbuf = resp.AppendBulkString(c.wbuf, cmd)
		c.wbuf = resp.AppendBulk(c.wbuf, w.scanKeys[start:end])
		start = end
	}
	w.scanFound = 0
	found, err := w.readRecords(len(w.scanEnds))
	w.scanFound = found
	return err
}

func (w *worker) recordCmd() string {
	if w.t.cfg.Mode == "hash" {
		return "HGETALL"
	}
	return "GET"
}

// readIndex reads the keys of req's scan from the index into w.scanKeys
// and w.scanEnds: not_found when there is none.
func (w *worker) readIndex(req *workload.Request) error {
	if w.c == nil {
		if err := w.redial(); err != nil {
			return err
		}
	}
	c := w.c
	buf := resp.AppendArray(c.wbuf[:0], 7)
	buf = resp.AppendBulkString(buf, "ZRANGEBYSCORE")
	buf = resp.AppendBulkString(buf, w.t.index)
	buf = appendBulkUint(buf, req.KeyNum)
	buf = resp.AppendBulkString(buf, "+inf")
	buf = resp.AppendBulkString(buf, "LIMIT")
	buf = resp.AppendBulkString(buf, "0")
	c.wbuf = appendBulkUint(buf, uint64(max(req.ScanLen, 1)))
	if err := c.flush(); err != nil {
		return w.lost(err)
	}
	c.refreshRead()
	var err error
	if w.scanKeys, w.scanEnds, err = c.readKeys(w.scanKeys[:0], w.scanEnds[:0]); err != nil {
		if resp.IsServerError(err) {
			return err
		}
		return w.lost(err)
	}
	if len(w.scanEnds) == 0 {
		return adapter.ErrNotFound
	}
	return nil
}

// readRecords flushes the n record reads queued in the write buffer and
// reads their replies: how many records were there, and the first error (a
// record gone is not_found).
func (w *worker) readRecords(n int) (int, error) {
	c := w.c
	if err := c.flush(); err != nil {
		return 0, w.lost(err)
	}
	c.refreshRead()
	found := 0
	var first error
	for range n {
		r, err := c.readReply()
		if err != nil && !resp.IsServerError(err) {
			return found, w.lost(err)
		}
		switch {
		case err != nil:
			first = firstErr(first, err)
		case r.Kind == '$' && r.N < 0, r.Kind == '*' && r.N <= 0:
			first = firstErr(first, adapter.ErrNotFound)
		default:
			found++
		}
	}
	return found, first
}

// indexOnly sends req's index update alone (cluster mode, where the index
// is on another master than the record).
func (w *worker) indexOnly(req *workload.Request) error {
	if w.c == nil {
		if err := w.redial(); err != nil {
			return err
		}
	}
	w.c.wbuf = w.appendIndex(w.c.wbuf[:0], req)
	_, err := w.c.roundTrip()
	if err != nil && !resp.IsServerError(err) {
		return w.lost(err)
	}
	return err
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
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

// readKeys reads an array reply of bulk strings, appending their bytes to
// keys and each one's end offset to ends (grown when needed, then reused).
func (c *conn) readKeys(keys []byte, ends []int) ([]byte, []int, error) {
	line, err := c.line()
	if err != nil {
		return keys, ends, err
	}
	if line[0] == '-' {
		return keys, ends, resp.ServerError(line[1:])
	}
	n, ok := resp.ParseInt(line[1:])
	if line[0] != '*' || !ok {
		return keys, ends, &adapter.Error{Class: vocab.ClassOther, Err: fmt.Errorf("redis: expected an array, got %q", line)}
	}
	for i := int64(0); i < n; i++ {
		line, err := c.line()
		if err != nil {
			return keys, ends, err
		}
		m, ok := resp.ParseInt(line[1:])
		if line[0] != '$' || !ok || m < 0 {
			return keys, ends, &adapter.Error{Class: vocab.ClassOther, Err: fmt.Errorf("redis: expected a key, got %q", line)}
		}
		at := len(keys)
		keys = append(keys, make([]byte, m+2)...)[:at+int(m)+2]
		if _, err := io.ReadFull(c.br, keys[at:]); err != nil {
			return keys, ends, resp.ClassifyNet(err)
		}
		keys = keys[:at+int(m)]
		ends = append(ends, len(keys))
	}
	return keys, ends, nil
}
