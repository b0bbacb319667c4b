package notify

import (
	"context"
	"strings"
	"testing"
)

// hostile is what a service could put in an agent's name or a message to
// end the notification early and send a sequence of its own.
const hostile = "x\a\x1b]9;pwned\x1b\\\u009c\u009d0;title\u0007\x1b[2J\x9c\x07y;z\r\nw\u202e"

// TestSequence: the text goes into exactly one OSC sequence and cannot end
// it early or start another: no control character survives, as a byte or
// as a rune (C1 ST and OSC included); OSC 777 keeps its fields; tmux gets
// the sequence wrapped with every ESC doubled.
func TestSequence(t *testing.T) {
	for _, tc := range []struct {
		form       Form
		wrap       bool
		prefix     string
		suffix     string
		escs, bels int
	}{
		{FormOSC9, false, "\x1b]9;run 5eb381f7: x", "\a", 1, 1},
		{FormOSC777, false, "\x1b]777;notify;firewatch;run 5eb381f7: x", "\a", 1, 1},
		{FormOSC9, true, "\x1bPtmux;\x1b\x1b]9;run 5eb381f7: x", "\a\x1b\\", 4, 1},
		{FormBell, true, "\a", "\a", 0, 1},
	} {
		got := Sequence(tc.form, "run 5eb381f7: "+hostile, tc.wrap)
		if !strings.HasPrefix(got, tc.prefix) || !strings.HasSuffix(got, tc.suffix) {
			t.Errorf("%s wrap=%v: %q", tc.form, tc.wrap, got)
		}
		if n := strings.Count(got, "\x1b"); n != tc.escs {
			t.Errorf("%s wrap=%v: %d ESC in %q, want %d", tc.form, tc.wrap, n, got, tc.escs)
		}
		if n := strings.Count(got, "\a"); n != tc.bels {
			t.Errorf("%s wrap=%v: %d BEL in %q", tc.form, tc.wrap, n, got)
		}
		for _, r := range got {
			if r >= 0x80 && r <= 0x9f || r == '\r' || r == '\n' || r == '\u202e' {
				t.Errorf("%s: control %U in %q", tc.form, r, got)
			}
		}
		if tc.form == FormOSC777 && strings.Count(got, ";") != 3 {
			t.Errorf("OSC 777 with %d ';': %q", strings.Count(got, ";"), got)
		}
	}
	// OSC 9 ; 4 ; ... is a progress bar to Windows Terminal, not a
	// notification: a text never starts with a digit.
	if got := Sequence(FormOSC9, "4;3;50", false); got != "\x1b]9;firewatch: 4;3;50\a" {
		t.Errorf("%q", got)
	}
}

// TestFormOf: the terminals that show OSC 777 get it, the others OSC 9;
// FIREWATCH_NOTIFY_TERMINAL chooses, and a bad value is refused.
func TestFormOf(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want Form
	}{
		{map[string]string{"TERM": "foot"}, FormOSC777},
		{map[string]string{"TERM": "rxvt-unicode-256color"}, FormOSC777},
		{map[string]string{"TERM": "xterm-256color", "VTE_VERSION": "7600"}, FormOSC777},
		{map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, FormOSC9},
		{map[string]string{"TERM": "xterm-kitty"}, FormOSC9},
		{map[string]string{"TERM": "xterm-ghostty", "VTE_VERSION": "7600"}, FormOSC9},
		{map[string]string{"TERM": "xterm-256color"}, FormOSC9},
		{map[string]string{"TERM": "foot", EnvTerminal: "bell"}, FormBell},
		{map[string]string{EnvTerminal: "OSC777"}, FormOSC777},
	} {
		tm, err := NewTerminal(func(k string) string { return tc.env[k] })
		if err != nil || tm.form != tc.want {
			t.Errorf("%v: %q, %v; want %q", tc.env, tm.form, err, tc.want)
		}
	}
	if _, err := NewTerminal(func(k string) string { return map[string]string{EnvTerminal: "loud"}[k] }); err == nil || !strings.Contains(err.Error(), "osc9, osc777 or bell") {
		t.Errorf("a bad %s: %v", EnvTerminal, err)
	}
}

// TestTmux: inside tmux, a sequence goes through the passthrough when tmux
// lets it reach the terminal (all; on while the window is shown), in the
// client terminal's form; otherwise the bell rings, which tmux shows.
func TestTmux(t *testing.T) {
	for _, tc := range []struct {
		st   tmuxState
		want string
	}{
		{tmuxState{passthrough: "all", client: "foot"}, "\x1bPtmux;\x1b\x1b]777;notify;firewatch;run x done\a\x1b\\"},
		{tmuxState{passthrough: "1", shown: true, client: "xterm-kitty"}, "\x1bPtmux;\x1b\x1b]9;run x done\a\x1b\\"},
		{tmuxState{passthrough: "on", shown: false}, "\a"},
		{tmuxState{passthrough: "0", shown: true}, "\a"},
		{tmuxState{passthrough: "off", shown: true}, "\a"},
	} {
		tm, err := NewTerminal(func(k string) string {
			return map[string]string{"TMUX": "/tmp/tmux-0/default,1,0", "TERM": "tmux-256color"}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		st := tc.st
		tm.tmux = func(context.Context) (tmuxState, error) { return st, nil }
		var got string
		tm.SetOutput(func(s string) { got += s })
		if err := tm.deliver(context.Background(), &Moment{Text: "run x done"}); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.st, got, tc.want)
		}
	}
}
