// Package browsertest runs headless Chromium for tests that look at a page
// the way a person would: Debian's chromium, driven over the DevTools
// protocol with chromedp, with the flags that keep it off the network.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path finds the browser: $CHROMIUM, then chromium on the PATH.
func Path() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New starts a headless browser for the test and returns its context,
// cancelled when the test ends. Without a browser the test fails under CI
// (CI=true: .ci/run installs Debian's chromium) and is skipped elsewhere.
func New(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	bin := Path()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no chromium installed; CI must run the browser tests (.ci/run installs it)")
		}
		t.Skip("no chromium installed (apt-get install chromium; .ci/run does)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelC := chromedp.NewContext(actx)
	// The first action starts the browser, on a context without a timeout
	// (a timeout there would stop the whole browser); later actions run
	// under the test's timeout.
	if err := chromedp.Do(bctx); err != nil {
		cancelC()
		cancelA()
		t.Fatalf("starting %s: %v", bin, err)
	}
	ctx, cancelT := context.WithTimeout(bctx, timeout)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	return ctx
}

// SaveArtifact writes data (a screenshot) into $SHAKEDOWN_ARTIFACTS when it
// is set, else into the test's temporary directory, and returns the path.
func SaveArtifact(t *testing.T, name string, data []byte) string {
	t.Helper()
	dir := os.Getenv("SHAKEDOWN_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("saved %s", p)
	return p
}
