package archive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// This file is the leases' demonstration: member is one firewatch process
// following one run the way the follow package is to, against a fake
// service, and the checks that what the team stored and showed is each
// poll once, in order.
//
// The leaseholder polls the service and stores each poll with
// AppendLeased (which renews its lease); a poll it cannot store because
// its lease was taken over is dropped, and it follows from then on.
// A follower reads the polls after the last one it has (PollsSince), when
// a doorbell says there are some and at its interval anyway, and tries to
// take the lease when the holder's would expire (HeldError's Left) or is
// released. Without the archive (ErrUnavailable) a member polls on its
// own, says so once, and joins again when it can.

// event is what a member did, for the test (as NDJSON from a process).
type event struct {
	Member string    `json:"m"`
	Kind   string    `json:"kind"` // took, lost, seen, missed, solo, own, joined, done, wrong
	Seq    int64     `json:"seq"`
	Token  int64     `json:"token,omitempty"`
	K      int       `json:"k,omitempty"` // the service's count of trace requests at that poll
	At     time.Time `json:"at"`
	Err    string    `json:"err,omitempty"`
}

// member follows one run.
type member struct {
	name     string
	open     func(ctx context.Context) (Store, error)
	key      LeaseKey
	holder   Holder
	interval time.Duration
	ttl      time.Duration
	service  string // the fake service's URL
	say      func(event)
	// pause stops a leaseholder between two polls until it receives
	// again: a process paused past its lease's TTL.
	pause <-chan struct{}
}

// servicePoll is one trace request.
type servicePoll struct {
	K    int  `json:"k"`
	Done bool `json:"done"`
}

// storedPoll is a poll as the members store it: the service's answer,
// who stored it and under which token.
type storedPoll struct {
	servicePoll
	By    string `json:"by"`
	Token int64  `json:"tok"`
}

func (m *member) tell(kind string, e event) {
	e.Member, e.Kind, e.At = m.name, kind, time.Now()
	m.say(e)
}

// poll asks the fake service for the run's trace.
func (m *member) poll(ctx context.Context) (servicePoll, error) {
	var p servicePoll
	req, _ := http.NewRequestWithContext(ctx, "GET", m.service+"?m="+m.name, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return p, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(resp.Body).Decode(&p)
	return p, err
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// run follows the run until it is over (the service said done and the
// member has every poll stored) or ctx ends.
func (m *member) run(ctx context.Context) error {
	var st Store
	defer func() {
		if st != nil {
			st.Close()
		}
	}()
	var bells <-chan Doorbell
	listening, solo := false, false
	last := int64(-1) // the last stored poll shown
	for ctx.Err() == nil {
		var err error
		if st == nil {
			st, err = m.open(ctx)
		}
		if err == nil {
			err = st.TryJoin(ctx)
		}
		if err == nil && !listening {
			if bells, err = st.Listen(ctx); err == nil {
				listening = true
			}
		}
		if err != nil {
			if !errors.Is(err, ErrUnavailable) {
				return err
			}
			if !solo {
				solo = true
				m.tell("solo", event{Err: err.Error()})
			}
			p, err := m.poll(ctx)
			if err == nil {
				m.tell("own", event{K: p.K})
				if p.Done {
					m.tell("done", event{Seq: last})
					return nil
				}
			}
			sleepCtx(ctx, m.interval)
			continue
		}
		if solo {
			solo = false
			m.tell("joined", event{})
		}
		var done bool
		l, err := st.Take(ctx, m.key, m.holder, m.ttl)
		var he *HeldError
		switch {
		case err == nil:
			done, err = m.lead(ctx, st, l, &last)
		case errors.As(err, &he):
			done, err = m.follow(ctx, st, &bells, he.Lease.Left, &last)
		}
		if done {
			m.tell("done", event{Seq: last})
			return nil
		}
		if err != nil && !errors.Is(err, ErrUnavailable) && ctx.Err() == nil {
			return err
		}
	}
	return ctx.Err()
}

// show shows the stored poll seq (its line), which must be the next one.
func (m *member) show(seq int64, line []byte, last *int64) bool {
	var p storedPoll
	_ = json.Unmarshal(line, &p)
	if seq != *last+1 {
		m.tell("wrong", event{Seq: seq, Err: fmt.Sprintf("poll %d after %d", seq, *last)})
	}
	*last = seq
	m.tell("seen", event{Seq: seq, K: p.K, Token: p.Token})
	return p.Done
}

// catchUp shows the stored polls after last.
func (m *member) catchUp(ctx context.Context, st Store, last *int64) (bool, error) {
	ps, err := st.PollsSince(ctx, m.key.Service, m.key.Run, *last, 0)
	if err != nil {
		return false, err
	}
	done := false
	for _, p := range ps {
		done = m.show(p.Seq, p.Line, last) || done
	}
	return done, nil
}

// lead is the leaseholder's loop: catch up with what the previous holder
// stored, then poll and store until the run is over or the lease is lost.
func (m *member) lead(ctx context.Context, st Store, l Lease, last *int64) (bool, error) {
	m.tell("took", event{Token: l.Token})
	if done, err := m.catchUp(ctx, st, last); done || err != nil {
		return done, err
	}
	for ctx.Err() == nil {
		select {
		case <-m.pause:
			select { // paused: no poll, no renewal
			case <-m.pause:
			case <-ctx.Done():
				return false, nil
			}
		default:
		}
		p, err := m.poll(ctx)
		if err != nil {
			sleepCtx(ctx, m.interval)
			continue
		}
		line, _ := json.Marshal(storedPoll{servicePoll: p, By: m.name, Token: l.Token})
		seq, err := st.AppendLeased(ctx, l, time.Time{}, []Poll{{ReceivedAt: time.Now(), Line: line}})
		if errors.Is(err, ErrLeaseLost) {
			m.tell("lost", event{Token: l.Token, Err: err.Error()})
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if m.show(seq, line, last) {
			_ = st.Release(ctx, l)
			return true, nil
		}
		sleepCtx(ctx, m.interval)
	}
	return false, nil
}

// follow is a follower's loop: read what the holder stores when a
// doorbell rings and at the interval, until the holder's lease may be
// taken (left, or a doorbell saying it is free).
func (m *member) follow(ctx context.Context, st Store, bells *<-chan Doorbell, left time.Duration, last *int64) (bool, error) {
	if done, err := m.catchUp(ctx, st, last); done || err != nil {
		return done, err
	}
	retake := time.NewTimer(min(max(left, 0), m.ttl) + 5*time.Millisecond)
	defer retake.Stop()
	tick := time.NewTicker(m.interval)
	defer tick.Stop()
	for {
		read := false
		select {
		case <-ctx.Done():
			return false, nil
		case <-retake.C:
			return false, nil
		case <-tick.C:
			read = true
		case b, ok := <-*bells:
			switch {
			case !ok:
				*bells = nil
			case b.Missed:
				m.tell("missed", event{})
				read = true
			case b.Service != m.key.Service || b.Team != m.key.Team || b.Run != m.key.Run:
			case b.Free:
				return false, nil
			default:
				read = b.Seq > *last
			}
		}
		if read {
			if done, err := m.catchUp(ctx, st, last); done || err != nil {
				return done, err
			}
		}
	}
}

// fakeService is the run's trace: each request is counted (by member)
// and the run is done at the finish-th (0: not yet).
type fakeService struct {
	*httptest.Server
	mu     sync.Mutex
	n      int
	finish int
	by     map[string]int
}

func newFakeService(t testing.TB, finish int) *fakeService {
	f := &fakeService{finish: finish, by: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.n++
		f.by[r.URL.Query().Get("m")]++
		p := servicePoll{K: f.n, Done: f.finish > 0 && f.n >= f.finish}
		f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(p)
	}))
	t.Cleanup(f.Close)
	return f
}

// finishIn ends the run n requests from now.
func (f *fakeService) finishIn(n int) {
	f.mu.Lock()
	f.finish = f.n + n
	f.mu.Unlock()
}

func (f *fakeService) requests() (int, map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	by := map[string]int{}
	for k, v := range f.by {
		by[k] = v
	}
	return f.n, by
}

// checkStored checks the run's stored polls: numbered from 0 without a
// gap, each a later answer of the service than the one before (no poll
// stored twice or out of order), tokens never going back (no fenced
// holder wrote after its successor), the last one the run's end. It
// returns them.
func checkStored(t *testing.T, st Store, k LeaseKey) []storedPoll {
	t.Helper()
	ps, err := st.PollsSince(context.Background(), k.Service, k.Run, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []storedPoll
	for i, p := range ps {
		var sp storedPoll
		if err := json.Unmarshal(p.Line, &sp); err != nil {
			t.Fatal(err)
		}
		if p.Seq != int64(i) {
			t.Errorf("poll %d stored as %d", i, p.Seq)
		}
		if i > 0 && (sp.K <= out[i-1].K || sp.Token < out[i-1].Token) {
			t.Errorf("poll %d (%+v) after %+v", i, sp, out[i-1])
		}
		out = append(out, sp)
	}
	if len(out) == 0 || !out[len(out)-1].Done {
		t.Fatalf("the run's end not stored: %+v", out)
	}
	return out
}

// checkSeen checks that a member showed every stored poll once, in order
// (from the first, or up to where it stopped), and nothing wrong.
func checkSeen(t *testing.T, name string, events []event, stored int, whole bool) {
	t.Helper()
	next := int64(0)
	for _, e := range events {
		if e.Member != name {
			continue
		}
		switch e.Kind {
		case "wrong":
			t.Errorf("%s: %s", name, e.Err)
		case "seen":
			if e.Seq != next {
				t.Errorf("%s showed poll %d after %d", name, e.Seq, next-1)
			}
			next = e.Seq + 1
		}
	}
	if whole && next != int64(stored) {
		t.Errorf("%s showed %d of the %d stored polls", name, next, stored)
	}
}

// readEvents reads a member process's NDJSON events into out.
func readEvents(r io.Reader, out chan<- event) {
	dec := json.NewDecoder(r)
	for {
		var e event
		if err := dec.Decode(&e); err != nil {
			return
		}
		out <- e
	}
}
