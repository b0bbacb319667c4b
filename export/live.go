package export

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
)

// Live exports a watch as it goes. It is fed the watch's polls (Feed, on
// the goroutine that receives them) and keeps its own store on its own
// goroutine: the watch's store, its UI and its pace are never touched,
// whatever the endpoint does. A span is sent when it ends; Close sends the
// rest.
type Live struct {
	x *Exporter

	mu      sync.Mutex
	queue   [][]byte
	closed  bool
	wake    chan struct{}
	done    chan struct{}
	store   *model.Store
	run     follow.Run     // store with an attention tracker, for Options.FactsOf
	factsOf bool           // Options.FactsOf is set: loop keeps run's tracker
	req     *model.Request // set by SetRequest, taken by loop
}

// SetRequest hands over what the run was asked to do (a recording's
// header, read after the export started).
func (l *Live) SetRequest(r model.Request) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.req = &r
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// NewLive starts a live export with the options of New.
func NewLive(o Options) (*Live, error) {
	x, err := New(o)
	if err != nil {
		return nil, err
	}
	l := &Live{x: x, wake: make(chan struct{}, 1), done: make(chan struct{}), store: model.NewStore()}
	l.run.Store = l.store
	if l.factsOf = o.FactsOf != nil; l.factsOf {
		// Called by Close once loop has ended: the run is loop's no more.
		x.o.Facts = func() *Facts { return o.FactsOf(&l.run) }
	}
	go l.loop()
	return l, nil
}

// Feed hands over one poll. It copies what it needs (the new events' raw
// bytes and the credits) and returns at once.
func (l *Live) Feed(p *model.Poll) {
	if l == nil || p == nil || (len(p.Events) == 0 && !p.HasCredits) {
		return
	}
	n := 64
	for _, e := range p.Events {
		n += len(e.Raw) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"success":true,"id":`...)
	b, _ = jsontext.AppendQuote(b, p.RunID)
	if p.HasCredits {
		b = append(b, `,"creditsUsed":`...)
		b = strconv.AppendFloat(b, p.CreditsUsed, 'g', -1, 64)
	}
	b = append(b, `,"events":[`...)
	for i, e := range p.Events {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e.Raw...)
	}
	b = append(b, "]}"...)
	l.mu.Lock()
	if !l.closed {
		l.queue = append(l.queue, b)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *Live) loop() {
	defer close(l.done)
	for {
		l.mu.Lock()
		q, closed, req := l.queue, l.closed, l.req
		l.queue, l.req = nil, nil
		l.mu.Unlock()
		if req != nil {
			l.store.SetRequest(*req)
		}
		for _, body := range q {
			if d, err := l.store.Ingest(body); err == nil {
				l.x.Observe(l.store, d)
				if l.factsOf {
					// As archiving.Replay feeds a recording's tracker: the
					// events alone, never the wall clock of this watch.
					l.run.Tracker().Update(d, time.Now())
				}
			}
		}
		if closed && len(q) == 0 {
			return
		}
		if len(q) == 0 {
			<-l.wake
		}
	}
}

// Failing reports whether an export has failed so far.
func (l *Live) Failing() bool { return l != nil && l.x.Failing() }

// Close sends what has not been sent (open spans ended at the last
// event's time, marked unfinished) and waits for the sending, at most
// until ctx ends.
func (l *Live) Close(ctx context.Context) Stats {
	if l == nil {
		return Stats{}
	}
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	select {
	case <-l.done:
	case <-ctx.Done():
		return l.x.Close(ctx, nil)
	}
	return l.x.Close(ctx, l.store)
}
