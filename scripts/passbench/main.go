// Command passbench measures an archive pass beside a live watch on one
// team's key with the simulator's rate limit on: the pass's requests,
// time and 429s, and the 429s the watch met (each one a wait the pass
// caused) with the longest time the watch went without an answer. With
// -fail it answers 500 to every request of one endpoint of the runs
// ("snapshots", "trace", or "" for none) and measures how long the pass
// takes. Run it with scripts/passbench.sh.
//
// The watch and the pass reach the simulator through two listeners of
// their own, so that each one's 429s are counted apart; the simulator
// limits them together (one key).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/firewatch/firewatch/sim"
)

func main() {
	bins := flag.String("firewatch", "firewatch", "firewatch binaries to measure, comma-separated (label=path or path)")
	runs := flag.Int("runs", 500, "runs in the team's list")
	limit := flag.Int("limit", 500, "the simulator's rate limit: requests per -window")
	window := flag.Duration("window", time.Minute, "the rate limit's window (shorter scales the whole measurement down in time)")
	interval := flag.Duration("watch-interval", 2*time.Second, "the live watch's interval")
	fail := flag.String("fail", "", `answer 500 to every request whose path has /<fail>/ ("snapshots", "trace"); "" none`)
	noWatch := flag.Bool("no-watch", false, "no live watch beside the pass")
	flag.Parse()
	fmt.Printf("passbench: %d runs, rate limit %d per %s, watch every %s, failing endpoint %q\n", *runs, *limit, *window, *interval, *fail)
	fmt.Printf("%-12s %8s %9s %10s %12s %10s %14s\n", "binary", "pass s", "requests", "pass 429s", "watch polls", "watch 429s", "watch max gap")
	for _, b := range strings.Split(*bins, ",") {
		label, path, ok := strings.Cut(b, "=")
		if !ok {
			label, path = filepath.Base(b), b
		}
		r, err := measure(path, *runs, *limit, *window, *interval, *fail, !*noWatch)
		if err != nil {
			fmt.Fprintf(os.Stderr, "passbench: %s: %v\n", label, err)
			os.Exit(1)
		}
		fmt.Printf("%-12s %8.1f %9d %10d %12d %10d %13.1fs\n", label, r.pass.Seconds(), r.passReqs, r.pass429, r.watchReqs, r.watch429, r.watchGap.Seconds())
		if r.said != "" {
			fmt.Printf("             %s\n", r.said)
		}
	}
}

type result struct {
	pass                time.Duration
	passReqs, pass429   int
	watchReqs, watch429 int
	watchGap            time.Duration
	said                string
}

// front counts the requests and 429s of one client, and the longest time
// between two of its answers.
type front struct {
	next http.Handler
	fail string

	mu      sync.Mutex
	n, n429 int
	last    time.Time
	gap     time.Duration
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	if f.fail != "" && strings.Contains(r.URL.Path, "/"+f.fail+"/") || f.fail == "trace" && strings.HasSuffix(r.URL.Path, "/trace") {
		sw.Header().Set("Content-Type", "application/json")
		sw.WriteHeader(http.StatusInternalServerError)
		sw.Write([]byte(`{"success":false,"error":"Internal server error"}`))
	} else {
		f.next.ServeHTTP(sw, r)
	}
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if sw.status == http.StatusTooManyRequests {
		f.n429++
	} else {
		// The time the watch went without an answer it could use.
		if !f.last.IsZero() {
			f.gap = max(f.gap, now.Sub(f.last))
		}
		f.last = now
	}
}

func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String(), func() { hs.Close() }, nil
}

func measure(bin string, runs, limit int, window, interval time.Duration, fail string, watch bool) (result, error) {
	var res result
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// One live research run lasting about twenty minutes, and the team's
	// finished runs.
	srv, err := sim.Start(ctx, sim.Options{Scenarios: []string{"research"}, Speed: 0.05, History: runs - 1, RateLimit: limit, RateWindow: window})
	if err != nil {
		return res, err
	}
	defer srv.Close()
	wf, pf := &front{next: srv}, &front{next: srv, fail: fail}
	wURL, wClose, err := serve(wf)
	if err != nil {
		return res, err
	}
	defer wClose()
	pURL, pClose, err := serve(pf)
	if err != nil {
		return res, err
	}
	defer pClose()
	dir, err := os.MkdirTemp("", "passbench-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	env := append(os.Environ(), "FIRECRAWL_API_KEY="+srv.Key, "XDG_DATA_HOME="+dir,
		fmt.Sprintf("FIREWATCH_RATE_LIMIT=%d/%s", limit, window))
	var w *exec.Cmd
	if watch {
		w = exec.CommandContext(ctx, bin, "watch", srv.Jobs[0].ID, "-o", "json", "--interval", interval.String(), "--archive", "off", "--api-url", wURL)
		w.Env = env
		if err := w.Start(); err != nil {
			return res, err
		}
		// Its first answer before the pass starts.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			wf.mu.Lock()
			n := wf.n
			wf.mu.Unlock()
			if n > 0 {
				break
			}
		}
	}
	p := exec.CommandContext(ctx, bin, "archive", "--once", "--archive", filepath.Join(dir, "a.db"), "--api-url", pURL)
	p.Env = env
	stderr, _ := p.StderrPipe()
	start := time.Now()
	if err := p.Start(); err != nil {
		return res, err
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "no more") || strings.Contains(line, "runs seen") {
			res.said = strings.TrimSpace(line)
		}
	}
	perr := p.Wait()
	res.pass = time.Since(start)
	if w != nil {
		w.Process.Kill()
		w.Wait()
	}
	wf.mu.Lock()
	res.watchReqs, res.watch429, res.watchGap = wf.n, wf.n429, wf.gap
	wf.mu.Unlock()
	pf.mu.Lock()
	res.passReqs, res.pass429 = pf.n, pf.n429
	pf.mu.Unlock()
	if perr != nil && fail == "" {
		return res, fmt.Errorf("the pass: %v (%s)", perr, res.said)
	}
	return res, nil
}
