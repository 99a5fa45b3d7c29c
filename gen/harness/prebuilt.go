package harness

import (
	"compress/gzip"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// prebuiltFS holds the datasets shipped in the binary (prebuilt/*.csv.gz,
// each under its cache name): the default canonical training dataset, so
// that a first generation need not fly it. A name carries the simulator's
// fingerprint, so a prebuilt dataset is only used by the simulator that
// flew it.
//
//go:embed prebuilt
var prebuiltFS embed.FS

// maxPrebuiltBytes bounds a prebuilt dataset once decompressed (the
// canonical one is about 0.5 MB).
const maxPrebuiltBytes = 16 << 20

// prebuiltDataset returns the CSV of the dataset shipped under the cache
// name, and false when none is.
func prebuiltDataset(name string) ([]byte, bool, error) {
	f, err := prebuiltFS.Open("prebuilt/" + name + ".gz")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, false, fmt.Errorf("prebuilt dataset %s: %w", name, err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxPrebuiltBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("prebuilt dataset %s: %w", name, err)
	}
	if len(data) > maxPrebuiltBytes {
		return nil, false, fmt.Errorf("prebuilt dataset %s: over %d bytes", name, maxPrebuiltBytes)
	}
	return data, true, nil
}
