package hub

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// startups are the connections that have not logged in yet, as sshd's
// MaxStartups and LoginGraceTime bound them: at most max at once, and each
// has grace to start logging in (its key exchange done, a first login
// attempt made) before it is closed; one that has started has the
// handshake timeout to finish. When a new connection comes and max are
// held, the oldest that has not started logging in is closed to make room
// (else the oldest of all): silent connections, however many addresses
// they come from, hold at most max descriptors and cannot keep a person
// out, whose login takes a moment.
type startups struct {
	mu    sync.Mutex
	max   int
	grace time.Duration
	held  []*pending // oldest first
	seen  int        // connections taken, ever (tests)
	most  int        // the most held at once (tests)

	log              *logger
	dropped, expired int // closed since the last line about it
	saidAt           time.Time
	flush            *time.Timer
}

// pending is one connection that has not logged in.
type pending struct {
	conn    net.Conn
	started bool // it has made a login attempt
	closed  bool // the hub closed it: said in one line for many
	gone    bool // no longer held
	timer   *time.Timer
}

func newStartups(limit int, grace time.Duration, log *logger) *startups {
	return &startups{max: limit, grace: grace, log: log}
}

// add holds conn, closing another to make room when max are held.
func (s *startups) add(conn net.Conn) *pending {
	p := &pending{conn: conn}
	s.mu.Lock()
	var victim *pending
	if len(s.held) >= s.max {
		victim = s.held[0]
		for _, q := range s.held {
			if !q.started {
				victim = q
				break
			}
		}
		s.removeLocked(victim)
		victim.closed = true
		s.dropped++
	}
	s.held = append(s.held, p)
	s.seen++
	s.most = max(s.most, len(s.held))
	p.timer = time.AfterFunc(s.grace, func() { s.expire(p) })
	s.mu.Unlock()
	if victim != nil {
		victim.conn.Close()
		s.say()
	}
	return p
}

// expire closes p if it has not started logging in within the grace.
func (s *startups) expire(p *pending) {
	s.mu.Lock()
	if p.gone || p.started {
		s.mu.Unlock()
		return
	}
	s.removeLocked(p)
	p.closed = true
	s.expired++
	s.mu.Unlock()
	p.conn.Close()
	s.say()
}

// start says p has made a login attempt: the grace no longer applies.
func (s *startups) start(p *pending) {
	if p == nil {
		return
	}
	s.mu.Lock()
	p.started = true
	s.mu.Unlock()
}

// done lets go of p: it logged in, failed or closed.
func (s *startups) done(p *pending) {
	if p == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !p.gone {
		s.removeLocked(p)
	}
}

// closedByHub reports whether the hub closed p (said in its own line).
func (s *startups) closedByHub(p *pending) bool {
	if p == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return p.closed
}

func (s *startups) removeLocked(p *pending) {
	p.gone = true
	p.timer.Stop()
	for i, q := range s.held {
		if q == p {
			s.held = append(s.held[:i], s.held[i+1:]...)
			return
		}
	}
}

// count is the number of connections held now.
func (s *startups) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.held)
}

// closeAll closes every connection held (the hub is stopping).
func (s *startups) closeAll() {
	s.mu.Lock()
	held := s.held
	s.held = nil
	for _, p := range held {
		p.gone, p.closed = true, true
		p.timer.Stop()
	}
	s.mu.Unlock()
	for _, p := range held {
		p.conn.Close()
	}
}

// say logs the connections closed, in one line at most every sayEvery.
func (s *startups) say() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropped+s.expired == 0 {
		return
	}
	if wait := sayEvery - time.Since(s.saidAt); wait > 0 {
		if s.flush == nil {
			s.flush = time.AfterFunc(wait, func() {
				s.mu.Lock()
				s.flush = nil
				s.mu.Unlock()
				s.say()
			})
		}
		return
	}
	s.saidAt = time.Now()
	var line string
	if s.dropped > 0 {
		line = fmt.Sprintf("%d to make room (at most %d log in at once)", s.dropped, s.max)
	}
	if s.expired > 0 {
		if line != "" {
			line += ", "
		}
		line += fmt.Sprintf("%d that made no login attempt within %s", s.expired, s.grace)
	}
	s.log.printf("closed %d connection(s) that had not logged in: %s", s.dropped+s.expired, line)
	s.dropped, s.expired = 0, 0
}
