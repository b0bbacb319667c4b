package export

import (
	"context"
	"io"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// Load reads a recording (firewatch watch --record) or saved trace
// bodies into a new store, all at once.
func Load(ctx context.Context, r io.Reader) (*model.Store, error) {
	s := model.NewStore()
	err := poller.Replay(ctx, r, poller.ReplayOptions{Instant: true}, func(u poller.Update) {
		if u.Request != nil {
			s.SetRequest(*u.Request)
		}
		if u.Poll != nil {
			s.Merge(u.Poll)
		}
	})
	return s, err
}
