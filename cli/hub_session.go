package cli

import (
	"context"

	"os"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui"
)

// What a command run for a hub's SSH session takes from it (a.hub, a
// *hubsvc.Session handed to executeFor; nil outside a hub): the hub's
// service and key, the session's terminal and environment.

// baseURLOf is the service a command uses: the hub's in a hub session,
// else the flag's, $FIRECRAWL_API_URL's or the default.
func (a *app) baseURLOf(flag string) string {
	if u := a.hub.Service().BaseURL; u != "" {
		return u
	}
	return poller.ResolveBaseURL(flag)
}

// keyOf is the API key a command uses: the hub's in a hub session (no
// flag or variable of the session's can change it), else resolveKey's.
func (a *app) keyOf(flag string) string {
	if a.hub != nil {
		return a.hub.Service().Key
	}
	return resolveKey(flag)
}

// stdoutTerminal reports whether stdout is a terminal, and its width: the
// process's own, or a hub session's.
func (a *app) stdoutTerminal() (bool, int) {
	if t := a.hub.Terminal(); t != nil {
		w, _ := t.Size()
		return true, w
	}
	return isTerminal(a.stdout)
}

// noColorEnv reports NO_COLOR set or TERM=dumb in the environment of
// whoever watches: the process's, or a hub session's.
func (a *app) noColorEnv() bool {
	lookup := os.LookupEnv
	if t := a.hub.Terminal(); t != nil {
		lookup = t.LookupEnv
	}
	return theme.NoColorEnv(lookup)
}

// sessionASCII reports whether a hub session's locale (its LANG, LC_*)
// cannot show UTF-8: its runs and crawl screens are then drawn in ASCII,
// as its watch screen is. Outside a hub --ascii alone decides.
func (a *app) sessionASCII() bool {
	t := a.hub.Terminal()
	return t != nil && theme.ASCIIEnv(t.LookupEnv)
}

// watchShared shows the hub's follower of jobID on the session's terminal
// until the person leaves it; outcome is the run's, "" when it has not
// finished.
func (a *app) watchShared(ctx context.Context, w *watchSession, jobID string) (outcome string, err error) {
	cfg := ui.Config{JobID: jobID, NoColor: !w.Color, ASCII: w.Opts.ASCII, Mouse: w.Opts.Mouse, BackToList: true, RerunOf: w.RerunOf}
	if w.Start != nil {
		cfg.Start = w.Start.StartAgent
	}
	res, outcome, err := a.hub.WatchShared(ctx, cfg)
	w.Back, w.Interrupted, w.Next = res.Back, res.Interrupted, res
	return outcome, err
}
