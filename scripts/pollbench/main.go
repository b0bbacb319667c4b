// Command pollbench measures what one poll of a large live run costs
// firewatch, against a plain standard-library watcher (the repo's baseline,
// in plain.go) and, when its SDK is installed, the official JS SDK polling
// getAgentTrace with dedup by eventId (sdkwatch.mjs).
//
// It serves one growing trace per watcher on 127.0.0.1: the body starts at
// -events events (-shape sim, the simulator's large run: about 590 bytes
// each, 20 000 are 11.8 MB) and grows by -grow events at every request,
// served whole each time; request -polls brings run.finished. Each watcher
// runs as its own process, one after the other, polling at -interval;
// pollbench reports each one's CPU (user+system, from the kernel's
// accounting of the child) divided by the trace requests it made, the same
// counted from its -warm'th request on (the steady state), its peak RSS,
// and the ratios. Run it with scripts/pollbench.sh.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "plain" {
		os.Exit(plainMain(os.Args[2:]))
	}
	var (
		events   = flag.Int("events", 20000, "events in the first body")
		grow     = flag.Int("grow", 10, "events added at each request")
		polls    = flag.Int("polls", 100, "the request that brings run.finished")
		interval = flag.Duration("interval", 100*time.Millisecond, "poll interval")
		fw       = flag.String("firewatch", "", "firewatch binary (required)")
		sdk      = flag.String("sdk", "", "directory holding node_modules/@mendable/firecrawl-js (empty: skip the JS SDK)")
		addr     = flag.String("addr", "127.0.0.1:0", "listen address")
		only     = flag.String("only", "", "comma-separated watchers to run (firewatch,plain,sdk); default all")
		fwArgs   = flag.String("firewatch-args", "", "extra arguments for firewatch watch")
		gz       = flag.Bool("gzip", false, "gzip the bodies for clients that ask for it (as a CDN would)")
		warm     = flag.Int("warm", 20, "requests before the steady-state count starts (CPU per re-poll)")
		archive  = flag.String("archive", "off", "firewatch's archive (FIREWATCH_ARCHIVE): off, or a file to measure archiving; never the user's")
		shape    = flag.String("shape", "sim", "the events: sim (the simulator's large run: tool calls with parameters and results, reasoning, artifacts across 12 agents) or text (one agent's reasoning, a long string each)")
	)
	flag.Parse()
	if *fw == "" {
		fmt.Fprintln(os.Stderr, "pollbench: -firewatch is required")
		os.Exit(2)
	}
	var tr *trace
	switch *shape {
	case "sim":
		var err error
		if tr, err = simTrace(*events + *grow**polls + 1); err != nil {
			fmt.Fprintln(os.Stderr, "pollbench:", err)
			os.Exit(1)
		}
	case "text":
		tr = newTrace(*events + *grow**polls + 1)
	default:
		fmt.Fprintf(os.Stderr, "pollbench: -shape %q: want sim or text\n", *shape)
		os.Exit(2)
	}
	srv := &server{gzip: *gz, tr: tr, first: *events, grow: *grow, polls: *polls, warm: *warm, reqs: map[string]*atomic.Int64{}}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pollbench:", err)
		os.Exit(1)
	}
	go http.Serve(ln, srv)
	base := "http://" + ln.Addr().String()
	self, _ := os.Executable()
	here := filepath.Dir(os.Args[0])
	_ = here
	type watcher struct {
		name string
		cmd  func(job string) *exec.Cmd
	}
	ms := strconv.FormatInt(interval.Milliseconds(), 10)
	ws := []watcher{
		{"firewatch", func(job string) *exec.Cmd {
			args := []string{"watch", job, "--output", "json", "--interval", interval.String(), "--api-url", base, "--tail", "1"}
			args = append(args, strings.Fields(*fwArgs)...)
			c := exec.Command(*fw, args...)
			c.Env = append(os.Environ(), "FIRECRAWL_API_KEY=fc-bench", "FIREWATCH_ARCHIVE="+*archive)
			return c
		}},
		{"plain", func(job string) *exec.Cmd { return exec.Command(self, "plain", base, job, ms) }},
	}
	if *sdk != "" {
		script, _ := filepath.Abs(filepath.Join(filepath.Dir(srcFile()), "sdkwatch.mjs"))
		ws = append(ws, watcher{"sdk", func(job string) *exec.Cmd {
			c := exec.Command("node", script, base, job, ms)
			c.Env = append(os.Environ(), "SDK_DIR="+*sdk)
			return c
		}})
	}
	fmt.Printf("trace (%s): %d events (%.1f MB) growing by %d a request, run.finished at request %d, interval %s\n\n",
		*shape, *events, float64(tr.size(*events))/1e6, *grow, *polls, *interval)
	fmt.Printf("| watcher | polls | CPU per poll | CPU per re-poll (after the first %d) | peak RSS | on the wire per poll |\n|---|---:|---:|---:|---:|---:|\n", *warm)
	res := map[string][3]float64{}
	for _, w := range ws {
		if *only != "" && !strings.Contains(","+*only+",", ","+w.name+",") {
			continue
		}
		// Every watcher watches the one run the trace's events belong to
		// (firewatch sets aside another run's events), one after the
		// other, each from the first body on.
		job := tr.job
		srv.reset(job)
		c := w.cmd(job)
		c.Stdout = nil // /dev/null
		var stderr bytes.Buffer
		c.Stderr = &stderr
		err := c.Start()
		if err == nil {
			srv.watch(c.Process.Pid)
			err = c.Wait()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "pollbench: %s: %v\n%s", w.name, err, stderr.String())
			continue
		}
		ru := c.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		n := srv.count(job)
		per := cpu / time.Duration(max(n, 1))
		steady, warmCPU := time.Duration(0), srv.warmCPU.Load()
		if warmCPU > 0 && n > *warm {
			steady = (cpu - time.Duration(warmCPU)) / time.Duration(n-*warm)
		}
		rss := float64(ru.Maxrss) / 1024 // KB → MB
		res[w.name] = [3]float64{float64(per), rss, float64(steady)}
		st := "–"
		if steady > 0 {
			st = fmt.Sprintf("%.1f ms", float64(steady)/1e6)
		}
		fmt.Printf("| %s | %d | %.1f ms | %s | %.0f MB | %.2f MB |\n", w.name, n, float64(per)/1e6, st, rss, float64(srv.wire.Swap(0))/float64(max(n, 1))/1e6)
	}
	f, ok := res["firewatch"]
	if !ok {
		return
	}
	fmt.Println()
	for _, o := range []string{"plain", "sdk"} {
		if r, ok := res[o]; ok {
			fmt.Printf("firewatch / %s: CPU per poll %.3f×, per re-poll %.3f×, peak RSS %.2f×\n", o, f[0]/r[0], f[2]/max(r[2], 1), f[1]/r[1])
		}
	}
}

// srcFile is this file's directory, for sdkwatch.mjs: pollbench is run
// with go run from the repository root (scripts/pollbench.sh).
func srcFile() string {
	if d := os.Getenv("POLLBENCH_DIR"); d != "" {
		return filepath.Join(d, "main.go")
	}
	return "scripts/pollbench/main.go"
}

// trace holds every event the run will ever bring, in the order the
// service serves them (producerSequence), with the order in which they
// become visible: the body of a poll is the first n events to become
// visible, served in that order. In the text shape both orders are the
// same (new events come at the end); in the sim shape, as on the service,
// they are not (new events land among the others, wherever their agent's
// sequence puts them).
type trace struct {
	job  string   // the run the events belong to
	evs  [][]byte // in serving order
	rank []int    // rank[i]: evs[i] is the rank[i]th event to become visible; run.finished is last
}

const job0 = "0190f3a4-0000-7000-8000-00000000aaaa"

func newTrace(n int) *trace {
	t := &trace{job: job0, evs: make([][]byte, n), rank: make([]int, n)}
	agents := []string{"orchestrator", "researcher", "writer", "checker"}
	for i := range n {
		a := i % len(agents)
		role := "subagent"
		if a == 0 {
			role = "orchestrator"
		}
		typ, extra := "reasoning.summary", `,"text":"Compared the pricing pages of the three vendors; the second one hides its rate limits behind a sales call, the third lists them per plan. Next: read the docs of the second one for the burst limit and the retry policy"`
		if i == n-1 {
			typ, extra = "run.finished", `,"outcome":"succeeded"`
		}
		t.evs[i] = fmt.Appendf(nil, `{"schemaVersion":1,"eventId":"0190f3a4-%04x-7000-8000-%012d","runId":"%s","occurredAt":"2026-03-14T09:%02d:%02d.%03dZ","producerSequence":%d,"agent":{"id":"0190f3a4-0000-7000-8000-00000000000%d","role":"%s","name":"%s"},"type":"%s"%s}`,
			i/1000000, i, job0, (i/600)%60, (i/10)%60, (i%10)*100, i, a, role, agents[a], typ, extra)
		t.rank[i] = i
	}
	return t
}

// body is the trace when the first n events to become visible are (n is
// at least 1 and at most len(t.evs)), as the parts to write.
func (t *trace) body(n int) [][]byte {
	parts := make([][]byte, 0, 2*n+1)
	parts = append(parts, []byte(`{"success":true,"id":"`+t.job+`","events":[`))
	for i, e := range t.evs {
		if t.rank[i] >= n {
			continue
		}
		if len(parts) > 1 {
			parts = append(parts, comma)
		}
		parts = append(parts, e)
	}
	return append(parts, []byte(`],"creditsUsed":`+strconv.Itoa(n)+`}`))
}

var comma = []byte{','}

// size is the length of the events of body(n).
func (t *trace) size(n int) int {
	k := 0
	for i, e := range t.evs {
		if t.rank[i] < n {
			k += len(e) + 1
		}
	}
	return k
}

type server struct {
	gzip               bool
	wire               atomic.Int64 // bytes written
	tr                 *trace
	first, grow, polls int
	mu                 sync.Mutex
	reqs               map[string]*atomic.Int64
	warm               int          // the request before which warmCPU is taken
	pid                atomic.Int64 // the watcher being served
	warmCPU            atomic.Int64 // its CPU time (ns) when request warm came
}

// watch names the watcher process served next.
func (s *server) watch(pid int) {
	s.warmCPU.Store(0)
	s.pid.Store(int64(pid))
}

// cpuOf is a process's CPU time so far, in nanoseconds: the sum over its
// threads of the first field of /proc/PID/task/TID/schedstat (0 where
// there is no /proc).
func cpuOf(pid int) int64 {
	dirs, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var ns int64
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			v, _ := strconv.ParseInt(f[0], 10, 64)
			ns += v
		}
	}
	return ns
}

func (s *server) reset(job string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs[job] = new(atomic.Int64)
}

func (s *server) count(job string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.reqs[job]; c != nil {
		return int(c.Load())
	}
	return 0
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	seg := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(seg) != 4 || seg[0] != "v2" || seg[1] != "agent" || seg[3] != "trace" {
		http.Error(w, `{"success":false,"error":"not found"}`, http.StatusNotFound)
		return
	}
	s.mu.Lock()
	c := s.reqs[seg[2]]
	if c == nil {
		c = new(atomic.Int64)
		s.reqs[seg[2]] = c
	}
	s.mu.Unlock()
	k := int(c.Add(1)) - 1
	if k == s.warm {
		// The steady state's count starts here: everything the watcher
		// did for the first warm bodies (decoding the first whole, its
		// start-up) is behind it.
		s.warmCPU.Store(cpuOf(int(s.pid.Load())))
	}
	n := len(s.tr.evs) // the last poll: run.finished
	if k+1 < s.polls {
		n = min(s.first+s.grow*k, n-1)
	}
	// One write of the whole body, as a service behind a proxy sends it
	// (written event by event, it would go out in 4 KB segments and wake
	// the watcher for each).
	var b bytes.Buffer
	if s.gzip && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		z, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		for _, p := range s.tr.body(n) {
			z.Write(p)
		}
		z.Close()
		w.Header().Set("Content-Encoding", "gzip")
	} else {
		for _, p := range s.tr.body(n) {
			b.Write(p)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	s.wire.Add(int64(b.Len()))
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.Write(b.Bytes())
}
