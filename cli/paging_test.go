package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/poller"
)

// listFront is a hostile runs list: page(before, n) makes the n-th page
// (n from 0) for the cursor asked; every page names a next page whose
// cursor is 1 ms before the one asked.
type listFront struct {
	requests atomic.Int64
	page     func(before int64, n int64) []string // the runs' JSON
}

func (f *listFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.requests.Add(1) - 1
	before, _ := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64)
	if before == 0 {
		before = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	}
	runs := f.page(before, n)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"success":true,"data":[%s],"next":"https://api.firecrawl.dev/v2/agent?before=%d"}`, strings.Join(runs, ","), before-1)
}

func runJSON(i int64, status string) string {
	return fmt.Sprintf(`{"id":"%08x-0000-4000-8000-000000000000","status":%q,"createdAt":"2026-10-01T00:00:00Z","prompt":"p"}`, i, status)
}

// TestPagingEnds: every pager ends against a hostile list. The same runs on
// every page (or none) while the cursor moves back 1 ms ends at the first
// page that brings no new run, and the user is told why; endless distinct
// runs are bounded by --limit, and, when none matches the status filter,
// by poller.MaxScanPages.
func TestPagingEnds(t *testing.T) {
	t.Parallel()
	same := func(int64, int64) []string { return []string{runJSON(1, "completed"), runJSON(2, "completed")} }
	none := func(int64, int64) []string { return nil }
	endless := func(_ int64, n int64) []string {
		var out []string
		for i := range int64(poller.ListPageSize) {
			out = append(out, runJSON(n*100+i, "completed"))
		}
		return out
	}
	for _, c := range []struct {
		name     string
		page     func(int64, int64) []string
		args     []string
		requests int64
		lines    int
		said     string
	}{
		{"same runs", same, []string{"runs", "-o", "json", "--limit", "1000"}, 2, 2, "a page brought no new run"},
		{"same runs, plain", same, []string{"runs", "-o", "plain", "--limit", "1000"}, 2, 3, "a page brought no new run"},
		{"empty pages", none, []string{"runs", "-o", "json"}, 1, 0, "a page brought no new run"},
		{"endless, --limit", endless, []string{"runs", "-o", "json", "--limit", "50"}, 3, 50, ""},
		{"endless, none matching", endless, []string{"runs", "-o", "json", "--status", "failed", "--limit", "5"}, poller.MaxScanPages, 0, "without finding more"},
		{"watch --latest", endless, []string{"watch", "--latest", "-o", "json"}, latestPages, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := &listFront{page: c.page}
			hs := httptest.NewServer(f)
			defer hs.Close()
			args := append(slices.Clone(c.args), "--api-url", hs.URL, "--api-key", "fc-test")
			var out, errOut strings.Builder
			execute(context.Background(), args, strings.NewReader(""), &out, &errOut, poller.Retry{})
			lines := strings.Count(out.String(), "\n")
			if f.requests.Load() != c.requests || lines != c.lines || !strings.Contains(errOut.String(), c.said) {
				t.Errorf("%d requests, %d lines (want %d, %d), stderr should say %q:\n%s", f.requests.Load(), lines, c.requests, c.lines, c.said, errOut.String())
			}
		})
	}
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(b []byte) (int, error) { w.n.Add(int64(len(b))); return len(b), nil }

// TestRunsJSONStreams: runs -o json writes each page before it asks for the
// next: when the second request arrives, the first page is out.
func TestRunsJSONStreams(t *testing.T) {
	out := &countingWriter{}
	var atSecond atomic.Int64
	f := &listFront{}
	f.page = func(_ int64, n int64) []string {
		if n == 1 {
			atSecond.Store(out.n.Load())
		}
		var runs []string
		for i := range int64(poller.ListPageSize) {
			runs = append(runs, runJSON(n*100+i, "completed"))
		}
		return runs
	}
	hs := httptest.NewServer(f)
	defer hs.Close()
	t.Setenv("FIRECRAWL_API_URL", hs.URL)
	t.Setenv("FIRECRAWL_API_KEY", "fc-test")
	var errOut strings.Builder
	if code := execute(context.Background(), []string{"runs", "-o", "json", "--limit", "60"}, strings.NewReader(""), out, &errOut, poller.Retry{}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if atSecond.Load() == 0 {
		t.Error("nothing was written before the second page was asked for")
	}
}
