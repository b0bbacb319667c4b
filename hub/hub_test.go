package hub

import (
	"context"
	"flag"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/runs"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixedNow is the simulator's clock and the screen's: the goldens do not
// depend on when the test runs.
var fixedNow = time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC)

// testHub is a hub on loopback with bob a viewer and alice an operator.
type testHub struct {
	*Hub
	addr         string
	hostKey      gossh.PublicKey
	alice, bob   sshtest.Person
	viewers, ops string
	log          *sshtest.Buffer
}

func startHub(t testing.TB, tweak func(*Config)) *testHub {
	t.Helper()
	dir := t.TempDir()
	th := &testHub{alice: sshtest.NewPerson(t, "alice"), bob: sshtest.NewPerson(t, "bob"), log: &sshtest.Buffer{},
		viewers: filepath.Join(dir, "viewers"), ops: filepath.Join(dir, "operators")}
	if err := os.WriteFile(th.viewers, []byte(th.bob.Line), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(th.ops, []byte(th.alice.Line), 0o600); err != nil {
		t.Fatal(err)
	}
	signer, _, err := HostKey(filepath.Join(dir, "host"))
	if err != nil {
		t.Fatal(err)
	}
	th.hostKey = signer.PublicKey()
	cfg := Config{HostKey: signer, People: People{Viewers: th.viewers, Operators: th.ops}, Log: th.log,
		Secrets: text.NewSecrets(testKey), PerIP: PerIP{Burst: 1000, Every: time.Millisecond},
		Screens: func(ctx context.Context, s *Session) int {
			// Takes the keys, as a screen does, until the session ends.
			keys := s.Term.Keys()
			defer keys.Close()
			go io.Copy(io.Discard, keys)
			<-ctx.Done()
			return 0
		},
		Command: func(ctx context.Context, s *Session) int { return 0 }}
	if tweak != nil {
		tweak(&cfg)
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	th.Hub = h
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	th.addr = ln.Addr().String()
	served := make(chan error, 1)
	go func() { served <- h.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return th
}

// testKey is the team's key the hub redacts from its log.
const testKey = "fc-5ec2e7000000000000000000000000ab"

func (th *testHub) dial(auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return sshtest.Dial(th.addr, th.hostKey, auth...)
}

func (th *testHub) login(t testing.TB, p sshtest.Person) *gossh.Client {
	t.Helper()
	return sshtest.Login(t, th.addr, th.hostKey, p)
}

// simRuns is the runs screen of a simulated service on a session's
// terminal, its colours and symbols from the session, as cli shows it.
func simRuns(t testing.TB, speed float64) Screens {
	t.Helper()
	srv, err := sim.Start(context.Background(), sim.Options{History: 30, Speed: speed, RateLimit: -1,
		Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	c = c.WithRetry(poller.Retry{Tries: 1})
	return func(ctx context.Context, s *Session) int {
		term := s.Term
		m := runs.New(runs.Config{Service: c, Terminal: term, ReadOnly: s.ReadOnly(),
			NoColor: theme.NoColorEnv(term.LookupEnv), ASCII: theme.ASCIIEnv(term.LookupEnv),
			Now: func() time.Time { return fixedNow.Add(90 * time.Second) }})
		if err := runs.Run(ctx, m, runs.RunOptions{}); err != nil {
			return 1
		}
		return 0
	}
}

// checkGolden compares got with testdata/name (-update writes it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./hub -run %s -update writes it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file:\n--- want\n%s\n--- got\n%s", name, want, got)
	}
}

// A hub stopped before (or just as) it starts serving takes no
// connection: Serve returns and its listener is closed. The SSH server
// closes only the listeners it already tracks, so one handed to it after
// its Shutdown would have been served for ever.
func TestShutdownBeforeServe(t *testing.T) {
	signer, _, err := HostKey(filepath.Join(t.TempDir(), "host"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{HostKey: signer, Log: &sshtest.Buffer{}, Secrets: text.NewSecrets(testKey),
		Screens: func(context.Context, *Session) int { return 0 }, Command: func(context.Context, *Session) int { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- h.Serve(ln) }()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-ctx.Done():
		ln.Close()
		t.Fatal("Serve after Shutdown is still serving")
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("the listener still takes connections")
	}
}
