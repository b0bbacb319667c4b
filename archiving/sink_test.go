package archiving

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// flakyStore is an archive whose poll writes fail while down is set.
type flakyStore struct {
	archive.Store
	down atomic.Bool
}

func (f *flakyStore) AppendLeased(ctx context.Context, l archive.Lease, at time.Time, polls []archive.Poll) (int64, error) {
	if f.down.Load() {
		return -1, errors.New("disk full")
	}
	return f.Store.AppendLeased(ctx, l, at, polls)
}

// tempArchive is an SQLite archive in the test's own folder, closed once
// the test has ended.
func tempArchive(tb testing.TB) archive.Store {
	tb.Helper()
	st, err := archive.Open(context.Background(), filepath.Join(tb.TempDir(), "a.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// leasedSink is the sink of run id in st (written through ws, st when
// nil), holding the run's lease, as a Shared makes it.
func leasedSink(t testing.TB, st, ws archive.Store, id string) *Sink {
	if ws == nil {
		ws = st
	}
	l, err := st.Take(context.Background(), archive.LeaseKey{Service: "http://x", Run: id}, archive.NewHolder("test"), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSink(ws, text.NewSecrets(), "http://x", id, archive.TeamOf("fc-key-0123456789"))
	s.Leased(func(error) {}, func() {}, nil)
	s.SetLease(&l)
	return s
}

// The recorder's lines reach the sink as polls: a long line in parts,
// deflated as they come, short lines whole; while the archive fails, the
// sink says so once and keeps them, and writes them all with the next
// poll once the archive is back: the stored polls are the lines, at their
// receive times.
func TestArchiveSinkPartsAndFailure(t *testing.T) {
	t.Parallel()
	st := tempArchive(t)
	fs := &flakyStore{Store: st}
	fs.down.Store(true)
	var said []string
	s := leasedSink(t, st, fs, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")
	s.say = func(m string) { said = append(said, m) }
	parts := &pollParts{add: s.Append, fail: s.unkept}
	long := `{"receivedAt":"2026-11-25T20:50:32.5Z","trace":{"events":[` + strings.Repeat(`{"eventId":"e","type":"reasoning.summary","text":"t"},`, 20000) + `{}]}}`
	lines := []string{
		`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}`,
		long,
		`{"receivedAt":"2026-11-25T20:50:33Z","trace":{"events":[{"eventId":"f"}]}}`,
	}
	at := func(sec, ms int) time.Time { return time.Date(2026, 11, 25, 20, 50, sec, ms*1e6, time.UTC) }
	first := []byte(lines[0])
	parts.PollLine(at(31, 0), first, true)
	clear(first) // the recorder's buffer is reused: the sink must not keep it
	buf := []byte(long)
	for i := 0; i < len(buf); i += 64 << 10 {
		part := buf[i:min(len(buf), i+64<<10)]
		parts.PollLine(at(32, 500), part, i+64<<10 >= len(buf))
		clear(part)
	}
	s.Sync()
	fs.down.Store(false)
	line := []byte(lines[2])
	parts.PollLine(at(33, 0), line, true)
	clear(line)
	s.Sync()
	if len(said) != 1 || !strings.Contains(said[0], "disk full") {
		t.Fatalf("said %q", said)
	}
	polls, err := st.Polls(context.Background(), "http://x", s.jobID)
	if err != nil || len(polls) != len(lines) {
		t.Fatalf("%d polls stored, %v", len(polls), err)
	}
	for i, p := range polls {
		if !bytes.Equal(p.Line, []byte(lines[i])) {
			t.Fatalf("poll %d differs (%d bytes, want %d)", i, len(p.Line), len(lines[i]))
		}
	}
	if want := time.Date(2026, 11, 25, 20, 50, 32, 5e8, time.UTC); !polls[1].ReceivedAt.Equal(want) {
		t.Fatalf("the long line's receive time is %v", polls[1].ReceivedAt)
	}
}

// stuckStore is an archive whose writes wait until release is closed (a
// lock held by another program, a server that does not answer).
type stuckStore struct {
	archive.Store
	release chan struct{}
	writes  atomic.Int32
}

func (s *stuckStore) AppendLeased(ctx context.Context, l archive.Lease, at time.Time, polls []archive.Poll) (int64, error) {
	s.writes.Add(1)
	<-s.release
	return s.Store.AppendLeased(ctx, l, at, polls)
}

func (s *stuckStore) PutRun(ctx context.Context, r *archive.Run) error {
	<-s.release
	return s.Store.PutRun(ctx, r)
}

// TestArchiveNeverDelaysTheWatch: while the archive cannot take a write,
// the watch's appends to the sink (on the poll's way to the screen and
// the printers) return at once; the polls are written, in order, once
// the archive takes them.
func TestArchiveNeverDelaysTheWatch(t *testing.T) {
	t.Parallel()
	st := tempArchive(t)
	ss := &stuckStore{Store: st, release: make(chan struct{})}
	s := leasedSink(t, st, ss, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")
	s.KeepLookup(&archive.Run{Prompt: "p"})
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for i := range 5 {
			s.Append(archive.Poll{ReceivedAt: time.Now(), Line: fmt.Appendf(nil, `{"receivedAt":"2026-11-25T20:50:3%dZ","trace":{"events":[]}}`, i)})
		}
	}()
	select {
	case <-wrote:
	case <-time.After(10 * time.Second):
		close(ss.release)
		t.Fatal("the watch waited for the archive")
	}
	close(ss.release)
	s.Sync()
	polls, err := st.Polls(context.Background(), "http://x", s.jobID)
	if err != nil || len(polls) != 5 || !bytes.Contains(polls[4].Line, []byte("20:50:34Z")) {
		t.Fatalf("%d polls stored, %v", len(polls), err)
	}
	if r, _ := st.Get(context.Background(), "http://x", s.jobID); r.Team != archive.TeamOf("fc-key-0123456789") || r.Prompt != "p" {
		t.Fatalf("the run's owner and request: %+v", r)
	}
}

// A snapshot the screen fetched is stored even when the watch's own fetch
// of it fails; one already stored is not fetched again.
func TestSnapshotKeeperKeepsWhatTheScreenFetched(t *testing.T) {
	t.Parallel()
	st := tempArchive(t)
	sink := leasedSink(t, st, nil, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")
	fetched := 0
	k := NewSnapshotKeeper(sink, nil, func(ctx context.Context, sid string) (string, error) {
		fetched++
		return "", &poller.Error{Kind: poller.KindNotFound, Op: "snapshot"}
	})
	sid := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f0001"
	k.Keep(sid, "# the report")
	k.mu.Lock()
	k.queue = append(k.queue, sid) // as an artifact event would
	k.mu.Unlock()
	k.Close(true)
	sink.Sync() // the snapshots queued for the next poll: none comes
	if got, err := st.Snapshot(context.Background(), "http://x", sink.jobID, sid); err != nil || got != "# the report" {
		t.Fatalf("stored %q, %v", got, err)
	}
	if fetched != 0 {
		t.Fatalf("a stored snapshot was fetched %d times", fetched)
	}
}

// BenchmarkArchiveSinkPoll is the archive's cost per poll of a live watch:
// one recording line of a few events written into an SQLite archive,
// under the run's lease.
func BenchmarkArchiveSinkPoll(b *testing.B) {
	st := tempArchive(b)
	s := leasedSink(b, st, nil, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")
	ev := `{"schemaVersion":1,"eventId":"e%d","runId":"r","occurredAt":"2026-11-25T20:50:32.186Z","producerSequence":2,"agent":{"id":"a","role":"subagent","name":"docs-analyst"},"type":"reasoning.summary","text":"Rate limits live in the API reference, not on the pricing pages."}`
	var evs []string
	for i := range 4 {
		evs = append(evs, fmt.Sprintf(ev, i))
	}
	line := []byte(`{"receivedAt":"2026-11-25T20:50:32.5Z","trace":{"success":true,"id":"r","creditsUsed":12,"events":[` + strings.Join(evs, ",") + "]}}")
	parts := &pollParts{add: s.Append, fail: s.unkept}
	for b.Loop() {
		parts.PollLine(time.Now(), line, true)
		s.Sync()
	}
	if s.failed {
		b.Fatal(s.lastErr)
	}
}

// alongStore counts how a sink writes snapshots: with a poll, or alone.
type alongStore struct {
	archive.Store
	along, alone atomic.Int32
}

func (a *alongStore) AppendLeasedAlong(ctx context.Context, l archive.Lease, at time.Time, polls []archive.Poll, al archive.Along) (int64, error) {
	a.along.Add(int32(len(al.Snapshots)))
	return a.Store.(archive.AlongAppender).AppendLeasedAlong(ctx, l, at, polls, al)
}

func (a *alongStore) PutSnapshot(ctx context.Context, service, id, snapshotID, content string) error {
	a.alone.Add(1)
	return a.Store.PutSnapshot(ctx, service, id, snapshotID, content)
}

// A watch holding its run's lease writes a snapshot it fetched at once,
// not with a later poll: a watch killed before that poll would have
// fetched it for nobody, and the next holder would fetch it again.
func TestSnapshotsAreWrittenAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := tempArchive(t)
	as := &alongStore{Store: st}
	sink := leasedSink(t, st, as, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")
	sink.Append(archive.Poll{ReceivedAt: time.Now(), Line: []byte(`{"receivedAt":"2026-11-25T20:50:01Z","trace":{"events":[]}}`)})
	sink.Sync()
	sid := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f0001"
	if !sink.PutSnapshot(sid, "# first") {
		t.Fatal("the snapshot was refused")
	}
	// No poll follows, and nothing asks the sink to write.
	for deadline := time.Now().Add(10 * time.Second); ; {
		if got, err := st.Snapshot(ctx, "http://x", sink.jobID, sid); err == nil && got == "# first" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the snapshot was not written until a poll came")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if along, alone := as.along.Load(), as.alone.Load(); along+alone != 1 {
		t.Fatalf("the snapshot was written %d times with a poll and %d alone, want once", along, alone)
	}
}

// refusingAlong refuses what a poll carries as too large, as the archive
// refuses a snapshot past MaxBody.
type refusingAlong struct{ alongStore }

func (r *refusingAlong) AppendLeasedAlong(ctx context.Context, l archive.Lease, at time.Time, polls []archive.Poll, al archive.Along) (int64, error) {
	if len(al.Snapshots) > 0 {
		return -1, fmt.Errorf("the snapshot: %w", archive.ErrTooLarge)
	}
	return r.alongStore.AppendLeasedAlong(ctx, l, at, polls, al)
}

// A snapshot too large to go with a poll never costs the poll: the poll
// is written without it, and the snapshot on its own.
func TestATooLargeSnapshotLeavesThePoll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := tempArchive(t)
	rs := &refusingAlong{alongStore{Store: st}}
	sink := leasedSink(t, st, rs, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")
	sink.PutSnapshot("019a2b3c-4d5e-7f60-8a9b-0c1d2e3f0001", "# report")
	sink.Append(archive.Poll{ReceivedAt: time.Now(), Line: []byte(`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}`)})
	sink.Sync()
	if polls, err := st.Polls(ctx, "http://x", sink.jobID); err != nil || len(polls) != 1 {
		t.Fatalf("%d polls stored, %v", len(polls), err)
	}
	if rs.alone.Load() != 1 {
		t.Fatalf("the snapshot was written alone %d times, want once", rs.alone.Load())
	}
}

// The holder of a run the archive has no row of yet (its first poll not
// written) fetches the snapshots of that poll's artifact events: a run
// not in the archive holds none of them.
func TestSnapshotsOfARunNotArchivedYetAreFetched(t *testing.T) {
	t.Parallel()
	st := tempArchive(t)
	sink := leasedSink(t, st, nil, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")
	if _, err := st.SnapshotIDs(context.Background(), "http://x", sink.jobID); !errors.Is(err, archive.ErrNotFound) {
		t.Fatalf("the run is in the archive already (%v): the case is not made", err)
	}
	fetched := make(chan string, 1)
	k := NewSnapshotKeeper(sink, nil, func(ctx context.Context, sid string) (string, error) {
		fetched <- sid
		return "# " + sid, nil
	})
	defer k.Close(false)
	sid := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f0001"
	k.see(&model.Poll{Events: []*model.Event{{Type: "artifact.updated",
		Payload: model.ArtifactUpdated{Artifact: model.ArtifactRef{ArtifactID: "report", SnapshotID: sid}}}}})
	select {
	case got := <-fetched:
		if got != sid {
			t.Fatalf("fetched %s, want %s", got, sid)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the snapshot was never fetched")
	}
}

// The run's owner is written with what the service said of the run when
// the watch started (its lookup), not again in a write of its own with
// the first poll; a watch without a lookup writes it with that poll.
func TestTheRunsOwnerIsWrittenOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, lookup := range []bool{true, false} {
		st := tempArchive(t)
		cs := &countingStore{Store: st}
		s := leasedSink(t, st, cs, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")
		if lookup {
			s.KeepLookup(&archive.Run{Prompt: "p"})
		}
		s.Append(archive.Poll{ReceivedAt: time.Now(), Line: []byte(`{"receivedAt":"2026-11-25T20:50:01Z","trace":{"events":[]}}`)})
		s.Sync()
		if n := cs.puts.Load(); n != 1 {
			t.Errorf("lookup %v: the run was written %d times, want once", lookup, n)
		}
		if r, err := st.Get(ctx, "http://x", s.jobID); err != nil || r.Team != archive.TeamOf("fc-key-0123456789") {
			t.Errorf("lookup %v: the run's owner is %+v, %v", lookup, r, err)
		}
	}
}
