package interact

import (
	"context"

	"github.com/firewatch/firewatch/poller"
)

// ClientBackend is the Backend of scrape job id on the service c talks to.
func ClientBackend(c *poller.Client, id string) Backend { return &clientBackend{c, id} }

type clientBackend struct {
	c  *poller.Client
	id string
}

func (b *clientBackend) Interact(ctx context.Context, req *poller.InteractRequest) (*poller.InteractResult, error) {
	return b.c.Interact(ctx, b.id, req)
}

func (b *clientBackend) Stop(ctx context.Context) (*poller.StopResult, error) {
	return b.c.StopInteract(ctx, b.id)
}
