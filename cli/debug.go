package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
)

// debugLog is the --debug file: one timestamped line per thing that
// happened. A nil *debugLog discards everything. The secrets are redacted
// from every line, whoever wrote it.
type debugLog struct {
	mu      sync.Mutex
	w       io.WriteCloser
	secrets *text.Secrets
}

func newDebugLog(w io.WriteCloser, secrets *text.Secrets) *debugLog {
	return &debugLog{w: w, secrets: secrets}
}

// Printf writes one line (sanitised, the secrets redacted).
func (d *debugLog) Printf(format string, args ...any) {
	if d == nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	d.mu.Lock()
	defer d.mu.Unlock()
	// Lines from the poller may carry server text: keep the log one line
	// per entry and free of escape sequences.
	msg = d.secrets.Redact(describe.OneLine(d.secrets.Redact(msg), 0))
	fmt.Fprintf(d.w, "%s %s\n", time.Now().Format("2006-01-02T15:04:05.000Z07:00"), msg)
}

func (d *debugLog) Close() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.w.Close()
}

// scrubWriter writes through to w with every secret redacted. stderr goes
// through it: no message may show the key, whatever produced it.
type scrubWriter struct {
	w       io.Writer
	secrets *text.Secrets
}

func (s *scrubWriter) Write(b []byte) (int, error) {
	if !s.secrets.Holds(string(b)) {
		return s.w.Write(b)
	}
	if _, err := io.WriteString(s.w, s.secrets.Redact(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// openDebug is the --debug file of a command that is not a watch (the
// console, crawl, crawl-preview): nil when path is "", a usage error when
// it cannot be written. Opened before any request, so that what is
// started reaches it; header is its first line.
func (a *app) openDebug(path, header string) (*debugLog, error) {
	if path == "" {
		return nil, nil
	}
	if err := checkWritable("--debug", path); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, badUsage("--debug: %v", err)
	}
	d := newDebugLog(f, a.secrets)
	d.Printf("firewatch %s: %s", Version(), header)
	return d, nil
}
