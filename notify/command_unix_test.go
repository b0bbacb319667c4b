//go:build unix

package notify

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCommandChildren: a command that leaves a child holding its output
// (sleep 30 &) does not hold the notifier: Close returns long before the
// child would end, the child is ended with the command's process group,
// and what the command said is in the log. A child that left the group
// (setsid) is not waited for past the output's bound.
func TestCommandChildren(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		ended        bool // the child is gone afterwards
	}{
		{"in the group", `sleep 30 & echo $! > "$PIDFILE"; echo hi`, true},
		{"its own group", `setsid sh -c 'echo $$ > "$PIDFILE"; exec sleep 30' & while [ ! -s "$PIDFILE" ]; do sleep 0.01; done; echo hi`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.script, "setsid") {
				if _, err := exec.LookPath("setsid"); err != nil {
					t.Skip("no setsid")
				}
			}
			pidfile := filepath.Join(t.TempDir(), "pid")
			t.Setenv("PIDFILE", pidfile)
			var logged lines
			n, err := New(Config{On: DefaultOn(), Command: []string{"sh", "-c", tc.script}, Log: logged.add})
			if err != nil {
				t.Fatal(err)
			}
			n.send(&Moment{Key: "k", Event: EventFinished, Text: "run x succeeded", Job: Job{Kind: KindRun, ID: "x"}})
			closed := make(chan int, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				left, dropped := n.Close(ctx)
				closed <- left + dropped
			}()
			select {
			case left := <-closed:
				if left != 0 {
					t.Errorf("%d moments not delivered", left)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Close is held by the command's child")
			}
			b, err := os.ReadFile(pidfile)
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil || pid <= 0 {
				t.Fatalf("pid %q", b)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			l := strings.Join(logged.all(), "\n")
			if !strings.Contains(l, "--notify-command: hi") {
				t.Errorf("the output is not in the log:\n%s", l)
			}
			if !tc.ended {
				if !strings.Contains(l, "its output is still open") || processGone(pid) {
					t.Errorf("the child outside the group: gone %v, log:\n%s", processGone(pid), l)
				}
				return
			}
			waitFor(t, func() bool { return processGone(pid) })
		})
	}
}

// processGone reports whether pid no longer runs: there is no such
// process, or only its zombie is left (nobody may reap it here).
func processGone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
