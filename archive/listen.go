package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// The doorbells' listener: one connection per store (pgx), LISTENing on
// the archive's channel, shared by every subscriber of the store, whose
// doorbells it hands to the subscribers of their lease key (the pattern
// of river's notifier). It is made when the first subscriber comes and
// closed when the last one goes; checked when it has been quiet for
// listenCheck; and made again when it drops, after a wait that grows
// from relistenFirst (the store's, for the tests) to relistenMax, every
// subscriber then told that doorbells may have been missed.
//
// Not jackc/pgxlisten: it hands notifications out by channel (the
// archive has one, the key is in the payload), waits a fixed delay
// between reconnections, and never checks a quiet connection, which a
// network gone without a reset leaves waiting for good.
const (
	listenCheck   = 10 * time.Second
	relistenFirst = 100 * time.Millisecond
	relistenMax   = 3 * time.Second
)

// bellBuffer is how many doorbells wait for one slow subscriber; past it
// the oldest is dropped and a Missed doorbell says so.
const bellBuffer = 16

// listenApp is the listener's application_name (pg_stat_activity shows
// it), with the channel's suffix.
const listenApp = "firewatch doorbells "

// bellChannel is the archive's NOTIFY channel: one per schema, since
// channels are the database's and two archives may share one.
func bellChannel(schema string) string {
	h := sha256.Sum256([]byte("firewatch doorbells\x00" + schema))
	return "fw_bell_" + hex.EncodeToString(h[:8])
}

// bellHub is a store's listener and its subscribers.
type bellHub struct {
	// making serialises the making of the listener's connection, which
	// may wait for the server: only those who subscribe wait for it.
	making sync.Mutex

	mu     sync.Mutex
	subs   map[LeaseKey]map[*bellSub]struct{}
	n      int                // subscribers
	stop   context.CancelFunc // the listener's; nil: none runs
	closed bool               // the store was closed
}

// bellSub is one subscriber: its doorbells wait in ch.
type bellSub struct{ ch chan Doorbell }

func (s *sqlStore) Listen(ctx context.Context, k LeaseKey) (<-chan Doorbell, error) {
	if s.channel == "" {
		return nil, nil // SQLite: followers read at their interval
	}
	h := &s.bells
	h.making.Lock()
	defer h.making.Unlock()
	sub := &bellSub{ch: make(chan Doorbell, bellBuffer)}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, fmt.Errorf("archive %s: listening for doorbells: the archive is closed", s.where)
	}
	if h.stop != nil {
		h.add(k, sub)
		h.mu.Unlock()
	} else {
		// The first subscriber: the connection is made now, so that one
		// that cannot be made is this subscriber's error.
		h.mu.Unlock()
		conn, err := s.listenConn(ctx)
		if err != nil {
			return nil, s.fail("listening for doorbells", err)
		}
		lctx, stop := context.WithCancel(context.Background())
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			stop()
			conn.Close(context.Background())
			return nil, fmt.Errorf("archive %s: listening for doorbells: the archive is closed", s.where)
		}
		h.stop = stop
		h.add(k, sub)
		h.mu.Unlock()
		go s.listen(lctx, conn)
	}
	context.AfterFunc(ctx, func() { h.remove(k, sub) })
	return sub.ch, nil
}

// add makes sub a subscriber of k (under mu).
func (h *bellHub) add(k LeaseKey, sub *bellSub) {
	if h.subs == nil {
		h.subs = map[LeaseKey]map[*bellSub]struct{}{}
	}
	if h.subs[k] == nil {
		h.subs[k] = map[*bellSub]struct{}{}
	}
	h.subs[k][sub] = struct{}{}
	h.n++
}

// remove ends sub's subscription (its context ended): its channel is
// closed, and the last subscriber's going closes the connection.
func (h *bellHub) remove(k LeaseKey, sub *bellSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[k][sub]; !ok {
		return // the store was closed first
	}
	delete(h.subs[k], sub)
	if len(h.subs[k]) == 0 {
		delete(h.subs, k)
	}
	close(sub.ch)
	h.n--
	if h.n == 0 && h.stop != nil {
		h.stop()
		h.stop = nil
	}
}

// stopListening ends the store's listener and every subscription (Close).
func (s *sqlStore) stopListening() {
	h := &s.bells
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.stop != nil {
		h.stop()
		h.stop = nil
	}
	for _, subs := range h.subs {
		for sub := range subs {
			close(sub.ch)
		}
	}
	h.subs, h.n = nil, 0
}

// ring hands b to the subscribers of its key; missed (b is ignored) tells
// every subscriber that doorbells may have been lost.
func (h *bellHub) ring(b Doorbell, missed bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if missed {
		for _, subs := range h.subs {
			for sub := range subs {
				sub.send(Doorbell{Missed: true})
			}
		}
		return
	}
	for sub := range h.subs[LeaseKey{Service: b.Service, Team: b.Team, Run: b.Run}] {
		sub.send(b)
	}
}

// send gives b to the subscriber without waiting: a subscriber whose
// doorbells are all waiting loses the oldest, and is told it missed some
// (doorbells are hints: it reads what it follows).
func (sub *bellSub) send(b Doorbell) {
	select {
	case sub.ch <- b:
		return
	default:
	}
	select {
	case <-sub.ch:
	default:
	}
	select {
	case sub.ch <- Doorbell{Missed: true}:
	default:
	}
}

// listenConn connects and LISTENs.
func (s *sqlStore) listenConn(ctx context.Context) (*pgx.Conn, error) {
	cfg := s.pgcfg.Copy()
	cfg.RuntimeParams["application_name"] = listenApp + s.channel[len("fw_bell_"):]
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// listen hands the doorbells to their subscribers until ctx ends (the
// last subscriber went, or the store was closed), making the connection
// again whenever it drops.
func (s *sqlStore) listen(ctx context.Context, conn *pgx.Conn) {
	for {
		wctx, cancel := context.WithTimeout(ctx, listenCheck)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			conn.Close(context.Background())
			return
		}
		if err == nil {
			if b, ok := parseBell(n.Payload); ok {
				s.bells.ring(b, false)
			}
			continue
		}
		if !conn.IsClosed() {
			// Quiet for listenCheck: is the server still there?
			pctx, cancel := context.WithTimeout(ctx, listenCheck)
			err = conn.Ping(pctx)
			cancel()
			if err == nil {
				continue
			}
		}
		conn.Close(context.Background())
		if conn = s.relisten(ctx); conn == nil {
			return
		}
		s.bells.ring(Doorbell{}, true)
	}
}

// relisten makes the listener's connection again, waiting longer after
// each failure; nil once ctx ends.
func (s *sqlStore) relisten(ctx context.Context) *pgx.Conn {
	wait := s.relistenFirst
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, max(s.pgcfg.ConnectTimeout, time.Second))
		conn, err := s.listenConn(cctx)
		cancel()
		if err == nil {
			return conn
		}
		wait = min(wait*2, relistenMax)
	}
}
