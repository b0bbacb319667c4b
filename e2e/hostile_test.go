package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/sim"
)

// firewatch ... | head -1: the reader goes away after one line. firewatch
// does not die of SIGPIPE (141): watching ends cleanly with exit 8 and the
// summary is written.
func TestStdoutClosedByTheReader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sum := filepath.Join(dir, "sum.json")
	cmd := exec.Command(bin, "demo", "--speed", "5", "-o", "plain", "--summary", sum)
	cmd.Env = baseEnv()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line == "" {
		t.Fatalf("first line %q: %v", line, err)
	}
	out.Close() // as head -1 does
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(runLimit):
		cmd.Process.Kill()
		t.Fatal("firewatch went on watching with nobody reading")
	}
	if code := cmd.ProcessState.ExitCode(); code != 8 {
		t.Fatalf("exit %d (%v)", code, cmd.ProcessState)
	}
	var s map[string]any
	b, _ := os.ReadFile(sum)
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary %q: %v", b, err)
	}
}

// The binary through the hostile front: another run's failed run.finished
// and a creditsUsed of 1.7e308 leave a succeeded run succeeded (exit 0),
// with a summary that parses and lists what was set aside.
func TestHostileFrontBinary(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, Speed: 200})
	f := hostile.Start(t, srv, hostile.ForeignRun, hostile.HugeCredits)
	r := runFW(t, baseEnv("FIRECRAWL_API_URL="+f.URL, "FIRECRAWL_API_KEY="+srv.Key), runLimit,
		"watch", srv.Jobs[0].ID, "--interval", "100ms", "-o", "json", "--summary", "sum.json")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	var s struct {
		Outcome   string `json:"outcome"`
		SetAside  []any  `json:"setAside"`
		BadValues []any  `json:"badValues"`
	}
	b, _ := os.ReadFile(filepath.Join(r.dir, "sum.json"))
	if err := json.Unmarshal(b, &s); err != nil || s.Outcome != "succeeded" || len(s.SetAside) != 2 || len(s.BadValues) != 1 {
		t.Fatalf("summary %s: %v", b, err)
	}
}
