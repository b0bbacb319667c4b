package ui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/ui/screen"
)

// watchSim starts the simulator in-process with one scenario, and the real
// poller watching it; the updates arrive on the returned channel, closed
// when the watch ends.
func watchSim(t *testing.T, scenario string, speed float64) (<-chan poller.Update, *poller.Watcher, *poller.Client) {
	t.Helper()
	ch, w, c, _ := watchSimJob(t, scenario, speed)
	return ch, w, c
}

// watchSimJob is watchSim that also returns the job id.
func watchSimJob(t *testing.T, scenario string, speed float64) (<-chan poller.Update, *poller.Watcher, *poller.Client, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := sim.Start(ctx, sim.Options{Scenarios: []string{scenario}, Speed: speed, Seed: 3, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c, err := poller.New(poller.Config{BaseURL: s.URL, APIKey: s.Key, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w := c.Watch(s.Jobs[0].ID, poller.WatchOptions{Interval: 100 * time.Millisecond, Tail: 2, TailMax: 2 * time.Second, TokenEvery: -1})
	ch := make(chan poller.Update, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		_ = w.Run(ctx, func(u poller.Update) {
			select {
			case ch <- u:
			case <-ctx.Done():
			}
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ch, w, c, s.Jobs[0].ID
}

// simBackend is the Backend of a live watch, as the command line builds it.
type simBackend struct {
	w     *poller.Watcher
	c     *poller.Client
	jobID string
}

func (b simBackend) Snapshot(ctx context.Context, id string) (string, error) {
	s, err := b.c.Snapshot(ctx, b.jobID, id)
	if err != nil {
		return "", err
	}
	return s.Content, nil
}
func (b simBackend) Cancel(ctx context.Context) error { return b.c.Cancel(ctx, b.jobID) }
func (b simBackend) SetPaused(p bool)                 { b.w.SetPaused(p) }
func (b simBackend) PollNow()                         { b.w.PollNow() }
func (b simBackend) SetLiveView(on bool)              { b.w.SetLiveView(on) }

// TestEndToEndTeatest runs the UI as a Bubble Tea program (teatest)
// against the simulator and the real poller: the run reaches its outcome
// banner, the user quits, and the UI reports that the run had finished.
func TestEndToEndTeatest(t *testing.T) {
	t.Parallel()
	ch, w, c := watchSim(t, "failure", 40)
	store := model.NewStore()
	m := New(Config{Store: store, Updates: ch, Backend: simBackend{w, c, ""}, LiveView: true})
	tm := teatest.NewTestModel(t, screen.Root{S: m}, teatest.WithInitialTermSize(120, 40))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("Run failed"))
	}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(50*time.Millisecond))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(screen.Root).S.(*Model)
	if fm.Result().Quit {
		t.Fatal("the run had finished: quitting is not an early quit")
	}
	r := store.Run()
	if r.State != model.StateFinished || r.Outcome != model.OutcomeFailed || r.Error == nil {
		t.Fatalf("store after the UI: %+v", r)
	}
	// The banner shows the fatal error's code and message.
	screen := plain(fm.render())
	if !strings.Contains(screen, string(r.Error.Code)) || !strings.Contains(screen, "Run failed") {
		t.Fatalf("banner:\n%s", screen)
	}
}

// lockedBuffer is an io.Writer the test can read while the program writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRunExitOnFinish drives ui.Run, the command line's entry point, with
// --exit-on-finish: it returns by itself once the watch ended, and the
// store holds the whole run.
func TestRunExitOnFinish(t *testing.T) {
	t.Parallel()
	ch, w, c := watchSim(t, "research", 60)
	store := model.NewStore()
	out := &lockedBuffer{}
	in, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Run(ctx, Config{Store: store, Updates: ch, Backend: simBackend{w, c, ""}, ExitOnFinish: true, Input: in, Output: out, Width: 120, Height: 40})
	if err != nil {
		t.Fatal(err)
	}
	if res.Quit {
		t.Fatal("Result.Quit without the user quitting")
	}
	if store.Run().State != model.StateFinished || store.Run().Outcome != model.OutcomeSucceeded {
		t.Fatalf("run: %+v", store.Run())
	}
	if !strings.Contains(out.String(), "Run succeeded") {
		t.Fatal("the banner never reached the terminal")
	}
}

// TestRunQuitEarly: quitting before the run finished says so in Result.
func TestRunQuitEarly(t *testing.T) {
	t.Parallel()
	ch, w, c := watchSim(t, "research", 1)
	store := model.NewStore()
	out := &lockedBuffer{}
	in, inW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		// Quit once the first events are on screen.
		for ctx.Err() == nil && !strings.Contains(out.String(), "started") {
			time.Sleep(20 * time.Millisecond)
		}
		inW.Write([]byte("q"))
	}()
	res, err := Run(ctx, Config{Store: store, Updates: ch, Backend: simBackend{w, c, ""}, Input: in, Output: out, Width: 120, Height: 40})
	inW.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !res.Quit || store.Run().State == model.StateFinished {
		t.Fatalf("quit early: Result %+v, run %s", res, store.Run().State)
	}
}

// TestEndToEndArtifactAndCancel drives the UI as a program against the
// simulator's cancel scenario (a run that goes on until cancelled) and the
// real poller: a opens the result artifact, whose snapshot is fetched from
// the service and shown; c and y cancel the run, and the screen follows
// the trace to "Run cancelled".
func TestEndToEndArtifactAndCancel(t *testing.T) {
	t.Parallel()
	ch, w, c, job := watchSimJob(t, "cancel", 5)
	store := model.NewStore()
	m := New(Config{Store: store, Updates: ch, Backend: simBackend{w, c, job}, JobID: job})
	tm := teatest.NewTestModel(t, screen.Root{S: m}, teatest.WithInitialTermSize(120, 40))
	wait := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			return bytes.Contains(b, []byte(what))
		}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	key := func(k rune) { tm.Send(tea.KeyPressMsg{Code: k, Text: string(k)}) }
	wait("result.json")
	key('a')
	wait("entries")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	key('c')
	wait("yes, cancel the run") // shown once it takes an answer
	key('y')
	wait("Run cancelled")
	key('q')
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(screen.Root).S.(*Model)
	r := store.Run()
	if r.State != model.StateFinished || r.Outcome != model.OutcomeCancelled || !r.CancelRequested {
		t.Fatalf("run after the UI: %+v", r)
	}
	// The snapshot came from the service and stays cached.
	a := store.Artifact("result")
	if a == nil {
		t.Fatal("no result artifact")
	}
	fetched := 0
	for _, v := range a.Versions {
		if en := fm.env.snaps.get(v.Ref.SnapshotID); en != nil && en.ok && strings.Contains(en.content, "entries") {
			fetched++
		}
	}
	if fetched != 1 {
		t.Fatalf("%d snapshots of the result fetched, want the one shown", fetched)
	}
	if fm.Result().Quit {
		t.Fatal("the run had finished: quitting is not an early quit")
	}
}
