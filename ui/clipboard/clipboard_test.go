package clipboard

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestSequencePlain(t *testing.T) {
	got, err := Sequence("hello", Options{Getenv: env("TERM", "xterm-256color")})
	if err != nil {
		t.Fatal(err)
	}
	want := "\x1b]52;c;aGVsbG8=\a"
	if string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestSequenceTmux(t *testing.T) {
	got, err := Sequence("hello", Options{Getenv: env("TMUX", "/tmp/tmux-0/default,123,0", "TERM", "screen-256color")})
	if err != nil {
		t.Fatal(err)
	}
	// The plain sequence for tmux's set-clipboard, then the same sequence in
	// tmux's passthrough with its ESC doubled.
	want := "\x1b]52;c;aGVsbG8=\a" + "\x1bPtmux;\x1b\x1b]52;c;aGVsbG8=\a\x1b\\"
	if string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestSequenceScreen(t *testing.T) {
	for _, e := range []func(string) string{env("STY", "1234.pts-0.host"), env("TERM", "screen.xterm-256color")} {
		got, err := Sequence("hello", Options{Getenv: e})
		if err != nil {
			t.Fatal(err)
		}
		want := "\x1bP\x1b]52;c;aGVsbG8=\a\x1b\\"
		if string(got) != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	// Long payloads are cut into chunks of at most 768 bytes, each its own
	// DCS string.
	text := strings.Repeat("x", 3000)
	got, err := Sequence(text, Options{Getenv: env("STY", "1")})
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(string(got), "\x1bP"), "\x1b\\"), "\x1b\\\x1bP")
	if len(parts) < 2 {
		t.Fatalf("expected several chunks, got %d", len(parts))
	}
	joined := strings.Join(parts, "")
	for _, p := range parts {
		if len(p) > screenChunk {
			t.Fatalf("chunk of %d bytes", len(p))
		}
	}
	if joined != "\x1b]52;c;"+base64.StdEncoding.EncodeToString([]byte(text))+"\a" {
		t.Fatal("chunks do not join into the plain sequence")
	}
}

func TestSequenceSanitises(t *testing.T) {
	in := "id-1\x1b]52;c;ZXZpbA==\a\x1b[31m\u202e\r\x07\u009b2J\tend\n"
	got, err := Sequence(in, Options{Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	payload := strings.TrimSuffix(strings.TrimPrefix(string(got), "\x1b]52;c;"), "\a")
	dec, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	if string(dec) != "id-1\tend\n" {
		t.Fatalf("payload %q", dec)
	}
	// The sequence itself has exactly one ESC and one BEL: its own.
	if bytes.Count(got, []byte{0x1b}) != 1 || bytes.Count(got, []byte{0x07}) != 1 {
		t.Fatalf("stray control bytes in %q", got)
	}
}

func TestSequenceEmpty(t *testing.T) {
	for _, in := range []string{"", "\x1b[31m", "\u200b\r"} {
		if _, err := Sequence(in, Options{Getenv: env()}); !errors.Is(err, ErrEmpty) {
			t.Errorf("%q: err = %v, want ErrEmpty", in, err)
		}
	}
}

func TestSequenceLimit(t *testing.T) {
	for _, mux := range []func(string) string{env(), env("TMUX", "x"), env("STY", "x")} {
		opts := Options{Getenv: mux, Limit: 1000}
		max := maxText(1000, opts.Detect())
		if max <= 0 {
			t.Fatal("nothing fits")
		}
		// The largest text that fits is accepted and its largest sequence
		// is within the limit; one group more is refused.
		seq, err := Sequence(strings.Repeat("a", max), opts)
		if err != nil {
			t.Fatalf("%v: %d bytes refused: %v", opts.Detect(), max, err)
		}
		if opts.Detect() != Tmux && len(seq) > 1000 {
			t.Fatalf("%v: sequence of %d bytes", opts.Detect(), len(seq))
		}
		_, err = Sequence(strings.Repeat("a", max+3), opts)
		var tl *TooLargeError
		if !errors.As(err, &tl) {
			t.Fatalf("%v: err = %v, want TooLargeError", opts.Detect(), err)
		}
		if tl.Size != max+3 || tl.Max != max {
			t.Fatalf("%+v", tl)
		}
	}
	// The default limit refuses 200 kB with a message that says so.
	_, err := Sequence(strings.Repeat("a", 200_000), Options{Getenv: env()})
	if err == nil || !strings.Contains(err.Error(), "200 kB") || !strings.Contains(err.Error(), "74 kB") {
		t.Fatalf("err = %v", err)
	}
}

func TestCopyCmd(t *testing.T) {
	cmd := Copy("run-\x1b[2J42", "run id", Options{Getenv: env("TMUX", "x")})
	batch, ok := cmd().(tea.BatchMsg)
	if !ok {
		t.Fatalf("got %T, want tea.BatchMsg", cmd())
	}
	var raw tea.RawMsg
	var copied CopiedMsg
	for _, c := range batch {
		switch m := c().(type) {
		case tea.RawMsg:
			raw = m
		case CopiedMsg:
			copied = m
		}
	}
	want, _ := Sequence("run-42", Options{Getenv: env("TMUX", "x")})
	if raw.Msg != string(want) {
		t.Fatalf("raw = %q, want %q", raw.Msg, want)
	}
	if copied.Err != nil || copied.What != "run id" || copied.Bytes != 6 {
		t.Fatalf("%+v", copied)
	}
	if copied.Status() != "copied run id (6 B)" {
		t.Fatal(copied.Status())
	}

	// Refused: only the message, with the reason.
	msg := Copy(strings.Repeat("a", 200_000), "result", Options{Getenv: env()})()
	c, ok := msg.(CopiedMsg)
	if !ok || c.Err == nil || !strings.HasPrefix(c.Status(), "not copied: too large") {
		t.Fatalf("%#v", msg)
	}
}
