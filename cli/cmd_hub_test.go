package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/pflag"
	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/cli/internal/hubsvc"
	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// cliHub is `firewatch hub` run in this process, as a user starts it, with
// bob a viewer and alice an operator.
type cliHub struct {
	addr       string
	hostKey    gossh.PublicKey
	alice, bob sshtest.Person
	log        *sshtest.Buffer
}

// startCLIHub runs firewatch hub against the service at url with key (the
// key in a --key-file) and an archive of its own, unless extra says
// otherwise, until the test ends; it must then exit 0. Nothing of it is
// in the process's environment: hubs of parallel tests do not meet.
func startCLIHub(t *testing.T, url, key string, extra ...string) *cliHub {
	t.Helper()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &cliHub{alice: sshtest.NewPerson(t, "alice"), bob: sshtest.NewPerson(t, "bob"), log: &sshtest.Buffer{}}
	viewers, ops, hostKey := filepath.Join(dir, "viewers"), filepath.Join(dir, "ops"), filepath.Join(dir, "host")
	if err := os.WriteFile(viewers, []byte(h.bob.Line), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ops, []byte(h.alice.Line), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	args := append([]string{"hub", "--listen", "127.0.0.1:0", "--api-url", url, "--key-file", keyFile,
		"--authorized-keys", viewers, "--operators", ops, "--host-key", hostKey, "--archive", filepath.Join(dir, "archive.db")}, extra...)
	go func() { code <- Execute(ctx, args, strings.NewReader(""), io.Discard, h.log) }()
	t.Cleanup(func() {
		cancel()
		select {
		case c := <-code:
			if c != 0 {
				t.Errorf("firewatch hub exited %d when stopped:\n%s", c, h.log)
			}
		case <-time.After(15 * time.Second):
			t.Errorf("firewatch hub did not stop")
		}
		if strings.Contains(h.log.String(), key) {
			t.Errorf("the hub's log holds the key:\n%s", h.log)
		}
	})
	line := h.log.WaitLine(t, "listening on")
	h.addr = regexp.MustCompile(`listening on (\S+) `).FindStringSubmatch(line)[1]
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if h.hostKey, _, _, _, err = gossh.ParseAuthorizedKey(pub); err != nil {
		t.Fatal(err)
	}
	if fp := gossh.FingerprintSHA256(h.hostKey); !strings.Contains(line, fp) {
		t.Errorf("the start line does not give the host key's fingerprint %s: %s", fp, line)
	}
	return h
}

func (h *cliHub) login(t *testing.T, p sshtest.Person) *gossh.Client {
	return sshtest.Login(t, h.addr, h.hostKey, p)
}

// Without a PTY a session runs one command that reads, with the CLI's
// output modes and exit codes carried as the SSH exit status, and the
// hub's key: the session has none.
func TestHubCommands(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "failure"}, Speed: 1000, History: 3})
	h := startCLIHub(t, srv.URL, srv.Key, "--interval", "250ms")
	c := h.login(t, h.bob)
	ok, fail := srv.Jobs[0].ID, srv.Jobs[1].ID

	out, errOut, code := sshtest.Run(t, c, "runs -o json")
	if code != 0 {
		t.Fatalf("runs -o json: exit %d\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Errorf("runs -o json: %d lines, want 5:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if !jsontext.Value(l).IsValid() {
			t.Errorf("not a JSON line: %q", l)
		}
	}

	// Two watches at once, each in its session (one poll after the end).
	failed := make(chan string, 1)
	go func() {
		_, errOut, code := sshtest.Run(t, c, "watch "+fail+" -o plain --tail 1")
		if code != ExitFailed {
			failed <- fmt.Sprintf("watch of a failed run: exit %d, want %d\n%s", code, ExitFailed, errOut)
		}
		close(failed)
	}()
	out, errOut, code = sshtest.Run(t, c, "watch "+ok+" -o json --summary - --interval 250ms --tail 1")
	if code != ExitOK {
		t.Fatalf("watch -o json --summary -: exit %d\n%s", code, errOut)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, `"outcome":"succeeded"`) {
		t.Errorf("the last line is not the summary: %s", last)
	}
	if msg := <-failed; msg != "" {
		t.Error(msg)
	}
	if out, errOut, code = sshtest.Run(t, c, "history -o json"); code != 0 || !strings.Contains(out, ok) {
		t.Errorf("history: exit %d\n%s\n%s", code, out, errOut)
	}
	if out, errOut, code = sshtest.Run(t, c, "report "+ok+" -o md"); code != 0 || !strings.Contains(out, "|") {
		t.Errorf("report: exit %d\n%s\n%s", code, out, errOut)
	}
	h.log.WaitLine(t, "login bob (viewer", "command watch "+ok)
	h.log.WaitLine(t, "logout bob (viewer", "exit 1")
}

// Whatever would write on the hub's host, use another key, service or
// archive, send the run elsewhere, or is not a command that reads, is
// refused with exit 2 and a reason, before anything is done.
func TestHubRefusesCommands(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1000})
	// The runs are over before the hub starts, so that its first pass
	// completes them; a run still going would wait for its next, 15s on.
	for _, j := range srv.Jobs {
		if err := srv.WaitFinished(t.Context(), j.ID); err != nil {
			t.Fatal(err)
		}
	}
	h := startCLIHub(t, srv.URL, srv.Key, "--interval", "3s")
	c := h.login(t, h.alice)
	id := srv.Jobs[0].ID
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	// The hub's own archiving of the run (once it is over) is not a command's.
	h.log.WaitLine(t, "the hub completed 1 runs")
	traces := srv.Stats().ByRoute["GET trace"]
	for _, tc := range []struct{ cmd, says string }{
		{"watch " + id + " --record " + file, "writes a file on the hub's host"},
		{"watch " + id + " --summary " + file, "--summary - writes to this session"},
		{"watch " + id + " --debug " + file, "writes a file on the hub's host"},
		{"watch " + id + " --debug -", "writes a file on the hub's host"},
		{"report " + id + " --file " + file, "--file - writes to this session"},
		{"watch " + id + " --api-key fc-0000000000000000000000000000", "uses its own key"},
		{"watch " + id + " --api-url=http://127.0.0.2:1", "uses its own service"},
		{"runs --archive off", "archive is its own"},
		{"--archive " + file + " runs", "archive is its own"},
		{"history --all-services", "its own service's runs"},
		{"watch " + id + " --otlp", "an address of the session's choosing"},
		{"watch " + id + " --save-dir " + dir, "a folder on the hub's host"},
		{"report /etc/passwd", "never by a file on the hub's host"},
		{"report -", "never by a file on the hub's host"},
		{"watch " + id + " -o tui", "needs a terminal"},
		{"watch " + id + " -otui", "needs a terminal"},
		{"watch " + id + " --output=TUI", "needs a terminal"},
		{"watch " + id + " --interval 100ms", "no faster than the hub, every 3s"},
		{"watch " + id + " --interval=2s", "no faster than the hub, every 3s"},
		{"watch " + id + " --no-such-flag", "unknown flag"},
		{"crawl https://example.com", "not offered over the hub"},
		{"run hello", "not offered over the hub"},
		{"archive prune", "not offered over the hub"},
		{id, "not offered over the hub"},
		{"help", "not offered over the hub"},
		{"", "runs one command: runs, watch, history, report, result"},
	} {
		_, errOut, code := sshtest.Run(t, c, tc.cmd)
		if code != ExitUsage {
			t.Errorf("%q: exit %d, want %d\n%s", tc.cmd, code, ExitUsage, errOut)
		}
		if !strings.Contains(errOut, "firewatch hub: ") || !strings.Contains(errOut, tc.says) {
			t.Errorf("%q says %q, want %q", tc.cmd, errOut, tc.says)
		}
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("a refused command made a file on the hub's host")
	}
	if st := srv.Stats(); st.ByRoute["GET trace"] > traces {
		t.Errorf("refused commands asked the service: %v", st.ByRoute)
	}
}

// A session's command that polls, and does not say how often, polls at
// the hub's --interval; one that asks for a slower one has it; the others
// are run as given.
func TestHubSessionPollsAtTheHubsInterval(t *testing.T) {
	t.Parallel()
	id := "3f1c2b7e-0a4d-4e8f-9b6a-1c2d3e4f5a6b"
	for _, tc := range []struct{ in, want string }{
		{"watch " + id, "--interval=5s watch " + id},
		{"watch " + id + " -- ", "--interval=5s watch " + id + " --"},
		{"-o json watch " + id, "--interval=5s -o json watch " + id},
		{"watch " + id + " --interval 10s", "watch " + id + " --interval 10s"},
		{"watch " + id + " --interval=5s", "watch " + id + " --interval=5s"},
		{"history -o json", "history -o json"},
	} {
		got, err := hubCheck(strings.Fields(tc.in), 5*time.Second)
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%q: runs %q (%v), want %q", tc.in, strings.Join(got, " "), err, tc.want)
		}
	}
	// What runs is what was checked: the interval given first is the
	// command's own.
	root := (&app{secrets: text.NewSecrets()}).rootCommand()
	got, _ := hubCheck([]string{"watch", id}, 5*time.Second)
	cmd, rest, err := root.Find(got)
	if err != nil || cmd.ParseFlags(rest) != nil || cmd.Flags().Lookup("interval").Value.String() != "5s" {
		t.Fatalf("%q: the command's --interval is %v (%v)", got, cmd.Flags().Lookup("interval").Value, err)
	}
}

// --interval below the minimum stops the hub before it listens.
func TestHubIntervalTooShort(t *testing.T) {
	t.Parallel()
	var stderr strings.Builder
	code := Execute(context.Background(), []string{"hub", "--interval", "50ms", "--authorized-keys", "/nonexistent"}, strings.NewReader(""), io.Discard, &stderr)
	if code != ExitUsage || !strings.Contains(stderr.String(), "--interval 50ms is too short: the minimum is 100ms") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}

// Every flag of a command offered over the hub has a rule: a new flag is
// refused over the hub until someone decides what it may do there.
func TestHubFlagsAllHaveARule(t *testing.T) {
	root := (&app{secrets: text.NewSecrets()}).rootCommand()
	for _, sub := range root.Commands() {
		if !slices.Contains(hubsvc.Commands, sub.Name()) {
			continue
		}
		sub.Flags().AddFlagSet(root.PersistentFlags())
		sub.Flags().VisitAll(func(f *pflag.Flag) {
			if !hubsvc.Ruled(f.Name) {
				t.Errorf("%s --%s has no rule over the hub (flags or refusedFlags in cli/internal/hubsvc/commands.go)", sub.Name(), f.Name)
			}
		})
	}
}

// A key file others can read is refused, as ssh refuses a private key.
func TestHubKeyFile(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte("fc-0123456789abcdef0123456789abcdef\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	viewers := filepath.Join(dir, "viewers")
	if err := os.WriteFile(viewers, []byte(sshtest.NewPerson(t, "bob").Line), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FIRECRAWL_API_KEY", "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, errOut, code := run(t, ctx, "hub", "--listen", "127.0.0.1:0", "--key-file", keyFile, "--authorized-keys", viewers, "--host-key", filepath.Join(dir, "host"))
	if code != ExitUsage || !strings.Contains(errOut, "can be read or written by others (mode 0644)") || !strings.Contains(errOut, "chmod 600 "+keyFile) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "0123456789abcdef") {
		t.Errorf("the refusal shows the key: %s", errOut)
	}
}

// The runs screen through the hub: a PTY session sees the team's runs,
// enter watches one, esc comes back, q ends the session with 0. A viewer's
// c is refused on both screens; NO_COLOR sent by the client takes the
// colours away.
func TestHubScreen(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel"}, History: 3, Speed: 1})
	h := startCLIHub(t, srv.URL, srv.Key)
	s := sshtest.OpenScreen(t, h.login(t, h.bob), 120, 40, "LANG=C.UTF-8")
	s.WaitFor("4 of 4 loaded")
	s.WaitFor("● processing") // a UTF-8 locale: Unicode
	s.Press("c")
	s.WaitFor("only the hub's operators may cancel or start runs")
	s.Press("\r")
	s.WaitFor("Agents")
	s.WaitFor("esc runs")
	s.Press("c")
	s.WaitFor("only the hub's operators may cancel or start runs")
	s.Press("\x1b")
	s.WaitFor("4 of 4 loaded")
	s.Press("q")
	if code := s.Exit(); code != 0 {
		t.Errorf("q: exit %d", code)
	}
	if !colourSGR.Match(s.Bytes()) {
		t.Error("no colour without NO_COLOR")
	}
	h.log.WaitLine(t, "login bob (viewer", "the runs screen at 120x40")
	h.log.WaitLine(t, "logout bob (viewer", "exit 0")

	// No colour, and no locale that says UTF-8: ASCII on both screens.
	plain := sshtest.OpenScreen(t, h.login(t, h.bob), 80, 24, "NO_COLOR=1")
	plain.WaitFor("4 of 4 loaded")
	plain.WaitFor("* processing")
	plain.Press("\r")
	plain.WaitFor("Agents")
	plain.Press("q")
	plain.Exit()
	if m := colourSGR.Find(plain.Bytes()); m != nil {
		t.Errorf("NO_COLOR sent, and the session got colour %q", m)
	}
	if strings.ContainsAny(plain.Text(), "●✓✗─│") {
		t.Errorf("a session without a UTF-8 locale got Unicode symbols:\n%s", plain.Text())
	}
	if st := srv.Stats(); st.ByRoute["DELETE agent"] != 0 {
		t.Errorf("a viewer's c reached the service: %v", st.ByRoute)
	}
}

// colourSGR is an SGR sequence that sets a colour.
var colourSGR = regexp.MustCompile(`\x1b\[[0-9;:]*(?:3[0-79]|4[0-79]|9[0-7]|10[0-7]|38[;:]|48[;:])[0-9;:]*m`)

// An operator's cancel goes to the service and the hub's log says who.
func TestHubOperatorCancelIsLogged(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel"}, Speed: 1})
	h := startCLIHub(t, srv.URL, srv.Key)
	s := sshtest.OpenScreen(t, h.login(t, h.alice), 120, 40, "LANG=C.UTF-8")
	s.WaitFor("● processing")
	s.Press("c")
	s.WaitFor("yes, cancel the run")
	s.Press("y")
	s.WaitFor("accepted")
	h.log.WaitLine(t, "action: alice (operator, SHA256:", "cancelled run "+srv.Jobs[0].ID)
	if st := srv.Stats(); st.ByRoute["DELETE agent"] != 1 {
		t.Errorf("the service saw %d cancels", st.ByRoute["DELETE agent"])
	}
	s.Press("q")
	s.Exit()
}

// The key is on no screen, in no copy, no command's output and no log
// line, however the service echoes it; what the service sends stays inert.
func TestHubNeverShowsTheKey(t *testing.T) {
	// Not parallel: its screen session is the longest of the package under
	// the race detector, and timed out once beside every parallel test.
	srv := startSim(t, sim.Options{Speed: 1000})
	f := hostile.Start(t, srv, hostile.KeyEchoForms)
	h := startCLIHub(t, f.URL, srv.Key, "--interval", "250ms")
	c := h.login(t, h.alice)
	out, errOut, code := sshtest.Run(t, c, "watch "+srv.Jobs[0].ID+" -o json --tail 1")
	if code != 0 || !strings.Contains(out, "[redacted]") {
		t.Fatalf("watch -o json: exit %d, %d bytes, no redacted echo\n%s", code, len(out), errOut)
	}
	for what, s := range map[string]string{"command stdout": out, "command stderr": errOut} {
		if strings.Contains(s, srv.Key) {
			t.Errorf("%s holds the key", what)
		}
	}
	// The screen: open the run, select an event that echoes the key and
	// copy it (y copies the event's raw JSON with OSC 52).
	s := sshtest.OpenScreen(t, c, 120, 40, "LANG=C.UTF-8")
	s.WaitFor("loaded")
	s.WaitFor("expires") // the selected run's details: the screen has settled
	s.PressUntil("\r", "Timeline")
	s.WaitFor("echo")
	s.Press("/echo\r") // the timeline's filter: the echoing events
	s.Press("y")
	s.WaitFor("copied the raw event JSON")
	s.Press("q")
	s.Exit()
	raw := s.Bytes()
	if bytes.Contains(raw, []byte(srv.Key)) {
		t.Error("the session's terminal got the key")
	}
	// The service put an escape sequence inside the key: it stays inert.
	if bytes.Contains(raw, []byte(srv.Key[:5]+"\x1b[31m")) {
		t.Error("an escape sequence from the service reached the terminal")
	}
	copies := regexp.MustCompile(`\x1b\]52;c;([A-Za-z0-9+/=]+)\x07`).FindAllSubmatch(raw, -1)
	if len(copies) == 0 {
		t.Fatal("no OSC 52 copy was sent")
	}
	for _, m := range copies {
		b, err := base64.StdEncoding.DecodeString(string(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(srv.Key)) || !bytes.Contains(b, []byte("[redacted]")) {
			t.Errorf("the copy: %s", b)
		}
	}
	if strings.Contains(s.Text(), srv.Key) {
		t.Error("the screen shows the key")
	}
}

// fullDiskHub runs firewatch hub with stdout on a full disk until it
// listens, then stops it: its exit code and stderr.
func fullDiskHub(t *testing.T) (int, string) {
	t.Helper()
	dir := t.TempDir()
	viewers := filepath.Join(dir, "viewers")
	if err := os.WriteFile(viewers, []byte(sshtest.NewPerson(t, "bob").Line), 0o600); err != nil {
		t.Fatal(err)
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	var errOut sshtest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- Execute(ctx, []string{"hub", "--listen", "127.0.0.1:0", "--authorized-keys", viewers, "--host-key", filepath.Join(dir, "host")},
			strings.NewReader(""), full, &errOut)
	}()
	errOut.WaitLine(t, "listening on")
	cancel()
	return <-code, errOut.String()
}

// hubCheck is hubsvc.Check on firewatch's commands.
func hubCheck(args []string, every time.Duration) ([]string, error) {
	return hubsvc.Check((&app{secrets: text.NewSecrets()}).rootCommand(), asUsage, args, every)
}
