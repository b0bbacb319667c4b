package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

func TestOutcomeCode(t *testing.T) {
	for o, want := range map[model.Outcome]int{
		model.OutcomeSucceeded:          0,
		model.OutcomeFailed:             1,
		model.OutcomeCancelled:          3,
		model.OutcomeRefused:            4,
		model.OutcomeCreditLimitReached: 5,
		"exploded":                      1,
		"":                              1,
	} {
		if got := OutcomeCode(o); got != want {
			t.Errorf("OutcomeCode(%q) = %d, want %d", o, got, want)
		}
	}
}

// store returns a store holding a run that has or has not finished.
func store(t *testing.T, outcome string) *model.Store {
	t.Helper()
	s := model.NewStore()
	ev := func(seq int, typ, extra string) string {
		return fmt.Sprintf(`{"schemaVersion":1,"eventId":"e%d","runId":"r","occurredAt":"2026-08-01T12:00:0%dZ","producerSequence":%d,"agent":{"id":"a","role":"orchestrator","name":"orchestrator"},"type":%q%s}`, seq, seq, seq, typ, extra)
	}
	events := []string{ev(1, "run.started", "")}
	if outcome != "" {
		events = append(events, ev(2, "run.finished", `,"outcome":"`+outcome+`","error":null`))
	}
	if _, err := s.Ingest([]byte(`{"success":true,"id":"r","creditsUsed":3,"events":[` + strings.Join(events, ",") + `]}`)); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExitCode(t *testing.T) {
	refusal := &poller.Error{Kind: poller.KindNotFound, Op: "trace", Status: 404}
	retryable := &poller.Error{Kind: poller.KindServer, Op: "trace", Status: 503}
	for _, tc := range []struct {
		outcome string
		end     error
		want    int
	}{
		{"succeeded", nil, 0},
		{"failed", nil, 1},
		{"cancelled", nil, 3},
		{"refused", nil, 4},
		{"credit_limit_reached", nil, 5},
		{"", refusal, 6},
		{"succeeded", refusal, 6},
		{"", errTimeout, 7},
		{"", errInterrupted, 130},
		{"", errQuit, 130},
		{"", context.Canceled, 130},
		// The run finished: its outcome wins over how watching stopped.
		{"succeeded", errInterrupted, 0},
		{"failed", errTimeout, 1},
		{"cancelled", errQuit, 3},
		// A recording that ends early, an unexpected failure.
		{"", nil, 1},
		{"", retryable, 1},
		{"", asUsage(errors.New("bad file")), 2},
	} {
		w := &watchSession{Run: follow.Run{Store: store(t, tc.outcome)}, Opts: &watchOptions{}}
		if got := w.ExitCode(tc.end); got != tc.want {
			t.Errorf("outcome %q, end %v: exit %d, want %d", tc.outcome, tc.end, got, tc.want)
		}
	}
}

func TestEndCause(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errInterrupted)
	if got := endCause(ctx, ctx.Err()); got != errInterrupted {
		t.Errorf("endCause = %v", got)
	}
	if got := endCause(ctx, io.EOF); got != io.EOF {
		t.Errorf("endCause kept another error? %v", got)
	}
	tctx, tcancel := context.WithTimeoutCause(context.Background(), time.Nanosecond, errTimeout)
	defer tcancel()
	<-tctx.Done()
	if got := endCause(tctx, fmt.Errorf("poll: %w", tctx.Err())); got != errTimeout {
		t.Errorf("endCause(timeout) = %v", got)
	}
}

func TestScrub(t *testing.T) {
	var b bytes.Buffer
	// One value for both: a secret added after they were made is redacted too.
	secrets := text.NewSecrets()
	w := &scrubWriter{w: &b, secrets: secrets}
	secrets.Add("fc-secret")
	n, err := fmt.Fprintf(w, "bad key fc-secret (fc-secret)\n")
	if err != nil || n != len("bad key fc-secret (fc-secret)\n") {
		t.Errorf("Write = %d, %v", n, err)
	}
	if got := b.String(); got != "bad key [redacted] ([redacted])\n" {
		t.Errorf("scrubbed: %q", got)
	}
	var d bytes.Buffer
	l := newDebugLog(nopCloser{&d}, secrets)
	l.Printf("sending fc-secret\x1b[31m\nnow")
	if s := d.String(); strings.Contains(s, "fc-secret") || strings.Contains(s, "\x1b") || strings.Count(s, "\n") != 1 || !strings.Contains(s, "sending [redacted] now") {
		t.Errorf("debug line %q", s)
	}
	var nilLog *debugLog
	nilLog.Printf("nothing") // must not panic
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// run runs firewatch in-process.
func run(t *testing.T, ctx context.Context, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Execute(ctx, args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestInProcess covers the command paths under the race detector of this
// package's tests (the e2e tests run the binary).
func TestInProcess(t *testing.T) {
	t.Parallel()
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{"research", "refused"}, Speed: 400, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	to := []string{"--api-url", srv.URL, "--api-key", srv.Key}

	out, errOut, code := run(t, context.Background(), append([]string{srv.Jobs[0].ID, "--interval", "100ms", "--ascii", "--summary", "-"}, to...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.ContainsRune(out, '…') || strings.ContainsRune(out, '✓') || !strings.Contains(out, "tool +") {
		t.Errorf("--ascii output has non-ASCII symbols:\n%s", out)
	}
	last := out[strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1:]
	if !strings.HasPrefix(last, `{"runId":`) {
		t.Errorf("--summary - is not the last line: %q", last)
	}

	_, _, code = run(t, context.Background(), append([]string{"watch", srv.Jobs[1].ID, "--interval", "100ms", "-o", "json"}, to...)...)
	if code != 4 {
		t.Errorf("refused run: exit %d", code)
	}

	// An interrupt before the run ends: 130.
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errInterrupted)
	if _, _, code := run(t, ctx, "demo", "--output", "json"); code != 130 {
		t.Errorf("interrupted demo: exit %d", code)
	}
}

// TestVersionShortcut: `firewatch version` is answered before the command
// tree is built, with the line the version command prints; anything more
// than the bare word still goes through cobra.
func TestVersionShortcut(t *testing.T) {
	ctx := context.Background()
	short, errOut, code := run(t, ctx, "version")
	if code != 0 || errOut != "" {
		t.Fatalf("version: exit %d, stderr %q", code, errOut)
	}
	want := fmt.Sprintf("firewatch %s (%s, %s/%s)\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if short != want {
		t.Errorf("version printed %q, want %q", short, want)
	}
	// "version --" is not the bare word: cobra parses it and runs the command.
	viaCobra, _, code := run(t, ctx, "version", "--")
	if code != 0 || viaCobra != short {
		t.Errorf("version through cobra: exit %d, %q; shortcut %q", code, viaCobra, short)
	}
	help, _, code := run(t, ctx, "version", "--help")
	if code != 0 || !strings.Contains(help, "Print firewatch's version") {
		t.Errorf("version --help: exit %d, %q", code, help)
	}
	if _, errOut, code := run(t, ctx, "version", "extra"); code != 2 || !strings.Contains(errOut, `unknown command "extra"`) {
		t.Errorf("version extra: exit %d, stderr %q", code, errOut)
	}
}

// brokenPipe is a stdout whose reader went away.
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// TestAnswerNotWritten: a one-shot command whose answer cannot be written
// (firewatch runs | a reader that went away) says so once and exits 8.
func TestAnswerNotWritten(t *testing.T) {
	srv, err := sim.Start(context.Background(), sim.Options{Speed: 1000, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	for _, args := range [][]string{{"runs", "-o", "json"}, {"team"}, {"runs", "-o", "plain"}} {
		var errOut bytes.Buffer
		code := Execute(context.Background(), args, strings.NewReader(""), brokenPipe{}, &errOut)
		if code != ExitOutput || strings.Count(errOut.String(), "stdout: cannot write: the reader went away") != 1 {
			t.Errorf("%v: exit %d, want %d, saying it once:\n%s", args, code, ExitOutput, errOut.String())
		}
	}
}
