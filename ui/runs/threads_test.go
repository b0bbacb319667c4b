package runs

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/internal/golden"
)

// threadRows: thread A's three turns (its newest the newest run), a run
// of no thread between them, thread B's two turns, and a lone turn 1.
func threadRows() []poller.RunInfo {
	cr := func(f float64) *float64 { return &f }
	thA, thB, thC := "51b3ab58-9c1e-4f7a-8d2b-0a1b2c3d4e5f", "0c0ffee0-9c1e-4f7a-8d2b-0a1b2c3d4e5f", "deadbeef-9c1e-4f7a-8d2b-0a1b2c3d4e5f"
	row := func(id string, ago int, prompt, th string, turn int, credits float64) poller.RunInfo {
		r := poller.RunInfo{ID: id, Status: "completed", Prompt: prompt, Model: "spark-2", Effort: "low",
			CreatedAt: fixedNow.Add(-time.Duration(ago) * time.Minute), CreditsUsed: cr(credits)}
		if th != "" {
			r.Known = &poller.Known{ThreadID: th, ThreadTurn: turn}
		}
		return r
	}
	return []poller.RunInfo{
		row("a3000000-0000-4000-8000-000000000000", 1, "And their enterprise tiers?", thA, 3, 40),
		row("99000000-0000-4000-8000-000000000000", 2, "Summarise the changelog", "", 0, 12),
		row("b2000000-0000-4000-8000-000000000000", 3, "Only the EU ones", thB, 2, 30),
		row("a2000000-0000-4000-8000-000000000000", 4, "Which of them offer a free plan?", thA, 2, 60),
		row("b1000000-0000-4000-8000-000000000000", 5, "List the scraping APIs", thB, 1, 100),
		row("c1000000-0000-4000-8000-000000000000", 6, "Find the docs", thC, 1, 7),
		row("a1000000-0000-4000-8000-000000000000", 7, "Compare the pricing of the top web-scraping APIs", thA, 1, 320),
	}
}

// TestThreadGrouped: a thread's turns stand together where its newest
// stands, highest turn first, each named by its turn, the first with the
// thread's turns and credits; a lone turn is a plain row.
func TestThreadGrouped(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		m := New(Config{NoColor: true, Now: func() time.Time { return fixedNow }})
		m.SetSize(size.w, size.h)
		m.onPage(pageMsg{list: &poller.RunList{Runs: threadRows()}})
		var order []string
		for _, i := range m.view {
			order = append(order, m.rows[i].ID[:2])
		}
		if got, want := strings.Join(order, " "), "a3 a2 a1 99 b2 b1 c1"; got != want {
			t.Fatalf("%dx%d: order %s, want %s", size.w, size.h, got, want)
		}
		v := golden.NoColour(t, m.View(), size.w, size.h)
		heads := []string{"┌ turn 3 · thread of 3, 420 credits · And their", "┌ turn 2 · thread of 2, 130 credits"}
		if size.w < 100 {
			heads = []string{"┌ turn 3 · Σ 420 credits · And their", "┌ turn 2 · Σ 130 credits"}
		}
		for _, want := range append(heads, "├ turn 2 · Which", "└ turn 1 · Compare") {
			if !strings.Contains(v, want) {
				t.Errorf("%dx%d: no %q in\n%s", size.w, size.h, want, v)
			}
		}
		if strings.Contains(v, "turn 1 · Find") {
			t.Errorf("%dx%d: a lone turn is marked:\n%s", size.w, size.h, v)
		}
		golden.Check(t, fmt.Sprintf("threads-%dx%d.txt", size.w, size.h), v)
		// The selection follows the run through a regroup.
		m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
		m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
		sel := m.Selected().ID
		m.onPage(pageMsg{refresh: true, list: &poller.RunList{Runs: threadRows()}})
		if m.Selected().ID != sel {
			t.Errorf("the selection moved from %s to %s", sel, m.Selected().ID)
		}
	}
}

// BenchmarkKeyDownThreads is BenchmarkKeyDown at 100 000 runs, in
// threads of three turns: grouping is done when the rows change, not
// with a key.
func BenchmarkKeyDownThreads(b *testing.B) {
	m := New(Config{NoColor: true, Now: func() time.Time { return fixedNow }})
	m.SetSize(120, 40)
	rows := make([]poller.RunInfo, 100_000)
	for i := range rows {
		rows[i] = poller.RunInfo{ID: fmt.Sprintf("%08x-0000-4000-8000-000000000000", i), Status: "completed",
			Prompt: "Compare the pricing", CreatedAt: fixedNow.Add(-time.Duration(i) * time.Minute),
			Known: &poller.Known{ThreadID: fmt.Sprintf("%08x-1111-4000-8000-000000000000", i/3), ThreadTurn: 3 - i%3}}
	}
	m.onPage(pageMsg{list: &poller.RunList{Runs: rows}})
	benchKeys(b, m)
}

// TestThreadNoted: runs the archive does not name are grouped from what
// the screen learnt: a watched run's thread (NoteThread) and a status the
// details fetched.
func TestThreadNoted(t *testing.T) {
	m := New(Config{NoColor: true, Now: func() time.Time { return fixedNow }})
	m.SetSize(120, 40)
	rows := threadRows()
	for i := range rows {
		rows[i].Known = nil
	}
	m.onPage(pageMsg{list: &poller.RunList{Runs: rows}})
	th := "51b3ab58-9c1e-4f7a-8d2b-0a1b2c3d4e5f"
	m.NoteThread("a3000000-0000-4000-8000-000000000000", th, 3)
	c := 320.0
	m.Update(statusMsg{id: "a1000000-0000-4000-8000-000000000000", st: &poller.Status{Status: "completed", ThreadID: th, ThreadTurn: 1, CreditsUsed: &c}})
	m.onPage(pageMsg{refresh: true, list: &poller.RunList{Runs: rows}})
	var order []string
	for _, i := range m.view[:3] {
		order = append(order, m.rows[i].ID[:2])
	}
	if got := strings.Join(order, " "); got != "a3 a1 99" {
		t.Fatalf("order %s", got)
	}
	if v := golden.NoColour(t, m.View(), 120, 40); !strings.Contains(v, "┌ turn 3 · thread of 2, 360 credits") || !strings.Contains(v, "└ turn 1 · Compare") {
		t.Errorf("not grouped:\n%s", v)
	}
	// A turn the list gives no credits for: its status's, else the sum
	// is said to be at least what is known.
	rows[0].CreditsUsed, rows[6].CreditsUsed = nil, nil
	m.onPage(pageMsg{refresh: true, list: &poller.RunList{Runs: rows}})
	if v := golden.NoColour(t, m.View(), 120, 40); !strings.Contains(v, "┌ turn 3 · thread of 2, ≥320 credits") {
		t.Errorf("credits of a turn the list does not give:\n%s", v)
	}
	// The list's none, the record's: the sum as firewatch's record says.
	rows = threadRows()
	for i := range rows {
		if rows[i].Known != nil {
			rows[i].Known.CreditsUsed, rows[i].CreditsUsed = rows[i].CreditsUsed, nil
		}
	}
	m.onPage(pageMsg{refresh: true, list: &poller.RunList{Runs: rows}})
	if v := golden.NoColour(t, m.View(), 120, 40); !strings.Contains(v, "┌ turn 3 · thread of 3, 420 credits") {
		t.Errorf("credits from the record:\n%s", v)
	}
	// No turn's credits known: none said, not "at least 0".
	m2 := New(Config{NoColor: true, Now: func() time.Time { return fixedNow }})
	for _, w := range []int{120, 80} {
		m2.SetSize(w, 24)
		rows = threadRows()
		for i := range rows {
			rows[i].CreditsUsed = nil
		}
		m2.onPage(pageMsg{refresh: true, list: &poller.RunList{Runs: rows}})
		v := golden.NoColour(t, m2.View(), w, 24)
		want := "┌ turn 3 · thread of 3 · And their"
		if w < 100 {
			want = "┌ turn 3 · And their"
		}
		if !strings.Contains(v, want) || strings.Contains(v, "≥0") {
			t.Errorf("%d columns: no turn's credits known:\n%s", w, v)
		}
	}
}
