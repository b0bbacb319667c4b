package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// flakyStore is an archive whose poll writes fail while down is set.
type flakyStore struct {
	archive.Store
	down atomic.Bool
}

func (f *flakyStore) AppendPolls(ctx context.Context, service, id string, at time.Time, polls []archive.Poll) error {
	if f.down.Load() {
		return errors.New("disk full")
	}
	return f.Store.AppendPolls(ctx, service, id, at, polls)
}

// The sink takes a long line in parts and short lines whole; while the
// archive fails, it says so once and keeps them, and writes them all with
// the next poll once the archive is back: the stored polls are the lines.
func TestArchiveSinkPartsAndFailure(t *testing.T) {
	st, err := archive.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fs := &flakyStore{Store: st}
	fs.down.Store(true)
	var said []string
	s := newArchiveSink(fs, text.NewSecrets(), "http://x", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "")
	s.say = func(m string) { said = append(said, m) }
	long := `{"receivedAt":"2026-11-25T20:50:32.5Z","trace":{"events":[` + strings.Repeat(`{"eventId":"e","type":"reasoning.summary","text":"t"},`, 20000) + `{}]}}`
	lines := []string{
		`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}`,
		long,
		`{"receivedAt":"2026-11-25T20:50:33Z","trace":{"events":[{"eventId":"f"}]}}`,
	}
	s.Write([]byte(`{"firewatch":"recording","version":2,"jobId":"j","startedAt":"2026-11-25T20:50:30Z"}` + "\n"))
	first := []byte(lines[0] + "\n")
	s.Write(first)
	clear(first)
	buf := []byte(long + "\n")
	for i := 0; i < len(buf); i += 64 << 10 {
		part := buf[i:min(len(buf), i+64<<10)]
		s.Write(part)
		clear(part) // the writer's buffer is reused: the sink must not keep it
	}
	s.sync()
	fs.down.Store(false)
	line := []byte(lines[2] + "\n")
	s.Write(line)
	clear(line)
	s.sync()
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

// A watch that joins a long run late gets the whole trace in its first
// poll, which the recorder writes in parts: the archived run still replays
// as its --record file does.
func TestLongRunArchivedReplaysAsRecorded(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioLarge}, Events: 3000, Speed: 500})
	id := srv.Jobs[0].ID
	if err := srv.WaitFinished(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db, rec := filepath.Join(dir, "a.db"), filepath.Join(dir, "run.ndjson")
	t.Setenv("FIREWATCH_ARCHIVE", db)
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "json", "--interval", "100ms", "--record", rec); code != 0 {
		t.Fatalf("watch: %d %s", code, errOut)
	}
	if b, err := os.ReadFile(rec); err != nil || len(bytes.SplitN(b, []byte("\n"), 3)[1]) < 256<<10 {
		t.Fatalf("the first poll's line is not long enough to come in parts (%v)", err)
	}
	fromFile, _, code1 := run(t, context.Background(), "replay", rec, "-o", "json", "--summary", "-")
	fromArchive, errOut, code2 := run(t, context.Background(), "replay", id, "-o", "json", "--summary", "-")
	if code1 != 0 || code2 != 0 || fromFile != fromArchive || fromFile == "" {
		t.Fatalf("replay of the archived run differs from the recording's (%d, %d): %s", code1, code2, errOut)
	}
}

// stuckStore is an archive whose writes wait until release is closed (a
// lock held by another program, a server that does not answer).
type stuckStore struct {
	archive.Store
	release chan struct{}
	writes  atomic.Int32
}

func (s *stuckStore) AppendPolls(ctx context.Context, service, id string, at time.Time, polls []archive.Poll) error {
	s.writes.Add(1)
	<-s.release
	return s.Store.AppendPolls(ctx, service, id, at, polls)
}

func (s *stuckStore) PutRun(ctx context.Context, r *archive.Run) error {
	<-s.release
	return s.Store.PutRun(ctx, r)
}

// TestArchiveNeverDelaysTheWatch: while the archive cannot take a write,
// the watch's writes into the sink (the recorder's, on the poll's way to
// the screen and the printers) return at once; the polls are written, in
// order, once the archive takes them.
func TestArchiveNeverDelaysTheWatch(t *testing.T) {
	st, err := archive.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ss := &stuckStore{Store: st, release: make(chan struct{})}
	s := newArchiveSink(ss, text.NewSecrets(), "http://x", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", archive.TeamOf("fc-key-0123456789"))
	s.keepLookup(&archive.Run{Prompt: "p"})
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		s.Write([]byte(`{"firewatch":"recording","version":2,"jobId":"j","startedAt":"2026-11-25T20:50:30Z"}` + "\n"))
		for i := range 5 {
			s.Write(fmt.Appendf(nil, `{"receivedAt":"2026-11-25T20:50:3%dZ","trace":{"events":[]}}`+"\n", i))
		}
	}()
	select {
	case <-wrote:
	case <-time.After(10 * time.Second):
		close(ss.release)
		t.Fatal("the watch waited for the archive")
	}
	close(ss.release)
	s.sync()
	polls, err := st.Polls(context.Background(), "http://x", s.jobID)
	if err != nil || len(polls) != 5 || !bytes.Contains(polls[4].Line, []byte("20:50:34Z")) {
		t.Fatalf("%d polls stored, %v", len(polls), err)
	}
	if r, _ := st.Get(context.Background(), "http://x", s.jobID); r.Team != archive.TeamOf("fc-key-0123456789") || r.Prompt != "p" {
		t.Fatalf("the run's owner and request: %+v", r)
	}
}
