package ui

import "testing"

// cycle goes round the rows (n and N over the errors or matches of a
// pane) and keeps the cursor in the window.
func TestListCycle(t *testing.T) {
	for _, c := range []struct {
		name             string
		sel, off, dir, n int
		h                int
		ok               bool
		wantSel, wantOff int
	}{
		{"no rows", 0, 0, 1, 0, 5, false, 0, 0},
		{"next", 2, 0, 1, 10, 5, true, 3, 0},
		{"previous", 2, 0, -1, 10, 5, true, 1, 0},
		{"last to first", 9, 5, 1, 10, 5, true, 0, 0},
		{"first to last", 0, 0, -1, 10, 5, true, 9, 5},
		{"below the window", 4, 0, 1, 10, 5, true, 5, 1},
	} {
		l := list{sel: c.sel, off: c.off}
		ok := l.cycle(c.dir, c.n, c.h)
		if ok != c.ok || l.sel != c.wantSel || l.off != c.wantOff {
			t.Errorf("%s: cycle = %v, sel %d, off %d; want %v, %d, %d", c.name, ok, l.sel, l.off, c.ok, c.wantSel, c.wantOff)
		}
	}
}
