package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

func blocking() follow.Source {
	return follow.SourceFunc(func(ctx context.Context, _ func(poller.Update)) error {
		<-ctx.Done()
		return ctx.Err()
	})
}

// Two calls on one run share its follower; past Max runs the idle one
// makes room, and with none idle a new run is refused.
func TestFollowersOnePerRunAndBounded(t *testing.T) {
	fs := &Followers{Max: 2, Make: func(context.Context, string) (follow.Source, func(*follow.Run), error) { return blocking(), nil, nil }}
	fs.Start(context.Background())
	defer fs.Stop()
	ctx := context.Background()
	a1, ra1, err := fs.Open(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	a2, ra2, _ := fs.Open(ctx, "a")
	if a1 != a2 || fs.Made() != 1 {
		t.Fatalf("two opens of one run: %d followers", fs.Made())
	}
	_, rb, _ := fs.Open(ctx, "b")
	if _, _, err := fs.Open(ctx, "c"); !errors.Is(err, errTooMany) {
		t.Fatalf("a third run with none idle: %v", err)
	}
	ra1()
	ra2() // a is idle now
	_, rc, err := fs.Open(ctx, "c")
	if err != nil {
		t.Fatalf("a third run with one idle: %v", err)
	}
	<-a1.Done() // the idle one was stopped to make room
	rb()
	rc()
}

func TestCheckAnswersWhatIsNotJSONRPC(t *testing.T) {
	for line, want := range map[string]string{
		"not json\n":                              "-32700",
		`{"a":1}` + "\n":                          "-32600",
		`[{"jsonrpc":"2.0","method":"x"}]`:        "batches",
		`{"jsonrpc":"2.0","id":[1],"method":"x"}`: "-32600",
		"!": "too large",
	} {
		msg, ok := check([]byte(line))
		if ok || !strings.Contains(string(msg), want) || !strings.HasSuffix(string(msg), "\n") {
			t.Errorf("%q: %v %s", line, ok, msg)
		}
	}
	if _, ok := check([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); !ok {
		t.Error("a request refused")
	}
}

// A long string is cut and named; escapes and the key never pass.
func TestCutterCutsNamesAndCleans(t *testing.T) {
	sec := text.NewSecrets("fc-0123456789abcdef0123456789abcdef")
	c := &cutter{sec: sec, limit: 10}
	v := c.value("data", map[string]any{"a": "\x1b[2Jfc-0123456789abcdef0123456789abcdef", "b": strings.Repeat("x", 50)})
	m := v.(map[string]any)
	if strings.Contains(m["a"].(string), "\x1b") || strings.Contains(m["a"].(string), "fc-0123") {
		t.Errorf("not clean: %q", m["a"])
	}
	if len([]rune(m["b"].(string))) != 11 || len(c.cut) == 0 || !strings.Contains(strings.Join(c.cut, " "), "data.b (50 characters, 10 shown)") {
		t.Errorf("cut: %q %v", m["b"], c.cut)
	}
}

// A run whose source gave up is asked again by the next call, not kept
// failed for the idle time.
func TestFollowersAskAgainAfterAFailure(t *testing.T) {
	n := 0
	fs := &Followers{Make: func(context.Context, string) (follow.Source, func(*follow.Run), error) {
		n++
		if n == 1 {
			return follow.SourceFunc(func(context.Context, func(poller.Update)) error { return errors.New("network down") }), nil, nil
		}
		return blocking(), nil, nil
	}}
	fs.Start(context.Background())
	defer fs.Stop()
	f, release, err := fs.Open(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	<-f.Done()
	release()
	_, release, err = fs.Open(context.Background(), "a")
	if err != nil || fs.Made() != 2 {
		t.Fatalf("after a failure: %v, %d followers made", err, fs.Made())
	}
	release()
}
