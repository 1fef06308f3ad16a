// Package diskfree says how much room a file system has: the one
// statfs(2) reading of the bytes an unprivileged writer may still use.
package diskfree

import "golang.org/x/sys/unix"

// Avail is the bytes free to an unprivileged writer on the file system
// that holds path (statfs's f_bavail: without the blocks reserved for
// root).
func Avail(path string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * st.Bsize, nil
}
