// Command archivecpu measures what archiving costs a live watch in CPU:
// `firewatch serve` runs research runs (about a minute each at speed 1) and
// firewatch watches each at the default 2 s interval, half with the archive
// off and half into one SQLite archive file, all at the same time. Each
// watch's CPU is its user+system time as the kernel accounts it to the
// child (os.ProcessState, microseconds), summed per group.
//
// With -base, a second firewatch binary (main's, say) is measured in the
// same rounds: its watches run beside the first one's on the same
// simulator, under the same load, into an archive file of its own, so the
// two builds' figures are side by side. The watches are started
// interleaved, their order turned at every round.
//
// With -own, each archived watch writes an archive file of its own: a
// watch alone in its archive (one user's one watch), where by default the
// archived watches of a build share one file, as a user's several watches
// at once share the data folder's archive.
//
// Run it with scripts/archivecpu.sh.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

type build struct {
	label, bin string
	db         string // its archive file
}

// watch is one watch's outcome.
type watch struct {
	b      int // which build
	on     bool
	cpu    time.Duration
	code   int
	stderr string
}

func main() {
	var (
		pairs  = flag.Int("pairs", 3, "watches with the archive off and on, per build and round")
		rounds = flag.Int("rounds", 1, "rounds, one after the other (about a minute each)")
		fw     = flag.String("firewatch", "", "firewatch binary (required)")
		base   = flag.String("base", "", "a second firewatch binary measured in the same rounds (empty: none)")
		label  = flag.String("label", "this", "the -firewatch binary's name in the report")
		blabel = flag.String("base-label", "base", "the -base binary's name in the report")
		own    = flag.Bool("own", false, "each archived watch into an archive file of its own (default: one file per build)")
	)
	flag.Parse()
	if *fw == "" || *pairs < 1 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "archivecpu: -firewatch is required, -pairs and -rounds at least 1")
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "archivecpu")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	builds := []build{{label: *label, bin: *fw}}
	if *base != "" {
		builds = append(builds, build{label: *blabel, bin: *base})
	}
	for i := range builds {
		builds[i].db = filepath.Join(tmp, fmt.Sprintf("archive-%d.db", i))
	}
	var all []watch
	for r := range *rounds {
		ws, err := round(tmp, builds, *pairs, r, *own)
		if err != nil {
			fail(err)
		}
		for _, w := range ws {
			if w.code != 0 {
				fmt.Fprintf(os.Stderr, "archivecpu: a watch (%s, archive %s) exited %d: %s\n", builds[w.b].label, onOff(w.on), w.code, strings.TrimSpace(w.stderr))
			}
		}
		fmt.Printf("round %d:", r+1)
		for b := range builds {
			off, on := sum(ws, b, false), sum(ws, b, true)
			fmt.Printf("  %s off %s on %s ratio %.2f", builds[b].label, secs(off), secs(on), float64(on)/float64(off))
		}
		fmt.Println()
		all = append(all, ws...)
	}
	files := "one archive file per build"
	if *own {
		files = "each archived watch into a file of its own"
	}
	fmt.Printf("\n%d round(s) of %d watches with the archive off and %d on per build, all at once, %s\n", *rounds, *pairs, *pairs, files)
	for b := range builds {
		off, on := cpus(all, b, false), cpus(all, b, true)
		mo, so := meanSD(off)
		mn, sn := meanSD(on)
		var ratios []float64
		for r := range *rounds {
			ws := all[r*len(all) / *rounds : (r+1)*len(all) / *rounds]
			ratios = append(ratios, float64(sum(ws, b, true))/float64(sum(ws, b, false)))
		}
		slices.Sort(ratios)
		fmt.Printf("%-6s per watch: off %.1f ± %.1f ms, on %.1f ± %.1f ms (mean ± sd); on - off %.1f ms; ratio of sums %.2f (rounds: min %.2f, median %.2f, max %.2f)\n",
			builds[b].label, mo, so, mn, sn, mn-mo, mn/mo, ratios[0], ratios[len(ratios)/2], ratios[len(ratios)-1])
		// The machine's other load makes a few watches slow: medians are
		// the figures that such an outlier does not move.
		fmt.Printf("%-6s medians:   off %.1f ms, on %.1f ms; on - off %.1f ms; ratio %.2f\n",
			builds[b].label, median(off), median(on), median(on)-median(off), median(on)/median(off))
	}
}

// round runs one simulator and every build's watches against it at once.
func round(tmp string, builds []build, pairs, r int, own bool) ([]watch, error) {
	n := 2 * pairs * len(builds)
	args := []string{"serve", "--speed", "1", "--rate-limit", "-1"}
	for range n {
		args = append(args, "--scenario", "research")
	}
	serve := exec.Command(builds[0].bin, args...)
	serve.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(tmp, "xdg"))
	out, err := serve.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := serve.Start(); err != nil {
		return nil, err
	}
	defer func() {
		serve.Process.Kill()
		serve.Wait()
	}()
	var env, jobs []string
	sc := bufio.NewScanner(out)
	for len(jobs) < n && sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "JOB_ID=") {
			jobs = append(jobs, strings.TrimPrefix(line, "JOB_ID="))
		} else if strings.HasPrefix(line, "FIRECRAWL_") {
			env = append(env, line)
		}
	}
	if len(jobs) < n {
		return nil, fmt.Errorf("serve gave %d runs of %d", len(jobs), n)
	}
	go io.Copy(io.Discard, out)
	env = append(append(os.Environ(), env...), "XDG_DATA_HOME="+filepath.Join(tmp, "xdg"))
	// Job k goes to group k % groups; the groups' order turns each round.
	groups := 2 * len(builds)
	ws := make([]watch, n)
	var wg sync.WaitGroup
	for k, job := range jobs {
		g := (k + r) % groups
		w := &ws[k]
		w.b, w.on = g/2, g%2 == 1
		mode := "off"
		switch {
		case w.on && own:
			mode = filepath.Join(tmp, fmt.Sprintf("archive-%d-%d-%d.db", w.b, r, k))
		case w.on:
			mode = builds[w.b].db
		}
		cmd := exec.Command(builds[w.b].bin, "watch", job, "-o", "plain", "--archive", mode)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		wg.Go(func() {
			err := cmd.Wait()
			w.stderr = stderr.String()
			if cmd.ProcessState == nil {
				w.code, w.stderr = -1, err.Error()
				return
			}
			w.code = cmd.ProcessState.ExitCode()
			w.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		})
	}
	wg.Wait()
	return ws, nil
}

func cpus(ws []watch, b int, on bool) []float64 {
	var v []float64
	for _, w := range ws {
		if w.b == b && w.on == on {
			v = append(v, float64(w.cpu)/float64(time.Millisecond))
		}
	}
	return v
}

func sum(ws []watch, b int, on bool) time.Duration {
	var d time.Duration
	for _, w := range ws {
		if w.b == b && w.on == on {
			d += w.cpu
		}
	}
	return d
}

func meanSD(v []float64) (float64, float64) {
	var s float64
	for _, x := range v {
		s += x
	}
	m := s / float64(len(v))
	var q float64
	for _, x := range v {
		q += (x - m) * (x - m)
	}
	if len(v) < 2 {
		return m, 0
	}
	return m, math.Sqrt(q / float64(len(v)-1))
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "archivecpu:", err)
	os.Exit(1)
}
