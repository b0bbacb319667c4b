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
}

// queueLen bounds each sink's queue: a run has a handful of moments; a
// sink that is that far behind drops the newest, said in the log.
const queueLen = 32

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
}

// sink delivers one moment. Its failures are typed for the user by err's
// message (said once per sink) and never retried by the caller.
type sink interface {
	name() string
	deliver(ctx context.Context, m *Moment) error
}

// worker is a sink with its queue and goroutine.
type worker struct {
	s    sink
	q    chan *Moment
	once sync.Once // the first failure is said
}

// New starts the sinks of c. It fails on a Command that cannot be run or a
// URL firewatch does not send to (what the user gave is wrong).
func New(c Config) (*Notifier, error) {
	n := &Notifier{on: c.On, secrets: c.Secrets, log: c.Log, say: c.Say, now: c.Now, sent: make(map[string]bool)}
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
		w := &worker{s: s, q: make(chan *Moment, queueLen)}
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

// send queues m for every sink; it never blocks.
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
		select {
		case w.q <- m:
		default:
			n.logf("notify: %s is %d moments behind: %q dropped", w.s.name(), queueLen, m.Text)
		}
	}
}

// run delivers w's moments one after the other.
func (n *Notifier) run(w *worker) {
	defer n.wg.Done()
	for m := range w.q {
		if n.ctx.Err() != nil {
			continue // Close gave up: drop what is left
		}
		if err := w.s.deliver(n.ctx, m); err != nil {
			msg := n.secrets.Redact(err.Error())
			n.logf("notify: %s: %s", w.s.name(), msg)
			w.once.Do(func() {
				n.sayf("notification failed (the watch goes on; later failures go to --debug): %s", msg)
			})
		}
	}
}

// Close stops taking moments and waits for the sinks to deliver those
// queued, until ctx ends; then it gives up on the rest. It returns the
// number of moments not delivered for that reason.
func (n *Notifier) Close(ctx context.Context) (abandoned int) {
	if n == nil {
		return 0
	}
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		for _, w := range n.sinks {
			close(w.q)
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
		for _, w := range n.sinks {
			abandoned += len(w.q)
		}
		n.cancel()
		<-done // every sink's wait ends with the context
		return abandoned
	}
	n.cancel()
	return 0
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
