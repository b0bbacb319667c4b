package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/firewatch/firewatch/describe"
)

// debugLog is the --debug file: one timestamped line per thing that
// happened. A nil *debugLog discards everything. The key is scrubbed from
// every line, whoever wrote it.
type debugLog struct {
	mu  sync.Mutex
	w   io.WriteCloser
	key string
}

func newDebugLog(w io.WriteCloser) *debugLog { return &debugLog{w: w} }

// setKey makes the log scrub key from now on.
func (d *debugLog) setKey(key string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.key = key
	d.mu.Unlock()
}

// Printf writes one line (sanitised, the key scrubbed).
func (d *debugLog) Printf(format string, args ...any) {
	if d == nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	d.mu.Lock()
	defer d.mu.Unlock()
	msg = scrub(msg, d.key)
	// Lines from the poller may carry server text: keep the log one line
	// per entry and free of escape sequences.
	msg = scrub(describe.OneLine(msg, 0), d.key)
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

func scrub(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// scrubWriter writes through to w with every occurrence of key replaced.
// stderr goes through it: no message may show the key, whatever produced it.
type scrubWriter struct {
	w   io.Writer
	key string
}

func (s *scrubWriter) Write(b []byte) (int, error) {
	if s.key == "" || !strings.Contains(string(b), s.key) {
		return s.w.Write(b)
	}
	if _, err := io.WriteString(s.w, scrub(string(b), s.key)); err != nil {
		return 0, err
	}
	return len(b), nil
}
