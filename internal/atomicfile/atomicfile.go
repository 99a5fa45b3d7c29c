// Package atomicfile writes files so that readers never see a partial
// one: through a temporary file in the same folder, renamed into place.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path (mode 0644) through a temporary file in the
// same folder: path holds either its old content or all of data, whatever
// happens. The folder must exist.
func Write(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	// On disk before the rename, so a crash cannot leave an empty file
	// under the new name.
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
