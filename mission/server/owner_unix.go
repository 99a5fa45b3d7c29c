//go:build unix

package server

import (
	"io/fs"
	"syscall"
)

// fileOwner returns the user ID owning the file fi describes.
func fileOwner(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
