// Package embedded drives pebble, CockroachDB's LSM storage engine, in a
// local data directory: a real storage engine that needs no server, so that
// `platbench run` benchmarks something real out of the box.
//
// URL: embedded (a fresh directory under the system temp dir, removed after
// the run) or embedded:///path/to/dir (kept). Its options (sync, cache, keep)
// are declared in Config.options; `platbench targets embedded` prints them.
//
// A record is stored as one value of FieldCount*FieldLength bytes. UPDATE
// overwrites one field by read-modify-write, as YCSB's RocksDB binding does.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cockroachdb/pebble"
	"golang.org/x/sys/unix"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Version is the engine version reported in results (go.mod pins it).
const Version = "pebble v1.1.5"

// Config is the embedded target's configuration, from the URL and the
// target options.
type Config struct {
	// Dir is the data directory (the URL path). Default: a new temporary
	// directory, removed after the run unless Keep.
	Dir string
	// Sync fsyncs the WAL on every write (option sync). Default false.
	Sync bool
	// Cache is the block cache size in bytes (option cache). Default 64 MiB.
	Cache int64
	// Keep keeps a temporary data directory after the run (option keep). Default false.
	Keep bool
}

func (c *Config) options() *adapter.OptionSet {
	s := adapter.NewOptionSet("embedded")
	s.Bool(&c.Sync, "sync", "false", "fsync the WAL on every write; false lets the OS flush it")
	s.Size(&c.Cache, "cache", "64MiB", "pebble's block cache").Positive()
	s.Bool(&c.Keep, "keep", "false", "keep a temporary data directory after the run (a directory given in the URL is always kept)")
	return s
}

// Options declares the embedded target's options.
func Options() *adapter.OptionSet { return new(Config).options() }

// ParseConfig builds a Config from the URL and options, reporting every
// problem at once.
func ParseConfig(u *url.URL, opts map[string]string) (*Config, error) {
	c := &Config{Dir: u.Path}
	s := c.options()
	s.ParseURL(u, opts)
	return c, s.Err()
}

// Target is an open pebble database.
type Target struct {
	check                bool // checked workload (Setup)
	fieldLen, fieldCount int

	dir    string
	temp   bool
	keep   bool
	sync   *pebble.WriteOptions
	db     *pebble.DB
	cacheB int64
}

var (
	_ adapter.Target    = (*Target)(nil)
	_ adapter.Sizer     = (*Target)(nil)
	_ adapter.Describer = (*Target)(nil)
)

// Open implements adapter.Opener.
func Open(ctx context.Context, u *url.URL, opts map[string]string) (adapter.Target, error) {
	c, err := ParseConfig(u, opts)
	if err != nil {
		return nil, err
	}
	t := &Target{sync: pebble.NoSync, cacheB: c.Cache, keep: c.Keep}
	if c.Sync {
		t.sync = pebble.Sync
	}
	t.dir = c.Dir
	if t.dir == "" {
		d, err := os.MkdirTemp("", "platbench-embedded-")
		if err != nil {
			return nil, fmt.Errorf("embedded: cannot create a data directory: %w (fix: set TMPDIR to a writable directory or give embedded:///path)", err)
		}
		t.dir, t.temp = d, true
	} else if err := os.MkdirAll(t.dir, 0o755); err != nil {
		return nil, adapter.Configf("embedded: cannot create data directory %s: %v (fix: give a writable path)", t.dir, err)
	}
	if err := unix.Access(t.dir, unix.W_OK); err != nil {
		return nil, adapter.Configf("embedded: data directory %s is not writable (fix: give a writable path)", t.dir)
	}
	cache := pebble.NewCache(t.cacheB)
	defer cache.Unref()
	db, err := pebble.Open(t.dir, &pebble.Options{
		Cache:                       cache,
		MemTableSize:                64 << 20,
		MemTableStopWritesThreshold: 4,
		MaxConcurrentCompactions:    func() int { return 2 },
		Logger:                      quietLogger{},
	})
	if err != nil {
		t.removeTemp()
		return nil, fmt.Errorf("embedded: cannot open pebble in %s: %w", t.dir, err)
	}
	t.db = db
	return t, nil
}

// Setup checks there is room for the dataset: pebble cannot recover from a
// full disk mid-run, so refuse up front rather than fail halfway.
func (t *Target) Setup(ctx context.Context, w *workload.Spec) error {
	t.check = w.CheckValues
	t.fieldLen, t.fieldCount = w.FieldLength, w.FieldCount
	var st unix.Statfs_t
	if err := unix.Statfs(t.dir, &st); err != nil {
		return nil
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	need := w.DatasetBytes() * 2 // write amplification headroom
	if need > free {
		return fmt.Errorf("embedded: the dataset needs about %s but %s has only %s free (fix: fewer records, smaller values, or embedded:///path/on/a/bigger/disk)",
			units.Bytes(float64(need)), t.dir, units.Bytes(float64(free)))
	}
	return nil
}

func (t *Target) NewWorker(id int) (adapter.Worker, error) {
	return &worker{db: t.db, sync: t.sync, check: t.check, fieldLen: t.fieldLen, fieldCount: t.fieldCount}, nil
}

// ChecksReads: the embedded store checks every read, update and scan of a
// checked workload.
func (t *Target) ChecksReads(*workload.Spec) error { return nil }

// Close closes the database and removes a temporary directory.
func (t *Target) Close() error {
	var err error
	if t.db != nil {
		err = t.db.Close()
		t.db = nil
	}
	t.removeTemp()
	return err
}

func (t *Target) removeTemp() {
	if t.temp && !t.keep {
		os.RemoveAll(t.dir)
	}
}

// DiskBytes is the size of the database files.
func (t *Target) DiskBytes(ctx context.Context) (int64, error) {
	if t.db == nil {
		return 0, errors.New("closed")
	}
	return int64(t.db.Metrics().DiskSpaceUsage()), nil
}

func (t *Target) Describe(ctx context.Context) vocab.Info {
	d := map[string]string{"dir": t.dir, "sync": strconv.FormatBool(t.sync == pebble.Sync), "cache_bytes": strconv.FormatInt(t.cacheB, 10)}
	return vocab.Info{Kind: "embedded", URL: "embedded://" + t.dir, Version: Version, Nodes: []string{"local"}, Details: d}
}

type worker struct {
	db   *pebble.DB
	sync *pebble.WriteOptions
	buf  []byte // record buffer for read-modify-write

	check                bool // checked workload: reads check values
	fieldLen, fieldCount int
}

func (w *worker) Close() error { return nil }

// Do executes one request against pebble.
func (w *worker) Do(ctx context.Context, req *workload.Request) error {
	switch req.Op {
	case vocab.OpRead, vocab.OpGet:
		_, c, err := w.get(req.Key)
		if err != nil {
			return err
		}
		return c.Close()
	case vocab.OpInsert, vocab.OpWrite, vocab.OpSet:
		return classify(w.db.Set(req.Key, req.Value, w.sync))
	case vocab.OpUpdate, vocab.OpRMW:
		return w.update(req)
	case vocab.OpDelete:
		return classify(w.db.Delete(req.Key, w.sync))
	case vocab.OpScan:
		return w.scan(req)
	}
	return adapter.ErrUnsupported
}

// get reads a record and, in a checked workload, checks it. Unless it
// returns an error, the caller closes c once done with v.
func (w *worker) get(key []byte) ([]byte, io.Closer, error) {
	v, c, err := w.db.Get(key)
	if err != nil {
		return nil, nil, w.classify(err)
	}
	if w.check {
		if err := adapter.Verdict(workload.CheckRecord(v, key, w.fieldLen, w.fieldCount)); err != nil {
			c.Close()
			return nil, nil, err
		}
	}
	return v, c, nil
}

// update reads the record, overwrites len(Value) bytes from field
// req.Field (one field, or all of them from the first) and writes it back.
// A checked workload checks the record read first.
func (w *worker) update(req *workload.Request) error {
	v, c, err := w.get(req.Key)
	if err != nil {
		return err
	}
	w.buf = append(w.buf[:0], v...)
	c.Close()
	off := req.Field * req.FieldLen
	for len(w.buf) < off+len(req.Value) {
		w.buf = append(w.buf, 0)
	}
	copy(w.buf[off:], req.Value)
	return classify(w.db.Set(req.Key, w.buf, w.sync))
}

func (w *worker) scan(req *workload.Request) error {
	it, err := w.db.NewIter(&pebble.IterOptions{LowerBound: req.Key})
	if err != nil {
		return classify(err)
	}
	n := 0
	var bad error
	for ok := it.First(); ok && n < req.ScanLen; ok = it.Next() {
		v := it.Value()
		if w.check && bad == nil {
			bad = adapter.Verdict(workload.CheckRecord(v, it.Key(), w.fieldLen, w.fieldCount))
		}
		n++
	}
	if err := it.Close(); err != nil {
		return classify(err)
	}
	return bad
}

// classify is classify, but a record absent from a checked workload is
// ErrValidationMissing.
func (w *worker) classify(err error) error {
	if w.check && errors.Is(err, pebble.ErrNotFound) {
		return adapter.ErrValidationMissing
	}
	return classify(err)
}

func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pebble.ErrNotFound):
		return adapter.ErrNotFound
	case errors.Is(err, unix.ENOSPC):
		return &adapter.Error{Class: vocab.ClassRejected, Err: fmt.Errorf("disk full: %w", err)}
	}
	return &adapter.Error{Class: vocab.ClassOther, Err: err}
}

// quietLogger keeps pebble's informational lines off the terminal; fatal
// errors still stop the process, as pebble requires.
type quietLogger struct{}

func (quietLogger) Infof(format string, args ...interface{}) {}
func (quietLogger) Fatalf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "platbench: embedded store failed: "+format+"\n", args...)
	os.Exit(1)
}

// DataDir returns the directory in use (for tests and reports).
func (t *Target) DataDir() string { return filepath.Clean(t.dir) }

// FreeDiskBytes is what the file system of the store's directory has free.
func (t *Target) FreeDiskBytes(ctx context.Context) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(t.dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

var _ adapter.FreeDisker = (*Target)(nil)
