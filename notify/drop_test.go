package notify

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDropped: a webhook and a command that block until the test lets
// them go, with their queues full. The drops are logged and said once per
// sink; a run's end that arrives at a full queue takes the place of the
// oldest attention moment instead of being dropped; the next moment each
// sink delivers says how many were dropped, in its text (the command's
// last argument too), the webhook's "dropped" and $FIREWATCH_DROPPED;
// nothing is left to tell at Close.
func TestDropped(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	started := filepath.Join(dir, "started")
	release := filepath.Join(dir, "release")
	script := filepath.Join(dir, "hook.sh")
	body := "#!/bin/sh\n" +
		": > " + started + "\n" +
		"while [ ! -e " + release + " ]; do sleep 0.02; done\n" +
		`printf '%s|%s|%s\n' "$FIREWATCH_KEY" "$FIREWATCH_DROPPED" "$1" >> ` + out + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t)
	inFirst, letGo := make(chan struct{}), make(chan struct{})
	rc.answer = func(n int, w http.ResponseWriter, r *http.Request) bool {
		if n == 1 {
			close(inFirst)
			<-letGo
		}
		return false
	}
	var said, logged lines
	n, err := New(Config{On: DefaultOn(), Command: []string{script}, URL: rc.URL, Retry: retryNoWait(), Say: said.add, Log: logged.add})
	if err != nil {
		t.Fatal(err)
	}
	attn := func(i int) *Moment {
		return &Moment{Key: fmt.Sprintf("a%d", i), Event: EventAttention, Text: fmt.Sprintf("run x item %d", i), Job: Job{Kind: KindRun, ID: "x"}}
	}
	// The first moment holds both sinks.
	n.send(attn(0))
	<-inFirst
	waitFor(t, func() bool { _, err := os.Stat(started); return err == nil })
	for i := 1; i <= queueLen+3; i++ { // 3 too many: the last 3 are dropped
		n.send(attn(i))
	}
	n.send(&Moment{Key: "end", Event: EventFinished, Text: "run x succeeded", Job: Job{Kind: KindRun, ID: "x", Outcome: "succeeded"}}) // a1 makes room
	close(letGo)
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	closeNow(t, n)

	var want []string // the keys delivered, in order
	want = append(want, "a0")
	for i := 2; i <= queueLen; i++ {
		want = append(want, fmt.Sprintf("a%d", i))
	}
	want = append(want, "end")
	const dropped = "run x item 2 (4 notifications were dropped)"

	var keys []string
	for i, b := range rc.got() {
		m := decode(t, b)
		keys = append(keys, m.ID)
		if i == 1 && (m.Text != dropped || m.Dropped != 4) {
			t.Errorf("the webhook's first after the drops: %s", b)
		}
		if i != 1 && (m.Dropped != 0 || strings.Contains(m.Text, "dropped")) {
			t.Errorf("the webhook's %d-th: %s", i, b)
		}
	}
	if !slices.Equal(keys, want) {
		t.Errorf("the webhook was sent %q, want %q", keys, want)
	}

	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	keys = nil
	for i, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		f := strings.SplitN(l, "|", 3)
		keys = append(keys, f[0])
		if i == 1 && (f[1] != "4" || f[2] != dropped) {
			t.Errorf("the command's first after the drops: %q", l)
		}
		if i != 1 && f[1] != "0" {
			t.Errorf("the command's %d-th: %q", i, l)
		}
	}
	if !slices.Equal(keys, want) {
		t.Errorf("the command ran for %q, want %q", keys, want)
	}

	log := strings.Join(logged.all(), "\n")
	for _, s := range []string{
		`--notify-command is 32 moments behind: "run x item 1" dropped (4 notifications since the last delivered)`,
		`is 32 moments behind: "run x item 35" dropped (3 notifications since the last delivered)`,
	} {
		if !strings.Contains(log, s) {
			t.Errorf("the log has not %q:\n%s", s, log)
		}
	}
	if s := said.all(); len(s) != 2 || !strings.Contains(s[0], "too slow: notifications are being dropped") {
		t.Errorf("said %q", s)
	}
}

// waitFor polls cond until it holds, failing after a few seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("the condition never held")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// blocked is a sink whose deliveries wait for ctx to end.
type blocked struct{ in chan struct{} }

func (b *blocked) name() string { return "blocked" }
func (b *blocked) deliver(ctx context.Context, m *Moment) error {
	b.in <- struct{}{}
	<-ctx.Done()
	return ctx.Err()
}

// TestDroppedAtClose: drops that no delivered moment told are counted by
// Close (said at exit), apart from the moments it gave up on.
func TestDroppedAtClose(t *testing.T) {
	var logged lines
	n, err := New(Config{On: DefaultOn(), Log: logged.add})
	if err != nil {
		t.Fatal(err)
	}
	b := &blocked{in: make(chan struct{}, 1)}
	w := &worker{s: b, wake: make(chan struct{}, 1)}
	n.sinks = append(n.sinks, w)
	n.wg.Add(1)
	go n.run(w)
	for i := 0; i <= queueLen+2; i++ {
		n.send(&Moment{Key: fmt.Sprint(i), Event: EventAttention, Text: fmt.Sprint("item ", i)})
		if i == 0 {
			<-b.in // the first is being delivered
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	left, dropped := n.Close(ctx)
	if left != queueLen || dropped != 2 {
		t.Errorf("Close: %d left, %d dropped; want %d, 2", left, dropped, queueLen)
	}
	if l := strings.Join(logged.all(), "\n"); !strings.Contains(l, "blocked: 2 notifications were dropped and not told") {
		t.Errorf("the log:\n%s", l)
	}
}
