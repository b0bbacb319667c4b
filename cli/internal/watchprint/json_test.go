package watchprint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
)

// writes records each Write as it came.
type writes struct{ w [][]byte }

func (r *writes) Write(b []byte) (int, error) {
	r.w = append(r.w, bytes.Clone(b))
	return len(b), nil
}

// A first poll of a long run brings thousands of events: they go out in
// a few writes of whole lines (not one system call each), every event one
// line of its own, in order, the terminal's escaping applied per line.
func TestJSONEventsBatchedInWholeLines(t *testing.T) {
	for _, width := range []int{0, 80} {
		t.Run(fmt.Sprintf("width=%d", width), func(t *testing.T) {
			var body strings.Builder
			body.WriteString(`{"success":true,"events":[`)
			const n = 3000
			for i := range n {
				if i > 0 {
					body.WriteByte(',')
				}
				// A bidi override (escaped for a terminal) and a
				// pretty-printed value (compacted) among them.
				sep := ""
				if i == 7 {
					sep = "\n " // pretty-printed: compacted to one line
				}
				fmt.Fprintf(&body, `{"schemaVersion":1,"eventId":"0190f3a4-0000-7000-8000-%012d",%s"runId":"0190f3a4-0000-7000-8000-00000000aaaa","occurredAt":"2026-03-14T09:%02d:%02d.000Z","producerSequence":%d,"agent":{"id":"0190f3a4-0000-7000-8000-000000000001","role":"orchestrator"},"type":"reasoning.summary","text":"step %d %s %s"}`,
					i, sep, i/60%60, i%60, i, i, "\u202e", strings.Repeat("x", 40))
			}
			body.WriteString(`]}`)
			s := model.NewStore()
			d, err := s.Ingest([]byte(body.String()))
			if err != nil {
				t.Fatal(err)
			}
			var out writes
			p := NewJSON(Watch{Run: &follow.Run{Store: s}, Stdout: &out, Width: width})
			p.Events(d.Events)
			// Every write but the last is one batch: at least jsonBatch
			// bytes, and less than one line more.
			if len(out.w) < 2 {
				t.Fatalf("%d events in %d writes: want batches of about %d bytes", len(d.Events), len(out.w), jsonBatch)
			}
			for i, w := range out.w[:len(out.w)-1] {
				if len(w) < jsonBatch || len(w) >= jsonBatch+1024 {
					t.Errorf("write %d of %d is %d bytes: want a batch of about %d", i, len(out.w), len(w), jsonBatch)
				}
			}
			var lines []string
			for i, w := range out.w {
				if len(w) == 0 || w[len(w)-1] != '\n' {
					t.Fatalf("write %d does not end a line: %.40q", i, w[max(0, len(w)-40):])
				}
				lines = append(lines, strings.Split(strings.TrimSuffix(string(w), "\n"), "\n")...)
			}
			if len(lines) != len(d.Events) {
				t.Fatalf("%d lines for %d events", len(lines), len(d.Events))
			}
			for i, l := range lines {
				var v struct {
					EventID string `json:"eventId"`
				}
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Fatalf("line %d is not one JSON value: %v: %.80q", i, err, l)
				}
				if v.EventID != d.Events[i].ID {
					t.Fatalf("line %d is %q, want %q", i, v.EventID, d.Events[i].ID)
				}
				if raw := strings.Contains(l, "\u202e"); raw != (width == 0) {
					t.Fatalf("line %d: U+202E raw = %v on a terminal of width %d: %.80q", i, raw, width, l)
				}
			}
			// Nothing new: nothing written.
			out.w = nil
			p.Events(nil)
			if len(out.w) != 0 {
				t.Errorf("no events made %d writes", len(out.w))
			}
		})
	}
}
