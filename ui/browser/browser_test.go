package browser

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

type call struct {
	name string
	args []string
}

func opener(goos string, kv ...string) (Opener, *[]call) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	calls := &[]call{}
	return Opener{
		GOOS:   goos,
		Getenv: func(k string) string { return m[k] },
		Run: func(ctx context.Context, name string, args ...string) error {
			if _, ok := ctx.Deadline(); !ok {
				return errors.New("no deadline")
			}
			*calls = append(*calls, call{name, args})
			return nil
		},
	}, calls
}

const link = "https://live.example.com/session/abc?token=x&y=1"

func TestDecisions(t *testing.T) {
	tests := []struct {
		name   string
		goos   string
		env    []string
		want   string // program run, "" when refused
		args   []string
		reason string
	}{
		{"mac", "darwin", nil, "open", []string{link}, ""},
		{"mac over ssh still opens on the mac", "darwin", []string{"SSH_TTY", "/dev/ttys001"}, "open", []string{link}, ""},
		{"windows", "windows", nil, "rundll32", []string{"url.dll,FileProtocolHandler", link}, ""},
		{"linux X11", "linux", []string{"DISPLAY", ":0"}, "xdg-open", []string{link}, ""},
		{"linux wayland", "linux", []string{"WAYLAND_DISPLAY", "wayland-0"}, "xdg-open", []string{link}, ""},
		{"freebsd X11", "freebsd", []string{"DISPLAY", ":0"}, "xdg-open", []string{link}, ""},
		{"linux console", "linux", nil, "", nil, "no graphical session"},
		{"linux over ssh with X forwarding", "linux", []string{"DISPLAY", "localhost:10.0", "SSH_CONNECTION", "10.0.0.1 5000 10.0.0.2 22"}, "", nil, "over SSH"},
		{"linux ssh tty", "linux", []string{"WAYLAND_DISPLAY", "w", "SSH_TTY", "/dev/pts/1"}, "", nil, "over SSH"},
		{"plan9", "plan9", nil, "", nil, "plan9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, calls := opener(tt.goos, tt.env...)
			ok, why := o.CanOpen()
			err := o.Open(context.Background(), link)
			if tt.want == "" {
				if ok || !strings.Contains(why, tt.reason) {
					t.Fatalf("CanOpen = %v, %q", ok, why)
				}
				if !errors.Is(err, ErrNoDesktop) || !strings.Contains(err.Error(), tt.reason) {
					t.Fatalf("err = %v", err)
				}
				if len(*calls) != 0 {
					t.Fatalf("ran %v", *calls)
				}
				msg := o.OpenCmd(link)().(OpenedMsg)
				if !msg.NoDesktop() {
					t.Fatalf("%+v", msg)
				}
				return
			}
			if !ok || err != nil {
				t.Fatalf("CanOpen = %v %q, err = %v", ok, why, err)
			}
			if len(*calls) != 1 || (*calls)[0].name != tt.want || strings.Join((*calls)[0].args, " ") != strings.Join(tt.args, " ") {
				t.Fatalf("ran %v", *calls)
			}
			msg := o.OpenCmd(link)().(OpenedMsg)
			if msg.Err != nil || msg.URL != link || len(*calls) != 2 {
				t.Fatalf("%+v", msg)
			}
		})
	}
}

func TestOpenerError(t *testing.T) {
	o, _ := opener("darwin")
	o.Run = func(context.Context, string, ...string) error { return errors.New("exit status 1") }
	err := o.Open(context.Background(), link)
	if err == nil || errors.Is(err, ErrNoDesktop) || err.Error() != "open: exit status 1" {
		t.Fatalf("err = %v", err)
	}
}

func TestCheck(t *testing.T) {
	good := []string{
		"http://example.com",
		"https://example.com/a/b?c=d#e",
		"HTTPS://EXAMPLE.COM/",
		"https://user@example.com:8443/live",
		"https://bücher.example/",
	}
	for _, u := range good {
		if err := Check(u); err != nil {
			t.Errorf("%q: %v", u, err)
		}
	}
	bad := map[string]string{
		"":                                  "empty",
		"javascript:alert(1)":               "scheme",
		"file:///etc/passwd":                "scheme",
		"data:text/html,<b>x</b>":           "scheme",
		"ftp://example.com":                 "scheme",
		"example.com/path":                  "no scheme",
		"//example.com/path":                "no scheme",
		"https:///path":                     "no host",
		"https:example.com":                 "no host",
		"https://example.com/\x1b]8;;x\a":   "control",
		"https://example.com/a b":           "space",
		"https://example.com/\r\nX: y":      "control",
		"https://example.com/\u202egpj.exe": "invisible",
		"https://exa\u200bmple.com":         "invisible",
		"https://example.com/\u0085":        "control",
		"https://example.com/\xff":          "UTF-8",
		"https://example.com/\u3000":        "invisible",
		"https://example.com/" + strings.Repeat("a", MaxURL): "longer",
	}
	for u, why := range bad {
		err := Check(u)
		if !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: err = %v, want %q", u, err, why)
		}
		o, calls := opener("darwin")
		if err := o.Open(context.Background(), u); !errors.Is(err, ErrBadURL) || len(*calls) != 0 {
			t.Errorf("%q: Open err = %v, ran %v", u, err, *calls)
		}
		if msg := o.OpenCmd(u)().(OpenedMsg); !errors.Is(msg.Err, ErrBadURL) || msg.NoDesktop() {
			t.Errorf("%q: OpenCmd %+v", u, msg)
		}
	}
}

func TestRun(t *testing.T) {
	// An opener that exits at once reports how it exited; one that stays
	// in the foreground (a browser run directly) counts as opened; one that
	// does not exist is an error.
	old := settle
	settle = 50 * time.Millisecond
	defer func() { settle = old }()
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep(1)")
	}
	if err := run(context.Background(), "sleep", "1"); err != nil {
		t.Fatalf("long-running opener: %v", err)
	}
	if err := run(context.Background(), "sh", "-c", "exit 3"); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("failing opener: %v", err)
	}
	if err := run(context.Background(), "no-such-opener-xyz"); err == nil {
		t.Fatal("missing opener ran")
	}
}

func TestNew(t *testing.T) {
	o := New()
	if o.GOOS == "" || o.Getenv == nil || o.Run == nil {
		t.Fatalf("%+v", o)
	}
	// The real runner runs a program and reports its failure; "false" is
	// on every Unix machine.
	if err := o.Run(context.Background(), "false"); err == nil {
		t.Skip("no false(1) here")
	}
	if err := o.Run(context.Background(), "true"); err != nil {
		t.Skipf("no true(1) here: %v", err)
	}
}
