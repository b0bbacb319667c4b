// Package watchprint shows a watched run without the terminal UI: the
// plain printer (one aligned line per event, then a closing block) and
// the JSON one (each event as the service sent it, one line each, the
// rest on stderr). What a printer shows and where is given as a Watch, a
// value the command layer fills in; nothing here reaches back into it.
package watchprint

import (
	"io"
	"time"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// Printer shows a watch without the terminal UI.
type Printer interface {
	// Events shows events new to the store, in the order first seen.
	Events(evs []*model.Event)
	// Health shows a change of the connection's health.
	Health(msg string)
	// Heartbeat says the run is still going after a quiet while.
	Heartbeat(idle time.Duration)
	// Attention shows an item that needs a look, or that cleared.
	Attention(c attention.Change)
	// End shows the closing block; note says why watching stopped when
	// the run has not finished.
	End(note string)
}

// Watch is what a printer shows and where.
type Watch struct {
	// Run is the run watched: its store, its tracker, the team's tokens.
	Run *follow.Run
	// JobID names the run before its store does ("" for a replay whose
	// file does not say).
	JobID          string
	Stdout, Stderr io.Writer
	// Debug, if set, is told of a write to stdout that failed.
	Debug interface {
		Printf(format string, args ...any)
	}
	// Secrets are redacted from every line of the service's JSON.
	Secrets *text.Secrets
	// Width is the terminal's width; 0 when stdout is not a terminal.
	Width int
	// Color allows colour (plain output on a terminal); ASCII draws
	// ASCII symbols only.
	Color, ASCII bool
	// Remote: the output is shown on a hub session's terminal, pty or
	// not, so JSON is escaped for one.
	Remote bool
}

// NoteRefused is End's note when the service refused the request: the
// plain printer then writes no closing block when nothing was shown.
const NoteRefused = "the service refused the request"

func (w Watch) debugf(format string, args ...any) {
	if w.Debug != nil {
		w.Debug.Printf(format, args...)
	}
}
