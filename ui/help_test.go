package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/poller"
)

// TestHelpIsTheKeys proves that the ? screen is the key maps: every
// binding of the main screen that dispatch.go handles is in its full help
// and every binding in its full help is handled; and the ? screen shows
// all of them and every view's own key map (detail, JSON, artifact,
// waterfall).
func TestHelpIsTheKeys(t *testing.T) {
	// Handled: the keyMap fields dispatch.go matches a key against.
	f, err := parser.ParseFile(token.NewFileSet(), "dispatch.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	handled := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return true
		}
		if fn, ok := call.Fun.(*ast.SelectorExpr); !ok || fn.Sel.Name != "Matches" {
			return true
		}
		if sel, ok := call.Args[1].(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "k" {
				handled[sel.Sel.Name] = true
			}
		}
		return true
	})
	if len(handled) < 20 {
		t.Fatalf("found only %d handled bindings in dispatch.go: %v", len(handled), handled)
	}

	// Shown: the keyMap fields in fullHelp.
	k := defaultKeys()
	v := reflect.ValueOf(k)
	same := func(a, b key.Binding) bool {
		return a.Help() == b.Help() && strings.Join(a.Keys(), " ") == strings.Join(b.Keys(), " ")
	}
	shown := map[string]bool{}
	for _, g := range k.fullHelp() {
		for _, b := range g {
			for i := 0; i < v.NumField(); i++ {
				if !v.Type().Field(i).IsExported() {
					continue
				}
				if fb, ok := v.Field(i).Interface().(key.Binding); ok && same(fb, b) {
					shown[v.Type().Field(i).Name] = true
				}
			}
		}
	}
	for name := range handled {
		if !shown[name] {
			t.Errorf("keys.%s is handled in dispatch.go but not shown in help", name)
		}
	}
	for name := range shown {
		if !handled[name] {
			t.Errorf("keys.%s is shown in help but dispatch.go does not handle it", name)
		}
	}

	// The ? screen shows every one of them, and every view's keys.
	m := newTestModel(t, "succeeded.json", 120, 40, Config{Backend: &fakeBackend{}, Start: (&fakeStarts{}).start, RerunOf: testJob})
	press(m, "?")
	screen := plain(content(m))
	for _, g := range k.fullHelp() {
		for _, b := range g {
			if !strings.Contains(screen, b.Help().Desc) {
				t.Errorf("? does not show %q (%s)", b.Help().Desc, b.Help().Key)
			}
		}
	}
	for _, s := range m.viewHelp() {
		if !strings.Contains(screen, s.name) {
			t.Errorf("? has no section %q", s.name)
		}
		if len(s.keys) == 0 {
			t.Errorf("section %q has no keys", s.name)
		}
		for _, b := range s.keys {
			h := b.Help()
			if !strings.Contains(screen, h.Key+" "+h.Desc) {
				t.Errorf("? does not show %q in %q", h.Key+" "+h.Desc, s.name)
			}
		}
	}
}

// A replay's ? and footer leave out the keys that ask the service (cancel,
// live view, pause, poll now); pressed, c still says why it does nothing.
func TestReplayHelpHasNoServiceKeys(t *testing.T) {
	m := newTestModel(t, "running.json", 120, 40, Config{})
	press(m, "?")
	screen := plain(content(m))
	for _, desc := range []string{"cancel the run", "live view on/off", "pause polling", "poll now"} {
		if strings.Contains(screen, desc) {
			t.Errorf("a replay's ? offers %q", desc)
		}
	}
	if !strings.Contains(screen, "waterfall") {
		t.Errorf("the ? screen lost the other keys:\n%s", screen)
	}
	// A snapshot of a replayed file cannot be fetched again: no r retry,
	// neither in ? nor under the artifact that failed; a live watch has it.
	for _, desc := range []string{"r retry", "save artifact", "diff versions", "d diff", "s save"} {
		if strings.Contains(screen, desc) {
			t.Errorf("a replay's ? offers %q, which needs content it cannot fetch:\n%s", desc, screen)
		}
	}
	pressRun(t, m, "esc", "a")
	if screen := plain(content(m)); strings.Contains(screen, "r retry") || strings.Contains(screen, "r tries again") || strings.Contains(screen, "s save") || !strings.Contains(screen, "could not load snapshot") {
		t.Errorf("a replay's artifact that cannot load:\n%s", screen)
	}
	live := newTestModel(t, "running.json", 120, 40, Config{Backend: &fakeBackend{}, Updates: make(chan poller.Update)})
	press(live, "?")
	for _, desc := range []string{"r retry", "save artifact", "diff versions", "d diff", "s save"} {
		if !strings.Contains(plain(content(live)), desc) {
			t.Errorf("a live watch's ? lost %q", desc)
		}
	}
}
