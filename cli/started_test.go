package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/poller"
)

var startedLine = regexp.MustCompile(`firewatch: started run ([0-9a-f-]{36})`)

// TestStartedRunNeverLost: run --detach with stdout on a full disk has
// started a billed run: its id reaches stderr and the debug log, and the
// exit code is 8, not 1 (a script retrying on 1 would start a second run).
func TestStartedRunNeverLost(t *testing.T) {
	srv := fullDiskAndARun(t)
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	debug := filepath.Join(t.TempDir(), "debug.log")
	var errOut strings.Builder
	code := execute(context.Background(), []string{"run", "a prompt", "--detach", "--debug", debug}, strings.NewReader(""), full, &errOut, poller.Retry{})
	m := startedLine.FindStringSubmatch(errOut.String())
	if code != ExitOutput || m == nil {
		t.Fatalf("exit %d (want %d), stderr without the run's id:\n%s", code, ExitOutput, errOut.String())
	}
	log, _ := os.ReadFile(debug)
	if !strings.Contains(string(log), "started run "+m[1]) {
		t.Errorf("the debug log does not hold the run's id %s:\n%s", m[1], log)
	}
}

// TestStartAnswerWithoutIDMayHaveStarted: the start request reaches the
// service and the answer gives no usable id (or a 5xx): a run may have
// started, and firewatch says so and exits 1. A refusal started nothing.
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
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer hs.Close()
			t.Setenv("FIRECRAWL_API_URL", hs.URL)
			t.Setenv("FIRECRAWL_API_KEY", "fc-test")
			for _, args := range [][]string{{"run", "a prompt", "--detach"}, {"run", "a prompt", "-o", "plain"}} {
				var out, errOut strings.Builder
				code := execute(context.Background(), args, strings.NewReader(""), &out, &errOut, poller.Retry{})
				said := strings.Contains(errOut.String(), "may have started")
				if code != c.code || said != c.maybe || out.Len() > 0 {
					t.Errorf("%v: exit %d (want %d), 'may have started' said: %v (want %v), stdout %q\n%s", args, code, c.code, said, c.maybe, out.String(), errOut.String())
				}
			}
		})
	}
}
