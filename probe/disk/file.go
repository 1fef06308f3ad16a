package disk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"golang.org/x/sys/unix"
)

// freeMargin is left free on the file system beyond the test file, so the
// probe never fills a disk a database shares. A variable for tests only.
var freeMargin int64 = 256 << 20

// afterOpen, when set, runs after the safety checks (tests use it to fill
// the file system behind the probe's back).
var afterOpen func()

// testFile is the one file the probe writes. The probe never writes anything
// else, and removes the file at the end unless it was told to keep it or did
// not create it.
type testFile struct {
	path    string
	fd      int
	size    int64 // bytes the tests use: the requested size, or the device size if smaller
	created bool  // the probe created it: remove it unless Keep
	fresh   int64 // bytes already holding data (layout writes the rest)
	device  bool
	fsType  string
}

// openTestFile applies the safety rules of Config.Path and Config.Force,
// checks free space and opens the file.
func openTestFile(c *Config) (*testFile, error) {
	path := c.Path
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		var b [6]byte
		rand.Read(b[:])
		path = filepath.Join(path, "platbench-probe-"+hex.EncodeToString(b[:])+".dat")
	case err == nil && st.Mode()&fs.ModeDevice != 0 && st.Mode()&fs.ModeCharDevice == 0:
		if !c.Force {
			return nil, usererr.Field("path", "%s is a block device; the probe would overwrite it (fix: give a directory on its file system, or force to destroy its contents)", path)
		}
	case err == nil && st.Mode().IsRegular():
		if !c.Force {
			return nil, usererr.Field("path", "%s exists; the probe would overwrite it (fix: give a directory, a new file name, or force)", path)
		}
	case err == nil:
		return nil, fmt.Errorf("%s is neither a directory, a regular file nor a block device (fix: give a directory)", path)
	case errors.Is(err, fs.ErrNotExist):
		if pst, perr := os.Stat(filepath.Dir(path)); perr != nil || !pst.IsDir() {
			return nil, fmt.Errorf("directory %s does not exist (fix: create it, or give an existing directory)", filepath.Dir(path))
		}
	default:
		return nil, fmt.Errorf("cannot inspect %s: %w", path, err)
	}

	flags := unix.O_RDWR | unix.O_CLOEXEC
	if c.Direct {
		flags |= unix.O_DIRECT
	}
	tf := &testFile{path: path, size: c.Size, fd: -1}
	if err == nil && !st.IsDir() {
		tf.fd, err = unix.Open(path, flags, 0)
	} else {
		tf.fd, err = unix.Open(path, flags|unix.O_CREAT|unix.O_EXCL, 0o600)
		tf.created = err == nil
	}
	if err != nil {
		return nil, openError(path, c.Direct, err)
	}
	var fst unix.Stat_t
	if err := unix.Fstat(tf.fd, &fst); err != nil {
		tf.close(false)
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if fst.Mode&unix.S_IFMT == unix.S_IFBLK {
		tf.device = true
		devSize, err := unix.Seek(tf.fd, 0, 2)
		if err != nil {
			tf.close(false)
			return nil, fmt.Errorf("size of %s: %w", path, err)
		}
		if devSize < tf.size {
			tf.size = devSize
		}
		tf.fresh = tf.size
		tf.fsType = "block device"
		return tf, nil
	}
	tf.fresh = min(fst.Size, tf.size)
	var sfs unix.Statfs_t
	if err := unix.Fstatfs(tf.fd, &sfs); err != nil {
		tf.close(true)
		return nil, fmt.Errorf("free space of %s: %w", dir, err)
	}
	tf.fsType = fsName(sfs.Type)
	need := tf.size - tf.fresh
	avail := int64(sfs.Bavail) * sfs.Bsize
	if need > 0 && need+freeMargin > avail {
		tf.close(true)
		fix := "free some space or give a directory on another file system"
		if fit := (avail - freeMargin) / (1 << 20) * (1 << 20); fit+tf.fresh >= 16<<20 {
			fix = fmt.Sprintf("a size of %s or less, or another directory", units.Bytes(float64(fit+tf.fresh)))
		}
		return nil, usererr.Field("size", "does not fit: not enough free space: the test file needs %s more in %s, %s is free and the probe keeps %s spare (fix: %s)",
			units.Bytes(float64(need)), dir, units.Bytes(float64(avail)), units.Bytes(float64(freeMargin)), fix)
	}
	return tf, nil
}

func openError(path string, direct bool, err error) error {
	switch {
	case direct && errors.Is(err, unix.EINVAL):
		return usererr.Field("direct", "is impossible: the file system of %s does not support O_DIRECT (fix: direct=false, or a directory on a disk file system)", filepath.Dir(path))
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return fmt.Errorf("cannot write %s: permission denied (fix: a directory you can write to)", path)
	case errors.Is(err, unix.EROFS):
		return fmt.Errorf("cannot write %s: read-only file system (fix: a directory on a writable file system)", path)
	case errors.Is(err, unix.ENOSPC):
		return fmt.Errorf("cannot create %s: %w", path, ErrNoSpace)
	}
	return fmt.Errorf("open %s: %w", path, err)
}

// layout writes the part of the file that holds no data yet, as fio's "laying
// out IO file" does: reads of a sparse file measure nothing, and writes into
// unwritten extents measure the allocator. Not timed.
func (tf *testFile) layout(ctx context.Context) error {
	if tf.fresh >= tf.size {
		return nil
	}
	const chunk = 1 << 20
	bufs, err := newBuffers(1, chunk, true)
	if err != nil {
		return err
	}
	defer bufs.free()
	buf := bufs.get(0)
	for off := tf.fresh / chunk * chunk; off < tf.size; off += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(int64(chunk), tf.size-off)
		if n%4096 != 0 { // an O_DIRECT tail: extend with a buffered-size truncate instead
			if err := unix.Ftruncate(tf.fd, tf.size); err != nil {
				return fmt.Errorf("laying out %s: %w", tf.path, err)
			}
			break
		}
		w, err := unix.Pwrite(tf.fd, buf[:n], off)
		if err != nil || int64(w) != n {
			errno, _ := err.(unix.Errno)
			return fmt.Errorf("laying out %s: %w", tf.path, ioError(true, off, int(n), w, errno))
		}
	}
	if err := unix.Fdatasync(tf.fd); err != nil {
		if errors.Is(err, unix.ENOSPC) {
			return fmt.Errorf("laying out %s: %w", tf.path, ErrNoSpace)
		}
		return fmt.Errorf("laying out %s: fdatasync: %w", tf.path, err)
	}
	tf.fresh = tf.size
	return nil
}

// settle flushes the file and drops its pages from the page cache, so a test
// does not read what the previous one left there (matters with --direct=false).
func (tf *testFile) settle() error {
	if err := unix.Fdatasync(tf.fd); err != nil {
		if errors.Is(err, unix.ENOSPC) {
			return ErrNoSpace
		}
		return fmt.Errorf("fdatasync %s: %w", tf.path, err)
	}
	if !tf.device {
		unix.Fadvise(tf.fd, 0, 0, unix.FADV_DONTNEED)
	}
	return nil
}

// close closes the file and removes it when remove is set and the probe created it.
func (tf *testFile) close(remove bool) error {
	var err error
	if tf.fd >= 0 {
		err = unix.Close(tf.fd)
		tf.fd = -1
	}
	if remove && tf.created {
		if rerr := os.Remove(tf.path); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

func fsName(magic int64) string {
	switch magic {
	case unix.EXT4_SUPER_MAGIC:
		return "ext4"
	case unix.XFS_SUPER_MAGIC:
		return "xfs"
	case unix.BTRFS_SUPER_MAGIC:
		return "btrfs"
	case unix.TMPFS_MAGIC:
		return "tmpfs"
	case unix.OVERLAYFS_SUPER_MAGIC:
		return "overlay"
	case unix.NFS_SUPER_MAGIC:
		return "nfs"
	}
	return fmt.Sprintf("0x%x", magic)
}
