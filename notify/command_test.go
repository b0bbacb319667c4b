package notify

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"notify-send", []string{"notify-send"}, ""},
		{"  notify-send  -a firewatch ", []string{"notify-send", "-a", "firewatch"}, ""},
		{`./my hook.sh`, []string{"./my", "hook.sh"}, ""},
		{`'./my hook.sh' "a \"b\" \\c" d\ e ''`, []string{"./my hook.sh", `a "b" \c`, "d e"}, ""},
		{`a"b"'c' "it's"`, []string{"abc", "it's"}, ""},
		{`echo $HOME; rm -rf / | x > y`, []string{"echo", "$HOME;", "rm", "-rf", "/", "|", "x", ">", "y"}, ""},
		{`echo 'open`, nil, "single quote is not closed"},
		{`echo "open`, nil, "double quote is not closed"},
		{`echo "it's`, nil, "double quote is not closed"},
		{`echo 'say "hi`, nil, "single quote is not closed"},
		{`echo \`, nil, "backslash that escapes nothing"},
		{"   ", nil, "names no program"},
	} {
		got, err := SplitCommand(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %q, %v; want an error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestCommand: the command gets the moment in its environment and its text
// as the last argument, never through a shell (the text's $(...) stays
// text); the API key is not passed on; its output goes to the log; one
// that hangs is killed after its timeout, said once, and the next moment
// still runs.
func TestCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	script := filepath.Join(dir, "hook.sh")
	body := "#!/bin/sh\n" +
		`if [ "$FIREWATCH_EVENT" = hang ]; then sleep 30; fi` + "\n" +
		`printf '%s|%s|%s|%s|%s|%s|%s\n' "$FIREWATCH_EVENT" "$FIREWATCH_RUN_ID" "$FIREWATCH_OUTCOME" "$FIREWATCH_CREDITS" "$1" "$FIREWATCH_TEXT" "${FIRECRAWL_API_KEY:-nokey}" >> ` + out + "\n" +
		"echo said on stdout\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FIRECRAWL_API_KEY", "fc-secret-key-123456")
	var said, logged lines
	n, err := New(Config{On: DefaultOn(), Command: []string{script}, Say: said.add, Log: logged.add})
	if err != nil {
		t.Fatal(err)
	}
	n.sinks[0].s.(*command).timeout = 300 * time.Millisecond
	c := 288.0
	n.send(&Moment{Key: "k1", Event: "hang", Text: "run x hangs", Job: Job{Kind: KindRun, ID: "x"}})
	n.send(&Moment{Key: "k2", Event: EventFinished, Text: "run x succeeded: $(touch " + filepath.Join(dir, "pwned") + ")", Job: Job{Kind: KindRun, ID: "x", Outcome: "succeeded", Credits: &c}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	n.Close(ctx)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the hanging command held the sink %s", d)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "finished|x|succeeded|288|run x succeeded: $(touch " + filepath.Join(dir, "pwned") + ")|run x succeeded: $(touch " + filepath.Join(dir, "pwned") + ")|nokey\n"
	if string(b) != want {
		t.Errorf("the command wrote %q, want %q", b, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("the text reached a shell")
	}
	if s := said.all(); len(s) != 1 || !strings.Contains(s[0], "was killed after 300ms") {
		t.Errorf("said %q", s)
	}
	if l := strings.Join(logged.all(), "\n"); !strings.Contains(l, "--notify-command: said on stdout") {
		t.Errorf("the output is not in the log:\n%s", l)
	}
}

// TestCommandMissing: a program that cannot be run is refused at once.
func TestCommandMissing(t *testing.T) {
	_, err := New(Config{Command: []string{"/nonexistent/notify-me"}})
	if err == nil || !strings.Contains(err.Error(), "--notify-command: /nonexistent/notify-me cannot be run") {
		t.Errorf("%v", err)
	}
}

func TestParseOn(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"finished", "finished", ""},
		{" Finished , attention,budget:80%", "finished,attention,budget:80%", ""},
		{"failed,budget:90,budget:50%,budget:90%", "failed,budget:50%,budget:90%", ""},
		{"budget:12.5%", "budget:12.5%", ""},
		{"", "", "it is empty"},
		{"finished,,failed", "", "an empty word"},
		{"done", "", `"done" is not a moment firewatch knows: choose from finished, failed, attention, budget:N%`},
		{"budget", "", "needs the share of the cap"},
		{"budget:0%", "", "from 1% to 100%"},
		{"budget:150%", "", "from 1% to 100%"},
		{"budget:lots", "", "must be a percentage"},
	} {
		on, err := ParseOn(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || on.String() != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.in, on.String(), err, tc.want)
		}
	}
}
