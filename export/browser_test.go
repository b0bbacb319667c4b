package export

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/model"
)

var keepShots = flag.String("shots", "", "keep the browser test's screenshots in this directory")

// findBrowser is a Chromium or Chrome on PATH, "" when there is none.
func findBrowser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// trap is a proxy that answers nothing and records every connection: the
// browser is pointed at it for every URL, loopback included, so any
// request the page makes shows up here.
type trap struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []string
}

func newTrap(t *testing.T) *trap {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &trap{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			tr.mu.Lock()
			tr.seen = append(tr.seen, strings.TrimSpace(line))
			tr.mu.Unlock()
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return tr
}

func (tr *trap) requests() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.seen...)
}

// TestReportInBrowser renders reports in headless Chromium with the
// network denied (every request goes to a trap proxy), in light and dark,
// takes screenshots and checks that the page logged no console message and
// made no request. It skips when no browser is installed (.ci/run installs
// Debian's chromium).
func TestReportInBrowser(t *testing.T) {
	t.Parallel()
	browser := findBrowser()
	if browser == "" {
		t.Skip("no Chromium or Chrome on PATH (apt-get install chromium): the report is not checked in a browser")
	}
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		html func(t *testing.T) []byte
	}{
		{"failure", func(t *testing.T) []byte { return render(t, loadFixture(t, "failed.json")) }},
		{"hostile", func(t *testing.T) []byte { return render(t, hostileStore(t)) }},
	} {
		page := filepath.Join(dir, c.name+".html")
		if err := os.WriteFile(page, c.html(t), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, scheme := range []string{"light", "dark"} {
			t.Run(c.name+"-"+scheme, func(t *testing.T) {
				t.Parallel() // four browsers at once: each mostly waits on its start
				tr := newTrap(t)
				shot := filepath.Join(dir, c.name+"-"+scheme+".png")
				pref := "1"
				args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
					"--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
					"--no-first-run", "--no-default-browser-check", "--metrics-recording-only", "--disable-domain-reliability",
					"--disable-client-side-phishing-detection", "--disable-breakpad", "--safebrowsing-disable-auto-update",
					"--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater",
					"--user-data-dir=" + filepath.Join(dir, "profile-"+c.name+"-"+scheme),
					"--proxy-server=http://" + tr.ln.Addr().String(), "--proxy-bypass-list=<-loopback>",
					"--enable-logging=stderr", "--v=0", "--window-size=1200,1800", "--hide-scrollbars",
					"--virtual-time-budget=2000", "--screenshot=" + shot}
				if scheme == "dark" {
					pref = "0"
					args = append(args, "--force-dark-mode")
				}
				args = append(args, "--blink-settings=preferredColorScheme="+pref, "file://"+page)
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				defer cancel()
				var stderr bytes.Buffer
				cmd := exec.CommandContext(ctx, browser, args...)
				cmd.Stderr = &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("%s: %v\n%s", browser, err, stderr.String())
				}
				png, err := os.ReadFile(shot)
				if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
					t.Fatalf("no screenshot: %v\n%s", err, stderr.String())
				}
				for _, l := range strings.Split(stderr.String(), "\n") {
					if strings.Contains(l, "CONSOLE") || strings.Contains(l, "Content Security Policy") || strings.Contains(l, "Uncaught") {
						t.Errorf("console: %s", l)
					}
				}
				for _, r := range tr.requests() {
					if !browserOwn(r) {
						t.Errorf("the page made a request: %q", r)
					}
				}
				if *keepShots != "" {
					_ = os.WriteFile(filepath.Join(*keepShots, c.name+"-"+scheme+".png"), png, 0o644)
				}
			})
		}
	}
}

// browserOwn reports whether a request line is Chromium's own background
// traffic (network time, component updates, accounts, to Google's
// domains), which flags cannot all turn off; everything else counts as the
// page's (the test pages name other hosts only: evil.test, the vendors'
// sites of the failure run).
func browserOwn(line string) bool {
	f := strings.Fields(line)
	if len(f) < 2 {
		return false
	}
	host := f[1]
	host = strings.TrimPrefix(strings.TrimPrefix(host, "http://"), "https://")
	host, _, _ = strings.Cut(host, "/")
	host, _, _ = strings.Cut(host, ":")
	for _, own := range []string{"google.com", "googleapis.com", "gvt1.com", "gstatic.com"} {
		if host == own || strings.HasSuffix(host, "."+own) {
			return true
		}
	}
	return false
}

func render(t *testing.T, s *model.Store) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Report(&b, s, FormatHTML, ReportOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
