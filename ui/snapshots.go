package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/linediff"
	"github.com/firewatch/firewatch/model"
	artcontent "github.com/firewatch/firewatch/ui/content"
)

// Artifact snapshots: fetched from the service once each, in a command,
// and kept for the program's life (a snapshot id names one immutable
// version). A failed fetch is kept as its error until retried.

// snapshotTimeout bounds one snapshot fetch.
const snapshotTimeout = 30 * time.Second

// snapEntry is one snapshot's state.
type snapEntry struct {
	loading bool
	ok      bool
	content string // as the service sent it (untrusted)
	err     string // sanitised, one line
	// view is the content's view, built (JSON parsed) in the fetching
	// command for kind, so that a large snapshot costs the update loop
	// nothing; views of other kinds are built when asked for.
	view *artcontent.Model
	kind model.ArtifactKind
}

// snapshots is the per-program cache, keyed by snapshotId. The root
// writes it (fetch, done, diff, diffDone); detail views read it with get
// and canDiff, and ask for what they need with snapshotWantMsg and
// diffWantMsg.
type snapshots struct {
	// load fetches a snapshot: the Backend's, else Config.Snapshots; nil
	// in a replay.
	load    func(ctx context.Context, snapshotID string) (string, error)
	m       map[string]*snapEntry
	loading int
	diffs   map[[2]string]linediff.Result
	diffing map[[2]string]bool // computing in a command
}

func newSnapshots(cfg Config) *snapshots {
	load := cfg.Snapshots
	if cfg.Backend != nil {
		load = cfg.Backend.Snapshot
	}
	return &snapshots{load: load, m: map[string]*snapEntry{}, diffs: map[[2]string]linediff.Result{}, diffing: map[[2]string]bool{}}
}

// canLoad says whether a snapshot can be fetched (and a failed one tried
// again): not in a replay of a file, which has no service.
func (s *snapshots) canLoad() bool { return s.load != nil }

// get is the entry of id, nil when never asked for.
func (s *snapshots) get(id string) *snapEntry { return s.m[id] }

// fetch starts loading id, the snapshot of an artifact of kind, unless it
// is loaded or loading (a failed one is tried again); it returns the command that fetches it (nil when
// nothing is to be done) and prepares its view with r. In a replay there
// is no service: the entry says so.
func (s *snapshots) fetch(id string, kind model.ArtifactKind, r *artcontent.Renderer) tea.Cmd {
	if e := s.m[id]; e != nil && (e.loading || e.ok) {
		return nil
	}
	if s.load == nil {
		s.m[id] = &snapEntry{err: "snapshots are not available in replay: they live on the service"}
		return nil
	}
	s.m[id] = &snapEntry{loading: true}
	s.loading++
	load := s.load
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
		defer cancel()
		content, err := load(ctx, id)
		msg := snapshotMsg{id: id, content: content, err: err, kind: kind}
		if err == nil && r != nil {
			v := artcontent.New(r, kind, content)
			msg.view = &v
		}
		return msg
	}
}

// done records a fetch's result.
func (s *snapshots) done(msg snapshotMsg) {
	e := s.m[msg.id]
	if e == nil {
		e = &snapEntry{}
		s.m[msg.id] = e
	}
	if e.loading {
		s.loading--
	}
	e.loading = false
	if msg.err != nil {
		e.err = oneLine(msg.err.Error())
		return
	}
	e.ok, e.content, e.err = true, msg.content, ""
	e.view, e.kind = msg.view, msg.kind
}

const spinEvery = 100 * time.Millisecond

// diffLarge is the combined size above which a diff is computed in a
// command rather than in Update.
const diffLarge = 64 << 10

// canDiff reports whether the diff of key is neither done nor computing
// and both its snapshots are in.
func (s *snapshots) canDiff(key [2]string) bool {
	if _, done := s.diffs[key]; done || s.diffing[key] {
		return false
	}
	a, b := s.get(key[0]), s.get(key[1])
	return a != nil && b != nil && a.ok && b.ok
}

// diff computes the diff of key's two snapshots of kind: in the update
// loop when small (its diffMsg is returned to be passed on at once), in a
// command when large (the returned cmd).
func (s *snapshots) diff(key [2]string, kind model.ArtifactKind) (*diffMsg, tea.Cmd) {
	if !s.canDiff(key) {
		return nil, nil
	}
	a, b := s.get(key[0]), s.get(key[1])
	if len(a.content)+len(b.content) > diffLarge {
		s.diffing[key] = true
		return nil, diffCmd(kind, key, a.content, b.content)
	}
	msg := diffMsg{key: key, res: linediff.Compute(kind, a.content, b.content, linediff.DefaultContext)}
	s.diffDone(msg)
	return &msg, nil
}

// diffDone records a computed diff.
func (s *snapshots) diffDone(msg diffMsg) {
	s.diffs[msg.key] = msg.res
	delete(s.diffing, msg.key)
}

// diffCmd computes the diff of two loaded snapshots of kind.
func diffCmd(kind model.ArtifactKind, key [2]string, old, new string) tea.Cmd {
	return func() tea.Msg {
		return diffMsg{key: key, res: linediff.Compute(kind, old, new, linediff.DefaultContext)}
	}
}
