package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// TestConsoleStopsItsSessionOnASignal: the console's terminal is gone (a
// signal ended it): its open browser session is stopped, and that is said
// on stderr and in the debug log.
func TestConsoleStopsItsSessionOnASignal(t *testing.T) {
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 1000, RateLimit: -1, Scrapes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	id := srv.ScrapeIDs[0]
	// A call opens the session.
	if _, errOut, code := run(t, context.Background(), "interact", id, "--code", "1+1"); code != 0 {
		t.Fatalf("interact: exit %d\n%s", code, errOut)
	}
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	secrets := text.NewSecrets()
	var errOut bytes.Buffer
	a := &app{stderr: &scrubWriter{w: &errOut, secrets: secrets}, secrets: secrets}
	logPath := filepath.Join(t.TempDir(), "debug.log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	debug := newDebugLog(f, secrets)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errInterrupted)
	a.consoleEnv(c, debug).StopOnSignal(ctx, id, "nobody can be asked any more")
	debug.Close()
	log, _ := os.ReadFile(logPath)
	want := "interrupted: stopped the browser session of scrape " + id
	if !strings.Contains(errOut.String(), want) || !strings.Contains(string(log), want) {
		t.Fatalf("stderr and the debug log should say %q:\n%s\n%s", want, errOut.String(), log)
	}
	// The session is gone: the service has none to stop any more.
	if out, _, _ := run(t, context.Background(), "interact", id, "--stop", "-o", "json"); !strings.Contains(out, `"stopped":false`) {
		t.Errorf("the session is still open: %s", out)
	}
}

// TestStopAnswerOutOfRange: a stop's answer with figures out of range
// (1e308 credits, a negative duration) shows neither.
func TestStopAnswerOutOfRange(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"success":true,"creditsBilled":-1e308,"sessionDurationMs":-5}`))
	}))
	defer hs.Close()
	t.Setenv("FIRECRAWL_API_URL", hs.URL)
	t.Setenv("FIRECRAWL_API_KEY", "fc-test")
	_, errOut, code := run(t, context.Background(), "interact", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--stop")
	if code != 0 || strings.Contains(errOut, "e+308") || strings.Contains(errOut, "billed") || strings.Contains(errOut, " after ") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestSIGHUPIsAnInterrupt: a closed terminal (SIGHUP) ends firewatch like
// SIGTERM: the signal context ends with the interrupt (exit 130, the
// summary written, the session stopped) instead of the process dying.
func TestSIGHUPIsAnInterrupt(t *testing.T) {
	ctx, stop := signalContext(context.Background())
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if cause := context.Cause(ctx); cause != errInterrupted || codeOf(cause) != ExitInterrupted {
		t.Fatalf("cause %v, exit %d", cause, codeOf(cause))
	}
}
