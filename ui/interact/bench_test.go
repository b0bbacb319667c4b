package interact

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/poller"
)

// BenchmarkKeystroke is one key typed into the input and the frame drawn
// after it, in an empty console and in one with 1 000 exchanges and a
// 10 MB output in its scrollback. The two must cost about the same: the
// scrollback draws only its visible window, and each exchange's lines are
// built once.
//
//	go test ./ui/interact -run '^$' -bench Keystroke -count 5
func BenchmarkKeystroke(b *testing.B) {
	for _, full := range []bool{false, true} {
		name := "empty"
		if full {
			name = "1000-exchanges-10MB"
		}
		b.Run(name, func(b *testing.B) {
			m := New(Config{ScrapeID: "7c05874d-c907-44fb-81f8-c8c06c995f65", NoColor: true, Now: func() time.Time { return time.Unix(0, 0) }})
			m.tick = func() tea.Cmd { return nil }
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			if full {
				fill(m, 1000)
			}
			m.Render()
			keys := []tea.KeyPressMsg{{Code: 'a', Text: "a"}, {Code: tea.KeyBackspace}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Update(keys[i%2])
				_ = m.Render()
			}
		})
	}
}

// fill puts n finished exchanges in the scrollback, the 10 MB one next to
// last (on screen), as finished calls leave them.
func fill(m *Model, n int) {
	zero := 0
	for i := 0; i < n; i++ {
		res := &poller.InteractResult{Stdout: fmt.Sprintf("result %d\nsecond line\n", i), ExitCode: &zero}
		code := fmt.Sprintf("await page.evaluate(() => %d)", i)
		if i == n-2 { // on screen
			res.Stdout = strings.Repeat("x", 10<<20) + "\n"
			code = "console.log('x'.repeat(10 << 20))"
		}
		e := &exchange{n: i + 1, language: "node", timeout: 30, sent: code, running: true}
		m.ex = append(m.ex, e)
		e.finish(prepare(e.n, res, nil, 50*time.Millisecond))
		m.history = append(m.history, histEntry{language: "node", text: code})
	}
	m.histIdx = len(m.history)
}

// A keystroke renders no exchange again: with 1 000 in the scrollback, the
// first frame renders the few on screen, the next ones none. (Scrolling
// measures every exchange once, then they are cached.)
func TestKeystrokeRendersOnlyTheWindow(t *testing.T) {
	m := New(Config{ScrapeID: "7c05874d-c907-44fb-81f8-c8c06c995f65", NoColor: true, Now: func() time.Time { return time.Unix(0, 0) }})
	m.tick = func() tea.Cmd { return nil }
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	fill(m, 1000)
	m.Render()
	if m.rendered > 12 {
		t.Fatalf("first frame rendered %d exchanges", m.rendered)
	}
	before := m.rendered
	for _, k := range []tea.KeyPressMsg{{Code: 'a', Text: "a"}, {Code: tea.KeyBackspace}, {Code: 'b', Text: "b"}} {
		m.Update(k)
		m.Render()
	}
	if m.rendered != before {
		t.Fatalf("keystrokes rendered %d exchanges again", m.rendered-before)
	}
}
