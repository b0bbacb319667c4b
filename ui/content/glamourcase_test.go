package content

import (
	"strings"
	"testing"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
)

// The patched glamour (third_party/glamour) changes case with the standard
// library instead of golang.org/x/text's casers; a style that asks for it
// still gets it.
func TestGlamourCaseTransforms(t *testing.T) {
	yes := true
	for _, c := range []struct {
		name string
		prim ansi.StylePrimitive
		want string
	}{
		{"upper", ansi.StylePrimitive{Upper: &yes}, "ÉTÉ À L'OMBRE"},
		{"lower", ansi.StylePrimitive{Lower: &yes}, "été à l'ombre"},
		{"title", ansi.StylePrimitive{Title: &yes}, "Été À L'ombre"},
	} {
		var st ansi.StyleConfig
		st.H1.StylePrimitive = c.prim
		r, err := glamour.NewTermRenderer(glamour.WithStyles(st), glamour.WithWordWrap(80))
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Render("# éTÉ à l'OMBRE\n")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%s: %q does not hold %q", c.name, out, c.want)
		}
	}
}
