package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestBackToList: opened from the runs list, esc leaves with Result.Back
// (after clearing a filter first, and not from an overlay), and the footer
// names it; otherwise esc does not leave.
func TestBackToList(t *testing.T) {
	m := newTestModel(t, "running.json", 120, 40, Config{})
	if cmd := press(m, "esc"); cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("esc quit a watch that no list opened")
		}
	}
	m = newTestModel(t, "running.json", 120, 40, Config{BackToList: true})
	if !strings.Contains(ansi.Strip(m.View()), "esc runs") {
		t.Fatal("the footer does not name esc")
	}
	press(m, "?")
	if cmd := press(m, "esc"); cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("esc on the help left the run instead of closing the help")
		}
	}
	cmd := press(m, "esc")
	if cmd == nil {
		t.Fatal("esc did not leave")
	}
	if _, quit := cmd().(tea.QuitMsg); !quit || !m.Result().Back || m.Result().Quit {
		t.Fatalf("result %+v, want Back", m.Result())
	}
}
