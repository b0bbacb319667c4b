package cli

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// TestResolveOutput: --output auto is the terminal UI on a terminal and
// plain text elsewhere; an explicit mode is kept as it is, whatever stdout
// is (tui on a pipe draws into it, as asked).
func TestResolveOutput(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		terminal bool
		want     string
	}{
		{OutputAuto, true, OutputTUI},
		{OutputAuto, false, OutputPlain},
		{OutputTUI, true, OutputTUI},
		{OutputTUI, false, OutputTUI},
		{OutputPlain, true, OutputPlain},
		{OutputJSON, true, OutputJSON},
		{OutputJSON, false, OutputJSON},
	} {
		got, err := resolveOutput(tc.mode, tc.terminal)
		if err != nil || got != tc.want {
			t.Errorf("%s on a terminal=%v: %q, %v; want %q", tc.mode, tc.terminal, got, err, tc.want)
		}
	}
}

// TestTUIBackend: what the UI asks of the service goes to the job being
// watched: a snapshot's content, and the cancel (the service's 409 comes
// back as the typed error the UI shows).
func TestTUIBackend(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := sim.Start(ctx, sim.Options{Scenarios: []string{sim.ScenarioCancel}, Speed: 20, Seed: 4, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := poller.New(poller.Config{BaseURL: s.URL, APIKey: s.Key, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	job := s.Jobs[0].ID
	cancels := 0
	w := &watchSession{feed: feed{JobID: job, Client: c, Watcher: c.Watch(job, poller.WatchOptions{}), keepCancel: func() { cancels++ }}}
	b := &tuiBackend{w: w}

	// Wait for the result artifact's first version to be in the trace.
	store := model.NewStore()
	for store.Artifact("result") == nil {
		if ctx.Err() != nil {
			t.Fatal("no result artifact in the trace")
		}
		body, err := c.Trace(ctx, job, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Ingest(body); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	snap, err := b.Snapshot(ctx, store.Artifact("result").Versions[0].Ref.SnapshotID)
	if err != nil || !strings.Contains(snap, `"entries"`) {
		t.Fatalf("snapshot: %q, %v", snap, err)
	}
	if _, err := b.Snapshot(ctx, "00000000-0000-4000-8000-000000000000"); err == nil {
		t.Fatal("an unknown snapshot should fail")
	}

	if err := b.Cancel(ctx); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	err = b.Cancel(ctx)
	var pe *poller.Error
	if !errors.As(err, &pe) || pe.Kind != poller.KindAlreadyCancelled || pe.Status != 409 {
		t.Fatalf("second cancel: %v, want the 409 already cancelled", err)
	}
	if cancels != 1 {
		t.Errorf("the accepted cancel was recorded %d times, want once (the refused one not)", cancels)
	}
	if !s.Finished(job) {
		if err := s.WaitFinished(ctx, job); err != nil {
			t.Fatal(err)
		}
	}

	// The watcher's switches do not block (the UI calls them from its
	// update loop), running or not.
	done := make(chan struct{})
	go func() {
		b.SetPaused(true)
		b.SetPaused(false)
		b.PollNow()
		b.PollNow()
		b.SetLiveView(true)
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("a watcher switch blocked")
	}
}

// TestDebugWriter: the UI's --debug lines land in the debug log one by
// one.
func TestDebugWriter(t *testing.T) {
	var out strings.Builder
	d := newDebugLog(nopCloser{&out}, nil)
	n, err := debugWriter{d}.Write([]byte("12:00:00.000 ui: tea.KeyPressMsg\n12:00:00.001 ui: ui.clockMsg\n"))
	if err != nil || n == 0 {
		t.Fatalf("write: %d, %v", n, err)
	}
	got := out.String()
	if strings.Count(got, "\n") != 2 || !strings.Contains(got, "ui: tea.KeyPressMsg") || !strings.Contains(got, "ui: ui.clockMsg") {
		t.Fatalf("debug log:\n%s", got)
	}
}
