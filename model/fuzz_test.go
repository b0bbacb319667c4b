package model

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/firewatch/firewatch/text"
)

// FuzzDecodeMerge feeds arbitrary bodies, and sequences of two, through a
// Decoder and a Store. Whatever the bytes: no panic; a body is either a
// *DecodeError or a poll; a decoder produces each eventId once; and after
// every merge the store holds each distinct event once in a timeline equal
// to a merge from scratch, each agent's events in order, and a summary that
// marshals (checkInvariants). Seeds: testdata/fuzz/FuzzDecodeMerge.
//
//	go test -run '^$' -fuzz FuzzDecodeMerge -fuzztime 1m ./model
func FuzzDecodeMerge(f *testing.F) {
	f.Add(body(ev("e1", orch, 1, 0, "run.started")), body(ev("e1", orch, 1, 0, "run.started"), ev("e2", sub1, 1, 5, "agent.started")))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		d := NewDecoder()
		s := NewStore()
		produced := map[string]bool{}
		for _, body := range [][]byte{a, b, a} {
			p, err := d.Decode(body)
			if err != nil {
				var de *DecodeError
				if !errors.As(err, &de) || p != nil {
					t.Fatalf("Decode: %v, %v; want a *DecodeError and no poll", p, err)
				}
				if de.Offset < 0 || de.Offset > int64(len(body)) {
					t.Fatalf("offset %d outside the body (%d bytes)", de.Offset, len(body))
				}
				if bad := unsafeRune(de.Error()); bad >= 0 {
					t.Fatalf("error message carries %U: %q", bad, de.Error())
				}
				continue
			}
			for _, e := range p.Events {
				if produced[e.ID] {
					t.Fatalf("event %q produced twice", e.ID)
				}
				produced[e.ID] = true
				if e.ID == "" || e.Agent.ID == "" || len(e.Raw) == 0 {
					t.Fatalf("event without envelope: %+v", e)
				}
			}
			if p.Total < len(p.Events)+len(p.Rejected) {
				t.Fatalf("total %d < %d events + %d rejected", p.Total, len(p.Events), len(p.Rejected))
			}
			s.Merge(p)
			checkInvariants(t, s)
			if s.Len() != len(produced) {
				t.Fatalf("store has %d events, decoder produced %d", s.Len(), len(produced))
			}
		}
		// The same bodies in the other order, one decoder each: the same
		// events.
		s2 := NewStore()
		for _, body := range [][]byte{b, a} {
			if p, err := DecodeTrace(body); err == nil {
				s2.Merge(p)
				checkInvariants(t, s2)
			}
		}
		if s2.Len() != s.Len() {
			t.Fatalf("other order: %d events, want %d", s2.Len(), s.Len())
		}
		for id := range produced {
			if e := s.Event(id); e == nil || e.ID != id || s2.Event(id) == nil {
				t.Fatalf("Event(%q) = %v", id, e)
			}
		}
	})
}

// FuzzSanitize: whatever comes in, what comes out is valid UTF-8 with no
// ESC, no C0 control but newline and tab, no DEL or C1 control, no bidi
// control or zero-width or other format character; sanitising it again
// changes nothing; safe text is left alone. Seeds: testdata/fuzz/FuzzSanitize.
//
//	go test -run '^$' -fuzz FuzzSanitize -fuzztime 1m ./model
func FuzzSanitize(f *testing.F) {
	f.Add(hostile)
	f.Fuzz(func(t *testing.T, in string) {
		out := text.Sanitize(in)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out: %q", out)
		}
		if bad := unsafeRune(out); bad >= 0 {
			t.Fatalf("%U survives: %q → %q", bad, in, out)
		}
		if strings.ContainsRune(out, 0x1b) {
			t.Fatalf("ESC survives: %q", out)
		}
		if again := text.Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q → %q → %q", in, out, again)
		}
		if b := text.SanitizeBytes([]byte(in)); b != out {
			t.Fatalf("sanitizeBytes %q != Sanitize %q", b, out)
		}
		if unsafeRune(in) < 0 && out != in {
			t.Fatalf("safe text changed: %q → %q", in, out)
		}
		if len(out) > 3*len(in) {
			t.Fatalf("grew from %d to %d bytes", len(in), len(out))
		}
	})
}
