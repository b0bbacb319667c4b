package ui

import (
	"context"
	"io"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/internal/program"
	"github.com/firewatch/firewatch/ui/remote"
	"github.com/firewatch/firewatch/ui/screen"
)

// Backend is what the UI can ask of the service while it watches. It is
// nil in a replay: the actions that need it say so on screen.
//
// SetPaused, PollNow and SetLiveView are called from the UI's update loop
// and must not block. Snapshot and Cancel talk to the service and are only
// ever called from commands, with a context.
type Backend interface {
	Snapshot(ctx context.Context, snapshotID string) (string, error)
	Cancel(ctx context.Context) error
	SetPaused(bool)
	PollNow()
	SetLiveView(bool)
}

// Config is how the command line starts the UI.
type Config struct {
	JobID string
	// Store is the run as data. The UI merges every update into it on its
	// own goroutine while Run runs; the caller reads it after Run returns.
	Store *model.Store
	// Updates are the watch's updates; closed when watching ends.
	Updates <-chan poller.Update
	Backend Backend
	// Snapshots, without a Backend, is where artifact snapshots come from
	// (an archived run's, from the archive); the run stays read-only, as
	// in a replay: no cancel, pause or live view.
	Snapshots func(ctx context.Context, snapshotID string) (string, error)

	NoColor, ASCII, Mouse, ExitOnFinish, LiveView bool

	// BackToList: the runs screen opened this run; esc (with no filter
	// set) leaves the UI with Result.Back, to go back to the list.
	BackToList bool

	// Attention is the tracker of what needs attention, over Store; the
	// UI updates it with every merge. Nil: the UI makes its own.
	Attention *attention.Tracker

	// SaveDir is where s saves an artifact's content; "" is the current
	// directory.
	SaveDir string

	// Notes are lines for the footer from outside the UI (an OTLP export
	// that failed), made of sanitised strings; nil for none.
	Notes <-chan string

	// Alerts are desktop notifications for the terminal (package
	// notify's sequences), written through the program while the
	// terminal is not focused; nil: none, and focus is not asked for.
	Alerts <-chan string
	// Watched, if set, is called on the UI's goroutine after every merge
	// into Store and every tick of Attention, with what the tracker
	// changed (nil for nothing): notifications follow the run from it.
	Watched func(changes []attention.Change)

	// Debug, if set, gets one line per message the UI handles (its type,
	// never its content).
	Debug io.Writer

	// ReadOnly, when set, is what c says instead of cancelling: the person
	// watching may not change runs (a hub's viewer).
	ReadOnly string
	// Start, when set, starts a run: R (a rerun with changes) and F (a
	// follow-up in the run's thread) send it, then the screen ends with
	// Result.Started for the caller to watch it. Nil: R and F say they
	// need a live watch (a replay, an archived run). ReadOnly refuses
	// them as it refuses c.
	Start func(ctx context.Context, req poller.AgentRequest) (string, error)
	// RerunOf, when set, is the run this one is a rerun of: once it has
	// ended, = ends the screen with Result.Compare (the caller opens the
	// compare screen of the two).
	RerunOf string
	// Person and Role, when set, are who the session is on a hub (the
	// name from its keys file) and "operator" or "viewer", shown in the
	// header.
	Person, Role string

	// Shared, when set, is the run followed once for several screens (a
	// hub's follower, package follow): the screen merges nothing. It
	// subscribes, applies the changes the follower made to the run's one
	// store, reads that store and its tracker only under the follower's
	// read lock, and leaves when it ends (shared.go). Store, Updates and
	// Attention are then the follower's (its run's tracker made before it
	// starts, follow.Run.NewTracker); Watched is not called (the follower
	// decides the run's notifications). Pause, poll now and live view act
	// on the run's one poll, through the Backend, and the screen shows
	// what that poll does.
	Shared *follow.Follower
	// PollReadOnly, with Shared, is what p and l say instead of pausing
	// the run's polling or turning its live view on: the person may not
	// change what every viewer of the run shares (a hub's viewer).
	PollReadOnly string

	// Terminal, when set, is a remote session's terminal to draw on (a
	// hub's SSH session, package remote) instead of the process's: its
	// keys, size, colours and environment; no browser is opened and no
	// file saved on this machine.
	Terminal *remote.Terminal

	// Input and Output replace the terminal, for tests. Width and Height
	// are the screen size to assume when Output is not a terminal (default
	// 80x24).
	Input         io.Reader
	Output        io.Writer
	Width, Height int
}

// Result is how the UI ended.
type Result struct {
	// Quit: the user quit before the run finished.
	Quit bool
	// Back: the user went back to the runs list (Config.BackToList).
	Back bool
	// Interrupted: the user quit with Ctrl-C, not q (a shell such as the
	// runs screen ends with 130 for it, 0 for q).
	Interrupted bool
	// Started is the run R or F started ("" none): the caller watches it
	// next. StartedRerunOf and StartedChanged are the run it reruns and
	// the fields changed (R); FollowUp is set for F.
	Started        string
	StartedRerunOf string
	StartedChanged []string
	FollowUp       bool
	// Compare: = on a rerun that ended; the caller opens the compare
	// screen of Config.RerunOf and this run.
	Compare bool
	// Focused: the terminal last reported it was focused (Config.Alerts).
	Focused bool
}

// Run shows the UI until the user quits (or, with ExitOnFinish, until the
// watch ends). It returns ctx's error when ctx ends first.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Shared != nil {
		return runShared(ctx, cfg)
	}
	if cfg.Store == nil {
		cfg.Store = model.NewStore()
	}
	m := New(cfg)
	return m.run(ctx, m, cfg)
}

// run runs s, the screen of m (m itself, or a shared run's sharedScreen),
// and says how it ended.
func (m *Model) run(ctx context.Context, s screen.Screen, cfg Config) (Result, error) {
	interrupted, err := program.RunOn(ctx, s, program.IO{Terminal: cfg.Terminal, NoColor: cfg.NoColor,
		Streams: screen.Streams{Input: cfg.Input, Output: cfg.Output, Width: cfg.Width, Height: cfg.Height}})
	var res Result
	m.read(func() {
		res = m.Result()
		if interrupted {
			res.Quit = m.env.store.Run().State != model.StateFinished
		}
	})
	return res, err
}

// runShared is Run for a shared run: subscribed for as long as it shows.
func runShared(ctx context.Context, cfg Config) (Result, error) {
	m, s := newShared(cfg)
	defer m.shared.Leave()
	return m.run(ctx, s, cfg)
}

// newShared is the screen of a shared run, subscribed.
func newShared(cfg Config) (*Model, sharedScreen) {
	f := cfg.Shared
	sub := f.Subscribe()
	var m *Model
	f.View(func(r *follow.Run) {
		cfg.Store, cfg.Attention, cfg.Updates, cfg.Watched = r.Store, r.Attention, nil, nil
		m = New(cfg)
	})
	m.shared = sub
	return m, sharedScreen{m: m, f: f}
}

// read calls fn where m may read its store: under a shared run's read
// lock, else as it is.
func (m *Model) read(fn func()) {
	if m.shared == nil {
		fn()
		return
	}
	m.shared.View(func(*follow.Run) { fn() })
}
