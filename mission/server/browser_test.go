package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/shakedown-robotics/shakedown/internal/browsertest"
	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/server"
	"net/http/httptest"
)

// The live page in a real browser: it follows the vehicle as it flies the
// queue, its Pause button pauses the mission through the token-protected
// API, and a refused request shows the API's refusal. A screenshot is kept
// as a test artifact.
func TestLivePageInBrowser(t *testing.T) {
	s, stop := start(t, server.Config{
		Machine: mission.DefaultConfig(),
		Adapter: adapter.NewDemo(adapter.KinematicConfig{}),
		Clock:   server.NewScaled(server.RealClock{}, 10), // the demo flies 10× faster than real time
	})
	defer stop()
	ts := httptest.NewServer(s.Handler(token, 0))
	defer ts.Close()
	defer ts.CloseClientConnections() // the page's event stream stays open

	ctx := browsertest.New(t, 90*time.Second)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible("#map"),
		chromedp.SetValue("#token", token),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("token").dispatchEvent(new Event("change"))`),
		chromedp.Poll[chromedp.Void](`document.getElementById("stream").textContent === "live"`, chromedp.WithPollingTimeout(20*time.Second)),
	); err != nil {
		t.Fatal(err)
	}

	bg := context.Background()
	do := func(ev mission.Event) {
		t.Helper()
		if r, err := s.Do(bg, ev); err != nil || !r.Success {
			t.Fatalf("%s: %+v %v", ev.Name(), r, err)
		}
	}
	do(mission.Connect{})
	waitFor(t, s, "ARMING", 20*time.Second, func(st mission.Status) bool { return st.State == "ARMING" && !st.CommandPending })
	do(mission.Arm{})
	waitFor(t, s, "TAKEOFF", 60*time.Second, func(st mission.Status) bool { return st.State == "TAKEOFF" && !st.CommandPending })
	do(mission.Airborne{})
	waitFor(t, s, "EXECUTING", 60*time.Second, func(st mission.Status) bool { return st.State == "EXECUTING" && !st.CommandPending })
	do(mission.Load{Waypoints: []mission.Waypoint{{X: 10, Z: -2, SpeedMS: 2}, {X: 20, Z: -2, SpeedMS: 2}, {X: 30, Z: -2, SpeedMS: 2}}})

	// The page follows the vehicle: its position changes twice.
	pos := func() string {
		v, err := chromedp.Run(ctx, chromedp.Text("#pos"))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for range 2 {
		before := pos()
		if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.getElementById("pos").textContent !== `+jsString(before),
			chromedp.WithPollingTimeout(30*time.Second))); err != nil {
			t.Fatalf("the position on the page stayed %s: %v", before, err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.getElementById("queue").textContent.startsWith("RUNNING")`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the queue is not shown running: %v", err)
	}

	// Pause from the page.
	if err := chromedp.Do(ctx, chromedp.Click("#b-pause")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "PAUSED", 20*time.Second, func(st mission.Status) bool { return st.State == "PAUSED" })
	if err := chromedp.Do(ctx,
		chromedp.Poll[chromedp.Void](`document.getElementById("state").textContent === "PAUSED"`, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Poll[chromedp.Void](`document.getElementById("reply").className === "ok"`, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Poll[chromedp.Void](`document.getElementById("events").textContent.includes("PAUSED")`, chromedp.WithPollingTimeout(20*time.Second)),
	); err != nil {
		t.Fatalf("the page does not show the pause: %v", err)
	}
	// Pausing again is refused by the API, and the page says so.
	if err := chromedp.Do(ctx, chromedp.Click("#b-pause"),
		chromedp.Poll[chromedp.Void](`document.getElementById("reply").className === "err"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the refusal is not shown: %v", err)
	}
	reply, _ := chromedp.Run(ctx, chromedp.Text("#reply"))
	if !strings.Contains(reply, "refused") {
		t.Errorf("reply %q; want the API's refusal", reply)
	}
	if st := s.Status(); st.State != "PAUSED" {
		t.Errorf("state after the refused pause: %s", st.State)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	browsertest.SaveArtifact(t, "live.png", shot)
}

func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
