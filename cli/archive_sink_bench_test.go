package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/archive"
)

// BenchmarkArchiveSinkPoll is the archive's cost per poll of a live watch:
// one recording line of a few events written into an SQLite archive.
func BenchmarkArchiveSinkPoll(b *testing.B) {
	st, err := archive.Open(context.Background(), filepath.Join(b.TempDir(), "a.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s := &archiveSink{store: st, service: "http://x", jobID: "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"}
	ev := `{"schemaVersion":1,"eventId":"e%d","runId":"r","occurredAt":"2026-11-25T20:50:32.186Z","producerSequence":2,"agent":{"id":"a","role":"subagent","name":"docs-analyst"},"type":"reasoning.summary","text":"Rate limits live in the API reference, not on the pricing pages."}`
	var evs []string
	for i := range 4 {
		evs = append(evs, fmt.Sprintf(ev, i))
	}
	line := []byte(`{"receivedAt":"2026-11-25T20:50:32.5Z","trace":{"success":true,"id":"r","creditsUsed":12,"events":[` + strings.Join(evs, ",") + "]}}\n")
	for b.Loop() {
		s.Write(line)
	}
	if s.failed {
		b.Fatal(s.lastErr)
	}
}
