package ui

import (
	"strings"
	"testing"
)

// TestNotes: a line sent on Config.Notes (the OTLP export's failure) shows
// in the footer, and the UI keeps listening for the next one.
func TestNotes(t *testing.T) {
	notes := make(chan string, 1)
	m := newTestModel(t, "failed.json", 120, 40, Config{Notes: notes})
	notes <- "OTLP export failed (the watch goes on): connection refused"
	cmd := waitNote(m.notes)
	if cmd == nil {
		t.Fatal("the UI does not listen to Config.Notes")
	}
	next := m.Update(cmd())
	if !strings.Contains(plain(content(m)), "OTLP export failed (the watch goes on)") {
		t.Errorf("the note is not in the footer:\n%s", plain(content(m)))
	}
	checkScreen(t, content(m), 120, 40)
	if next == nil {
		t.Error("the UI stopped listening after the first note")
	}
}
