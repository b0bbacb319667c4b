package ui

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/browser"
	"github.com/firewatch/firewatch/ui/waterfall"
)

// fakeService is the service as the UI's Backend sees it, answering from
// fixtures: snapshots from testdata/snapshots (regenerated from the
// simulator by go generate (internal/fixturegen); snaps overrides them), cancel with
// cancelErr. It records what it was asked. Tests call it from their own
// goroutine only (runCmds runs the commands there).
type fakeService struct {
	paused   []bool
	polls    int
	liveView []bool

	snaps     map[string]string
	snapErr   error
	fetched   []string
	cancels   int
	cancelErr error
}

func (f *fakeService) Snapshot(ctx context.Context, id string) (string, error) {
	f.fetched = append(f.fetched, id)
	if f.snapErr != nil {
		return "", f.snapErr
	}
	if s, ok := f.snaps[id]; ok {
		return s, nil
	}
	b, err := os.ReadFile(filepath.Join("testdata", "snapshots", filepath.Base(id)))
	if err != nil {
		return "", &poller.Error{Kind: poller.KindNotFound, Op: "snapshot", Status: 404, ServerMessage: "Snapshot not found"}
	}
	return string(b), nil
}
func (f *fakeService) Cancel(ctx context.Context) error { f.cancels++; return f.cancelErr }
func (f *fakeService) SetPaused(p bool)                 { f.paused = append(f.paused, p) }
func (f *fakeService) PollNow()                         { f.polls++ }
func (f *fakeService) SetLiveView(on bool)              { f.liveView = append(f.liveView, on) }

// Helpers: a model whose commands the test runs itself.

// quietTimerMsg is what a timer of a test model delivers: nothing.
type quietTimerMsg struct{}

// detailModel is newTestModel with a fake service and timers that never
// fire (settle runs every other command at once).
func serviceModel(t *testing.T, fixture string, w, h int, fb *fakeService, cfg Config) *Model {
	t.Helper()
	if fb != nil {
		cfg.Backend = fb
	}
	cfg.JobID = "e9d1e131-b05b-4d08-b44a-bde34a7aa278"
	m := newTestModel(t, fixture, w, h, cfg)
	m.after = func(time.Duration, tea.Msg) tea.Cmd { return func() tea.Msg { return quietTimerMsg{} } }
	m.env.getenv = func(string) string { return "" }
	m.env.saveDir = t.TempDir()
	healthy(m, m.env.store.Run().State == model.StateFinished)
	return m
}

// settle runs cmd and every command that follows from it, feeding their
// messages back to m as the program would; it returns what was written
// to the terminal raw (tea.Raw).
func runCmds(t *testing.T, m *Model, cmd tea.Cmd) (raw []string) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 10000 {
			t.Fatal("the commands never settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil, quietTimerMsg, tea.QuitMsg:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.RawMsg:
			raw = append(raw, fmt.Sprint(msg.Msg))
		default:
			next := m.Update(msg)
			queue = append(queue, next)
		}
	}
	return raw
}

// deliverWants runs cmd's commands once and hands what children ask the
// root for (snapshotWantMsg, diffWantMsg) to m; it returns the rest, and
// what m started, unsettled.
func deliverWants(m *Model, cmd tea.Cmd) tea.Cmd {
	var rest []tea.Cmd
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case snapshotWantMsg, diffWantMsg:
			next := m.Update(msg)
			rest = append(rest, next)
		default:
			rest = append(rest, func() tea.Msg { return msg })
		}
	}
	return tea.Batch(rest...)
}

// keys presses each key and settles what it started.
func pressRun(t *testing.T, m *Model, ks ...string) (raw []string) {
	t.Helper()
	for _, k := range ks {
		cmd := m.Update(keyMsg(k))
		raw = append(raw, runCmds(t, m, cmd)...)
	}
	return raw
}

// open opens sel's detail and settles its first fetch.
func openRun(t *testing.T, m *Model, sel Selection) {
	t.Helper()
	m.openDetail(sel)
	runCmds(t, m, m.sizeOverlay())
}

// footer is the last screen line.
func footerLine(m *Model) string {
	l := screenLines(m)
	return l[len(l)-1]
}

var linkSeq = regexp.MustCompile("\x1b]8;[^;\x07\x1b]*;([^\x07\x1b]*)\x07")

// checkDetailScreen is checkScreen for screens that may hold markdown's
// hyperlinks: OSC 8 with an http(s) target (or none, to close one) is the
// one other sequence allowed.
func checkDetailScreen(t *testing.T, s string, w, h int) {
	t.Helper()
	for _, m := range linkSeq.FindAllStringSubmatch(s, -1) {
		if m[1] != "" && !strings.HasPrefix(m[1], "http://") && !strings.HasPrefix(m[1], "https://") {
			t.Fatalf("hyperlink to %q", m[1])
		}
	}
	checkScreen(t, linkSeq.ReplaceAllString(s, ""), w, h)
}

func toolByName(t *testing.T, s *model.Store, name string) *model.ToolCall {
	t.Helper()
	for _, c := range s.ToolCalls() {
		if c.Name == name && c.Finished != nil {
			return c
		}
	}
	t.Fatalf("no finished %s call", name)
	return nil
}

func agentByName(t *testing.T, s *model.Store, name string) *model.Agent {
	t.Helper()
	for _, a := range s.Agents() {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no agent %s", name)
	return nil
}

// Goldens.

func TestGoldenDetails(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		sz := itoa(size.w) + "x" + itoa(size.h)
		for _, tc := range []struct {
			name, fixture string
			sel           func(s *model.Store) Selection
			keys          []string
			want          []string
		}{
			{"event", "succeeded.json", func(s *model.Store) Selection {
				for _, e := range s.Timeline() {
					if e.Type == model.TypeToolCallFinished {
						return Selection{Event: e}
					}
				}
				return Selection{}
			}, nil, []string{"event id", "occurred at", "into the run", "producerSequence", "Raw event"}},
			{"event-raw", "failed.json", func(s *model.Store) Selection {
				return Selection{Event: s.Errors()[0].Event}
			}, []string{"tab"}, []string{`"schemaVersion": 1`, `"type": "error.occurred"`}},
			{"toolcall", "succeeded.json", func(s *model.Store) Selection {
				return Selection{ToolCall: toolByName(t, s, "mcp__tools__search")}
			}, nil, []string{"Parameters", "Result", "Start event", "Finish event", "started", "finished"}},
			{"toolcall-result-folded", "succeeded.json", func(s *model.Store) Selection {
				return Selection{ToolCall: toolByName(t, s, "mcp__tools__scrape")}
			}, []string{"tab"}, []string{`"markdown": "`, " B"}},
			{"agent", "succeeded.json", func(s *model.Store) Selection {
				return Selection{Agent: agentByName(t, s, "pricing-researcher")}
			}, nil, []string{"Tool calls", "Sessions", "Errors", "Events", "Subagents", "succeeded in"}},
			{"session", "running.json", func(s *model.Store) Selection {
				return Selection{Session: s.Sessions()[0]}
			}, nil, []string{"live view", "viewport", "opened"}},
			{"artifact", "succeeded.json", func(s *model.Store) Selection {
				return Selection{Artifact: s.Artifact("result")}
			}, nil, []string{"Versions 8", "v8 of 8", "v2", "append", "[vendors]", `"task"`}},
		} {
			t.Run(tc.name+"-"+sz, func(t *testing.T) {
				m := serviceModel(t, tc.fixture, size.w, size.h, &fakeService{}, Config{LiveView: true})
				openRun(t, m, tc.sel(m.env.store))
				pressRun(t, m, tc.keys...)
				got := content(m)
				checkDetailScreen(t, got, size.w, size.h)
				screen := plain(got)
				if size.w == 120 {
					for _, w := range tc.want {
						if !strings.Contains(screen, w) {
							t.Errorf("%q is not on screen", w)
						}
					}
				}
				golden(t, "detail-"+tc.name+"-"+sz+".txt", screen)
			})
		}
	}
}

// TestFoldedJSON: a result with a long string starts folded, and enter
// unfolds it.
func TestFoldedJSON(t *testing.T) {
	m := serviceModel(t, "succeeded.json", 120, 40, &fakeService{}, Config{})
	openRun(t, m, Selection{ToolCall: toolByName(t, m.env.store, "mcp__tools__scrape")})
	pressRun(t, m, "tab")
	before := plain(content(m))
	if !strings.Contains(before, "…\"") {
		t.Fatalf("the long markdown string is not folded:\n%s", before)
	}
	pressRun(t, m, "j", "enter")
	after := plain(content(m))
	if strings.Count(after, "\n") != strings.Count(before, "\n") || after == before {
		t.Fatalf("enter did not unfold the string")
	}
}

func TestGoldenWaterfall(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		w, h    int
	}{{"succeeded.json", 120, 40}, {"succeeded.json", 80, 24}, {"running.json", 120, 40}, {"running.json", 80, 24}} {
		name := "waterfall-" + strings.TrimSuffix(tc.fixture, ".json") + "-" + itoa(tc.w) + "x" + itoa(tc.h) + ".txt"
		t.Run(name, func(t *testing.T) {
			m := serviceModel(t, tc.fixture, tc.w, tc.h, &fakeService{}, Config{})
			pressRun(t, m, "w")
			if _, ok := m.overlay.(*waterfallView); !ok {
				t.Fatalf("w opened %T", m.overlay)
			}
			got := content(m)
			checkScreen(t, got, tc.w, tc.h)
			screen := plain(got)
			for _, want := range []string{"Waterfall", "time", "orchestrator", "search"} {
				if !strings.Contains(screen, want) {
					t.Errorf("%q not on the waterfall", want)
				}
			}
			golden(t, name, screen)
		})
	}
}

// TestGoldenContentKinds shows a snapshot of each kind in the artifact
// detail, fetched from the (fake) service.
func TestGoldenContentKinds(t *testing.T) {
	for _, tc := range []struct {
		id   string
		kind model.ArtifactKind
		want string
	}{
		{"result", model.KindJSON, `"vendors": [`},
		{"answer", model.KindMarkdown, "Web-scraping APIs"},
		{"scraperapi-rate-limits", model.KindHTML, "<h1>Rate limits and concurrency</h1>"},
		{"sources", model.KindText, "Source checks for /workspace/result.json"},
		{"apify-pricing-screenshot", model.KindScreenshot, "http://127.0.0.1:8080/files/"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			fb := &fakeService{}
			m := serviceModel(t, "succeeded.json", 120, 40, fb, Config{})
			a := m.env.store.Artifact(tc.id)
			if a == nil || a.Kind != tc.kind {
				t.Fatalf("no %s artifact %s", tc.kind, tc.id)
			}
			openRun(t, m, Selection{Artifact: a})
			if !slices.Equal(fb.fetched, []string{a.Latest().Ref.SnapshotID}) {
				t.Fatalf("fetched %v, want the latest version's snapshot", fb.fetched)
			}
			got := content(m)
			checkDetailScreen(t, got, 120, 40)
			screen := plain(got)
			if !strings.Contains(screen, tc.want) {
				t.Fatalf("%q not shown:\n%s", tc.want, screen)
			}
			golden(t, "content-"+string(tc.kind)+"-120x40.txt", screen)
		})
	}
}

// Snapshots: loading, errors, the cache, hostile content.

func TestSnapshotLoadingErrorAndRetry(t *testing.T) {
	fb := &fakeService{snapErr: &poller.Error{Kind: poller.KindNotFound, Op: "snapshot", Status: 404, ServerMessage: "Snapshot not found"}}
	m := serviceModel(t, "succeeded.json", 120, 40, fb, Config{})
	var timers []tea.Msg
	m.after = func(_ time.Duration, msg tea.Msg) tea.Cmd {
		timers = append(timers, msg)
		return nil
	}
	// Opening asks the root for the snapshot; the root starts the fetch
	// and the spinner; the screen says it loads.
	cmd := m.Update(keyMsg("a"))
	cmd = deliverWants(m, cmd)
	if m.env.snaps.loading != 1 || len(timers) != 1 {
		t.Fatalf("a fetch and one spinner tick: loading %d, timers %v", m.env.snaps.loading, timers)
	}
	if !strings.Contains(plain(content(m)), "loading snapshot") {
		t.Fatalf("no loading line:\n%s", plain(content(m)))
	}
	// A second tick while loading, none once it is over.
	m.Update(timers[0])
	if len(timers) != 2 {
		t.Fatalf("the spinner stopped while loading: %v", timers)
	}
	runCmds(t, m, cmd)
	if m.env.snaps.loading != 0 {
		t.Fatal("still loading")
	}
	m.Update(timers[1])
	if len(timers) != 2 {
		t.Fatalf("the spinner ticks with nothing loading: %v", timers)
	}
	screen := plain(content(m))
	if !strings.Contains(screen, "could not load snapshot") || !strings.Contains(screen, "not found or expired (404)") || !strings.Contains(screen, "r tries again") {
		t.Fatalf("the error is not shown:\n%s", screen)
	}
	// r tries again, and succeeds now.
	fb.snapErr = nil
	pressRun(t, m, "r")
	if len(fb.fetched) != 2 || !strings.Contains(plain(content(m)), `"vendors"`) {
		t.Fatalf("retry: fetched %v\n%s", fb.fetched, plain(content(m)))
	}
}

func TestSnapshotsAreCachedForTheProgram(t *testing.T) {
	fb := &fakeService{}
	m := serviceModel(t, "succeeded.json", 120, 40, fb, Config{})
	pressRun(t, m, "a")
	pressRun(t, m, "esc", "a")
	pressRun(t, m, "esc", "a", "tab", "j", "k")
	if len(fb.fetched) != 2 {
		t.Fatalf("fetched %v: v8 once, then v7 once", fb.fetched)
	}
	seen := map[string]bool{}
	for _, id := range fb.fetched {
		if seen[id] {
			t.Fatalf("%s fetched twice: %v", id, fb.fetched)
		}
		seen[id] = true
	}
}

func TestNoSnapshotsInReplay(t *testing.T) {
	m := serviceModel(t, "succeeded.json", 120, 40, nil, Config{})
	pressRun(t, m, "a")
	if s := plain(content(m)); !strings.Contains(s, "not available in replay") {
		t.Fatalf("replay:\n%s", s)
	}
}

func TestHostileSnapshots(t *testing.T) {
	evil := "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b]8;;javascript:alert(1)\x07click\x1b]8;;\x07\u202eevil\u200b\r\x08\x07\x9b1;1H&#27;[31m&#x202e;"
	s := loadStore(t, "succeeded.json")
	snaps := map[string]string{}
	for _, a := range s.Artifacts() {
		for _, v := range a.Versions {
			switch a.Kind {
			case model.KindJSON:
				snaps[v.Ref.SnapshotID] = `{"k` + evil + `":"` + evil + `","n":[1,2,{"x":"` + strings.Repeat(evil, 50) + `"}]}`
			case model.KindMarkdown:
				snaps[v.Ref.SnapshotID] = "# T" + evil + "\n\n[link" + evil + "](javascript:alert(1)) [ok](https://example.com/" + evil + ")\n\n" + evil
			default:
				snaps[v.Ref.SnapshotID] = "<b>" + evil + "</b>\n" + evil
			}
		}
	}
	for _, id := range []string{"result", "answer", "scraperapi-rate-limits", "sources", "apify-pricing-screenshot"} {
		m := serviceModel(t, "", 120, 40, &fakeService{snaps: snaps}, Config{Store: loadStore(t, "succeeded.json")})
		openRun(t, m, Selection{Artifact: m.env.store.Artifact(id)})
		for _, k := range []string{"", "L", "d", "tab", "j"} {
			if k != "" {
				pressRun(t, m, k)
			}
			got := content(m)
			checkDetailScreen(t, got, 120, 40)
			// (javascript: may show as text; checkDetailScreen makes sure
			// no hyperlink points there.)
			for _, bad := range []string{"\u202e", "\u200b", "\u009b", "\x07\x1b[2J", "\r", "\x08"} {
				if strings.Contains(linkSeq.ReplaceAllString(got, ""), bad) {
					t.Fatalf("%s after %q: %q reached the screen", id, k, bad)
				}
			}
		}
	}
}

// Cancel.

func TestCancelConfirmed(t *testing.T) {
	fb := &fakeService{}
	full := loadStore(t, "cancelled.json")
	var before, after []*model.Event
	for _, e := range full.Timeline() {
		if e.Type == model.TypeRunCancelRequested || len(after) > 0 {
			after = append(after, e)
		} else {
			before = append(before, e)
		}
	}
	s := model.NewStore()
	s.Merge(&model.Poll{Events: before})
	m := serviceModel(t, "", 120, 40, fb, Config{Store: s})
	pressRun(t, m, "c")
	armConfirm(t, m)
	if _, ok := m.overlay.(*confirmView); !ok {
		t.Fatalf("c opened %T, want the confirmation", m.overlay)
	}
	if screen := plain(content(m)); !strings.Contains(screen, "Cancel run") || !strings.Contains(screen, "yes, cancel the run") {
		t.Fatalf("confirmation:\n%s", screen)
	}
	// Other keys do nothing while it asks.
	pressRun(t, m, "j", "w", "enter")
	if _, ok := m.overlay.(*confirmView); !ok || fb.cancels != 0 {
		t.Fatalf("keys other than y/n: overlay %T, %d cancels", m.overlay, fb.cancels)
	}
	pressRun(t, m, "y")
	if fb.cancels != 1 || m.overlay != nil {
		t.Fatalf("y: %d cancels, overlay %T", fb.cancels, m.overlay)
	}
	if f := footerLine(m); !strings.Contains(f, "cancel accepted") {
		t.Fatalf("the answer is not shown: %q", f)
	}
	if fb.polls != 1 {
		t.Fatalf("after the cancel, poll at once: %d polls", fb.polls)
	}
	// The screen follows the trace: cancel requested, then cancelled.
	i := slices.IndexFunc(after, func(e *model.Event) bool { return e.Type == model.TypeRunFinished })
	m.Update(updateMsg{poller.Update{Poll: &model.Poll{Events: after[:1]}}})
	if l := screenLines(m)[0]; !strings.Contains(l, "cancel requested") {
		t.Fatalf("header after run.cancel_requested: %q", l)
	}
	m.Update(updateMsg{poller.Update{Poll: &model.Poll{Events: after[1 : i+1]}}})
	if l := screenLines(m); !strings.Contains(l[0], "cancelled") || !strings.Contains(l[bannerRow(m)], "Run cancelled") {
		t.Fatalf("after run.finished:\n%s\n%s", l[0], l[bannerRow(m)])
	}
}

func TestCancelDeclined(t *testing.T) {
	for _, k := range []string{"n", "esc"} {
		fb := &fakeService{}
		m := serviceModel(t, "running.json", 120, 40, fb, Config{})
		pressRun(t, m, "c")
		armConfirm(t, m)
		pressRun(t, m, k)
		if fb.cancels != 0 || m.overlay != nil {
			t.Fatalf("%s: %d cancels, overlay %T", k, fb.cancels, m.overlay)
		}
		if !strings.Contains(footerLine(m), "not cancelled") {
			t.Fatalf("%s: footer %q", k, footerLine(m))
		}
	}
	// From the waterfall, the confirmation goes back to it.
	fb := &fakeService{}
	m := serviceModel(t, "running.json", 120, 40, fb, Config{})
	pressRun(t, m, "w", "c")
	armConfirm(t, m)
	pressRun(t, m, "n")
	if _, ok := m.overlay.(*waterfallView); !ok || fb.cancels != 0 {
		t.Fatalf("c n in the waterfall: overlay %T, %d cancels", m.overlay, fb.cancels)
	}
}

func TestCancelAnswers(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want []string
	}{
		{&poller.Error{Kind: poller.KindAlreadyFinished, Op: "cancel", Status: 409, ServerMessage: "Agent already finished"}, []string{"already finished", "409", "Agent already finished"}},
		{&poller.Error{Kind: poller.KindAlreadyCancelled, Op: "cancel", Status: 409, ServerMessage: "Agent is already cancelled"}, []string{"already cancelled", "409"}},
		{&poller.Error{Kind: poller.KindServer, Op: "cancel", Status: 500, ServerMessage: "Failed to cancel agent"}, []string{"500", "Failed to cancel agent"}},
		{context.DeadlineExceeded, []string{"cancel failed", "deadline exceeded"}},
	} {
		fb := &fakeService{cancelErr: tc.err}
		m := serviceModel(t, "succeeded.json", 120, 40, fb, Config{})
		pressRun(t, m, "c")
		armConfirm(t, m)
		pressRun(t, m, "y")
		f := footerLine(m)
		for _, w := range tc.want {
			if !strings.Contains(f, w) {
				t.Errorf("%v: footer %q lacks %q", tc.err, f, w)
			}
		}
		if fb.polls != 0 {
			t.Errorf("%v: a refused cancel should not poll", tc.err)
		}
	}
	m := serviceModel(t, "running.json", 120, 40, nil, Config{})
	pressRun(t, m, "c")
	if m.overlay != nil || !strings.Contains(footerLine(m), "not available in replay") {
		t.Fatalf("c in a replay: overlay %T, footer %q", m.overlay, footerLine(m))
	}
}

// Copy.

func osc52Seq(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
}

func TestCopyEmitsOSC52(t *testing.T) {
	m := serviceModel(t, "succeeded.json", 120, 40, &fakeService{}, Config{})
	// A tool call row: its id.
	m.setFocus(paneTools)
	tc := m.tools.at(0)
	raw := pressRun(t, m, "y")
	if want := osc52Seq(tc.ID); !slices.Equal(raw, []string{want}) {
		t.Fatalf("y on a tool call wrote %q, want %q", raw, want)
	}
	if f := footerLine(m); !strings.Contains(f, "copied tool call id") {
		t.Fatalf("footer %q", f)
	}
	// Inside tmux: plain, then wrapped in tmux's passthrough.
	m.env.getenv = func(k string) string {
		if k == "TMUX" {
			return "/tmp/tmux-0/default,1,0"
		}
		return ""
	}
	raw = pressRun(t, m, "y")
	plainSeq := osc52Seq(tc.ID)
	wrapped := "\x1bPtmux;" + strings.ReplaceAll(plainSeq, "\x1b", "\x1b\x1b") + "\x1b\\"
	if !slices.Equal(raw, []string{plainSeq + wrapped}) {
		t.Fatalf("in tmux: %q", raw)
	}
	// A JSON view: the value under the cursor.
	m.env.getenv = func(string) string { return "" }
	openRun(t, m, Selection{ToolCall: toolByName(t, m.env.store, "mcp__tools__search")})
	pressRun(t, m, "j")
	raw = pressRun(t, m, "y")
	if len(raw) != 1 || !strings.HasPrefix(raw[0], "\x1b]52;c;") {
		t.Fatalf("y in JSON: %q", raw)
	}
	if !strings.Contains(footerLine(m), "parameters $.") {
		t.Fatalf("footer %q should say which value was copied", footerLine(m))
	}
}

func TestCopySanitisesThePayload(t *testing.T) {
	s := model.NewStore()
	if _, err := s.Ingest(hostileBody(t)); err != nil {
		t.Fatal(err)
	}
	m := serviceModel(t, "", 120, 40, &fakeService{}, Config{Store: s})
	var ev *model.Event
	for _, e := range s.Timeline() {
		if strings.Contains(string(e.Raw), "\u202e") {
			ev = e
			break
		}
	}
	if ev == nil {
		t.Fatal("no event with a bidi override in its raw JSON")
	}
	if !m.timeline.selectEvent(ev) {
		t.Fatal("cannot select it")
	}
	raw := pressRun(t, m, "y")
	want := text.Sanitize(string(ev.Raw))
	if !slices.Equal(raw, []string{osc52Seq(want)}) {
		t.Fatalf("y wrote %q, want the sanitised raw event", raw)
	}
	payload, _ := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(raw[0], "\x1b]52;c;"), "\x07"))
	for _, bad := range []string{"\u202e", "\u200b", "\u009b", "\x1b", "\x07", "\r", "\x08"} {
		if strings.Contains(string(payload), bad) {
			t.Fatalf("%q in the copied text", bad)
		}
	}
}

// Open.

func TestOpenLiveView(t *testing.T) {
	var ran [][]string
	for _, tc := range []struct {
		env  map[string]string
		want string
		raw  bool
	}{
		{map[string]string{"DISPLAY": ":0"}, "opened the live-view link", false},
		{map[string]string{"DISPLAY": ":0", "SSH_CONNECTION": "1 2 3 4"}, "copied the live-view link (", true},
	} {
		m := serviceModel(t, "running.json", 120, 40, &fakeService{}, Config{LiveView: true})
		m.env.opener = browser.Opener{GOOS: "linux", Getenv: func(k string) string { return tc.env[k] },
			Run: func(_ context.Context, name string, args ...string) error {
				ran = append(ran, append([]string{name}, args...))
				return nil
			}}
		m.setFocus(paneSessions)
		link := m.sessions.selection().Session.Live.LiveViewURL
		raw := pressRun(t, m, "o")
		if f := footerLine(m); !strings.Contains(f, tc.want) || tc.raw && !strings.Contains(f, "instead of opening it: running over SSH") {
			t.Fatalf("%v: footer %q", tc.env, f)
		}
		if tc.raw != (len(raw) == 1 && raw[0] == osc52Seq(link)) {
			t.Fatalf("%v: wrote %q", tc.env, raw)
		}
	}
	if len(ran) != 1 || !slices.Equal(ran[0], []string{"xdg-open", ranLink(t)}) {
		t.Fatalf("opener runs: %v", ran)
	}
}

func ranLink(t *testing.T) string {
	s := loadStore(t, "running.json")
	return s.Sessions()[0].Live.LiveViewURL
}

func TestOpenRefusesOtherSchemes(t *testing.T) {
	s := loadStore(t, "running.json")
	s.Sessions()[0].Live.LiveViewURL = "javascript:alert(1)"
	m := serviceModel(t, "", 120, 40, &fakeService{}, Config{Store: s, LiveView: true})
	m.env.opener = browser.Opener{GOOS: "linux", Getenv: func(string) string { return ":0" },
		Run: func(context.Context, string, ...string) error { t.Fatal("opened a javascript: link"); return nil }}
	m.setFocus(paneSessions)
	raw := pressRun(t, m, "o")
	if len(raw) != 0 || !strings.Contains(footerLine(m), "not opened") {
		t.Fatalf("wrote %q; footer %q", raw, footerLine(m))
	}
}

// Save.

func TestSaveArtifact(t *testing.T) {
	fb := &fakeService{}
	m := serviceModel(t, "succeeded.json", 120, 40, fb, Config{})
	dir := m.env.saveDir
	a := m.env.store.Artifact("answer")
	want, err := os.ReadFile(filepath.Join("testdata", "snapshots", a.Latest().Ref.SnapshotID))
	if err != nil {
		t.Fatal(err)
	}
	openRun(t, m, Selection{Artifact: a})
	pressRun(t, m, "s")
	p1 := filepath.Join(dir, "answer-v2.md")
	if got, err := os.ReadFile(p1); err != nil || string(got) != string(want) {
		t.Fatalf("saved file: %v", err)
	}
	if f := footerLine(m); !strings.Contains(f, "saved") || !strings.Contains(f, p1) {
		t.Fatalf("footer %q should say where", f)
	}
	// Again: a new name, the first file untouched.
	os.WriteFile(p1, []byte("mine"), 0o644)
	pressRun(t, m, "s")
	p2 := filepath.Join(dir, "answer-v2-1.md")
	if got, _ := os.ReadFile(p1); string(got) != "mine" {
		t.Fatal("s overwrote an existing file")
	}
	if got, err := os.ReadFile(p2); err != nil || string(got) != string(want) {
		t.Fatalf("second save: %v", err)
	}
	if !strings.Contains(footerLine(m), "answer-v2-1.md") {
		t.Fatalf("footer %q", footerLine(m))
	}
	// s on the Artifacts pane: the detail opens and saves once the
	// snapshot is in.
	m2 := serviceModel(t, "succeeded.json", 120, 40, &fakeService{}, Config{})
	m2.setFocus(paneArtifacts)
	pressRun(t, m2, "s")
	if _, err := os.Stat(filepath.Join(m2.env.saveDir, "result-v8.json")); err != nil {
		t.Fatalf("s on the Artifacts pane: %v (footer %q)", err, footerLine(m2))
	}
	// A directory that is not there: the error is said.
	m2.env.saveDir = filepath.Join(m2.env.saveDir, "missing")
	pressRun(t, m2, "s")
	if !strings.Contains(footerLine(m2), "not saved") {
		t.Fatalf("footer %q", footerLine(m2))
	}
}

// Diff.

func TestDiffVersions(t *testing.T) {
	fb := &fakeService{}
	m := serviceModel(t, "succeeded.json", 120, 40, fb, Config{})
	a := m.env.store.Artifact("result")
	openRun(t, m, Selection{Artifact: a})
	pressRun(t, m, "d")
	v7, v8 := a.Versions[6].Ref.SnapshotID, a.Versions[7].Ref.SnapshotID
	if !slices.Contains(fb.fetched, v7) || !slices.Contains(fb.fetched, v8) {
		t.Fatalf("d fetched %v", fb.fetched)
	}
	screen := plain(content(m))
	for _, w := range []string{"v7 → v8", "lines", `+   "recommendation": {`, `-   "summary": null`} {
		if !strings.Contains(screen, w) {
			t.Fatalf("%q not in the diff:\n%s", w, screen)
		}
	}
	golden(t, "diff-result-120x40.txt", screen)
	// d again: the content.
	pressRun(t, m, "d")
	if strings.Contains(plain(content(m)), "v7 → v8") {
		t.Fatal("d did not go back to the content")
	}
	// The first version has nothing before it.
	pressRun(t, m, "tab", "G", "d")
	if !strings.Contains(footerLine(m), "first version") {
		t.Fatalf("footer %q", footerLine(m))
	}
	// A text artifact, from the Artifacts pane.
	m2 := serviceModel(t, "succeeded.json", 120, 40, &fakeService{}, Config{})
	m2.setFocus(paneArtifacts)
	pressRun(t, m2, "j", "j", "d")
	if s := plain(content(m2)); !strings.Contains(s, "v5 → v6") || !strings.Contains(s, "+ ") {
		t.Fatalf("text diff:\n%s", s)
	}
}

// Live view.

func TestLiveViewToggle(t *testing.T) {
	fb := &fakeService{}
	m := serviceModel(t, "running.json", 120, 40, fb, Config{})
	link := m.env.store.Sessions()[0].Live.LiveViewURL
	if strings.Contains(content(m), link) {
		t.Fatal("live-view links shown without --live-view")
	}
	pressRun(t, m, "l")
	if !slices.Equal(fb.liveView, []bool{true}) || !m.env.liveView || fb.polls != 1 {
		t.Fatalf("l: SetLiveView %v, polls %d", fb.liveView, fb.polls)
	}
	if !strings.Contains(plain(content(m)), link[:20]) {
		t.Fatal("live view on: the link is not shown")
	}
	if !strings.Contains(footerLine(m), "live view on") {
		t.Fatalf("footer %q", footerLine(m))
	}
	pressRun(t, m, "l")
	if !slices.Equal(fb.liveView, []bool{true, false}) || m.env.liveView || strings.Contains(plain(content(m)), link[:20]) {
		t.Fatalf("second l: %v", fb.liveView)
	}
	m2 := serviceModel(t, "running.json", 120, 40, nil, Config{})
	pressRun(t, m2, "l")
	if !strings.Contains(footerLine(m2), "not available in replay") {
		t.Fatalf("replay: %q", footerLine(m2))
	}
}

// Waterfall and navigation between views.

func TestWaterfallOpensDetails(t *testing.T) {
	m := serviceModel(t, "succeeded.json", 120, 40, &fakeService{}, Config{})
	pressRun(t, m, "w")
	wf, ok := m.overlay.(*waterfallView)
	if !ok {
		t.Fatalf("w: %T", m.overlay)
	}
	pressRun(t, m, "j")
	target, _ := m.wf.Selected()
	if target.Kind != waterfall.KindTool {
		t.Fatalf("second row is a %v", target.Kind)
	}
	pressRun(t, m, "enter")
	d, ok := m.overlay.(*detailView)
	if !ok || !strings.Contains(plain(content(m)), target.ID) {
		t.Fatalf("enter in the waterfall: %T", m.overlay)
	}
	if d.under() != wf {
		t.Fatal("the detail should go back to the waterfall")
	}
	pressRun(t, m, "esc")
	if m.overlay != wf {
		t.Fatal("esc should go back to the waterfall")
	}
	pressRun(t, m, "+", "+")
	if !strings.Contains(plain(content(m)), "time ×4") {
		t.Fatalf("zoom:\n%s", plain(content(m)))
	}
	pressRun(t, m, "esc")
	if m.overlay != nil {
		t.Fatal("esc should close the waterfall")
	}
	// The waterfall is live: a merge shows up in it.
	r := serviceModel(t, "running.json", 120, 40, &fakeService{}, Config{})
	pressRun(t, r, "w")
	before := plain(content(r))
	full := loadStore(t, "succeeded.json")
	r.Update(updateMsg{poller.Update{Poll: &model.Poll{Events: full.Timeline()}}})
	if after := plain(content(r)); after == before || !strings.Contains(after, "✓ orchestrator") {
		t.Fatalf("the waterfall did not follow the merge:\n%s", after)
	}
}

func TestAgentDetailRowsOpen(t *testing.T) {
	m := serviceModel(t, "succeeded.json", 120, 40, &fakeService{}, Config{})
	a := agentByName(t, m.env.store, "pricing-researcher")
	openRun(t, m, Selection{Agent: a})
	agentView := m.overlay
	pressRun(t, m, "enter")
	if d, ok := m.overlay.(*detailView); !ok || !strings.HasPrefix(d.name, "Tool call") || d.under() != agentView {
		t.Fatalf("enter on a tool call row: %T", m.overlay)
	}
	pressRun(t, m, "esc", "tab", "tab", "tab", "tab", "enter")
	if d, ok := m.overlay.(*detailView); !ok || d.name != "Agent free-tier-checker" {
		t.Fatalf("enter on a subagent row: %T", m.overlay)
	}
	pressRun(t, m, "esc", "shift+tab", "enter")
	if d, ok := m.overlay.(*detailView); !ok || !strings.HasPrefix(d.name, "Event") {
		t.Fatalf("enter on an event row: %T", m.overlay)
	}
	raw := pressRun(t, m, "esc", "y")
	if len(raw) != 1 {
		t.Fatalf("y on an event row: %q", raw)
	}
}

func TestResultFromTheBanner(t *testing.T) {
	m := serviceModel(t, "succeeded.json", 120, 40, &fakeService{}, Config{})
	if b := screenLines(m)[bannerRow(m)]; !strings.Contains(b, "a shows the result") {
		t.Fatalf("banner %q", b)
	}
	pressRun(t, m, "a")
	v, ok := m.overlay.(*artifactView)
	if !ok || v.a.ID != "result" {
		t.Fatalf("a: %T", m.overlay)
	}
	// No artifact called result: the latest json one.
	s := model.NewStore()
	body := strings.ReplaceAll(string(readFixture(t, "testdata/succeeded.json")), `"artifactId":"result"`, `"artifactId":"final"`)
	if _, err := s.Ingest([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if a := resultArtifact(s); a == nil || a.ID != "final" {
		t.Fatalf("result artifact %v", a)
	}
	empty := serviceModel(t, "", 120, 40, &fakeService{}, Config{})
	pressRun(t, empty, "a")
	if !strings.Contains(footerLine(empty), "no result yet") {
		t.Fatalf("footer %q", footerLine(empty))
	}
}

func readFixture(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDetailFollowsTheRun: a tool call opened while it runs gets its
// result when it finishes.
func TestDetailFollowsTheRun(t *testing.T) {
	full := loadStore(t, "succeeded.json")
	tc := toolByName(t, full, "mcp__tools__search")
	var before, rest []*model.Event
	for _, e := range full.Timeline() {
		if e == tc.Finished || len(rest) > 0 {
			rest = append(rest, e)
		} else {
			before = append(before, e)
		}
	}
	s := model.NewStore()
	s.Merge(&model.Poll{Events: before})
	m := serviceModel(t, "", 120, 40, &fakeService{}, Config{Store: s})
	openRun(t, m, Selection{ToolCall: s.ToolCall(tc.ID)})
	pressRun(t, m, "tab")
	if !strings.Contains(plain(content(m)), "still running") {
		t.Fatalf("a running call's result:\n%s", plain(content(m)))
	}
	m.Update(updateMsg{poller.Update{Poll: &model.Poll{Events: rest}}})
	runCmds(t, m, m.sizeOverlay())
	screen := plain(content(m))
	if strings.Contains(screen, "still running") || !strings.Contains(screen, `"web"`) || !strings.Contains(screen, "finished in") {
		t.Fatalf("after it finished:\n%s", screen)
	}
}

func TestHelpShowsDetailKeys(t *testing.T) {
	m := serviceModel(t, "succeeded.json", 120, 60, &fakeService{}, Config{})
	pressRun(t, m, "a", "?")
	screen := plain(content(m))
	for _, w := range []string{"In details", "In an artifact", "In the waterfall", "set-clipboard"} {
		if !strings.Contains(screen, w) {
			t.Errorf("help lacks %q", w)
		}
	}
	pressRun(t, m, "esc")
	if _, ok := m.overlay.(*artifactView); !ok {
		t.Fatalf("esc from the help should go back to the artifact, got %T", m.overlay)
	}
	// At 80 columns every key is still there: the groups wrap.
	n := serviceModel(t, "succeeded.json", 80, 60, &fakeService{}, Config{Start: (&fakeStarts{}).start, RerunOf: testJob})
	pressRun(t, n, "?")
	screen = plain(content(n))
	for _, b := range n.keys.all() {
		if h := b.Help(); !strings.Contains(screen, h.Key+" ") || !strings.Contains(screen, h.Desc) {
			t.Errorf("help at 80 columns lacks %q %q", h.Key, h.Desc)
		}
	}
	checkScreen(t, content(n), 80, 60)
}

func TestDetailsAtEverySizeAndInASCII(t *testing.T) {
	for _, cfg := range []Config{{}, {ASCII: true}, {NoColor: true}} {
		m := serviceModel(t, "running.json", 120, 40, &fakeService{}, cfg)
		sels := []Selection{
			{Event: m.env.store.Timeline()[5]},
			{ToolCall: m.env.store.ToolCalls()[0]},
			{Agent: m.env.store.Root()},
			{Artifact: m.env.store.Artifact("result")},
			{Session: m.env.store.Sessions()[0]},
		}
		for _, sel := range sels {
			for _, size := range [][2]int{{120, 40}, {80, 24}, {60, 16}, {200, 60}, {100, 30}} {
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				m.overlay = nil
				openRun(t, m, sel)
				for _, k := range []string{"", "tab", "d", "w"} {
					if k != "" {
						pressRun(t, m, k)
					}
					s := content(m)
					checkDetailScreen(t, s, size[0], size[1])
					if cfg.ASCII {
						for _, r := range plain(s) {
							if r > 0x7e {
								t.Fatalf("non-ASCII %q in ASCII mode", r)
							}
						}
					}
				}
			}
		}
	}
}

// The run's root agent says what the run was asked to do: the prompt (one
// line, sanitised, cut), model and effort, the first urls and the cap; a
// subagent does not repeat it.
func TestRootAgentDetailShowsTheRequest(t *testing.T) {
	m := newTestModel(t, "succeeded.json", 120, 40, Config{})
	urls := []string{"https://a.example", "https://b.example", "https://c.example", "https://d.example", "https://e.example", "https://f.example", "https://g.example"}
	m.env.store.SetRequest(model.Request{Prompt: "Compare the\x1b[2J pricing\nof five APIs " + strings.Repeat("and more ", 100), Model: "spark-2", Effort: "high", URLs: urls, MaxCredits: 300})
	var root, sub *model.Agent
	for _, a := range m.env.store.Agents() {
		if a.Parent == nil {
			root = a
		} else if sub == nil {
			sub = a
		}
	}
	openRun(t, m, Selection{Agent: root})
	screen := plain(content(m))
	for _, want := range []string{"asked         Compare the pricing of five APIs and more", "model         spark-2 / effort high",
		"https://e.example and 2 more", "cap           300 credits"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the root agent's detail lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "https://f.example") || strings.Count(screen, "and more") > 40 {
		t.Errorf("the request is not cut short:\n%s", screen)
	}
	if got := m.env.store.Request().URLs[5]; got != "https://f.example" {
		t.Errorf("showing the request changed the store's: %q", got)
	}
	m.Update(keyMsg("esc"))
	openRun(t, m, Selection{Agent: sub})
	if screen := plain(content(m)); strings.Contains(screen, "asked ") {
		t.Errorf("a subagent's detail repeats the request:\n%s", screen)
	}
}
