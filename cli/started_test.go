package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/ui/runs"
)

var startedLine = regexp.MustCompile(`firewatch: started (run|crawl) ([0-9a-f-]{36})`)

// startCommands start something billed and say it in one line.
var startCommands = [][]string{
	{"run", "a prompt", "--detach"},
	{"run", "a prompt", "-o", "plain"},
	{"crawl", "https://example.com", "--detach"},
	{"crawl", "https://example.com", "-o", "plain"},
	{"crawl-preview", "https://example.com", "the docs", "--start"},
}

// TestStartedRunNeverLost: run --detach, crawl --detach and crawl-preview
// --start with stdout on a full disk have started something billed: its
// id reaches stderr and the debug log, and the exit code is 8, not 1 (a
// script retrying on 1 would start a second one).
func TestStartedRunNeverLost(t *testing.T) {
	srv := fullDiskAndARun(t)
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	for _, args := range [][]string{{"run", "a prompt", "--detach"}, {"crawl", "https://example.com", "--detach"}, {"crawl-preview", "https://example.com", "the docs", "--start"}} {
		t.Run(args[0], func(t *testing.T) {
			debug := filepath.Join(t.TempDir(), "debug.log")
			var errOut strings.Builder
			code := execute(context.Background(), append(args, "--debug", debug), strings.NewReader(""), full, &errOut, poller.Retry{})
			m := startedLine.FindStringSubmatch(errOut.String())
			if code != ExitOutput || m == nil || (m[1] == "run") != (args[0] == "run") {
				t.Fatalf("exit %d (want %d), stderr without the id:\n%s", code, ExitOutput, errOut.String())
			}
			log, _ := os.ReadFile(debug)
			if !strings.Contains(string(log), "started "+m[1]+" "+m[2]) {
				t.Errorf("the debug log does not hold the id %s:\n%s", m[2], log)
			}
		})
	}
}

// TestStartAnswerWithoutIDMayHaveStarted: the start request reaches the
// service and the answer gives no usable id (or a 5xx): a run or a crawl
// may have started, and firewatch says so and exits 1. A refusal started
// nothing.
func TestStartAnswerWithoutIDMayHaveStarted(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		code   int
		maybe  bool
	}{
		{"200 without id", 200, `{"success":true}`, ExitFailed, true},
		{"200 with a bad id", 200, `{"success":true,"id":"\u001b]0;x\u0007../../etc"}`, ExitFailed, true},
		{"200 not JSON", 200, `<html>`, ExitFailed, true},
		{"502", 502, `{"success":false,"error":"bad gateway"}`, ExitFailed, true},
		{"402 refused", 402, `{"success":false,"error":"Payment required"}`, ExitRejected, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.URL.Path == "/v2/crawl/params-preview" {
					_, _ = w.Write([]byte(`{"success":true,"data":{"url":"https://example.com","includePaths":["docs/.*"]}}`))
					return
				}
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer hs.Close()
			t.Setenv("FIRECRAWL_API_URL", hs.URL)
			t.Setenv("FIRECRAWL_API_KEY", "fc-test")
			for _, args := range startCommands {
				var out, errOut strings.Builder
				code := execute(context.Background(), args, strings.NewReader(""), &out, &errOut, poller.Retry{})
				said := strings.Contains(errOut.String(), "may have started")
				printed := out.Len() > 0 && args[0] != "crawl-preview" // the preview is printed first
				if code != c.code || said != c.maybe || printed || startedLine.MatchString(errOut.String()) {
					t.Errorf("%v: exit %d (want %d), 'may have started' said: %v (want %v), stdout %q\n%s", args, code, c.code, said, c.maybe, out.String(), errOut.String())
				}
			}
		})
	}
}

// lockedBuffer is a strings.Builder for one writer and one reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestConsoleSessionStartIsSaid: the browser session a console call
// opens (the console of interact and of scrape --interact) is billed: the
// scrape's id reaches stderr and the debug log when the answer shows it
// open, as a started run's does, once however many calls follow. When the
// console's output cannot be written, the exit code is 8 and the session
// is said all the same.
func TestConsoleSessionStartIsSaid(t *testing.T) {
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprint("full disk ", full), func(t *testing.T) {
			srv := startSim(t, sim.Options{Speed: 1000, Scrapes: 1})
			t.Setenv("FIRECRAWL_API_URL", srv.URL)
			t.Setenv("FIRECRAWL_API_KEY", srv.Key)
			id := srv.ScrapeIDs[0]
			debug := filepath.Join(t.TempDir(), "debug.log")
			keys, typed := io.Pipe()
			out, errOut := &lockedBuffer{}, &lockedBuffer{}
			var stdout io.Writer = out
			codes, want := []string{"await page.title()", "await page.url()"}, ExitOK
			if full {
				f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				stdout, codes, want = f, codes[:1], ExitOutput
			}
			done := make(chan int, 1)
			go func() {
				done <- execute(context.Background(), []string{"interact", id, "-o", "tui", "--debug", debug}, keys, stdout, errOut, poller.Retry{})
			}()
			line := "firewatch: started browser session of scrape " + id
			for i, code := range codes {
				if _, err := io.WriteString(typed, code+"\r"); err != nil {
					t.Fatal(err)
				}
				// The header counts the calls answered.
				calls := fmt.Sprintf("%d call", i+1)
				deadline := time.Now().Add(10 * time.Second)
				for !(full || strings.Contains(ansi.Strip(out.String()), calls)) || !strings.Contains(errOut.String(), line) {
					if time.Now().After(deadline) {
						t.Fatalf("no %q on stderr after %s:\n%s", line, calls, errOut.String())
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			// Leave, keeping the session.
			if _, err := io.WriteString(typed, "\x03k"); err != nil {
				t.Fatal(err)
			}
			if code := <-done; code != want {
				t.Errorf("exit %d, want %d\n%s", code, want, errOut.String())
			}
			if n := strings.Count(errOut.String(), line); n != 1 {
				t.Errorf("said %d times:\n%s", n, errOut.String())
			}
			log, _ := os.ReadFile(debug)
			if !strings.Contains(string(log), "started browser session of scrape "+id) {
				t.Errorf("the debug log does not hold the session's start:\n%s", log)
			}
			if srv.ActiveBrowserSessions() != 1 || !strings.Contains(errOut.String(), "stays open, and billed") {
				t.Errorf("%d sessions; stderr:\n%s", srv.ActiveBrowserSessions(), errOut.String())
			}
		})
	}
}

// TestConsoleCallThatMayHaveOpenedTheSession: a console call that reached
// the service and got no usable answer (a 502) may have opened the billed
// session: the debug log says so at once, and stderr when the console
// ends, with the command that stops it.
func TestConsoleCallThatMayHaveOpenedTheSession(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte(`{"success":false,"error":"bad gateway"}`))
	}))
	defer hs.Close()
	t.Setenv("FIRECRAWL_API_URL", hs.URL)
	t.Setenv("FIRECRAWL_API_KEY", "fc-test")
	id := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	debug := filepath.Join(t.TempDir(), "debug.log")
	keys, typed := io.Pipe()
	errOut := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- execute(context.Background(), []string{"interact", id, "-o", "tui", "--debug", debug}, keys, io.Discard, errOut, poller.Retry{})
	}()
	if _, err := io.WriteString(typed, "await page.title()\r"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		log, _ := os.ReadFile(debug)
		if strings.Contains(string(log), "browser session of scrape "+id+" may have started") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the debug log does not say the session may have started:\n%s", log)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := io.WriteString(typed, "\x03k"); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d\n%s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "may be open, and billed") || !strings.Contains(errOut.String(), "firewatch interact "+id+" --stop") || strings.Contains(errOut.String(), "started browser session") {
		t.Errorf("stderr:\n%s", errOut.String())
	}
	// The one call of interact --code says it too, and fails with 1.
	_, oneErr, code := run(t, context.Background(), "interact", id, "--code", "1+1")
	if code != ExitFailed || !strings.Contains(oneErr, "may be open, and billed") {
		t.Errorf("interact --code: exit %d\n%s", code, oneErr)
	}
}

// failingStart is a runs screen service whose start fails with err.
type failingStart struct {
	runs.Service
	err error
}

func (f failingStart) StartAgent(context.Context, poller.AgentRequest) (string, error) {
	return "", f.err
}

// TestRunsScreenStartMayHaveStarted: n on the runs screen whose start
// request failed after it reached the service (a 5xx, an answer without
// an id) says that a run may have started, in the error the screen shows;
// a refusal does not.
func TestRunsScreenStartMayHaveStarted(t *testing.T) {
	for _, c := range []struct {
		kind  poller.Kind
		maybe bool
	}{{poller.KindServer, true}, {poller.KindMalformed, true}, {poller.KindTimeout, true}, {poller.KindBadRequest, false}, {poller.KindUnauthorized, false}} {
		s := &startSaying{Service: failingStart{err: &poller.Error{Kind: c.kind, Op: "start"}}}
		_, err := s.StartAgent(context.Background(), poller.AgentRequest{Prompt: "p"})
		if said := err != nil && strings.Contains(err.Error(), "may have started"); said != c.maybe || s.take() != "" {
			t.Errorf("kind %v: %v", c.kind, err)
		}
	}
}

// TestScrapeIDNeverLost: a scrape is billed: with stdout on a full disk
// its id still reaches stderr and the --debug log (accepted and ignored
// before), and the exit code is 8.
func TestScrapeIDNeverLost(t *testing.T) {
	srv := startSim(t, sim.Options{Speed: 1000, Scrapes: -1})
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	debug := filepath.Join(t.TempDir(), "debug.log")
	var errOut strings.Builder
	code := execute(context.Background(), []string{"scrape", "https://acme.dev", "--debug", debug}, strings.NewReader(""), full, &errOut, poller.Retry{})
	m := regexp.MustCompile(`Scrape ID: ([0-9a-f-]{36})`).FindStringSubmatch(errOut.String())
	if code != ExitOutput || m == nil {
		t.Fatalf("exit %d (want %d), stderr without the scrape's id:\n%s", code, ExitOutput, errOut.String())
	}
	if log, _ := os.ReadFile(debug); !strings.Contains(string(log), "scrape "+m[1]) {
		t.Errorf("the debug log does not hold the scrape's id %s:\n%s", m[1], log)
	}
}
