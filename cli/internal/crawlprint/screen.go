package crawlprint

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/firewatch/firewatch/poller"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
)

// ScreenNotes is where the crawl screen's client says its waits: say
// queues a line for the screen's footer (dropped when the screen is behind).
func ScreenNotes() (notes <-chan string, say func(string)) {
	ch := make(chan string, 8)
	return ch, func(line string) {
		select {
		case ch <- line:
		default:
		}
	}
}

// ScreenOutputs are the crawl screen's outputs beside it: --pages-dir as
// each page arrives (on the watch's goroutine), then, once the screen is
// left, the closing counts and --summary.
type ScreenOutputs struct {
	env     Env
	summary string
	run     *Run // the crawl, its figures filled in at the end
	mu      sync.Mutex
	pages   *Pages // nil without --pages-dir
	err     error  // --pages-dir's first failure, for exit 8
}

// OpenScreenOutputs opens o's --pages-dir for the screen of the crawl id
// of crawlURL (demo: the demo's crawl).
func OpenScreenOutputs(env Env, o Options, id, crawlURL string, demo bool) (*ScreenOutputs, error) {
	s := &ScreenOutputs{env: env, summary: o.Summary, run: &Run{ID: id, URL: crawlURL, Start: time.Now(), Demo: demo}}
	if o.PagesDir != "" {
		var err error
		if s.pages, err = OpenPages(o.PagesDir, env.Secrets); err != nil {
			return nil, env.OutputError("--pages-dir", err)
		}
	}
	return s, nil
}

// OnDoc is the screen's hook for each page; nil without --pages-dir. A
// page after a failure is not written.
func (s *ScreenOutputs) OnDoc() func(*poller.CrawlDoc) {
	if s.pages == nil {
		return nil
	}
	return func(d *poller.CrawlDoc) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.err != nil {
			return
		}
		if err := s.pages.Write(d); err != nil {
			s.err = s.env.OutputError("--pages-dir", err)
		}
	}
}

// End says the closing counts of what the screen saw (res), writes
// --summary (however the screen ended: a signal too) and closes
// --pages-dir, the first of them to fail said on stderr. It is how the
// screen ended: the crawl's status, the error that stopped its watch, or
// ctx's cause (--timeout, a signal), or quit when the user left it before
// the crawl's end.
func (s *ScreenOutputs) End(ctx context.Context, res uicrawl.Result, quit error) End {
	r, seen := s.run, res.Seen
	r.Status, r.Completed, r.Total, r.Credits, r.Pages, r.Failed, r.Robots = seen.Status, seen.Completed, seen.Total, seen.Credits, seen.Pages, seen.Failed, seen.Robots
	r.FailedPages, r.Late, r.Missing, r.ErrorsAfterEnd = seen.FailedPages, seen.Late, seen.Missing, seen.ErrorsAfterEnd
	s.env.SayEnd(r)
	end := End{Status: res.Status, Err: res.Err, Output: s.env.WriteSummary(s.summary, r)}
	s.mu.Lock()
	if s.pages != nil {
		if cerr := s.pages.Close(); cerr != nil && s.err == nil {
			s.err = s.env.OutputError("--pages-dir", cerr)
		}
	}
	if s.err != nil {
		fmt.Fprintf(s.env.Stderr, "firewatch: %v\n", s.err)
		if end.Output == nil {
			end.Output = s.err
		}
	}
	s.mu.Unlock()
	switch {
	case ctx.Err() != nil:
		end.Err = context.Cause(ctx)
	case end.Err == nil && !poller.CrawlTerminal(res.Status):
		end.Err = quit
	}
	return end
}
