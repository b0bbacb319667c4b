package archive

import (
	"context"
	"errors"

	"github.com/ncruces/go-sqlite3"
)

// sqliteHot runs a watch's writes of a poll and of a snapshot on SQLite's
// own connection, with statements prepared on it once, instead of through
// database/sql: its transaction and each query in it start a goroutine
// that watches the context, and those goroutines, at every poll, woke
// threads a watch otherwise leaves asleep (their scheduling cost a live
// watch more than the writes did). Only the statements below are run
// this way (a watch's polls, fenced by its lease or not, the lease's
// renewals, its live requests counted into the team's budget, and its
// snapshots); everything else, and PostgreSQL, go through database/sql.
type sqliteHot struct {
	conn                                   *sqlite3.Conn // the connection they are prepared on
	begin, commit, rollback                *sqlite3.Stmt
	insertPoll, countPolls, insertSnapshot *sqlite3.Stmt
	fence                                  *sqlite3.Stmt // renews a lease held with its token (fenceSQL)
	spend                                  *sqlite3.Stmt // spendSQL
}

// stmts are h's statements, in the order hotOn prepares them.
func (h *sqliteHot) stmts() []**sqlite3.Stmt {
	return []**sqlite3.Stmt{&h.begin, &h.commit, &h.rollback, &h.insertPoll, &h.countPolls, &h.insertSnapshot, &h.fence, &h.spend}
}

func (h *sqliteHot) close() {
	for _, st := range h.stmts() {
		if *st != nil {
			(*st).Close()
			*st = nil
		}
	}
}

// hotOn is the statements on conn, prepared on its first use (again if
// database/sql replaced the connection).
func (s *sqlStore) hotOn(conn *sqlite3.Conn) (*sqliteHot, error) {
	if s.hot != nil && s.hot.conn == conn {
		return s.hot, nil
	}
	// A replaced connection was closed with its statements.
	h := &sqliteHot{conn: conn}
	for i, q := range []string{`BEGIN IMMEDIATE`, `COMMIT`, `ROLLBACK`, insertPollSQL, countPollsSQL, sqliteDialect.putSnapshotSQL(),
		s.clocked(fenceSQL + ` RETURNING since, renewed, expires, bell`), s.clocked(spendSQL)} {
		st, _, err := conn.Prepare(q)
		if err != nil {
			h.close()
			return nil, err
		}
		*h.stmts()[i] = st
	}
	s.hot = h
	return h, nil
}

// closeHot finalizes the statements before the connection closes (SQLite
// refuses to close a connection with statements left).
func (s *sqlStore) closeHot() {
	if s.hot == nil {
		return
	}
	c, err := s.db.Conn(context.Background())
	if err != nil {
		return
	}
	defer c.Close()
	_ = c.Raw(func(dc any) error {
		s.hot.close()
		s.hot = nil
		return nil
	})
}

// hotWrite runs fn in one write transaction (BEGIN IMMEDIATE) on SQLite's
// own connection: write's rules (a busy lock waited for, said once, up to
// lockWait; SQLite out of memory is ErrTooLarge; failures named op).
func (s *sqlStore) hotWrite(ctx context.Context, op string, fn func(h *sqliteHot) error) error {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return s.fail(op, err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) (err error) {
		rc, ok := dc.(interface{ Raw() *sqlite3.Conn })
		if !ok {
			return errors.New("not an SQLite connection")
		}
		conn := rc.Raw()
		h, err := s.hotOn(conn)
		if err != nil {
			return err
		}
		old := conn.SetInterrupt(ctx)
		defer conn.SetInterrupt(old)
		if err := s.waitLock(ctx, h.begin.Exec); err != nil {
			return err
		}
		defer func() {
			if !conn.GetAutocommit() {
				conn.SetInterrupt(context.Background()) // rolled back even when interrupted
				_ = h.rollback.Exec()
			}
		}()
		defer recoverNoMem(&err)
		if err := fn(h); err != nil {
			return err
		}
		return h.commit.Exec()
	})
	return s.fail(op, err)
}

// hotAppend stores polls of the run rid, after its polls held: the
// sequence numbers come from the run's count, raised in the same
// transaction. gone reports a run no longer held (pruned meanwhile).
// With a lease (l), the transaction first renews it as fence does, and a
// lease taken over meanwhile stores nothing: a *LostError. (SQLite rings
// no doorbell.)
func (s *sqlStore) hotAppend(ctx context.Context, rid int64, encs []int, bodies [][]byte, polls []Poll, size int64, l *Lease, along *Along, snaps []encodedSnapshot) (last int64, gone bool, err error) {
	err = s.hotWrite(ctx, "saving a poll", func(h *sqliteHot) error {
		if l != nil {
			if err := h.renew(l); err != nil {
				return err
			}
		}
		st := h.countPolls
		_ = st.BindInt64(1, int64(len(polls)))
		_ = st.BindInt64(2, size)
		_ = st.BindInt64(3, rid)
		row := st.Step()
		n := st.ColumnInt64(0)
		if err := errors.Join(st.Err(), st.Reset()); err != nil {
			return err
		}
		if !row {
			gone = true
			return errGone
		}
		from := n - int64(len(polls))
		st = h.insertPoll
		defer st.ClearBindings() // the bodies are not kept in SQLite's memory
		for i, p := range polls {
			_ = st.BindInt64(1, rid)
			_ = st.BindInt64(2, from+int64(i))
			_ = st.BindInt64(3, p.ReceivedAt.UnixMilli())
			_ = st.BindInt64(4, int64(encs[i]))
			if err := st.BindBlob(5, bodies[i]); err != nil {
				return err
			}
			if err := st.Exec(); err != nil {
				return err
			}
		}
		last = from + int64(len(polls)) - 1
		for _, sn := range snaps {
			if _, err := h.putSnapshot(rid, sn.id, sn.enc, sn.body); err != nil {
				return err
			}
		}
		if along != nil && along.Spent != nil {
			costMs, mostMs := along.Spent.ms()
			return h.spendRow(along.Spent.Key, costMs, mostMs)
		}
		return nil
	})
	return last, gone, err
}

// renew renews l as fence does, in the transaction begun: errHotLost
// when it is no longer held with its token.
func (h *sqliteHot) renew(l *Lease) error {
	st := h.fence
	l.TTL = min(l.TTL, MaxLeaseTTL)
	ttl := ttlMs(l.TTL)
	_ = st.BindInt64(1, ttl)
	_ = st.BindInt64(2, ttl)
	_ = st.BindText(3, l.Service)
	_ = st.BindText(4, l.Team)
	_ = st.BindText(5, l.Run)
	_ = st.BindText(6, l.ID)
	_ = st.BindInt64(7, l.Token)
	row := st.Step()
	since, renewed, expires, bell := st.ColumnInt64(0), st.ColumnInt64(1), st.ColumnInt64(2), st.ColumnInt64(3)
	if err := errors.Join(st.Err(), st.Reset()); err != nil {
		return err
	}
	if !row {
		return errHotLost
	}
	l.Since, l.Renewed, l.Expires, l.Read, l.Left, l.Bell = fromMsT(since), fromMsT(renewed), fromMsT(expires), fromMsT(renewed), l.TTL, bell
	return nil
}

// hotRenew is Renew on SQLite's own connection.
func (s *sqlStore) hotRenew(ctx context.Context, l Lease) (Lease, error) {
	err := s.hotWrite(ctx, "renewing a lease", func(h *sqliteHot) error { return h.renew(&l) })
	return l, s.lostNow(l.LeaseKey, err)
}

// lostNow is err, or for errHotLost the *LostError that says who holds
// the lease now.
func (s *sqlStore) lostNow(k LeaseKey, err error) error {
	if !errors.Is(err, errHotLost) {
		return err
	}
	le := &LostError{Key: k}
	if now, lerr := s.Lease(context.Background(), k); lerr == nil {
		le.Now = &now
	}
	return le
}

// hotSpend is Spend on SQLite's own connection.
func (s *sqlStore) hotSpend(ctx context.Context, k BudgetKey, costMs, mostMs int64) error {
	return s.hotWrite(ctx, "counting the live requests", func(h *sqliteHot) error { return h.spendRow(k, costMs, mostMs) })
}

// spendRow counts live requests into k's budget, in the transaction begun.
func (h *sqliteHot) spendRow(k BudgetKey, costMs, mostMs int64) error {
	st := h.spend
	_ = st.BindText(1, k.Service)
	_ = st.BindText(2, k.Team)
	_ = st.BindInt64(3, costMs)
	_ = st.BindInt64(4, costMs)
	_ = st.BindInt64(5, mostMs)
	return st.Exec()
}

// hotSnapshot stores a snapshot of the run rid; stored is false when the
// run is no longer held.
func (s *sqlStore) hotSnapshot(ctx context.Context, rid int64, sid string, enc int, body []byte) (stored bool, err error) {
	err = s.hotWrite(ctx, "saving a snapshot", func(h *sqliteHot) error {
		var err error
		stored, err = h.putSnapshot(rid, sid, enc, body)
		return err
	})
	return stored, err
}

// putSnapshot stores a snapshot of the run rid in the transaction begun;
// stored is false when the run is no longer held.
func (h *sqliteHot) putSnapshot(rid int64, sid string, enc int, body []byte) (stored bool, err error) {
	st := h.insertSnapshot
	defer st.ClearBindings()
	_ = st.BindInt64(1, rid)
	_ = st.BindText(2, sid)
	_ = st.BindInt64(3, int64(enc))
	if err := st.BindBlob(4, body); err != nil {
		return false, err
	}
	_ = st.BindInt64(5, rid)
	if err := st.Exec(); err != nil {
		return false, err
	}
	return h.conn.Changes() > 0, nil
}

// errGone ends the transaction of a poll whose run is no longer held.
var errGone = errors.New("the run is no longer held")

// errHotLost ends the transaction of a poll whose lease was taken over.
var errHotLost = errors.New("the lease was taken over")
