package cli

import (
	"context"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/poller"
)

// meterLive is c with its requests counted as live work into the team's
// request budget in st (archiving.LiveMeter: never waiting), so that the
// background work of every firewatch on the archive (passes, the runs
// screen's and hubs' completions) takes only what it leaves; and stop,
// which writes the last counts and ends the meter, to be called before st
// is closed. Without st (no archive, or one that keeps no budget) it is c
// and a stop that does nothing. The one way the CLI's live follows (watch,
// run, the runs screen's list and the runs it opens) are metered; a hub
// meters its own once for all its followers (cli/internal/hubsvc).
func (a *app) meterLive(ctx context.Context, c *poller.Client, svc service, st archive.Store) (*poller.Client, *archiving.LiveMeter, func()) {
	if c == nil || st == nil || archive.ReadOnly(st) {
		return c, nil, func() {}
	}
	m := archiving.NewLiveMeter(ctx, st, svc.baseURL, archive.TeamOf(svc.key), rateLimit())
	if m == nil {
		return c, nil, func() {}
	}
	return c.WithPacer(m), m, m.Stop
}
