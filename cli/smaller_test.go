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

// TestSmallerUsageRules: watch --max-credits 0, --stall 1ns and an
// --otlp-endpoint port past 65535 are usage errors (exit 2) before any
// request, as run's --max-credits 0 is.
func TestSmallerUsageRules(t *testing.T) {
	t.Setenv("FIRECRAWL_API_URL", "http://127.0.0.1:1")
	t.Setenv("FIRECRAWL_API_KEY", "fc-test")
	for _, args := range [][]string{
		{"watch", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--max-credits", "0"},
		{"watch", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--max-credits", "2.5"},
		{"watch", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--stall", "1ns"},
		{"run", "a prompt", "--max-credits", "0"},
		{"watch", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--otlp-endpoint", "http://127.0.0.1:99999"},
		{"run", "a prompt", "--otlp-endpoint", "http://127.0.0.1:99999"},
	} {
		if _, errOut, code := run(t, context.Background(), args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errOut)
		}
	}
}

// TestLatestSkipsIDsThatAreNotUUIDs: watch --latest with a processing run
// whose id is not a UUID skips it and, with no other, fails with 1: the
// service's doing is not bad usage (2).
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
	if !strings.Contains(errOut.String(), "none with an id that is a UUID") || code != ExitFailed {
		t.Errorf("exit %d:\n%s", code, errOut.String())
	}
}

// TestInteractAnswerPrinted: code stderr without a newline ends its line
// before "Live view:"; a javascript: live-view URL is not printed as a link.
func TestInteractAnswerPrinted(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"success":true,"stdout":"","stderr":"warning","exitCode":0,"liveViewUrl":"javascript:alert(1)","cdpUrl":"wss://x/cdp"}`)
	}))
	defer hs.Close()
	t.Setenv("FIRECRAWL_API_URL", hs.URL)
	t.Setenv("FIRECRAWL_API_KEY", "fc-test")
	_, errOut, _ := run(t, context.Background(), "interact", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--code", "1")
	if !strings.Contains(errOut, "warning\n") || strings.Contains(errOut, "Live view: javascript:") || !strings.Contains(errOut, "not a web address") || !strings.Contains(errOut, "CDP: wss://x/cdp") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

// TestPlainCellsBounded: a 5 000-character id or option name and a 5 MB
// value make no plain row wider than its bound (runs, team, crawl-preview).
func TestPlainCellsBounded(t *testing.T) {
	long := strings.Repeat("a", 5000)
	huge := strings.Repeat("b", 5<<20)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, "/v2/crawl/params-preview"):
			fmt.Fprintf(w, `{"success":true,"data":{"url":"https://x","%s":1,"includePaths":["%s"]}}`, long, huge)
		case r.URL.Path == "/v2/crawl/active":
			fmt.Fprintf(w, `{"success":true,"crawls":[{"id":"%s","url":"https://x"}]}`, long)
		case r.URL.Path == "/v2/team/token-usage":
			fmt.Fprint(w, `{"success":true,"data":{"remainingTokens":10}}`)
		default:
			fmt.Fprintf(w, `{"success":true,"data":[{"id":"%s","status":"processing","createdAt":"2026-10-01T00:00:00Z"}]}`, long)
		}
	}))
	defer hs.Close()
	t.Setenv("FIRECRAWL_API_URL", hs.URL)
	t.Setenv("FIRECRAWL_API_KEY", "fc-test")
	for _, args := range [][]string{{"runs", "-o", "plain"}, {"team"}, {"crawl-preview", "https://example.com", "docs"}} {
		out, errOut, _ := run(t, context.Background(), args...)
		if out == "" {
			t.Errorf("%v: no output\n%s", args, errOut)
		}
		for _, l := range strings.Split(out, "\n") {
			if len(l) > 2500 {
				t.Errorf("%v: a line of %d bytes", args, len(l))
				break
			}
		}
	}
}

// TestUntrustedFiguresNotShownAsTheyAre: negative tokens are unavailable,
// a billing period ending in 9999 shows no days left, a reversed one is
// unknown, and a run created in 9999 is of unknown age, not "just now"
// (team and runs -o plain).
func TestUntrustedFiguresNotShownAsTheyAre(t *testing.T) {
	for _, c := range []struct {
		name, usage, created string
		args                 []string
		want, not            string
	}{
		{"negative tokens", `{"remainingTokens":-5,"planTokens":100}`, "2026-10-01T00:00:00Z", []string{"team"}, "unavailable", "-5"},
		{"period ending in 9999", `{"remainingTokens":5,"billingPeriodStart":"2026-11-01T00:00:00Z","billingPeriodEnd":"9999-12-31T00:00:00Z"}`, "2026-10-01T00:00:00Z", []string{"team"}, "billing period", "days left"},
		{"reversed period", `{"remainingTokens":5,"billingPeriodStart":"2026-12-01T00:00:00Z","billingPeriodEnd":"2026-11-01T00:00:00Z"}`, "2026-10-01T00:00:00Z", []string{"team"}, "unknown", "days left"},
		{"created in 9999", `{"remainingTokens":5}`, "9999-12-31T00:00:00Z", []string{"runs", "-o", "plain"}, "unknown", "just now"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				switch r.URL.Path {
				case "/v2/team/token-usage":
					fmt.Fprintf(w, `{"success":true,"data":%s}`, c.usage)
				case "/v2/crawl/active":
					fmt.Fprint(w, `{"success":true,"crawls":[]}`)
				default:
					fmt.Fprintf(w, `{"success":true,"data":[{"id":"019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b","status":"processing","createdAt":%q}]}`, c.created)
				}
			}))
			defer hs.Close()
			t.Setenv("FIRECRAWL_API_URL", hs.URL)
			t.Setenv("FIRECRAWL_API_KEY", "fc-test")
			out, errOut, _ := run(t, context.Background(), c.args...)
			if !strings.Contains(out, c.want) || strings.Contains(out, c.not) {
				t.Errorf("want %q and no %q:\n%s\n%s", c.want, c.not, out, errOut)
			}
		})
	}
}
