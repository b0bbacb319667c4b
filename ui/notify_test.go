package ui

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/notify"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/internal/alert"
)

// TestNotifyThroughProgram: a run that fails with a hostile error message,
// watched on the screen with --notify: the bytes the program writes to the
// terminal hold focus reporting and exactly one OSC 9 notification, whose
// text the service's message cannot end early or follow with a sequence
// of its own.
func TestNotifyThroughProgram(t *testing.T) {
	const id = "019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7"
	ev := func(seq int, at, typ, extra string) string {
		return `{"schemaVersion":1,"eventId":"e` + at + `","runId":"` + id + `","type":"` + typ + `","occurredAt":"2026-01-01T00:0` + at + `Z","producerSequence":` +
			string(rune('0'+seq)) + `,"agent":{"id":"a1","role":"orchestrator","name":"orchestrator"}` + extra + `}`
	}
	poll := func(events ...string) poller.Update {
		p, err := model.DecodeTrace([]byte(`{"success":true,"id":"` + id + `","creditsUsed":12,"events":[` + strings.Join(events, ",") + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		return poller.Update{Poll: p}
	}
	hostile := `boom\u0007\u001b]9;pwned\u001b\\\u009d777;notify;x;y\u0007\u009c\u001b[2J`

	store := model.NewStore()
	tk := attention.New(store, attention.Options{})
	term, err := notify.NewTerminal(func(k string) string { return map[string]string{"TERM": "xterm-256color"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	alerts := make(chan string, 4)
	term.SetOutput(func(seq string) { alerts <- seq })
	n, err := notify.New(notify.Config{On: notify.DefaultOn(), Terminal: term})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(context.Background())
	r := n.Follow(id, store)

	updates := make(chan poller.Update, 4)
	in, inW := io.Pipe()
	defer inW.Close()
	out := &lockedBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Config{JobID: id, Store: store, Updates: updates, Attention: tk, NoColor: true,
			Watched: func(ch []attention.Change) { r.Saw(tk, ch) }, Alerts: alerts,
			Input: in, Output: out, Width: 100, Height: 30})
		done <- err
	}()
	updates <- poll(ev(1, "0:00", "run.started", ""))
	updates <- poll(ev(2, "1:03", "run.finished", `,"outcome":"failed","error":{"code":"internal","message":"`+hostile+`"}`))
	for !strings.Contains(out.String(), "\x1b]9;") {
		select {
		case <-ctx.Done():
			t.Fatalf("no notification written:\n%q", out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	<-done
	o := out.String()
	if !strings.Contains(o, "\x1b[?1004h") {
		t.Error("focus reporting was not asked for")
	}
	if strings.Count(o, "\x1b]9;") != 1 || strings.Contains(o, "\x1b]777") || strings.Contains(o, "pwned\x1b") {
		t.Errorf("not exactly one notification: %q", o)
	}
	i := strings.Index(o, "\x1b]9;")
	j := strings.IndexByte(o[i:], '\a')
	if j < 0 {
		t.Fatalf("the notification is not terminated: %q", o[i:])
	}
	text := o[i+len("\x1b]9;") : i+j]
	if !strings.HasPrefix(text, "run 5eb381f7 failed: 12 credits in 1m03s — boom") {
		t.Errorf("notification text %q", text)
	}
	for _, c := range text {
		if c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) {
			t.Errorf("control %U in the notification text %q", c, text)
		}
	}
}

// TestFocusedSendsNone: the screen follows the terminal's focus reports:
// a notification that arrives while the terminal said it is focused is
// not written, one that arrives after it said it is not is written as it
// is; the screen says the last report.
func TestFocusedSendsNone(t *testing.T) {
	ch := make(chan string)
	close(ch) // the gate's next wait returns at once
	m := New(Config{Store: model.NewStore(), Alerts: ch})
	if !m.Frame().ReportFocus {
		t.Fatal("focus reporting off with notifications on")
	}
	seq := notify.Sequence(notify.FormOSC9, "run 5eb381f7 succeeded", false)
	written := func() []string {
		cmd := m.Update(alert.Msg(seq))
		return rawOf(cmd)
	}
	m.Update(tea.FocusMsg{})
	if got := written(); len(got) != 0 || !m.Result().Focused {
		t.Errorf("focused: wrote %q", got)
	}
	m.Update(tea.BlurMsg{})
	if got := written(); len(got) != 1 || got[0] != seq || m.Result().Focused {
		t.Errorf("not focused: wrote %q, want the sequence", got)
	}
	if New(Config{Store: model.NewStore()}).Frame().ReportFocus {
		t.Error("focus reporting on without notifications")
	}
}

// rawOf runs cmd and what it batches, and returns what they write raw.
func rawOf(cmd tea.Cmd) []string {
	if cmd == nil {
		return nil
	}
	var raw []string
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			raw = append(raw, rawOf(c)...)
		}
	case tea.RawMsg:
		raw = append(raw, msg.Msg.(string))
	}
	return raw
}
