package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The doorbells' listener: one connection of its own (pgx), LISTENing on
// the archive's channel, checked when it has been quiet for listenCheck
// and made again when it drops, after a wait that grows from
// relistenFirst (the store's, for the tests) to relistenMax.
const (
	listenCheck   = 10 * time.Second
	relistenFirst = 100 * time.Millisecond
	relistenMax   = 3 * time.Second
)

// bellBuffer is how many doorbells wait for a slow reader; past it they
// are dropped and a Missed doorbell says so.
const bellBuffer = 256

// listenApp is the listener's application_name (pg_stat_activity shows
// it), with the channel's suffix.
const listenApp = "firewatch doorbells "

// bellChannel is the archive's NOTIFY channel: one per schema, since
// channels are the database's and two archives may share one.
func bellChannel(schema string) string {
	h := sha256.Sum256([]byte("firewatch doorbells\x00" + schema))
	return "fw_bell_" + hex.EncodeToString(h[:8])
}

func (s *sqlStore) Listen(ctx context.Context) (<-chan Doorbell, error) {
	if s.channel == "" {
		return nil, nil // SQLite: followers read at their interval
	}
	conn, err := s.listenConn(ctx)
	if err != nil {
		return nil, s.fail("listening for doorbells", err)
	}
	// Closing the store ends its listeners too.
	ctx, cancel := context.WithCancel(ctx)
	s.listenMu.Lock()
	if s.closed {
		s.listenMu.Unlock()
		cancel()
		conn.Close(context.Background())
		return nil, fmt.Errorf("archive %s: listening for doorbells: the archive is closed", s.where)
	}
	s.listeners = append(s.listeners, cancel)
	s.listenMu.Unlock()
	ch := make(chan Doorbell, bellBuffer)
	go s.listen(ctx, conn, ch)
	return ch, nil
}

// stopListening ends the store's listeners (Close).
func (s *sqlStore) stopListening() {
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	s.closed = true
	for _, cancel := range s.listeners {
		cancel()
	}
	s.listeners = nil
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

// listen hands the doorbells to ch until ctx ends, making the connection
// again whenever it drops.
func (s *sqlStore) listen(ctx context.Context, conn *pgx.Conn, ch chan<- Doorbell) {
	defer close(ch)
	missed := false
	send := func(b Doorbell) {
		select {
		case ch <- b:
		default:
			missed = true
		}
	}
	for {
		if missed {
			missed = false
			send(Doorbell{Missed: true})
		}
		wctx, cancel := context.WithTimeout(ctx, listenCheck)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			conn.Close(context.Background())
			return
		}
		if err == nil {
			if b, ok := parseBell(n.Payload); ok {
				send(b)
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
		send(Doorbell{Missed: true})
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
