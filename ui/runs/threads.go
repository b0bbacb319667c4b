package runs

import (
	"slices"
	"strconv"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// A thread's turns stand together on the list: where its newest turn
// stands in the list's order (processing first, then newest first), the
// highest turn first, each row named by its turn, the first with the
// thread's credits (every loaded turn's). The thread and turn come from
// firewatch's record of the run (the team's list carries neither). The
// grouping is one pass over the sorted rows and a map: O(n) with every
// rebuild, nothing on a key that moves the selection.

// threadGroup is what a grouped row shows.
type threadGroup struct {
	head    bool    // the first row of its thread
	last    bool    // the last
	turn    int     // its turn (0 unknown)
	turns   int     // the thread's turns shown
	credits float64 // the thread's credits, every loaded turn
	partial bool    // some turn's credits are not known: at least credits
	none    bool    // no turn's credits are known: none said
}

// threadNote is a run's thread and turn as the screen learnt them.
type threadNote struct {
	id   string
	turn int
}

// threadOf is the run's thread and turn: as firewatch's record of it
// says, else as its status (the details) or the shell (NoteThread) told.
func (m *Model) threadOf(r *poller.RunInfo) (string, int) {
	if r.Known != nil && r.Known.ThreadID != "" {
		return r.Known.ThreadID, r.Known.ThreadTurn
	}
	t := m.threads[r.ID]
	return t.id, t.turn
}

// NoteThread tells the screen run id's thread and turn (a run watched from
// it, whose status named them); the list groups it from its next rebuild.
func (m *Model) NoteThread(id, thread string, turn int) {
	if id == "" || thread == "" {
		return
	}
	if m.threads == nil {
		m.threads = map[string]threadNote{}
	}
	m.threads[id] = threadNote{id: thread, turn: turn}
}

// groupThreads reorders m.view (sorted) so that each thread's turns are
// adjacent, and fills m.groups for the rows of a thread of two turns or
// more.
func (m *Model) groupThreads() {
	clear(m.groups)
	var byThread map[string][]int
	for _, i := range m.view {
		if t, _ := m.threadOf(&m.rows[i]); t != "" {
			if byThread == nil {
				byThread = map[string][]int{}
			}
			byThread[t] = append(byThread[t], i)
		}
	}
	multi := false
	for _, g := range byThread {
		multi = multi || len(g) > 1
	}
	if !multi {
		return
	}
	credits := map[string]float64{}
	unknown := map[string]bool{} // a turn whose credits neither the list nor its status gave
	known := map[string]bool{}   // a turn whose credits are known
	for i := range m.rows {
		r := &m.rows[i]
		t, _ := m.threadOf(r)
		if t == "" || len(byThread[t]) < 2 {
			continue
		}
		c := r.CreditsUsed
		if d := m.details[r.ID]; c == nil && d != nil && d.st != nil {
			c = d.st.CreditsUsed
		}
		if c == nil && r.Known != nil {
			c = r.Known.CreditsUsed // firewatch's record of the run
		}
		if c == nil {
			unknown[t] = true
			continue
		}
		credits[t] += *c
		known[t] = true
	}
	if m.groups == nil {
		m.groups = map[int]threadGroup{}
	}
	out := make([]int, 0, len(m.view))
	for _, i := range m.view {
		t, _ := m.threadOf(&m.rows[i])
		g, seen := byThread[t]
		switch {
		case seen && g == nil:
			continue // emitted with its thread's newest turn
		case t == "" || len(g) < 2:
			out = append(out, i)
			continue
		}
		// The highest turn first; the list's order among equal turns.
		slices.SortStableFunc(g, func(a, b int) int {
			_, ta := m.threadOf(&m.rows[a])
			_, tb := m.threadOf(&m.rows[b])
			return tb - ta
		})
		for k, j := range g {
			_, turn := m.threadOf(&m.rows[j])
			m.groups[j] = threadGroup{head: k == 0, last: k == len(g)-1, turn: turn, turns: len(g), credits: credits[t], partial: unknown[t], none: !known[t]}
		}
		out = append(out, g...)
		byThread[t] = nil // emitted: its other turns are skipped
	}
	m.view = append(m.view[:0], out...)
}

// threadMark is a grouped row's mark before its prompt: the first row
// names its turn and the thread's turns and credits, the others their
// turn under it; in a list narrower than 100 cells the first says the
// credits alone (Σ).
func (m *Model) threadMark(i, w int) string {
	g, ok := m.groups[i]
	if !ok {
		return ""
	}
	turn := "turn ?"
	if g.turn > 0 {
		turn = "turn " + strconv.Itoa(g.turn)
	}
	first, mid, last := "┌ ", "├ ", "└ "
	if m.sym.ASCII {
		first, mid, last = "+ ", "| ", "` "
	}
	cr := text.Credits(g.credits)
	if g.partial {
		cr = "≥" + cr
		if m.sym.ASCII {
			cr = ">=" + text.Credits(g.credits)
		}
	}
	switch {
	case g.head && g.none:
		// No turn's credits known (the team's list gives none): no
		// "at least 0".
		if w < 100 {
			return first + turn + " · "
		}
		return first + turn + " · thread of " + strconv.Itoa(g.turns) + " · "
	case g.head && w < 100:
		sum := "Σ "
		if m.sym.ASCII {
			sum = "sum "
		}
		return first + turn + " · " + sum + cr + " · "
	case g.head:
		return first + turn + " · thread of " + strconv.Itoa(g.turns) + ", " + cr + " · "
	case g.last:
		return last + turn + " · "
	}
	return mid + turn + " · "
}
