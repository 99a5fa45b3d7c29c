package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/internal/atomicfile"
)

// Cache keeps training datasets (Dir/datasets/*.csv) and trained models
// (Dir/models/*.json), each under a name that says what it was made from,
// so that a file is reused only for exactly what made it. A nil *Cache
// keeps nothing.
type Cache struct {
	Dir string // the folder; the CLI's default is the user cache folder's shakedown/
}

// Dataset returns the dataset cached under name (a file name in
// datasets/), or builds it with build (the CSV a surrogate.ParseCSV
// reads), stores it and returns it. A cached file that cannot be read is
// an error naming it, not rebuilt silently.
func (c *Cache) Dataset(name string, build func() ([]byte, error)) (surrogate.Dataset, error) {
	if c == nil {
		data, err := build()
		if err != nil {
			return surrogate.Dataset{}, err
		}
		return surrogate.ParseCSV(name, bytes.NewReader(data))
	}
	path := c.DatasetPath(name)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		d, err := surrogate.ParseCSV(path, bytes.NewReader(data))
		if err != nil {
			return d, fmt.Errorf("cached dataset: %w (delete it to rebuild)", err)
		}
		return d, nil
	case !errors.Is(err, fs.ErrNotExist):
		return surrogate.Dataset{}, fmt.Errorf("cached dataset: %w (delete it to rebuild)", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return surrogate.Dataset{}, err
	}
	if data, err = build(); err != nil {
		return surrogate.Dataset{}, err
	}
	if err := atomicfile.Write(path, data); err != nil {
		return surrogate.Dataset{}, err
	}
	return surrogate.ParseCSV(path, bytes.NewReader(data))
}

// DatasetPath is where the dataset called name is cached.
func (c *Cache) DatasetPath(name string) string { return filepath.Join(c.Dir, "datasets", name) }

// Model returns the paper's surrogate trained on d (seed 1), from the
// cache when a model trained on exactly d is there, else trained now and
// stored. A cached model that does not decode is trained again.
func (c *Cache) Model(d surrogate.Dataset) (*surrogate.Model, error) {
	if c == nil {
		return surrogate.Train(d, surrogate.Config{Seed: 1})
	}
	path := c.ModelPath(d)
	if data, err := os.ReadFile(path); err == nil {
		if m, err := surrogate.Decode(path, data); err == nil {
			return m, nil
		}
	}
	m, err := surrogate.Train(d, surrogate.Config{Seed: 1})
	if err != nil {
		return nil, err
	}
	data, err := m.Encode()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return m, atomicfile.Write(path, data)
}

// ModelPath is where the model trained on d is cached: keyed by a hash of
// the data.
func (c *Cache) ModelPath(d surrogate.Dataset) string {
	h := sha256.New()
	for i := range d.X {
		for _, v := range d.X[i] {
			fmt.Fprintf(h, "%g,", v)
		}
		fmt.Fprintf(h, "%g\n", d.Y[i])
	}
	return filepath.Join(c.Dir, "models", fmt.Sprintf("model-%s-seed1-v%d.json", hex.EncodeToString(h.Sum(nil))[:16], cacheVersion))
}
