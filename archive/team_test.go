package archive

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"
)

// The team's timing in these tests: a poll every teamInterval, leases for
// three of them.
const (
	teamInterval = 80 * time.Millisecond
	teamTTL      = 3 * teamInterval
)

// events collects what members say.
type events struct {
	mu  sync.Mutex
	all []event
	ch  chan event
}

func newEvents() *events { return &events{ch: make(chan event, 10000)} }

func (e *events) say(ev event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
	e.ch <- ev
}

// holder is the member that took a lease last.
func (e *events) holder() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.all) - 1; i >= 0; i-- {
		if e.all[i].Kind == "took" {
			return e.all[i].Member
		}
	}
	return ""
}

// count is how many events are of kind.
func count(all []event, kind string) int {
	n := 0
	for _, e := range all {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// toggle pauses a member when it next leads, or resumes it.
func toggle(t *testing.T, pause chan<- struct{}) {
	t.Helper()
	select {
	case pause <- struct{}{}:
	case <-time.After(5 * time.Second):
		t.Fatal("the member was never paused")
	}
}

func (e *events) list() []event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]event(nil), e.all...)
}

// await waits for the first event (after those already awaited) that ok
// accepts, for at most within.
func (e *events) await(t *testing.T, within time.Duration, what string, ok func(event) bool) event {
	t.Helper()
	timeout := time.After(within)
	for {
		select {
		case ev := <-e.ch:
			if ok(ev) {
				return ev
			}
		case <-timeout:
			t.Fatalf("not within %s: %s", within, what)
		}
	}
}

// checkTakeovers checks that each new holder's first poll was stored
// within three TTLs of its predecessor's last one.
func checkTakeovers(t *testing.T, st Store, k LeaseKey, want int) {
	t.Helper()
	ps, err := st.PollsSince(context.Background(), k.Service, k.Run, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var prev storedPoll
	for i, p := range ps {
		var sp storedPoll
		_ = json.Unmarshal(p.Line, &sp)
		if i > 0 && sp.Token != prev.Token {
			n++
			gap := p.ReceivedAt.Sub(ps[i-1].ReceivedAt)
			t.Logf("%s (token %d) took over from %s (token %d): %s between their polls (TTL %s)", sp.By, sp.Token, prev.By, prev.Token, gap, teamTTL)
			if gap > 3*teamTTL {
				t.Errorf("taken over after %s, more than three TTLs", gap)
			}
		}
		prev = sp
	}
	if n < want {
		t.Errorf("%d takeovers, want %d", n, want)
	}
}

// TestTwoFollowOneRun: two members (two stores, as two processes) follow
// one run: one polls, the other reads what it stores. The holder paused
// past its TTL is taken over and, awake, stores nothing and follows; the
// new holder gone (it stops without a word), the first takes it back.
// Every poll is stored once, in order, and shown once by each.
func TestTwoFollowOneRun(t *testing.T) {
	t.Parallel()
	eachStoreAtOnce(t, func(t *testing.T, dsn string, _ Store) {
		svcRun := newFakeService(t, 30)
		k := LeaseKey{Service: svcRun.URL, Team: team, Run: runID}
		ev := newEvents()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		pause := map[string]chan struct{}{}
		crash := map[string]context.CancelFunc{}
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		start := func(name string) {
			pause[name] = make(chan struct{}, 1)
			mctx, c := context.WithCancel(ctx)
			crash[name] = c
			m := &member{name: name, open: func(ctx context.Context) (Store, error) { return Open(ctx, dsn) },
				key: k, holder: NewHolder(name), interval: teamInterval, ttl: teamTTL, service: svcRun.URL, say: ev.say, pause: pause[name]}
			wg.Add(1)
			go func() { defer wg.Done(); errs <- m.run(mctx) }()
		}
		other := map[string]string{"a": "b", "b": "a"}
		start("a")
		ev.await(t, 5*time.Second, "a takes the lease", func(e event) bool { return e.Member == "a" && e.Kind == "took" })
		start("b")
		ev.await(t, 5*time.Second, "b shows a's polls", func(e event) bool { return e.Member == "b" && e.Kind == "seen" && e.Seq >= 5 })
		paused := ev.holder()
		toggle(t, pause[paused])
		next := ev.await(t, 3*teamTTL+time.Second, "the other takes over", func(e event) bool { return e.Member == other[paused] && e.Kind == "took" })
		ev.await(t, 5*time.Second, "the new holder stores", func(e event) bool { return e.Member == next.Member && e.Kind == "seen" && e.Token == next.Token })
		toggle(t, pause[paused])
		ev.await(t, 5*time.Second, "the paused one, awake, loses", func(e event) bool { return e.Member == paused && e.Kind == "lost" })
		ev.await(t, 5*time.Second, "and follows", func(e event) bool { return e.Member == paused && e.Kind == "seen" && e.Token >= next.Token })
		gone := ev.holder()
		crash[gone]()
		ev.await(t, 3*teamTTL+time.Second, "the other takes it back", func(e event) bool { return e.Member == other[gone] && e.Kind == "took" })
		ev.await(t, 10*time.Second, "the run ends", func(e event) bool { return e.Member == other[gone] && e.Kind == "done" })
		cancel()
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil && err != context.Canceled {
				t.Error(err)
			}
		}
		st := openAgain(t, dsn)
		stored := checkStored(t, st, k)
		checkTakeovers(t, st, k, 2)
		checkSeen(t, other[gone], ev.list(), len(stored), true)
		checkSeen(t, gone, ev.list(), len(stored), false)
		n, by := svcRun.requests()
		t.Logf("%d polls stored, %d trace requests (%v)", len(stored), n, by)
		// Besides the stored polls: one for each lease lost (the poll it
		// kept out), and the one in flight when the holder stopped.
		if n > len(stored)+count(ev.list(), "lost")+1 {
			t.Errorf("%d trace requests for %d stored polls: more than one member polled", n, len(stored))
		}
	})
}

// logDelays says how long after the holder stored each poll the other
// members showed it (median and worst): on PostgreSQL a doorbell's way,
// on SQLite up to the interval. Said, not checked: a budget is measured by
// BenchmarkFollowerDelay.
func logDelays(t *testing.T, all []event) {
	stored := map[int64]time.Time{}
	for _, e := range all {
		if e.Kind == "seen" && e.Token != 0 {
			if at, ok := stored[e.Seq]; !ok || e.At.Before(at) {
				stored[e.Seq] = e.At
			}
		}
	}
	var d []time.Duration
	for _, e := range all {
		if at, ok := stored[e.Seq]; ok && e.Kind == "seen" && e.At.After(at) {
			d = append(d, e.At.Sub(at))
		}
	}
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	t.Logf("followers showed a poll %s after its holder stored it (median; worst %s; %d shown)", d[len(d)/2], d[len(d)-1], len(d))
}

// memberEnv, in a test binary's environment, makes it a member process
// (memberMain) instead of running the tests.
const memberEnv = "FIREWATCH_TEST_MEMBER"

// memberConfig is a member process's.
type memberConfig struct {
	Name, DSN, Service string
	Key                LeaseKey
	Interval, TTL      time.Duration
}

// memberMain runs one member: events as NDJSON on stdout; each line on
// stdin pauses it, or resumes it.
func memberMain(cfg string) int {
	var c memberConfig
	if err := json.Unmarshal([]byte(cfg), &c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var mu sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	pause := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			pause <- struct{}{}
		}
	}()
	m := &member{name: c.Name, open: func(ctx context.Context) (Store, error) { return Open(ctx, c.DSN) },
		key: c.Key, holder: NewHolder("member " + c.Name), interval: c.Interval, ttl: c.TTL, service: c.Service,
		say: func(e event) {
			mu.Lock()
			defer mu.Unlock()
			_ = enc.Encode(e)
		}, pause: pause}
	if err := m.run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestTeamOfProcesses: three processes follow one run on one archive. The
// service sees one poll at a time; the holder paused past its TTL is taken
// over and, awake, stores nothing; the next holder killed with SIGKILL is
// taken over within three TTLs of its last stored poll; every poll is
// stored once, in order, and every process that saw the run end showed
// each once.
func TestTeamOfProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	t.Parallel()
	eachStoreAtOnce(t, func(t *testing.T, dsn string, st Store) {
		svcRun := newFakeService(t, 36)
		k := LeaseKey{Service: svcRun.URL, Team: team, Run: runID}
		ev := newEvents()
		type proc struct {
			cmd   *exec.Cmd
			stdin interface{ Write([]byte) (int, error) }
		}
		procs := map[string]*proc{}
		var readers sync.WaitGroup
		for _, name := range []string{"p1", "p2", "p3"} {
			cfg, _ := json.Marshal(memberConfig{Name: name, DSN: dsn, Service: svcRun.URL, Key: k, Interval: teamInterval, TTL: teamTTL})
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), memberEnv+"="+string(cfg))
			cmd.Stderr = os.Stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			procs[name] = &proc{cmd, stdin}
			readers.Add(1)
			go func() {
				defer readers.Done()
				ch := make(chan event)
				go func() { readEvents(stdout, ch); close(ch) }()
				for e := range ch {
					ev.say(e)
				}
			}()
		}
		ev.await(t, 10*time.Second, "a process takes the lease", func(e event) bool { return e.Kind == "took" })
		ev.await(t, 5*time.Second, "polls stored", func(e event) bool { return e.Kind == "seen" && e.Seq >= 5 })
		first := event{Member: ev.holder()}
		procs[first.Member].stdin.Write([]byte("pause\n"))
		second := ev.await(t, 3*teamTTL+2*time.Second, "another takes over from the paused one", func(e event) bool {
			return e.Kind == "took" && e.Member != first.Member
		})
		ev.await(t, 5*time.Second, "the new holder stores", func(e event) bool { return e.Kind == "seen" && e.Token == second.Token })
		procs[first.Member].stdin.Write([]byte("resume\n"))
		ev.await(t, 5*time.Second, "the paused one, awake, loses", func(e event) bool { return e.Member == first.Member && e.Kind == "lost" })
		ev.await(t, 5*time.Second, "a few more polls", func(e event) bool {
			return e.Kind == "seen" && e.Member == first.Member && e.Token >= second.Token && e.K >= 24
		})
		killed := ev.holder()
		procs[killed].cmd.Process.Kill()
		third := ev.await(t, 3*teamTTL+2*time.Second, "another takes over from the killed one", func(e event) bool {
			return e.Kind == "took" && e.Member != killed
		})
		t.Logf("%s took, %s took over from it paused, %s from %s killed", first.Member, second.Member, third.Member, killed)
		for name, p := range procs {
			if name == killed {
				p.cmd.Wait()
				continue
			}
			if err := p.cmd.Wait(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		readers.Wait()
		stored := checkStored(t, st, k)
		checkTakeovers(t, st, k, 2)
		for name := range procs {
			checkSeen(t, name, ev.list(), len(stored), name != killed)
		}
		logDelays(t, ev.list())
		n, by := svcRun.requests()
		t.Logf("%d polls stored, %d trace requests (%v)", len(stored), n, by)
		// Besides the stored polls: one for each lease lost (the poll it
		// kept out), and the one in flight when the holder was killed.
		if n > len(stored)+count(ev.list(), "lost")+1 {
			t.Errorf("%d trace requests for %d stored polls: more than one process polled", n, len(stored))
		}
	})
}
