//go:build unix

package campaign

import (
	"fmt"
	"os"
	"syscall"
)

// privateFile checks that the file at path is readable by its owner only
// and owned by the user this process runs as: a secret in a file others
// can read, or change, is no secret.
func privateFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("mode %04o lets others read it; run chmod 600 %s", fi.Mode().Perm(), path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("owned by uid %d, not by this user (uid %d)", st.Uid, os.Geteuid())
	}
	return nil
}
