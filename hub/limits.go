package hub

import (
	"net"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/time/rate"
)

// PerIP limits the new connections from one address: Burst at once, then
// one every Every. A connection over it is closed before the SSH
// handshake, which is what costs the hub.
type PerIP struct {
	Burst int
	Every time.Duration
}

// Defaults of the per-address limit: a team behind one address logs in
// at once, a script asks once a second.
const (
	DefaultBurst = 20
	DefaultEvery = time.Second
)

// maxAddrs bounds the addresses remembered: past it those whose bucket is
// full again (they have not connected for a while) are forgotten.
const maxAddrs = 4096

// addrLimiter is the per-address token bucket of PerIP.
type addrLimiter struct {
	mu    sync.Mutex
	every time.Duration
	burst int
	by    map[string]*bucket
}

type bucket struct {
	lim  *rate.Limiter
	said time.Time // when a refusal was last logged
}

// sayEvery is how often refusals of one address are logged: a flood of
// connections is one line every so often, not a flood of lines.
const sayEvery = 10 * time.Second

func newAddrLimiter(p PerIP) *addrLimiter {
	if p.Burst <= 0 {
		p.Burst = DefaultBurst
	}
	if p.Every <= 0 {
		p.Every = DefaultEvery
	}
	return &addrLimiter{every: p.Every, burst: p.Burst, by: map[string]*bucket{}}
}

// allow takes a token for the connection from addr; say tells whether a
// refusal is to be logged.
func (l *addrLimiter) allow(addr net.Addr) (ok, say bool) {
	host := addr.String()
	if a, isTCP := addr.(*net.TCPAddr); isTCP {
		host = a.IP.String()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.by[host]
	if b == nil {
		if len(l.by) >= maxAddrs {
			l.forget()
		}
		b = &bucket{lim: rate.NewLimiter(rate.Every(l.every), l.burst)}
		l.by[host] = b
	}
	if b.lim.Allow() {
		return true, false
	}
	now := time.Now()
	if now.Sub(b.said) < sayEvery {
		return false, false
	}
	b.said = now
	return false, true
}

// forget drops the addresses whose bucket is full: they lose nothing.
func (l *addrLimiter) forget() {
	for k, b := range l.by {
		if b.lim.Tokens() >= float64(l.burst) {
			delete(l.by, k)
		}
	}
}

// Bounds on what a session may ask before it starts: each environment
// variable it sends is kept for the session's life.
const (
	maxEnv     = 64
	maxEnvSize = 4 << 10
)

// guardedChannel is a session channel whose requests pass through guard
// before charm.land/ssh sees them.
type guardedChannel struct{ gossh.NewChannel }

func (c guardedChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := c.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go guard(reqs, out)
	return ch, out, nil
}

// guard passes a session's requests on, but refuses environment variables
// past maxEnv or larger than maxEnvSize (the SSH library keeps every one)
// and agent forwarding (the hub never uses a person's agent, and says so).
func guard(in <-chan *gossh.Request, out chan<- *gossh.Request) {
	defer close(out)
	env := 0
	for req := range in {
		switch req.Type {
		case "env":
			env++
			if env > maxEnv || len(req.Payload) > maxEnvSize {
				if req.WantReply {
					_ = req.Reply(false, nil)
				}
				continue
			}
		case "auth-agent-req@openssh.com":
			if req.WantReply {
				_ = req.Reply(false, nil)
			}
			continue
		}
		out <- req
	}
}
