package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/testrun"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	goldenfile "github.com/firewatch/firewatch/ui/internal/golden"
)

func TestMain(m *testing.M) {
	// The goldens must not depend on the machine: no colour or ASCII from
	// the environment, times in UTC.
	os.Unsetenv("NO_COLOR")
	os.Setenv("LANG", "C.UTF-8")
	os.Unsetenv("LC_ALL")
	os.Unsetenv("LC_CTYPE")
	os.Setenv("TERM", "xterm-256color")
	time.Local = time.UTC
	testrun.Waiting(4)
	os.Exit(m.Run())
}

// newTestModel is a UI on a fixture with the clock frozen one second after
// its newest event, sized w x h. done says the watch has ended.
func newTestModel(t testing.TB, fixture string, w, h int, cfg Config) *Model {
	t.Helper()
	s := cfg.Store
	if fixture != "" {
		s = loadStore(t, fixture)
	}
	if s == nil {
		s = model.NewStore()
	}
	cfg.Store = s
	m := New(cfg)
	now := latest(s).Add(time.Second)
	m.SetClock(func() time.Time { return now }, time.UTC)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// healthy gives the model a healthy connection state, as the poller would.
func healthy(m *Model, done bool) {
	now := m.env.clock.wall()
	m.Update(updateMsg{poller.Update{Health: poller.Health{LastGood: now.Add(-time.Second), Polls: 12, Interval: 2 * time.Second, Done: done, Tail: done}}})
}

func content(m *Model) string { return m.View() }

func plain(s string) string { return ansi.Strip(s) }

// golden compares got with testdata/golden/name (rewritten with -update,
// the flag teatest's golden package defines for this test binary).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("golden", name), got)
}

// checkScreen asserts the invariants of every screen: exactly h lines of
// exactly w cells, nothing but SGR escape sequences.
func checkScreen(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidthWc(l); got != w {
			t.Errorf("line %d is %d cells wide, want %d: %q", i+1, got, w, ansi.Strip(l))
		}
	}
	// Every escape sequence is SGR (ESC [ ... m).
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			if s[i] < 0x20 && s[i] != '\n' {
				t.Fatalf("control byte %#x at %d", s[i], i)
			}
			continue
		}
		j := i + 1
		if j >= len(s) || s[j] != '[' {
			t.Fatalf("non-CSI escape at %d: %q", i, s[i:min(len(s), i+10)])
		}
		for j++; j < len(s) && (s[j] < 0x40 || s[j] > 0x7e); j++ {
		}
		if j >= len(s) || s[j] != 'm' {
			t.Fatalf("non-SGR escape at %d: %q", i, s[i:min(len(s), j+1)])
		}
		i = j
	}
}

func TestGoldenScreens(t *testing.T) {
	for _, tc := range []struct {
		name, fixture string
		done          bool
	}{
		{"running", "running.json", false},
		{"succeeded", "succeeded.json", true},
		{"failed", "failed.json", true},
		{"cancelled", "cancelled.json", true},
	} {
		for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
			name := tc.name + "-" + itoa(size.w) + "x" + itoa(size.h) + ".txt"
			t.Run(name, func(t *testing.T) {
				m := newTestModel(t, tc.fixture, size.w, size.h, Config{JobID: "e9d1e131-b05b-4d08-b44a-bde34a7aa278", LiveView: true})
				healthy(m, tc.done)
				got := content(m)
				checkScreen(t, got, size.w, size.h)
				golden(t, name, plain(got))
			})
		}
	}
}

// TestGoldenColour keeps one coloured screen, to catch style regressions.
func TestGoldenColour(t *testing.T) {
	m := newTestModel(t, "failed.json", 120, 40, Config{})
	healthy(m, true)
	got := content(m)
	checkScreen(t, got, 120, 40)
	golden(t, "failed-120x40-colour.ansi", got)
}
