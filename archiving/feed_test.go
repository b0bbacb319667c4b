package archiving

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// lockedBuffer is a --record file the test reads after the watch.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// A live run's feed (NewFeed) writes each of its polls once, through its
// one recorder: the archive holds, poll for poll, the lines the --record
// file holds after its header, and the run's artifact snapshots.
func TestFeedRecordsEachPollOnce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Held until the feed's first poll: the run has more than one poll
	// however late the feed starts on a loaded machine.
	srv, err := sim.Start(ctx, sim.Options{Speed: 200, RateLimit: -1, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	id := srv.Jobs[0].ID
	st, err := archive.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	rec := &lockedBuffer{}
	sink := NewSink(st, text.NewSecrets(), srv.URL, id, archive.TeamOf(srv.Key))
	feed := NewFeed(SharedConfig{Sink: sink, Client: c, Service: srv.URL, JobID: id, Label: "watch",
		Watch: poller.WatchOptions{Interval: 50 * time.Millisecond, Tail: 1, Record: rec}})
	run := follow.NewRun()
	var first sync.Once
	if err := feed.Source.Follow(ctx, func(u poller.Update) { run.Merge(u); first.Do(srv.Release) }); err != nil {
		t.Fatal(err)
	}
	if _, failed, lastErr := feed.Sink().Close(&run); failed {
		t.Fatal(lastErr)
	}
	st, err = archive.Open(context.Background(), st.Where())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	polls, err := st.Polls(context.Background(), srv.URL, id)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(rec.b.Bytes(), []byte("\n")), []byte("\n"))
	if len(lines) < 3 || !bytes.HasPrefix(lines[0], []byte(`{"firewatch":"recording"`)) {
		t.Fatalf("the recording: %d lines", len(lines))
	}
	lines = lines[1:]
	if len(polls) != len(lines) {
		t.Fatalf("the archive holds %d polls, the recording %d", len(polls), len(lines))
	}
	for i, p := range polls {
		if !bytes.Equal(p.Line, lines[i]) {
			t.Fatalf("poll %d: the archive's line is not the recording's:\n%.200s\n%.200s", i, p.Line, lines[i])
		}
		if _, at, err := poller.DecodeLine(c.NewDecoder(), p.Line); err != nil || at.UnixMilli() != p.ReceivedAt.UnixMilli() {
			t.Fatalf("poll %d: received at %v, its line says %v (%v)", i, p.ReceivedAt, at, err)
		}
	}
	if r, err := st.Get(context.Background(), srv.URL, id); err != nil || !r.Complete {
		t.Fatalf("the run's record: %+v, %v", r, err)
	}
}
