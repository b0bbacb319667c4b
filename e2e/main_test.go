// Package e2e runs the built firewatch binary against the simulator, the
// way people and scripts run it: exit codes, plain and JSON output, the
// summary, recording and replay, serve, and the key staying secret; and
// on Linux its full screens on a pseudo-terminal (pty_linux_test.go):
// keys, signals, a terminal that goes away, and the terminal given back.
package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/testrun"
	"github.com/firewatch/firewatch/sim"
)

// bin is the firewatch binary built once for all tests.
var bin string

// moduleRoot is the directory of go.mod.
var moduleRoot string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "firewatch-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The binaries archive what they watch: never into the user's archive.
	os.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	// The simulators have no rate limit unless a test sets one: the
	// background work (archive passes) is not paced to the service's.
	os.Setenv("FIREWATCH_RATE_LIMIT", "1000000/1s")
	wd, _ := os.Getwd()
	moduleRoot = filepath.Dir(wd)
	bin = filepath.Join(binDir(dir), "firewatch")
	// The tests wait on processes, terminals and the simulator.
	testrun.Waiting(4)
	// One binary for every test, built as `go run .` builds it. The cli's
	// own tests run its code paths in-process under the race detector.
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = moduleRoot
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building firewatch:", err)
		return 1
	}
	return m.Run()
}

// binDir is the folder the binary is built in: one in the user's cache for
// this checkout, kept between runs, where go build skips the link when
// nothing changed (seconds of every run); tmp when the cache has no room
// for it or another run of this checkout uses it now.
func binDir(tmp string) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return tmp
	}
	sum := sha256.Sum256([]byte(moduleRoot))
	dir := filepath.Join(cache, "firewatch-e2e", hex.EncodeToString(sum[:8]))
	if os.MkdirAll(dir, 0o700) != nil || !lockDir(dir) {
		return tmp
	}
	return dir
}

// startSim starts the simulator in the test process; it is closed when the
// test ends. Rate limiting is off unless opts sets it: tests poll fast.
func startSim(t *testing.T, opts sim.Options) *sim.Server {
	t.Helper()
	if opts.Speed == 0 {
		opts.Speed = 50
	}
	if opts.RateLimit == 0 {
		opts.RateLimit = -1
	}
	srv, err := sim.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	simData.Store(srv, filepath.Join(t.TempDir(), "data"))
	return srv
}

// simData is each simulator's own XDG_DATA_HOME, so its own default
// archive. The simulators' run ids repeat (one seed), and one listening
// on a port an earlier test's had would find that test's run archived,
// over, under its service and id.
var simData sync.Map

// baseEnv is a clean environment: no FIRECRAWL_* or NO_COLOR from the
// machine running the tests.
func baseEnv(extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TZ=UTC", "LANG=C.UTF-8", "XDG_DATA_HOME=" + os.Getenv("XDG_DATA_HOME"),
		"FIREWATCH_RATE_LIMIT=" + os.Getenv("FIREWATCH_RATE_LIMIT")}
	return append(env, extra...)
}

// simEnv points the binary at srv.
func simEnv(srv *sim.Server, extra ...string) []string {
	env := []string{"FIRECRAWL_API_URL=" + srv.URL, "FIRECRAWL_API_KEY=" + srv.Key}
	if dir, ok := simData.Load(srv); ok {
		env = append(env, "XDG_DATA_HOME="+dir.(string))
	}
	return baseEnv(append(env, extra...)...)
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a running firewatch.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{}
	code           int
}

func start(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	return startWith(t, env, nil, args...)
}

// startWith is start with stdin read from in (nil: no input).
func startWith(t *testing.T, env []string, in *os.File, args ...string) *proc {
	t.Helper()
	p := &proc{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = env
	p.cmd.Dir = t.TempDir()
	if in != nil {
		p.cmd.Stdin = in
	}
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits for the process to exit and returns its exit code.
func (p *proc) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(limit):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("firewatch %s did not exit within %s\nstdout:\n%s\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), limit, tailOf(p.stdout.String()), tailOf(p.stderr.String()))
		return -1
	}
}

// waitOutput waits until stdout satisfies cond.
func (p *proc) waitOutput(t *testing.T, limit time.Duration, what string, cond func(stdout string) bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond(p.stdout.String()) {
		select {
		case <-p.done:
			t.Fatalf("firewatch exited (code %d) before %s\nstdout:\n%s\nstderr:\n%s", p.code, what, tailOf(p.stdout.String()), tailOf(p.stderr.String()))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s\nstdout:\n%s\nstderr:\n%s", what, limit, tailOf(p.stdout.String()), tailOf(p.stderr.String()))
		}
	}
}

// result is a finished run of the binary.
type result struct {
	stdout, stderr string
	code           int
	dir            string // its working directory
}

// runFW runs firewatch to its end (at most limit) in a fresh directory.
func runFW(t *testing.T, env []string, limit time.Duration, args ...string) result {
	t.Helper()
	p := start(t, env, args...)
	code := p.wait(t, limit)
	return result{stdout: p.stdout.String(), stderr: p.stderr.String(), code: code, dir: p.cmd.Dir}
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, tailOf(r.stdout), tailOf(r.stderr))
}

func tailOf(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 40 {
		lines = append([]string{fmt.Sprintf("[... %d lines]", len(lines)-40)}, lines[len(lines)-40:]...)
	}
	return strings.Join(lines, "\n")
}

// noKey fails when key occurs in any of the texts.
func noKey(t *testing.T, key string, named map[string][]byte) {
	t.Helper()
	if key == "" {
		t.Fatal("noKey: empty key")
	}
	for name, b := range named {
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("the API key appears in %s", name)
		}
	}
}

// readFile reads a file the binary wrote.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
