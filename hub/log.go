package hub

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/firewatch/firewatch/text"
)

// logger writes the hub's log: one line per login, logout, refusal and
// action, each with its time. Whatever a client sent (its user name, its
// command, its TERM) is sanitised before it is written, and every line is
// redacted with the secrets: the log may be a terminal, and never shows
// the key.
type logger struct {
	mu      sync.Mutex
	w       io.Writer
	secrets *text.Secrets
	now     func() time.Time
}

func (l *logger) printf(format string, args ...any) {
	line := oneLine(l.secrets, fmt.Sprintf(format, args...))
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%s firewatch hub: %s\n", l.now().UTC().Format(time.RFC3339), line)
}

// oneLine is s sanitised (no escape sequences, controls, bidi), redacted,
// on one line.
func oneLine(secrets *text.Secrets, s string) string {
	s = secrets.Sanitize(s)
	return strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
}

// maxShown bounds what the log quotes of a client's string.
const maxShown = 200

// quote is a client's string for the log: sanitised, short, in quotes.
func quote(s string) string {
	s = text.Sanitize(s)
	if len(s) > maxShown {
		s = strings.ToValidUTF8(s[:maxShown], "") + "…"
	}
	return fmt.Sprintf("%q", s)
}

// commandLine is a client's command for the log: its words, each quoted
// only when it needs to be, cut when long.
func commandLine(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		a = text.Sanitize(a)
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\") {
			a = fmt.Sprintf("%q", a)
		}
		b.WriteString(a)
		if b.Len() > maxShown {
			return strings.ToValidUTF8(b.String()[:maxShown], "") + "…"
		}
	}
	return b.String()
}
