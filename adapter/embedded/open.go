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

// Target's abilities, checked at compile time (adapter/README.md).
var (
	_ adapter.Target         = (*Target)(nil)
	_ adapter.Describer      = (*Target)(nil)
	_ adapter.Sizer          = (*Target)(nil)
	_ adapter.FreeDisker     = (*Target)(nil)
	_ adapter.Retainer       = (*Target)(nil)
	_ adapter.DatasetChecker = (*Target)(nil)
	_ adapter.ReadChecker    = (*Target)(nil)
	_ adapter.Manifester     = (*Target)(nil)
	_ adapter.Cleaner        = (*Target)(nil)
)

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
