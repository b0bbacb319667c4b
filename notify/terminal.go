package notify

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/describe"
)

// Form is how the terminal is told.
type Form string

const (
	// FormOSC9 is ESC ] 9 ; text BEL: iTerm2, kitty, WezTerm, Ghostty,
	// Windows Terminal, Warp...
	FormOSC9 Form = "osc9"
	// FormOSC777 is ESC ] 777 ; notify ; title ; body BEL: foot,
	// rxvt-unicode (its notify extension), VTE terminals that carry the
	// patch (GNOME Terminal on Fedora, Ptyxis)...
	FormOSC777 Form = "osc777"
	// FormBell is BEL alone: the fallback when nothing better can reach
	// the terminal (tmux without passthrough); tmux marks the window and
	// many terminals flash or raise an urgency hint.
	FormBell Form = "bell"
)

// EnvTerminal chooses the form instead of the terminal's name
// (osc9, osc777 or bell).
const EnvTerminal = "FIREWATCH_NOTIFY_TERMINAL"

// tmuxWait bounds the question to tmux before each notification.
const tmuxWait = time.Second

// Terminal is the terminal sink: each moment's text as a desktop
// notification (an OSC 9 or OSC 777 sequence, a bell as the fallback).
// Where the bytes go is set by SetOutput: stderr when it is a terminal,
// the full screen's program while one is up (it writes them only while
// the terminal is not focused), nothing otherwise.
type Terminal struct {
	form Form // the form chosen by EnvTerminal or the terminal's name; "" in tmux: its client's
	env  func(string) string
	tmux func(ctx context.Context) (tmuxState, error) // nil outside tmux

	mu  sync.Mutex
	out func(seq string)
}

// NewTerminal chooses the form from the environment (env is os.Getenv):
// EnvTerminal when set, else the terminal's name (foot, rxvt and VTE
// terminals take OSC 777, the others OSC 9); inside tmux ($TMUX), each
// notification asks tmux whether its passthrough reaches the terminal
// (allow-passthrough all, or on while the pane's window is shown) and the
// client's terminal name, and rings the bell when it does not.
func NewTerminal(env func(string) string) (*Terminal, error) {
	t := &Terminal{env: env}
	switch v := strings.ToLower(strings.TrimSpace(env(EnvTerminal))); v {
	case "":
		t.form = formOf(env("TERM"), env("TERM_PROGRAM"), env("VTE_VERSION") != "")
	case string(FormOSC9), string(FormOSC777), string(FormBell):
		t.form = Form(v)
	default:
		return nil, fmt.Errorf("$%s=%q: it must be osc9, osc777 or bell", EnvTerminal, v)
	}
	if env("TMUX") != "" {
		if env(EnvTerminal) == "" {
			t.form = "" // the client's terminal decides
		}
		pane := env("TMUX_PANE")
		t.tmux = func(ctx context.Context) (tmuxState, error) { return askTmux(ctx, pane) }
	}
	return t, nil
}

// formOf is the form a terminal shows, from its TERM, TERM_PROGRAM and
// whether it is a VTE one.
func formOf(term, program string, vte bool) Form {
	term, program = strings.ToLower(term), strings.ToLower(program)
	switch {
	case strings.HasPrefix(term, "foot"), strings.HasPrefix(term, "rxvt"):
		return FormOSC777
	case program == "iterm.app", program == "wezterm", program == "ghostty", program == "vscode", program == "warpterminal":
		return FormOSC9
	case strings.Contains(term, "kitty"), strings.Contains(term, "ghostty"), strings.Contains(term, "wezterm"):
		return FormOSC9
	case vte:
		return FormOSC777
	}
	return FormOSC9
}

// SetOutput sets where the sequences go; nil: nowhere (no terminal).
// Safe to call while a moment is delivered.
func (t *Terminal) SetOutput(out func(seq string)) {
	t.mu.Lock()
	t.out = out
	t.mu.Unlock()
}

func (t *Terminal) output() func(string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out
}

func (t *Terminal) name() string { return "terminal notification" }

func (t *Terminal) deliver(ctx context.Context, m *Moment) error {
	out := t.output()
	if out == nil {
		return nil
	}
	form, wrap := t.form, false
	if t.tmux != nil {
		qctx, cancel := context.WithTimeout(ctx, tmuxWait)
		st, err := t.tmux(qctx)
		cancel()
		if form == "" {
			form = formOf(st.client, "", t.env("VTE_VERSION") != "")
		}
		switch {
		case err != nil || !st.passes():
			form = FormBell // tmux would drop the sequence: its bell is seen
		case form != FormBell:
			wrap = true
		}
	}
	out(Sequence(form, m.Text, wrap))
	return nil
}

// Title is the title of an OSC 777 notification.
const Title = "firewatch"

// maxOSC bounds the text in a sequence (cells).
const maxOSC = 240

// Sequence is the bytes that show text as a desktop notification in form,
// wrapped in tmux's passthrough (DCS tmux; ... ST, every ESC doubled) when
// wrap is set. The text is made safe whatever it holds: no control
// character (C0, DEL, C1 as bytes or as runes), so nothing in it can end
// the sequence early or start another; no ';' in OSC 777's body, which
// separates its fields.
func Sequence(form Form, text string, wrap bool) string {
	var seq string
	switch form {
	case FormBell:
		return "\a"
	case FormOSC777:
		seq = ansi.URxvtExt("notify", Title, strings.ReplaceAll(oscText(text), ";", ","))
	default:
		seq = ansi.Notify(oscText(text))
	}
	if wrap {
		seq = ansi.TmuxPassthrough(seq)
	}
	return seq
}

// oscText is s sanitised to one line of at most maxOSC cells (escape
// sequences removed whole, control, bidi and zero-width characters gone),
// then with any control character left dropped all the same. It never
// starts with a digit: OSC 9 ; N ; ... is a command to ConEmu and Windows
// Terminal (progress, the working directory), not a notification.
func oscText(s string) string {
	s = describe.OneLine(s, maxOSC)
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return -1
		}
		return r
	}, s)
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "firewatch: " + s
	}
	return s
}

// tmuxState is what tmux says of the pane firewatch runs in.
type tmuxState struct {
	passthrough string // allow-passthrough: 0/off, 1/on, all; "" before tmux 3.3 (always allowed)
	shown       bool   // its window is the current one of an attached session
	client      string // the client's terminal name
}

// passes reports whether a passthrough sequence reaches the terminal.
func (s tmuxState) passes() bool {
	switch s.passthrough {
	case "all":
		return true
	case "1", "on", "":
		return s.shown
	}
	return false
}

// askTmux asks tmux about pane.
func askTmux(ctx context.Context, pane string) (tmuxState, error) {
	args := []string{"display-message", "-p"}
	if pane != "" {
		args = append(args, "-t", pane)
	}
	args = append(args, "#{allow-passthrough}\t#{window_active}\t#{session_attached}\t#{client_termname}")
	b, err := exec.CommandContext(ctx, "tmux", args...).Output()
	if err != nil {
		return tmuxState{}, err
	}
	f := strings.Split(strings.TrimRight(string(b), "\n"), "\t")
	if len(f) < 4 {
		return tmuxState{}, fmt.Errorf("tmux answered %q", string(b))
	}
	return tmuxState{passthrough: f[0], shown: f[1] == "1" && f[2] != "0" && f[2] != "", client: f[3]}, nil
}
