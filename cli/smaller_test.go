package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/poller"
)

// TestSmallerUsageRules: watch --max-credits 0 and --stall 1ns are usage
// errors (exit 2) before any request, as run's --max-credits 0 is.
func TestSmallerUsageRules(t *testing.T) {
	t.Setenv("FIRECRAWL_API_URL", "http://127.0.0.1:1")
	t.Setenv("FIRECRAWL_API_KEY", "fc-test")
	for _, args := range [][]string{
		{"watch", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--max-credits", "0"},
		{"watch", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--max-credits", "2.5"},
		{"watch", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--stall", "1ns"},
		{"run", "a prompt", "--max-credits", "0"},
	} {
		if _, errOut, code := run(t, context.Background(), args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errOut)
		}
	}
}

// TestLatestSkipsIDsThatAreNotUUIDs: watch --latest with a processing run
// whose id is not a UUID skips it: the service's doing is not bad usage.
func TestLatestSkipsIDsThatAreNotUUIDs(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"success":true,"data":[{"id":"../../etc/passwd","status":"processing","createdAt":"2026-10-01T00:00:00Z"}]}`)
	}))
	defer hs.Close()
	t.Setenv("FIRECRAWL_API_URL", hs.URL)
	t.Setenv("FIRECRAWL_API_KEY", "fc-test")
	var out, errOut strings.Builder
	code := execute(context.Background(), []string{"watch", "--latest", "-o", "plain"}, strings.NewReader(""), &out, &errOut, poller.Retry{})
	if strings.Contains(errOut.String(), "passwd") && strings.Contains(errOut.String(), "watching") {
		t.Errorf("the id that is not a UUID was picked:\n%s", errOut.String())
	}
	if !strings.Contains(errOut.String(), "no run is processing") {
		t.Errorf("exit %d:\n%s", code, errOut.String())
	}
}
