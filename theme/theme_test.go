package theme

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/firewatch/firewatch/text"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestNoColorEnv(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want bool
	}{
		{nil, false},
		{[]string{"NO_COLOR", ""}, false}, // present but empty: colour (no-color.org)
		{[]string{"NO_COLOR", "0"}, true}, // any value that is not empty
		{[]string{"NO_COLOR", "", "TERM", "dumb"}, true},
		{[]string{"NO_COLOR", "1"}, true},
		{[]string{"TERM", "dumb"}, true},
		{[]string{"TERM", "xterm-256color"}, false},
	} {
		if got := NoColorEnv(env(tc.env...)); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.env, got, tc.want)
		}
	}
}

func TestASCIIEnv(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want bool
	}{
		{nil, true}, // the C locale
		{[]string{"LANG", "en_US.UTF-8"}, false},
		{[]string{"LANG", "C.utf8"}, false},
		{[]string{"LANG", "en_US.ISO-8859-1"}, true},
		{[]string{"LANG", "C"}, true},
		{[]string{"LANG", "en_US.UTF-8", "LC_ALL", "C"}, true},         // LC_ALL wins
		{[]string{"LANG", "C", "LC_CTYPE", "de_DE.UTF-8"}, false},      // LC_CTYPE before LANG
		{[]string{"LC_ALL", "", "LANG", "en_GB.UTF-8@euro"}, false},    // empty means unset
		{[]string{"LC_ALL", "POSIX", "LC_CTYPE", "en_US.UTF-8"}, true}, // LC_ALL wins
	} {
		if got := ASCIIEnv(env(tc.env...)); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.env, got, tc.want)
		}
	}
}

// styles lists every Style field of s.
func styles(s *Styles) map[string]Style {
	out := map[string]Style{}
	v := reflect.ValueOf(s).Elem()
	for i := 0; i < v.NumField(); i++ {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		if st, ok := v.Field(i).Interface().(Style); ok {
			out[v.Type().Field(i).Name] = st
		}
	}
	return out
}

func TestNoColourStylesUseAttributesOnly(t *testing.T) {
	for _, p := range []Palette{Dark(), Light()} {
		s := New(p, true)
		for name, st := range styles(s) {
			open := st.Open()
			if open == "" {
				continue
			}
			params := strings.TrimSuffix(strings.TrimPrefix(open, "\x1b["), "m")
			for _, p := range strings.Split(params, ";") {
				switch p {
				case "1", "2", "4", "7":
				default:
					t.Errorf("%s: %q is not an attribute", name, open)
				}
			}
		}
		if s.Selected.IsZero() || s.TitleFocus.IsZero() {
			t.Error("without colour, the selection and the focus still need attributes")
		}
		if !s.AgentStyle(3).IsZero() {
			t.Error("no colour: agents are not coloured")
		}
	}
}

func TestColourStylesDifferByPalette(t *testing.T) {
	d, l := New(Dark(), false), New(Light(), false)
	if d.Good.Open() == l.Good.Open() || d.Bad.Open() == "" || d.AgentStyle(0).IsZero() {
		t.Error("dark and light palettes should differ and colour")
	}
	if got := d.Bad.Render("x"); !strings.HasPrefix(got, d.Bad.Open()) || !strings.HasSuffix(got, "\x1b[m") {
		t.Errorf("Render: %q", got)
	}
	if (Style{}).Render("x") != "x" || d.Bad.Render("") != "" {
		t.Error("the zero style and empty text render as they are")
	}
}

func TestASCIISymbolsAreASCII(t *testing.T) {
	check := func(name, s string) {
		for _, r := range s {
			if r >= utf8.RuneSelf {
				t.Errorf("%s: %q is not ASCII", name, s)
			}
		}
	}
	sym := ASCII()
	v := reflect.ValueOf(sym)
	for i := 0; i < v.NumField(); i++ {
		switch f := v.Field(i).Interface().(type) {
		case string:
			check(v.Type().Field(i).Name, f)
		case []string:
			for _, s := range f {
				check(v.Type().Field(i).Name, s)
			}
		}
	}
	// Every Unicode symbol is one cell wide, and none is empty.
	u := reflect.ValueOf(Unicode())
	for i := 0; i < u.NumField(); i++ {
		if s, ok := u.Field(i).Interface().(string); ok && s == "" {
			t.Errorf("Unicode symbol %s is empty", u.Type().Field(i).Name)
		}
	}
}

// A state has one ASCII symbol: the panes' (theme) and the text's
// (text.ASCII, which the timeline's "tool ✓" and the plain output go
// through) are the same, and no two states share one.
func TestASCIIStatesOneSymbol(t *testing.T) {
	u, a := Unicode(), ASCII()
	states := map[string][2]string{
		"Running": {u.Running, a.Running}, "Succeeded": {u.Succeeded, a.Succeeded}, "Failed": {u.Failed, a.Failed},
		"Cancelled": {u.Cancelled, a.Cancelled}, "Refused": {u.Refused, a.Refused}, "Unfinished": {u.Unfinished, a.Unfinished},
		"Pending": {u.Pending, a.Pending}, "Session": {u.Session, a.Session}, "Stalled": {u.Stalled, a.Stalled},
		"Looping": {u.Looping, a.Looping}, "Paused": {u.Paused, a.Paused},
	}
	seen := map[string]string{}
	for name, s := range states {
		if got := text.ASCII(s[0]); got != s[1] {
			t.Errorf("%s: the text writes %q as %q, the panes as %q", name, s[0], got, s[1])
		}
		if other, ok := seen[s[1]]; ok {
			t.Errorf("%s and %s share the ASCII symbol %q", name, other, s[1])
		}
		seen[s[1]] = name
	}
	if text.ASCII(u.OK) != a.Succeeded || a.OK != a.Succeeded {
		t.Errorf("ok %q and succeeded %q differ", a.OK, a.Succeeded)
	}
}
