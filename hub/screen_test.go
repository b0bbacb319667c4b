package hub

import (
	"fmt"

	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/sim"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// settled is the styled screen once it shows what the golden file holds
// (with -update: once it shows marker and has not changed for a while).
func settled(t *testing.T, s *sshtest.Screen, golden, marker string) string {
	t.Helper()
	s.WaitFor(marker)
	if *update {
		last, since := s.Styled(), time.Now()
		for time.Since(since) < 700*time.Millisecond {
			time.Sleep(50 * time.Millisecond)
			if now := s.Styled(); now != last {
				last, since = now, time.Now()
			}
		}
		return last
	}
	want, _ := os.ReadFile(filepath.Join("testdata", golden))
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := s.Styled()
		if got == string(want) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// colour is an SGR sequence that sets a colour (foreground or background,
// 16, 256 or true colours).
var colour = regexp.MustCompile(`\x1b\[[0-9;:]*(?:3[0-79]|4[0-79]|9[0-7]|10[0-7]|38[;:]|48[;:])[0-9;:]*m`)

// A session's screen is drawn at its own size, in its own colours: the
// runs screen through the hub as a terminal shows it, at 120x40 and 80x24,
// with and without NO_COLOR sent by the client (ssh -o SetEnv=NO_COLOR=1).
// Without NO_COLOR the screen has colours; with it none, the text the same.
func TestSessionScreenGoldens(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.Screens = simRuns(t, sim.MaxSpeed) })
	texts := map[string]string{}
	styled := map[string]string{}
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		for _, noColor := range []bool{false, true} {
			name := fmtSize(size.w, size.h)
			env := []string{"LANG=C.UTF-8"}
			if noColor {
				name += "-nocolor"
				env = append(env, "NO_COLOR=1")
			}
			c := th.login(t, th.bob)
			s := sshtest.OpenScreen(t, c, size.w, size.h, env...)
			got := settled(t, s, "runs-"+name+".golden", "expires")
			checkGolden(t, "runs-"+name+".golden", got)
			texts[name], styled[name] = s.Text(), got
			s.Press("q")
			if code := s.Exit(); code != 0 {
				t.Errorf("%s: exit %d", name, code)
			}
		}
	}
	for _, size := range []string{"120x40", "80x24"} {
		col, plain := styled[size], styled[size+"-nocolor"]
		if !colour.MatchString(col) {
			t.Errorf("%s without NO_COLOR has no colour", size)
		}
		if m := colour.FindString(plain); m != "" {
			t.Errorf("%s with NO_COLOR has colour %q", size, m)
		}
		if texts[size] != texts[size+"-nocolor"] {
			t.Errorf("%s: NO_COLOR changed the text, not only the colours:\n%s\n---\n%s", size, texts[size], texts[size+"-nocolor"])
		}
	}
	if texts["120x40"] == texts["80x24"] {
		t.Error("the 120x40 and 80x24 screens are the same")
	}
	for name, s := range texts {
		w := 120
		if strings.HasPrefix(name, "80x") {
			w = 80
		}
		for _, line := range strings.Split(s, "\n") {
			if n := len([]rune(line)); n > w {
				t.Errorf("%s: a line of %d cells: %q", name, n, line)
			}
		}
	}
}

func fmtSize(w, h int) string { return fmt.Sprintf("%dx%d", w, h) }

// A resize reaches the session's screen: opened at 80x24 and resized to
// 120x40, it shows what a session opened at 120x40 shows.
func TestSessionResize(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.Screens = simRuns(t, sim.MaxSpeed) })
	s := sshtest.OpenScreen(t, th.login(t, th.bob), 80, 24, "LANG=C.UTF-8")
	s.WaitFor("expires")
	s.Resize(120, 40)
	got := settled(t, s, "runs-120x40.golden", "expires")
	checkGolden(t, "runs-120x40.golden", got)
	s.Press("q")
	s.Exit()
}
