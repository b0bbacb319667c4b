// Command hubbench measures firewatch hub with 1, 10 and 50 SSH sessions
// watching live runs of the simulator's large scenario (one, or -runs,
// the sessions spread over them): the trace requests a minute the service
// sees, the hub's CPU and memory, the bytes each session is sent per
// event of its run, and with -postgres the connections the hub holds to
// its archive. Run it with scripts/hubbench.sh.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"golang.org/x/crypto/ssh"
)

func main() {
	bin := flag.String("firewatch", "firewatch", "the firewatch binary")
	counts := flag.String("sessions", "1,10,50", "session counts to measure, comma-separated")
	events := flag.Int("events", 10000, "events of the large run")
	dump = flag.String("dump", "", "write what the first session was sent after enter to `FILE`, and before it to FILE.before (to look at)")
	speed := flag.Float64("speed", 1, "the simulator's pace (the large run lasts about 58 s / speed)")
	runs := flag.Int("runs", 1, "live runs, the sessions spread over them (session i watches run i mod runs)")
	pg := flag.String("postgres", "", "the hub's archive on this PostgreSQL server (a `DSN` whose user may create databases): a fresh database each count, whose connections (pg_stat_activity) are counted; default an SQLite file")
	flag.Parse()
	if *runs < 1 {
		fail("-runs %d: at least 1", *runs)
	}
	store := "SQLite"
	if *pg != "" {
		store = "PostgreSQL"
	}
	fmt.Printf("hubbench: %d live run(s) of %d events (large scenario, speed %g), archive on %s, sessions at 120x40\n", *runs, *events, *speed, store)
	fmt.Printf("%8s  %14s  %12s  %11s  %12s  %18s  %12s\n", "sessions", "trace req/min", "hub CPU %", "hub RSS MB", "window s", "bytes/event/sess", "pg conns")
	var base float64
	var baseN int
	for _, f := range strings.Split(*counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fail("-sessions %q: %v", f, err)
		}
		r, err := measure(*bin, n, *events, *speed, *runs, *pg)
		if err != nil {
			fail("%d sessions: %v", n, err)
		}
		if base == 0 {
			base, baseN = r.rssMB, n
		}
		conns := "-"
		if *pg != "" {
			conns = fmt.Sprintf("%d idle, max %d", r.connsIdle, r.connsMax)
		}
		fmt.Printf("%8d  %14.1f  %12.1f  %11.1f  %12.1f  %8.1f (max %.1f)  %s\n", n, r.tracePerMin, r.cpuPct, r.rssMB, r.window.Seconds(), r.bytesPerEvent, r.maxBytesPerEvent, conns)
		if *runs > 1 {
			fmt.Printf("          runs polled in the window: %d of %d\n", r.runsPolled, *runs)
		}
		if n > baseN {
			fmt.Printf("          memory per extra session: %.2f MB\n", (r.rssMB-base)/float64(n-baseN))
		}
	}
}

var dump *string

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "hubbench: "+format+"\n", args...)
	os.Exit(1)
}

type result struct {
	tracePerMin, cpuPct, rssMB      float64
	window                          time.Duration
	bytesPerEvent, maxBytesPerEvent float64
	// The hub's connections to PostgreSQL: once its sessions list the
	// runs (idle), and the most seen from then to the runs' end.
	connsIdle, connsMax int
	runsPolled          int // runs with trace requests in the window
}

func measure(bin string, n, events int, speed float64, runs int, pg string) (result, error) {
	var res result
	dir, err := os.MkdirTemp("", "hubbench")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// The service, its request log in a file.
	serveLog := filepath.Join(dir, "serve.log")
	lf, err := os.Create(serveLog)
	if err != nil {
		return res, err
	}
	defer lf.Close()
	args := []string{"serve", "--events", strconv.Itoa(events), "--rate-limit", "-1", "--speed", strconv.FormatFloat(speed, 'f', -1, 64), "--scrapes", "0"}
	for range runs {
		args = append(args, "--scenario", "large")
	}
	serve := exec.CommandContext(ctx, bin, args...)
	serve.Stderr = lf
	out, _ := serve.StdoutPipe()
	if err := serve.Start(); err != nil {
		return res, err
	}
	started := time.Now()
	defer stop(serve)
	env := map[string]string{}
	var jobIDs []string
	sc := bufio.NewScanner(out)
	for len(jobIDs) < runs && sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
			if k == "JOB_ID" {
				jobIDs = append(jobIDs, v)
			}
		}
	}
	go io.Copy(io.Discard, out)
	if len(jobIDs) < runs {
		return res, fmt.Errorf("serve printed %d JOB_IDs, want %d", len(jobIDs), runs)
	}
	runEnds := started.Add(time.Duration(float64(58*time.Second)/speed) + 2*time.Second)

	// The hub, with one viewer.
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(priv)
	spub, _ := ssh.NewPublicKey(pub)
	keys := filepath.Join(dir, "team.keys")
	if err := os.WriteFile(keys, []byte(strings.TrimSpace(string(ssh.MarshalAuthorizedKey(spub)))+" bench\n"), 0o644); err != nil {
		return res, err
	}
	hub := exec.CommandContext(ctx, bin, "hub", "--listen", "127.0.0.1:0", "--authorized-keys", keys,
		"--host-key", filepath.Join(dir, "host"), "--max-sessions", "200")
	archiveDSN := ""
	var conns *connCounter
	if pg != "" {
		if archiveDSN, conns, err = freshDatabase(pg); err != nil {
			return res, err
		}
		defer conns.drop()
	}
	hub.Env = append(os.Environ(), "FIRECRAWL_API_URL="+env["FIRECRAWL_API_URL"], "FIRECRAWL_API_KEY="+env["FIRECRAWL_API_KEY"],
		"XDG_DATA_HOME="+dir, "FIREWATCH_ARCHIVE="+archiveDSN)
	herr, _ := hub.StderrPipe()
	if err := hub.Start(); err != nil {
		return res, err
	}
	defer stop(hub)
	addrRe := regexp.MustCompile(`listening on (\S+) `)
	hsc := bufio.NewScanner(herr)
	addr := ""
	for addr == "" && hsc.Scan() {
		if m := addrRe.FindStringSubmatch(hsc.Text()); m != nil {
			addr = m[1]
		}
	}
	go io.Copy(io.Discard, herr)
	if addr == "" {
		return res, fmt.Errorf("the hub did not say where it listens")
	}

	// The sessions: each opens the runs screen, then the run.
	cfg := &ssh.ClientConfig{User: "bench", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second}
	// Ten sessions a connection: the hub's per-address limit takes 20 new
	// connections at once, then one a second.
	clients := make([]*ssh.Client, (n+perConn-1)/perConn)
	for i := range clients {
		if clients[i], err = ssh.Dial("tcp", addr, cfg); err != nil {
			return res, err
		}
		defer clients[i].Close()
	}
	sessions := make([]*session, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := openSession(clients[i/perConn])
			if err != nil {
				errs <- err
				return
			}
			sessions[i] = s
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return res, err
	}
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()
	// Every session lists every run (its id's first 8 characters), not
	// the list's first "0 of 0 loaded".
	for _, s := range sessions {
		for _, id := range jobIDs {
			if err := s.waitFor(id[:8], 20*time.Second); err != nil {
				return res, err
			}
		}
	}
	if conns != nil {
		res.connsIdle = conns.count()
		sctx, stopSample := context.WithCancel(ctx)
		defer stopSample() // before the database is dropped
		go conns.sample(sctx)
	}
	// The window: from the moment every session watches its run to the
	// runs' end. Session i watches run i mod runs: down that many rows.
	t0 := time.Now()
	for i, s := range sessions {
		s.enter(i % runs)
	}
	traces0 := countTraces(serveLog, jobIDs)
	cpu0 := cpuTicks(hub.Process.Pid)
	time.Sleep(time.Until(runEnds))
	window := time.Since(t0)
	traces1 := countTraces(serveLog, jobIDs)
	cpu1 := cpuTicks(hub.Process.Pid)
	if conns != nil {
		res.connsMax = int(max(conns.max.Load(), int64(res.connsIdle)))
	}
	for i := range jobIDs {
		if traces1[i] > traces0[i] {
			res.runsPolled++
		}
	}
	res.window = window
	res.tracePerMin = float64(sum(traces1)-sum(traces0)) / window.Minutes()
	res.cpuPct = float64(cpu1-cpu0) / 100 / window.Seconds() * 100 // USER_HZ 100
	res.rssMB = float64(rssKB(hub.Process.Pid)) / 1024
	var total float64
	for _, s := range sessions {
		b := float64(s.sent.Load()) / float64(events)
		total += b
		res.maxBytesPerEvent = max(res.maxBytesPerEvent, b)
	}
	res.bytesPerEvent = total / float64(n)
	if *dump != "" {
		s := sessions[0]
		s.mu.Lock()
		_ = os.WriteFile(*dump, s.tail.Bytes(), 0o644)
		_ = os.WriteFile(*dump+".before", s.head.Bytes(), 0o644)
		s.mu.Unlock()
	}
	return res, nil
}

// session is one SSH session with a PTY, counting what it is sent after
// enter.
type session struct {
	s     *ssh.Session
	in    io.WriteCloser
	mu    sync.Mutex
	head  bytes.Buffer // what came before enter
	enter func(down int)
	sent  atomic.Int64
	tail  bytes.Buffer // with -dump: what came after enter
}

// perConn is how many sessions share one SSH connection.
const perConn = 10

func openSession(c *ssh.Client) (*session, error) {
	s, err := c.NewSession()
	if err != nil {
		return nil, err
	}
	_ = s.Setenv("LANG", "C.UTF-8")
	if err := s.RequestPty("xterm-256color", 40, 120, ssh.TerminalModes{}); err != nil {
		return nil, err
	}
	in, _ := s.StdinPipe()
	out, _ := s.StdoutPipe()
	if err := s.Shell(); err != nil {
		return nil, err
	}
	ss := &session{s: s, in: in}
	var entered atomic.Bool
	ss.enter = func(down int) {
		_, _ = io.WriteString(in, strings.Repeat("j", down))
		entered.Store(true)
		_, _ = io.WriteString(in, "\r")
	}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			k, err := out.Read(buf)
			if entered.Load() {
				ss.sent.Add(int64(k))
				if *dump != "" {
					ss.mu.Lock()
					ss.tail.Write(buf[:k])
					ss.mu.Unlock()
				}
			} else {
				ss.mu.Lock()
				ss.head.Write(buf[:k])
				ss.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	return ss, nil
}

func (s *session) waitFor(want string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		ok := bytes.Contains(s.head.Bytes(), []byte(want))
		s.mu.Unlock()
		if ok {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("a session never showed %q", want)
}

func (s *session) close() {
	if s == nil {
		return
	}
	_, _ = io.WriteString(s.in, "q")
	s.s.Close()
}

func stop(c *exec.Cmd) {
	_ = c.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = c.Process.Kill()
	}
}

// countTraces counts each run's trace requests in the service's log.
func countTraces(path string, jobIDs []string) []int {
	b, _ := os.ReadFile(path)
	n := make([]int, len(jobIDs))
	for i, id := range jobIDs {
		n[i] = bytes.Count(b, []byte("/v2/agent/"+id+"/trace"))
	}
	return n
}

func sum(n []int) int {
	t := 0
	for _, v := range n {
		t += v
	}
	return t
}

// connCounter counts the connections to one database of the bench's own,
// which only the hub uses.
type connCounter struct {
	db   *sql.DB // the server's maintenance database
	name string
	max  atomic.Int64
}

// freshDatabase makes a database for one measure on the server of dsn:
// the hub's archive DSN, and its counter.
func freshDatabase(dsn string) (string, *connCounter, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, fmt.Errorf("-postgres: a postgres:// URL, please")
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return "", nil, err
	}
	name := fmt.Sprintf("hubbench_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("-postgres: %v", err)
	}
	u.Path = "/" + name
	return u.String(), &connCounter{db: db, name: name}, nil
}

// count is how many connections the database has now.
func (c *connCounter) count() int {
	var n int
	if err := c.db.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE datname = $1`, c.name).Scan(&n); err != nil {
		fmt.Fprintf(os.Stderr, "hubbench: counting connections: %v\n", err)
	}
	return n
}

// sample keeps the most connections seen, every 100 ms until ctx ends.
func (c *connCounter) sample(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n := int64(c.count()); n > c.max.Load() {
			c.max.Store(n)
		}
	}
}

// drop removes the database once the hub has gone.
func (c *connCounter) drop() {
	_, _ = c.db.Exec("DROP DATABASE IF EXISTS " + c.name + " WITH (FORCE)")
	c.db.Close()
}

// cpuTicks is the process's user and system time, in clock ticks.
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// rssKB is the process's resident memory now.
func rssKB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb
		}
	}
	return 0
}
