package alert

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// run runs cmd and the commands it batches, and returns what they write
// raw. The gate's channel is closed, so its Wait returns at once.
func run(cmd tea.Cmd) []string {
	if cmd == nil {
		return nil
	}
	var raw []string
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			raw = append(raw, run(c)...)
		}
	case tea.RawMsg:
		raw = append(raw, msg.Msg.(string))
	}
	return raw
}

// TestGate: a sequence is written while the terminal is not focused, or
// has not said; dropped while it is focused.
func TestGate(t *testing.T) {
	ch := make(chan string)
	close(ch)
	g := New(ch)
	if !g.ReportFocus() || g.Focused() {
		t.Fatal("a new gate asks for focus reports and does not know it yet")
	}
	seq := "\x1b]9;run x succeeded\a"
	for _, step := range []struct {
		msg  tea.Msg
		want int // sequences written after msg
	}{
		{nil, 1}, // no report yet
		{tea.FocusMsg{}, 0},
		{tea.BlurMsg{}, 1},
		{tea.FocusMsg{}, 0},
	} {
		if step.msg != nil {
			if _, ok := g.Update(step.msg); !ok {
				t.Fatalf("%T not taken", step.msg)
			}
		}
		cmd, ok := g.Update(Msg(seq))
		if got := run(cmd); !ok || len(got) != step.want || (step.want == 1 && got[0] != seq) {
			t.Errorf("after %T: wrote %q, want %d", step.msg, got, step.want)
		}
	}
	if _, ok := g.Update(tea.KeyPressMsg{}); ok {
		t.Error("a key taken by the gate")
	}
	var none *Gate
	if cmd, ok := none.Update(tea.FocusMsg{}); ok || cmd != nil || none.ReportFocus() || none.Wait() != nil {
		t.Error("a nil gate does something")
	}
}
