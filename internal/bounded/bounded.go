// Package bounded reads the small files users name (secrets, passwords,
// TLS certificates and keys) without trusting them to be small: a device
// (/dev/zero never ends), a FIFO (it blocks) or a directory is refused
// before it is read, and so is a file over its limit. Its errors say what
// the file is; the caller adds what the file was for and the fix.
package bounded

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// ReadFile reads the regular file at path, of at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	if err := Check(path, limit); err != nil {
		return nil, err
	}
	// O_NONBLOCK: a FIFO swapped in after the check opens without blocking,
	// and the second check below refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrap(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrap(err))
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is over the %d bytes it may hold", path, limit)
	}
	return b, nil
}

// ReadUpTo reads the file at path, at most limit bytes, whatever it is: a
// regular file, or a pipe such as a shell's <(...) for files users may well
// generate (a suite). A larger one is refused, whether its size says so or
// it reads on past the limit (/dev/zero); the errors say which.
func ReadUpTo(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrap(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, over the %d it may hold", path, st.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrap(err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s reads on past the %d bytes it may hold", path, limit)
	}
	return data, nil
}

// Check refuses what ReadFile refuses, without reading: for a file that
// another library reads (a driver loading a TLS CA by its path).
func Check(path string, limit int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", path, unwrap(err))
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file", path, KindOf(fi.Mode()))
	}
	if fi.Size() > limit {
		return fmt.Errorf("%s is %d bytes, over the %d it may hold", path, fi.Size(), limit)
	}
	return nil
}

// unwrap drops the *PathError's operation and path, which the message
// already names.
func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// KindOf names a file's type for a refusal: "a directory", "a FIFO"...
func KindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a plain file"
}
