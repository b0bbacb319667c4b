package interact

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/ui/internal/golden"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

// startConsole starts the simulator (one ready-made scrape) and a console
// on its scrape, on a clock that does not move: durations show as 0ms.
func startConsole(t testing.TB, w, h int, cfg Config) (*Model, *sim.Server) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := sim.Start(ctx, sim.Options{Speed: 1e5, RateLimit: -1, Scrapes: 1, Now: func() time.Time { return time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC) }})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); srv.Close() })
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	id := srv.ScrapeIDs[0]
	cfg.ScrapeID, cfg.Backend = id, ClientBackend(c, id)
	fixed := time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC)
	cfg.Now = func() time.Time { return fixed }
	cfg.NoColor = true
	m := New(cfg)
	m.tick = func() tea.Cmd { return nil }
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m, srv
}

// drive runs cmd and everything it leads to, feeding each message back.
func drive(m *Model, cmd tea.Cmd) (quit bool) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			quit = true
		default:
			next := m.Update(msg)
			queue = append(queue, next)
		}
	}
	return quit
}

func press(m *Model, k tea.KeyPressMsg) bool {
	cmd := m.Update(k)
	return drive(m, cmd)
}

func kp(code rune, mod tea.KeyMod) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code, Mod: mod} }

func typeText(m *Model, s string) {
	for _, r := range s {
		if r == '\n' {
			press(m, kp(tea.KeyEnter, tea.ModAlt))
			continue
		}
		press(m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// sendText types s and presses enter, running the call to its end.
func sendText(m *Model, s string) {
	typeText(m, s)
	press(m, kp(tea.KeyEnter, 0))
}

func screen(t testing.TB, m *Model) string {
	t.Helper()
	return golden.NoColour(t, m.Render(), m.width, m.height)
}

func TestSendHistoryAndModes(t *testing.T) {
	m, _ := startConsole(t, 100, 30, Config{})
	sendText(m, "await page.title()")
	s := screen(t, m)
	for _, want := range []string{"[1] node> await page.title()", "  Example | Pricing", "✓ exit 0 · 0ms", "session open · 1 call"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
	if m.input.Value() != "" {
		t.Errorf("input not cleared: %q", m.input.Value())
	}
	// The language switch, then a second call.
	press(m, kp('t', tea.ModCtrl))
	if !strings.Contains(screen(t, m), "python> ") {
		t.Fatal("ctrl+t did not switch to python")
	}
	sendText(m, "print(await page.title())")
	// Prompt mode.
	press(m, kp(tea.KeyTab, 0))
	if !strings.Contains(screen(t, m), "prompt> ") {
		t.Fatal("tab did not switch to prompt mode")
	}
	sendText(m, "what are the plans?")
	s = screen(t, m)
	if !strings.Contains(s, "[3] prompt> what are the plans?") || !strings.Contains(s, "The page lists 4 plans") || !strings.Contains(s, "✓ done") {
		t.Fatalf("prompt exchange:\n%s", s)
	}
	// History: ↑ recalls the newest, then older ones with their mode and
	// language; ↓ past the newest brings back the draft.
	typeText(m, "draft")
	press(m, kp(tea.KeyUp, 0))
	if m.input.Value() != "what are the plans?" || !m.promptMode {
		t.Fatalf("↑: %q prompt=%v", m.input.Value(), m.promptMode)
	}
	press(m, kp(tea.KeyUp, 0))
	if m.input.Value() != "print(await page.title())" || m.promptMode || m.language != "python" {
		t.Fatalf("↑↑: %q %v %s", m.input.Value(), m.promptMode, m.language)
	}
	press(m, kp(tea.KeyUp, 0))
	press(m, kp(tea.KeyUp, 0)) // stays at the oldest
	if m.input.Value() != "await page.title()" || m.language != "node" {
		t.Fatalf("oldest: %q %s", m.input.Value(), m.language)
	}
	for range 3 {
		press(m, kp(tea.KeyDown, 0))
	}
	if m.input.Value() != "draft" {
		t.Fatalf("draft not back: %q", m.input.Value())
	}
	// Search with ctrl+r: the newest match, then older ones; enter uses it.
	press(m, kp(tea.KeyBackspace, tea.ModAlt)) // clear the word
	press(m, kp('r', tea.ModCtrl))
	typeText(m, "title")
	if !strings.Contains(screen(t, m), "search: title → print(await page.title())") {
		t.Fatalf("search:\n%s", screen(t, m))
	}
	press(m, kp('r', tea.ModCtrl))
	press(m, kp(tea.KeyEnter, 0))
	if m.input.Value() != "await page.title()" || m.overlay != overlayNone {
		t.Fatalf("search result %q", m.input.Value())
	}
	// "/" on an empty input searches too; esc cancels.
	press(m, kp('u', tea.ModCtrl))
	press(m, tea.KeyPressMsg{Code: '/', Text: "/"})
	if m.overlay != overlaySearch {
		t.Fatal("/ did not open the search")
	}
	press(m, kp(tea.KeyEscape, 0))
	// Multi-line input: alt+enter adds a line, enter sends it all.
	sendText(m, "console.log('a')\nconsole.log('b')")
	if s := screen(t, m); !strings.Contains(s, "  a\n  b\n") || !strings.Contains(s, "[4] node> console.log('a')") {
		t.Fatalf("multi-line:\n%s", s)
	}
}

func TestOneCallAtATime(t *testing.T) {
	m, _ := startConsole(t, 100, 30, Config{})
	typeText(m, "await page.title()")
	call := m.Update(kp(tea.KeyEnter, 0)) // the call is not run yet
	typeText(m, "page.url()")
	press(m, kp(tea.KeyEnter, 0))
	if !strings.Contains(m.status, "call 1 is still running") || m.input.Value() != "page.url()" || len(m.ex) != 1 {
		t.Fatalf("second send: status %q input %q, %d exchanges", m.status, m.input.Value(), len(m.ex))
	}
	if s := screen(t, m); !strings.Contains(s, "running 0ms") {
		t.Fatalf("no spinner:\n%s", s)
	}
	drive(m, call)
	press(m, kp(tea.KeyEnter, 0))
	if len(m.ex) != 2 || !strings.Contains(screen(t, m), "https://example.com/pricing") {
		t.Fatalf("after the first ended: %d exchanges\n%s", len(m.ex), screen(t, m))
	}
}

func TestExceptionKilledAndServiceError(t *testing.T) {
	m, _ := startConsole(t, 100, 40, Config{Timeout: 3})
	sendText(m, "throw new Error('boom')")
	sendText(m, "while (true) {}")
	s := screen(t, m)
	for _, want := range []string{"! Error: boom", "✗ exception: Error: boom · exit 1", "✗ killed after 3s (the timeout)"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
	// A refusal of the service: its message and what to do.
	m2, _ := startConsole(t, 100, 30, Config{})
	m2.cfg.Backend = ClientBackend(m.cfg.Backend.(*clientBackend).c, sim.FaultScrapeID(429))
	sendText(m2, "1")
	if s := screen(t, m2); !strings.Contains(s, "You have reached the maximum number of active") || !strings.Contains(s, "--stop") {
		t.Fatalf("429:\n%s", s)
	}
}

func TestLargeOutput(t *testing.T) {
	dir := t.TempDir()
	m, _ := startConsole(t, 80, 24, Config{SaveDir: dir})
	sendText(m, "console.log('x'.repeat(10_000_000))")
	sendText(m, "console.log('line\\n'.repeat(200000))")
	s := screen(t, m)
	// The second output fills the screen; the first's note is above it.
	if first := strings.Join(m.exLines(m.ex[0]), "\n"); !strings.Contains(first, "10 MB of stdout") || !strings.Contains(s, "earlier lines of stdout") {
		t.Fatalf("no notes:\n%s", s)
	}
	if e := m.ex[1]; e.stdout.lines != 200001 || len(e.stdout.tail) != keepTail {
		t.Fatalf("second: %d lines, tail %d", e.stdout.lines, len(e.stdout.tail))
	}
	// The viewer opens the whole of the first (built in a command).
	press(m, kp('o', tea.ModCtrl))
	press(m, tea.KeyPressMsg{Code: '[', Text: "["})
	if m.overlay != overlayViewer || m.viewerEx != 0 {
		t.Fatalf("viewer on %d, overlay %v", m.viewerEx, m.overlay)
	}
	v := screen(t, m)
	if !strings.Contains(v, "output of call 1 · 1 line, 10 MB") || !strings.Contains(v, strings.Repeat("x", 80)) {
		t.Fatalf("viewer:\n%s", v)
	}
	press(m, tea.KeyPressMsg{Code: 's', Text: "s"})
	files, _ := filepath.Glob(filepath.Join(dir, "interact-*-1.txt"))
	if len(files) != 1 {
		t.Fatalf("saved %v; status %q", files, m.status)
	}
	if fi, _ := os.Stat(files[0]); fi.Size() != 10_000_001 {
		t.Fatalf("saved %d bytes", fi.Size())
	}
	press(m, kp(tea.KeyEscape, 0))
	if m.overlay != overlayNone {
		t.Fatal("esc did not close the viewer")
	}
}

func TestLeave(t *testing.T) {
	for _, tt := range []struct {
		name          string
		key           rune
		stopped, kept bool
		sessionsAfter int
		quit          bool
	}{
		{"stop", 's', true, false, 0, true},
		{"keep", 'k', false, true, 1, true},
		{"cancel", 'c', false, false, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, srv := startConsole(t, 120, 40, Config{})
			sendText(m, "await page.title()")
			press(m, kp('c', tea.ModCtrl))
			s := screen(t, m)
			if !strings.Contains(s, "Leave the console?") || !strings.Contains(s, "billed, until the service times it out") {
				t.Fatalf("no question:\n%s", s)
			}
			quit := press(m, tea.KeyPressMsg{Code: tt.key, Text: string(tt.key)})
			r := m.Result()
			if quit != tt.quit || r.Stopped != tt.stopped || r.Kept != tt.kept || srv.ActiveBrowserSessions() != tt.sessionsAfter {
				t.Fatalf("quit %v result %+v, sessions %d", quit, r, srv.ActiveBrowserSessions())
			}
			if tt.stopped && !strings.Contains(r.StopNote, "session stopped") {
				t.Fatalf("note %q", r.StopNote)
			}
		})
	}
}

func TestLinks(t *testing.T) {
	m, _ := startConsole(t, 120, 40, Config{})
	press(m, kp('l', tea.ModCtrl))
	if m.overlay != overlayNone || !strings.Contains(m.status, "no session links yet") {
		t.Fatalf("links before a session: %v %q", m.overlay, m.status)
	}
	sendText(m, "1")
	press(m, kp('l', tea.ModCtrl))
	s := screen(t, m)
	for _, want := range []string{"read-only live view", "interactive live view", "controls the browser", "CDP WebSocket URL", "ws://"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
	press(m, tea.KeyPressMsg{Code: 'y', Text: "y"})
	if !strings.Contains(m.status, "copied read-only live view") {
		t.Fatalf("copy: %q", m.status)
	}
	press(m, tea.KeyPressMsg{Code: 'j', Text: "j"})
	press(m, tea.KeyPressMsg{Code: 'j', Text: "j"})
	press(m, tea.KeyPressMsg{Code: 'o', Text: "o"})
	if !strings.Contains(m.status, "DevTools client") {
		t.Fatalf("open CDP: %q", m.status)
	}
}

func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{120, 40}, {80, 24}} {
		name := fmt.Sprintf("%dx%d", sz[0], sz[1])
		t.Run(name, func(t *testing.T) {
			m, _ := startConsole(t, sz[0], sz[1], Config{Timeout: 5})
			golden.Check(t, "welcome-"+name+".golden", screen(t, m))
			sendText(m, "await page.title()")
			sendText(m, "console.log('x'.repeat(10_000_000))")
			sendText(m, "throw new Error('boom')")
			sendText(m, "while (true) {}")
			press(m, kp(tea.KeyTab, 0))
			sendText(m, "click the pricing tab")
			typeText(m, "list the plans\nand their prices")
			golden.Check(t, "console-"+name+".golden", screen(t, m))
			press(m, kp('c', tea.ModCtrl))
			golden.Check(t, "leave-"+name+".golden", screen(t, m))
		})
	}
}

// What the service sends is sanitised before it reaches the screen:
// escape sequences (an OSC 52 that would write the clipboard, colours),
// BEL and bidi overrides are gone; the text stays.
func TestHostileOutput(t *testing.T) {
	m, _ := startConsole(t, 100, 30, Config{})
	sendText(m, `console.log('\x1b]52;c;aGk=\x07\x1b[31mred\u202e'); console.error('\x1b[2Jerr')`)
	s := screen(t, m) // golden.View fails on anything unsafe
	if !strings.Contains(s, "  red\n") || !strings.Contains(s, "! err") {
		t.Fatalf("text lost:\n%s", s)
	}
	press(m, kp('o', tea.ModCtrl))
	v := m.Render()
	golden.Safe(t, v)
	if strings.Contains(m.ex[0].whole(), "\x1b") {
		t.Fatal("the whole output keeps an escape")
	}
}

// A page snapshot longer than 12 lines is shown whole when the scrollback
// has room for it, not cut to 12 lines with empty rows above it.
func TestOutputUsesTheRoom(t *testing.T) {
	m, _ := startConsole(t, 100, 40, Config{Language: "bash"})
	sendText(m, "snapshot")
	out := m.ex[len(m.ex)-1].stdout
	if out.lines <= 12 {
		t.Fatalf("the simulator's snapshot is %d lines: too short to tell", out.lines)
	}
	s := screen(t, m)
	if strings.Contains(s, "earlier lines") {
		t.Fatalf("a %d-line snapshot is cut on a 40-row screen:\n%s", out.lines, s)
	}
	for _, l := range out.tail {
		if !strings.Contains(s, strings.TrimSpace(l)) {
			t.Fatalf("line %q is missing:\n%s", l, s)
		}
	}
}

// TestStaleRunningNote: the word that call 1 is still running goes when
// the call ends, even when it failed.
func TestStaleRunningNote(t *testing.T) {
	m, _ := startConsole(t, 100, 30, Config{})
	m.cfg.Backend = ClientBackend(m.cfg.Backend.(*clientBackend).c, sim.FaultScrapeID(429))
	typeText(m, "1")
	call := m.Update(kp(tea.KeyEnter, 0))
	typeText(m, "2")
	press(m, kp(tea.KeyEnter, 0))
	if !strings.Contains(m.status, "call 1 is still running") {
		t.Fatalf("status %q", m.status)
	}
	drive(m, call)
	if s := screen(t, m); strings.Contains(s, "is still running") {
		t.Fatalf("after the failed call:\n%s", s)
	}
}

// A line of megabytes is kept for the scrollback as its first 2 KiB,
// marked cut, at a rune's start: each frame costs that, not the line.
func TestLongLineKeptShort(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 1<<20) // 2 MiB, two bytes a rune
	o := newText("first\n" + long + "x")
	if len(o.tail) != 2 || o.tail[0] != "first" {
		t.Fatalf("tail %d lines", len(o.tail))
	}
	l := o.tail[1]
	if len(l) > maxTailLine+len("…") || !strings.HasSuffix(l, "…") || !utf8.ValidString(l) {
		t.Fatalf("kept %d bytes, valid %v, ends %q", len(l), utf8.ValidString(l), l[max(len(l)-8, 0):])
	}
	if len(o.whole) != len("first\n"+long+"x") {
		t.Fatalf("the whole lost bytes: %d", len(o.whole))
	}
}
