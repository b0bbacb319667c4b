package rerunform

import (
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestForm: the fields start as the original, a changed one is named, a
// bad cap or model is refused with why, control characters are not typed.
func TestForm(t *testing.T) {
	f := New("r1", Original{Prompt: "p", Model: "spark-2", Effort: "high", URLs: []string{"https://a.example"}, MaxCredits: 300})
	req, changed, bad := f.Request()
	if bad != "" || len(changed) != 0 || req.MaxCredits != 300 || req.Effort != "high" {
		t.Fatalf("unchanged: %+v %v %q", req, changed, bad)
	}
	f.At = 3
	for range 4 {
		f.Key(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	for _, r := range "low\x1b" {
		f.Key(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if req, changed, _ = f.Request(); req.Effort != "low" || !slices.Equal(changed, []string{"effort"}) {
		t.Fatalf("effort: %+v %v", req, changed)
	}
	f.Fields[4].Value = "lots"
	if _, _, bad = f.Request(); bad == "" {
		t.Error("a cap that is no number was taken")
	}
	f.Fields[4].Value, f.Fields[2].Value = "300", "gpt-9"
	if _, _, bad = f.Request(); bad == "" {
		t.Error("an unknown model was taken")
	}
	if f.Key(tea.KeyPressMsg{Code: tea.KeyEnter}) != Submit || f.Key(tea.KeyPressMsg{Code: tea.KeyEscape}) != Drop {
		t.Error("enter and esc")
	}
}
