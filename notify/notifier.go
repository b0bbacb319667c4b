package notify

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// Config is what New needs: the moments to send and the sinks to send them
// to (at least one of Terminal, Command and URL).
type Config struct {
	On On
	// Terminal, if set, shows each moment as a desktop notification
	// through the terminal (terminal.go).
	Terminal *Terminal
	// Command, if set, is run for each moment: the program and its
	// arguments (SplitCommand), the moment's text appended (command.go).
	Command []string
	// URL, if set, is POSTed each moment as JSON (webhook.go). It is a
	// secret (a Slack webhook's URL is its token): add it to Secrets.
	URL string
	// Secrets are redacted from everything sent and said.
	Secrets *text.Secrets
	// Retry is the webhook's policy after a 429, a 5xx or a network
	// failure; its Tries 0 means webhookTries. Its Notify is set here.
	Retry poller.Retry
	// Transport replaces the webhook's HTTP transport (tests).
	Transport http.RoundTripper
	// UserAgent is the webhook's User-Agent.
	UserAgent string
	// Log gets a line for every moment, delivery, failure and wait (the
	// debug log); Say the first failure of each sink and the webhook's
	// first wait, for the user (stderr, or the screen's footer). Either
	// may be nil. Both are called from the sinks' goroutines.
	Log func(string)
	Say func(string)
	// Now is the clock of Moment.At (nil: time.Now).
	Now func() time.Time
	// Claims, if set, decides each moment of the team's sinks (Command
	// and URL; not Terminal, which is this process's) once for every
	// process that shares it (claims.go): the archive. Nil: this
	// process decides alone.
	Claims Claimer
	// ClaimTTL is a claim's lease (0: DefaultClaimTTL).
	ClaimTTL time.Duration
}

// queueLen bounds each sink's queue: a run has a handful of moments, a
// hub following many runs more. A sink that far behind drops a moment
// (rank below): the drop is logged, said once, and counted, and the next
// moment that sink delivers says how many were dropped (Moment.Dropped).
const queueLen = 32

// rank orders moments for a full queue: a run's end is what matters most
// (it comes once, and last), then a budget share, then an attention item.
// A moment arriving at a full queue takes the place of the oldest queued
// one of a lower rank; when there is none, it is the one dropped.
func rank(e Event) int {
	switch e {
	case EventFinished, EventFailed:
		return 2
	case EventBudget, EventTeam:
		return 1
	}
	return 0
}

// Notifier decides moments (Follow, CrawlEnded) and delivers them. Safe
// for concurrent use; Close it when the command ends.
type Notifier struct {
	on      On
	secrets *text.Secrets
	log     func(string)
	say     func(string)
	now     func() time.Time

	mu     sync.Mutex
	sent   map[string]bool // moment keys claimed
	closed bool
	sinks  []*worker

	ctx    context.Context // the sinks' deliveries; cancelled when Close gives up
	cancel context.CancelFunc
	wg     sync.WaitGroup

	claims   Claimer
	claimTTL time.Duration
	alone    sync.Once // the archive failed a claim: said once
}

// sink delivers one moment. Its failures are typed for the user by err's
// message (said once per sink) and never retried by the caller.
type sink interface {
	name() string
	deliver(ctx context.Context, m *Moment) error
}

// worker is a sink with its queue and goroutine. q and dropped are
// guarded by the Notifier's mu; wake tells the goroutine q has grown or
// the Notifier closed.
type worker struct {
	s       sink
	q       []*Moment
	wake    chan struct{}
	dropped int       // moments dropped since the last one delivered said so
	once    sync.Once // the first failure is said
	behind  sync.Once // the first drop is said

	// team is the sink's claim id (a hash of its URL or command) when its
	// moments are claimed for the team; "" for this process's own.
	team string
	// later are the moments another process claimed and has not sent
	// yet: claimed again when that claim expires (guarded by mu).
	later []heldMoment
}

// heldMoment is a moment another process holds the claim of, to claim
// again at due.
type heldMoment struct {
	m   *Moment
	due time.Time
}

// New starts the sinks of c. It fails on a Command that cannot be run or a
// URL firewatch does not send to (what the user gave is wrong).
func New(c Config) (*Notifier, error) {
	n := &Notifier{on: c.On, secrets: c.Secrets, log: c.Log, say: c.Say, now: c.Now, sent: make(map[string]bool),
		claims: c.Claims, claimTTL: c.ClaimTTL}
	if n.claimTTL <= 0 {
		n.claimTTL = DefaultClaimTTL
	}
	if n.now == nil {
		n.now = time.Now
	}
	var sinks []sink
	if c.Terminal != nil {
		sinks = append(sinks, c.Terminal)
	}
	if len(c.Command) > 0 {
		cmd, err := newCommand(c.Command, n)
		if err != nil {
			return nil, err
		}
		sinks = append(sinks, cmd)
	}
	if c.URL != "" {
		wh, err := newWebhook(c, n)
		if err != nil {
			return nil, err
		}
		sinks = append(sinks, wh)
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	for _, s := range sinks {
		w := &worker{s: s, wake: make(chan struct{}, 1)}
		if ts, ok := s.(teamSink); ok && n.claims != nil {
			w.team = ts.claimID()
		}
		n.sinks = append(n.sinks, w)
		n.wg.Add(1)
		go n.run(w)
	}
	return n, nil
}

// claim reports whether the moment key is new, and marks it sent.
func (n *Notifier) claim(key string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.sent[key] {
		return false
	}
	n.sent[key] = true
	return true
}

// send queues m for every sink; it never blocks. A sink whose queue is
// full drops a moment (rank), counted for the next one it delivers.
func (n *Notifier) send(m *Moment) {
	m.At = n.now()
	m.Text = describe.Truncate(m.Text, maxText)
	n.logf("notify: %s: %s", m.Event, m.Text)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	for _, w := range n.sinks {
		if len(w.q) >= queueLen {
			drop := m
			for i, q := range w.q {
				if rank(q.Event) < rank(m.Event) {
					drop = q
					w.q = append(w.q[:i:i], w.q[i+1:]...)
					w.q = append(w.q, m)
					break
				}
			}
			w.dropped++
			n.logf("notify: %s is %d moments behind: %q dropped (%s since the last delivered)", w.s.name(), queueLen, drop.Text, plural2(w.dropped, "notification"))
			w.behind.Do(func() {
				n.sayf("%s is too slow: notifications are being dropped (the next one delivered says how many; --debug has each)", w.s.name())
			})
			continue
		}
		w.q = append(w.q, m)
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// next takes w's next moment: a queued one, else one held by another
// process's claim that is due to be claimed again; ok is false once the
// Notifier is closed and w has nothing left (those held by others are
// waited for until Close gives up: their claimer may have died).
func (n *Notifier) next(w *worker) (m *Moment, ok bool) {
	for {
		n.mu.Lock()
		if len(w.q) > 0 {
			m = w.q[0]
			w.q[0] = nil
			w.q = w.q[1:]
			n.mu.Unlock()
			return m, true
		}
		closed := n.closed
		var timer *time.Timer
		var wait <-chan time.Time
		if len(w.later) > 0 {
			first := 0
			for i, h := range w.later {
				if h.due.Before(w.later[first].due) {
					first = i
				}
			}
			d := time.Until(w.later[first].due)
			if d <= 0 {
				m = w.later[first].m
				w.later = append(w.later[:first:first], w.later[first+1:]...)
				n.mu.Unlock()
				return m, true
			}
			timer = time.NewTimer(d)
			wait = timer.C
		}
		later := len(w.later)
		n.mu.Unlock()
		if closed && later == 0 {
			return nil, false
		}
		if n.ctx.Err() != nil {
			if timer != nil {
				timer.Stop()
			}
			n.logf("notify: %s: %s claimed by another firewatch left to it at exit", w.s.name(), plural2(later, "moment"))
			return nil, false
		}
		select {
		case <-w.wake:
		case <-wait:
		case <-n.ctx.Done():
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// withDrops is m marked with the drops of w since the last moment it
// delivered, which it now tells.
func (n *Notifier) withDrops(w *worker, m *Moment) *Moment {
	n.mu.Lock()
	defer n.mu.Unlock()
	if w.dropped > 0 {
		c := *m
		c.Dropped = w.dropped
		c.Text += " (" + droppedText(w.dropped) + ")"
		m, w.dropped = &c, 0
	}
	return m
}

// droppedText is "3 notifications were dropped".
func droppedText(k int) string {
	return plural2(k, "notification") + " " + plural(k, "was", "were") + " dropped"
}

// plural2 is "1 notification", "3 notifications".
func plural2(k int, word string) string {
	return fmt.Sprintf("%d %s", k, plural(k, word, word+"s"))
}

// run delivers w's moments one after the other. A moment not delivered
// (the sink failed, or Close gave up) leaves its count of drops for the
// next one. A team sink's moment is claimed first (claims.go): one
// another process claimed is not delivered here.
func (n *Notifier) run(w *worker) {
	defer n.wg.Done()
	for {
		m, ok := n.next(w)
		if !ok {
			return
		}
		if n.ctx.Err() != nil {
			continue // Close gave up: drop what is left
		}
		claimed := false
		if w.team != "" {
			var send bool
			if claimed, send = n.claim1(w, m); !send {
				continue
			}
		}
		m = n.withDrops(w, m)
		stop := func() {}
		if claimed {
			stop = n.renewing(w, m)
		}
		err := w.s.deliver(n.ctx, m)
		stop()
		if claimed {
			n.claimDone(w, m, err)
		}
		if err != nil {
			n.undeliver(w, m)
			msg := n.secrets.Redact(err.Error())
			n.logf("notify: %s: %s", w.s.name(), msg)
			w.once.Do(func() {
				n.sayf("notification failed (the watch goes on; later failures go to --debug): %s", msg)
			})
		}
	}
}

// undeliver gives the drops m was to tell back to w's count.
func (n *Notifier) undeliver(w *worker, m *Moment) {
	n.mu.Lock()
	w.dropped += m.Dropped
	n.mu.Unlock()
}

// Close stops taking moments and waits for the sinks to deliver those
// queued, until ctx ends; then it gives up on the rest. It returns the
// number of moments not delivered for that reason (abandoned) and those
// dropped by a sink that was behind and not told since in a delivered
// moment (dropped), the most of any one sink each.
func (n *Notifier) Close(ctx context.Context) (abandoned, dropped int) {
	if n == nil {
		return 0, 0
	}
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		for _, w := range n.sinks {
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}
	n.mu.Unlock()
	done := make(chan struct{})
	go func() {
		n.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		n.mu.Lock()
		for _, w := range n.sinks {
			abandoned = max(abandoned, len(w.q))
		}
		n.mu.Unlock()
		n.cancel()
		<-done // every sink's wait ends with the context
	}
	n.cancel()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, w := range n.sinks {
		dropped = max(dropped, w.dropped)
		if w.dropped > 0 {
			n.logf("notify: %s: %s and not told", w.s.name(), droppedText(w.dropped))
		}
	}
	return abandoned, dropped
}

// clean makes a string fit to send: one line, at most max cells, the
// secrets redacted (before and after sanitising, which can join a key
// split by escape sequences).
func (n *Notifier) clean(s string, max int) string {
	return n.secrets.Redact(describe.OneLine(n.secrets.Redact(s), max))
}

func (n *Notifier) logf(format string, args ...any) {
	if n.log != nil {
		n.log(n.secrets.Redact(fmt.Sprintf(format, args...)))
	}
}

func (n *Notifier) sayf(format string, args ...any) {
	if n.say != nil {
		n.say(n.secrets.Redact(fmt.Sprintf(format, args...)))
	}
}
