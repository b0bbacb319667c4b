package cli

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/sim"
)

// A service whose text carries escape sequences, C1 controls and bidi
// characters and echoes the key in every disguise: each output of a hub
// command session (plain, JSON, the summary, stderr) holds neither the key
// nor a character a terminal could act on.
func TestHubCommandOutputStaysInertWhenTheKeyIsEchoed(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1000})
	f := hostile.Start(t, srv, hostile.KeyEchoHostileText)
	h := startCLIHub(t, f.URL, srv.Key, "--interval", "250ms")
	c := h.login(t, h.alice)
	id := srv.Jobs[0].ID
	for _, cmd := range []string{
		"watch " + id + " -o plain",
		"watch " + id + " -o json",
		"watch " + id + " -o plain --summary -",
		"watch " + id + " -o json --summary -",
	} {
		out, errOut, code := sshtest.Run(t, c, cmd)
		if code != 0 {
			t.Errorf("%s: exit %d\n%s", cmd, code, errOut)
		}
		if !strings.Contains(out+errOut, "[redacted]") {
			t.Errorf("%s: no redacted echo (were the events used?)\n%s", cmd, tail(out))
		}
		for what, s := range map[string]string{"stdout": out, "stderr": errOut} {
			if bad := notInert(s, srv.Key); bad != "" {
				t.Errorf("%s: %s: %s", cmd, what, bad)
			}
		}
	}
}

// notInert says what in s a terminal could act on (ESC, a C1 control as a
// rune or a stray byte, a bidi character) or is the key, "" when nothing.
func notInert(s, key string) string {
	var found []string
	counts := map[string]int{}
	if n := strings.Count(s, key); n > 0 {
		found = append(found, fmt.Sprintf("the key %d times", n))
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case s[i] == 0x1b:
			counts["ESC"]++
		case r == utf8.RuneError && n == 1 && s[i] >= 0x80 && s[i] <= 0x9f:
			counts["a stray byte 0x80-0x9f"]++
		case r >= 0x80 && r <= 0x9f:
			counts[fmt.Sprintf("C1 U+%04X", r)]++
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			counts[fmt.Sprintf("bidi U+%04X", r)]++
		}
		i += n
	}
	for what, n := range counts {
		found = append(found, fmt.Sprintf("%s ×%d", what, n))
	}
	if len(found) == 0 {
		return ""
	}
	i := strings.IndexAny(s, "\x1b\u009b\u009d\u202e\u2066")
	return strings.Join(found, ", ") + fmt.Sprintf(" (first at …%q…)", s[max(0, i-40):min(len(s), max(i, 0)+60)])
}
