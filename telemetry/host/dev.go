package host

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// devOf returns the major and minor number of the file system holding path.
// Overlay and btrfs report an anonymous device (major 0) that has no
// /sys/dev/block entry; DeviceOf then fails with a clear error.
func devOf(path string) (maj, min uint32, err error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, 0, fmt.Errorf("host: stat %s: %w", path, err)
	}
	maj, min = unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev))
	if maj == 0 {
		return 0, 0, fmt.Errorf("host: %s is on an anonymous device %d:%d (overlay, tmpfs or btrfs), not a block device", path, maj, min)
	}
	return maj, min, nil
}

func itoa(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
