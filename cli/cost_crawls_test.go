package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// Plain cost (no --team) counts the archived crawls apart from the runs:
// the crawls firewatch watched, with the credits history --kind crawl
// gives them, in -o json and in the plain table's crawls line.
func TestCostCountsCrawls(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startSim(t, sim.Options{Speed: sim.MaxSpeed, CrawlPages: 4, CrawlStep: time.Millisecond})
	db := filepath.Join(t.TempDir(), "a.db")
	conn := []string{"--api-url", srv.URL, "--api-key", srv.Key, "--archive", db}
	for _, u := range []string{"https://example.com", "https://example.org"} {
		if _, errOut, code := run(t, ctx, append([]string{"crawl", u, "--limit", "3", "-o", "json", "--interval", "250ms"}, conn...)...); code != ExitOK {
			t.Fatalf("crawl %s: exit %d: %s", u, code, errOut)
		}
	}
	out, errOut, code := run(t, ctx, append([]string{"history", "--kind", "crawl", "-o", "json"}, conn...)...)
	if code != 0 {
		t.Fatalf("history --kind crawl: exit %d: %s", code, errOut)
	}
	credits, crawls := 0.0, 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var c struct {
			CreditsUsed float64 `json:"creditsUsed"`
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("history line %q: %v", l, err)
		}
		credits += c.CreditsUsed
		crawls++
	}
	if crawls != 2 || credits <= 0 {
		t.Fatalf("history --kind crawl: %d crawls, %g credits:\n%s", crawls, credits, out)
	}

	out, errOut, code = run(t, ctx, append([]string{"cost", "-o", "json"}, conn...)...)
	var rep struct {
		Crawls struct {
			Crawls      int     `json:"crawls"`
			CreditsUsed float64 `json:"creditsUsed"`
			Unfinished  int     `json:"unfinished"`
		} `json:"crawls"`
		Total struct {
			Runs int `json:"runs"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("cost -o json: exit %d %v: %s%s", code, err, out, errOut)
	}
	if rep.Crawls.Crawls != 2 || rep.Crawls.CreditsUsed != credits || rep.Crawls.Unfinished != 0 || rep.Total.Runs != 0 {
		t.Errorf("cost -o json: %+v, history has 2 crawls of %g credits and no run", rep, credits)
	}
	out, _, code = run(t, ctx, append([]string{"cost", "-o", "plain"}, conn...)...)
	if code != 0 || !strings.Contains(out, "crawls: 2 crawls, ") {
		t.Errorf("cost -o plain: exit %d:\n%s", code, out)
	}
}

// cost --team's exit codes are those of every command that asks the
// service: a refused key and no network stop it with team's code (nothing
// else would answer); a part that fails otherwise (activity answering 500
// through the retries) is named, the rest shown, and it exits 1.
func TestCostTeamExitCodes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startSim(t, sim.Options{History: 3, Speed: sim.MaxSpeed})
	noWait := poller.Retry{Sleep: func(ctx context.Context, _ time.Duration) bool { return ctx.Err() == nil }}
	exec := func(args ...string) (string, string, int) {
		var out, errOut strings.Builder
		code := execute(ctx, args, strings.NewReader(""), &out, &errOut, noWait)
		return out.String(), errOut.String(), code
	}
	db := filepath.Join(t.TempDir(), "a.db")
	closed := httptest.NewServer(nil)
	closed.Close() // nothing listens there now
	wrongKey := "fc-" + strings.Repeat("0", 32)
	for _, c := range []struct {
		name, url, key string
		want           int
	}{
		{"a refused key (401)", srv.URL, wrongKey, ExitRejected},
		{"no network", closed.URL, srv.Key, ExitFailed},
	} {
		_, teamErr, teamCode := exec("team", "-o", "json", "--api-url", c.url, "--api-key", c.key)
		out, errOut, code := exec("cost", "--team", "-o", "json", "--api-url", c.url, "--api-key", c.key, "--archive", db)
		if code != c.want || code != teamCode {
			t.Errorf("%s: cost --team exit %d, team exit %d, want %d\n%s\n%s", c.name, code, teamCode, c.want, errOut, teamErr)
		}
		if out != "" || errOut == "" || strings.Contains(errOut, c.key) {
			t.Errorf("%s: stdout %q, stderr %q", c.name, out, errOut)
		}
	}

	front := &hostile.Refuser{Next: srv, Method: "GET", Route: "/v2/team/activity", N: 1000, Status: 500, Exact: true}
	hs := httptest.NewServer(front)
	t.Cleanup(hs.Close)
	out, errOut, code := exec("cost", "--team", "-o", "json", "--api-url", hs.URL, "--api-key", srv.Key, "--archive", db)
	var rep struct {
		Team struct {
			Period *struct {
				UsedCredits *float64 `json:"usedCredits"`
			} `json:"period"`
			Unavailable map[string]string `json:"unavailable"`
		} `json:"team"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("a failing part: no JSON (%v): %s\n%s", err, out, errOut)
	}
	if code != ExitFailed || rep.Team.Period == nil || rep.Team.Unavailable["activity"] == "" || !strings.Contains(errOut, "activity") {
		t.Errorf("a failing part: exit %d, %+v\n%s", code, rep.Team, errOut)
	}
}
