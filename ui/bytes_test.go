package ui

import (
	"bytes"
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// termSim is Bubble Tea's renderer as it draws on a real terminal in the
// alternate screen (the same ultraviolet TerminalRenderer, with scroll
// optimisation on): it tells how many bytes each frame costs on the wire.
type termSim struct {
	out  bytes.Buffer
	scr  *uv.TerminalRenderer
	cell uv.ScreenBuffer
}

func newTermSim(w, h int) *termSim {
	t := &termSim{}
	t.scr = uv.NewTerminalRenderer(&t.out, []string{"TERM=xterm-256color"})
	t.scr.SetColorProfile(colorprofile.ANSI256)
	t.scr.SetScrollOptim(true)
	t.scr.SetFullscreen(true)
	t.scr.SetRelativeCursor(false)
	t.scr.Erase()
	t.cell = uv.NewScreenBuffer(w, h)
	return t
}

// frame draws content and returns the bytes it took.
func (t *termSim) frame(content string) int {
	before := t.out.Len()
	t.cell.Clear()
	uv.NewStyledString(content).Draw(t.cell, t.cell.Bounds())
	t.scr.Render(t.cell.RenderBuffer)
	_ = t.scr.Flush()
	return t.out.Len() - before
}

// replayRun feeds a finished fixture to the UI the way `firewatch demo`
// (speed 1) would: the fixtures were recorded at speed 2, so one real
// second is half a second of their time; a poll every 2 s carrying the
// events that occurred since the last one, the 1 s clock in between, each
// followed by a frame. It returns the total bytes and the number of
// events.
func replayRun(t testing.TB, fixture string, w, h int, frame func(m *Model) int) (total, events int) {
	full := loadStore(t, fixture)
	evs := slices.Clone(full.Timeline())
	slices.SortStableFunc(evs, func(a, b *model.Event) int { return a.OccurredAt.Compare(b.OccurredAt) })
	start := evs[0].OccurredAt
	now := start
	m := newTestModel(t, "", w, h, Config{JobID: full.Run().ID, Backend: &fakeBackend{}})
	m.SetClock(func() time.Time { return now }, time.UTC)
	total += frame(m) // first paint
	credits := full.Run().CreditsUsed
	i := 0
	for sec := 1; i < len(evs); sec++ {
		// One real second: a clock tick, and every second one a poll.
		now = now.Add(time.Second / fixtureSpeed)
		if sec%2 == 0 {
			var batch []*model.Event
			for i < len(evs) && !evs[i].OccurredAt.After(now) {
				batch = append(batch, evs[i])
				i++
			}
			frac := float64(i) / float64(len(evs))
			m.Update(updateMsg{poller.Update{
				Poll:   &model.Poll{Events: batch, CreditsUsed: credits * frac, HasCredits: true},
				Health: poller.Health{LastGood: now, Polls: 1, Interval: 2 * time.Second},
			}})
		}
		if m.clockOn {
			m.Update(clockMsg{tag: m.clockTag})
		}
		total += frame(m)
	}
	return total, len(evs)
}

// TestByteBudget measures the bytes the UI sends to a 120x40 terminal over
// a whole run, first paint included: the budget is 300 bytes per
// event on average (the end-to-end figure with the real binary is in
// .ci/tui-tmux.sh). The renderer is deterministic, so this is a count, not
// a timing.
func TestByteBudget(t *testing.T) {
	for _, fx := range []string{"succeeded.json", "failed.json"} {
		term := newTermSim(120, 40)
		total, n := replayRun(t, fx, 120, 40, func(m *Model) int { return term.frame(content(m)) })
		per := total / n
		t.Logf("%s: %d bytes for %d events: %d bytes/event", fx, total, n, per)
		if per > 300 {
			t.Errorf("%s: %d bytes/event, budget 300", fx, per)
		}
		if os.Getenv("FW_DUMP") != "" {
			os.WriteFile("/tmp/fw-"+fx+".raw", term.out.Bytes(), 0o644)
		}
	}
}

// fixtureSpeed is the simulator speed the fixtures were recorded at.
const fixtureSpeed = 2

// fakeBackend records what the UI asks of the service.
type fakeBackend struct {
	paused   []bool
	polls    int
	liveView []bool
}

func (f *fakeBackend) Snapshot(ctx context.Context, id string) (string, error) { return "", nil }
func (f *fakeBackend) Cancel(ctx context.Context) error                        { return nil }
func (f *fakeBackend) SetPaused(p bool)                                        { f.paused = append(f.paused, p) }
func (f *fakeBackend) PollNow()                                                { f.polls++ }
func (f *fakeBackend) SetLiveView(on bool)                                     { f.liveView = append(f.liveView, on) }
