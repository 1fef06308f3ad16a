package cqltest

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"strings"
)

// stmt is a prepared statement as far as the server needs it: which bind
// marker carries the partition key, which columns it writes or reads.
type stmt struct {
	id      []byte
	kind    string // INSERT, SELECT, UPDATE, DELETE
	table   string
	markers int
	pk      int      // the marker of the partition key; -1: none
	cols    []string // INSERT and UPDATE: the column of each marker ("" for others); SELECT: the columns read
	lwt     bool     // a conditional statement (IF ...)
	scan    bool     // a SELECT by token range
}

// parseStmt reads the statements platbench sends: INSERT INTO t (cols)
// VALUES (?, ...), SELECT cols FROM t WHERE k = ? / token(k) >= token(?),
// UPDATE t SET c = ? WHERE k = ?, DELETE FROM t WHERE k = ?. Names are
// compared without quotes and case.
func parseStmt(q string, keys []string) (*stmt, error) {
	toks := lex(q)
	if len(toks) < 3 {
		return nil, fmt.Errorf("cqltest: cannot read statement %q", q)
	}
	sum := md5.Sum([]byte(q))
	s := &stmt{id: sum[:], kind: strings.ToUpper(toks[0]), pk: -1}
	isKey := func(t string) bool {
		for _, k := range keys {
			if strings.EqualFold(strings.Trim(t, `"`), k) {
				return true
			}
		}
		return false
	}
	var insertCols []string
	inCols, afterWhere, keySeen := false, false, false
	for i, t := range toks {
		switch {
		case t == "?":
			if s.kind == "INSERT" && s.markers < len(insertCols) {
				s.cols = append(s.cols, insertCols[s.markers])
				if isKey(insertCols[s.markers]) {
					s.pk = s.markers
				}
			} else if s.kind == "UPDATE" && !afterWhere && i >= 2 {
				s.cols = append(s.cols, norm(toks[i-2]))
			}
			if afterWhere && keySeen && s.pk < 0 {
				s.pk = s.markers
			}
			s.markers++
		case strings.EqualFold(t, "WHERE"):
			afterWhere = true
		case strings.EqualFold(t, "IF"):
			s.lwt = true
		case strings.EqualFold(t, "TOKEN") && afterWhere:
			s.scan = true
		case afterWhere && isKey(t):
			keySeen = true
		case s.kind == "INSERT" && t == "(" && insertCols == nil && !inCols:
			inCols = true
		case inCols && t == ")":
			inCols = false
		case inCols && t != ",":
			insertCols = append(insertCols, norm(t))
		}
	}
	s.table = tableOf(toks)
	if s.kind == "SELECT" {
		for _, t := range toks[1:] {
			if strings.EqualFold(t, "FROM") {
				break
			}
			if t != "," {
				s.cols = append(s.cols, norm(t))
			}
		}
	}
	return s, nil
}

func norm(name string) string { return strings.ToLower(strings.Trim(name, `"`)) }

// tableOf is the name after INTO, FROM or UPDATE.
func tableOf(toks []string) string {
	for i, t := range toks[:len(toks)-1] {
		if strings.EqualFold(t, "INTO") || strings.EqualFold(t, "FROM") || (i == 0 && strings.EqualFold(t, "UPDATE")) {
			return norm(toks[i+1])
		}
	}
	return ""
}

// lex splits a statement into names, quoted names, punctuation and '?'.
func lex(q string) []string {
	var out []string
	for i := 0; i < len(q); {
		ch := q[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			i++
		case ch == '"' || ch == '\'':
			j := strings.IndexByte(q[i+1:], ch)
			if j < 0 {
				j = len(q) - i - 1
			}
			out = append(out, q[i:i+j+2])
			i += j + 2
		case strings.IndexByte("(),=?<>;*", ch) >= 0:
			j := i + 1
			for j < len(q) && strings.IndexByte("=<>", q[j]) >= 0 && strings.IndexByte("=<>", ch) >= 0 {
				j++
			}
			out = append(out, q[i:j])
			i = j
		default:
			j := i
			for j < len(q) && strings.IndexByte(" \t\n\r(),=?<>;*\"'", q[j]) < 0 {
				j++
			}
			out = append(out, q[i:j])
			i = j
		}
	}
	return out
}

// preparedBody is the RESULT Prepared: <id><metadata><result_metadata>.
// The metadata names the partition key's marker (pk_index), as a real
// node's does, and carries the LWT bit when the connection negotiated it.
func (s *stmt) preparedBody(lwtNegotiated bool) []byte {
	b := binary.BigEndian.AppendUint32(nil, resultPrepared)
	b = appendShortBytes(b, s.id)
	flags := uint32(0x0001) // global table spec
	if s.lwt && lwtNegotiated {
		flags |= LWTMask
	}
	b = binary.BigEndian.AppendUint32(b, flags)
	b = binary.BigEndian.AppendUint32(b, uint32(s.markers))
	if s.pk >= 0 {
		b = binary.BigEndian.AppendUint32(b, 1)
		b = binary.BigEndian.AppendUint16(b, uint16(s.pk))
	} else {
		b = binary.BigEndian.AppendUint32(b, 0)
	}
	b = appendString(appendString(b, "ks"), s.table)
	for i := range s.markers {
		b = appendString(b, fmt.Sprintf("m%d", i))
		typ := uint16(0x0003) // blob
		if s.kind == "SELECT" && i == s.markers-1 && s.scan {
			typ = 0x0009 // the scan's LIMIT: int
		}
		b = binary.BigEndian.AppendUint16(b, typ)
	}
	cols := 0
	if s.kind == "SELECT" {
		cols = len(s.cols)
	}
	b = binary.BigEndian.AppendUint32(b, 0x0004) // result metadata: none
	return binary.BigEndian.AppendUint32(b, uint32(cols))
}

// apply runs an execution on the node's rows and returns the RESULT body.
func (n *Node) apply(s *stmt, vals [][]byte) []byte {
	void := binary.BigEndian.AppendUint32(nil, resultVoid)
	if s.pk < 0 || s.pk >= len(vals) {
		return rowsBody(nil, len(s.cols))
	}
	key := s.table + "\x00" + string(vals[s.pk])
	n.mu.Lock()
	defer n.mu.Unlock()
	switch s.kind {
	case "INSERT", "UPDATE":
		row := n.rows[key]
		if row == nil {
			row = map[string][]byte{}
			n.rows[key] = row
		}
		for i, col := range s.cols {
			if i < len(vals) && i != s.pk && col != "" {
				row[col] = vals[i]
			}
		}
	case "DELETE":
		delete(n.rows, key)
	case "SELECT":
		row := n.rows[key]
		if row == nil || s.scan {
			return rowsBody(nil, len(s.cols))
		}
		vs := make([][]byte, len(s.cols))
		for i, col := range s.cols {
			vs[i] = row[col]
		}
		return rowsBody([][][]byte{vs}, len(s.cols))
	}
	return void
}

// rowsBody is a RESULT Rows without metadata (the client asked to skip it).
func rowsBody(rows [][][]byte, cols int) []byte {
	b := binary.BigEndian.AppendUint32(nil, resultRows)
	b = binary.BigEndian.AppendUint32(b, 0x0004)
	b = binary.BigEndian.AppendUint32(b, uint32(cols))
	b = binary.BigEndian.AppendUint32(b, uint32(len(rows)))
	for _, r := range rows {
		for _, v := range r {
			if v == nil {
				b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
				continue
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
			b = append(b, v...)
		}
	}
	return b
}
