package follow

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/firewatch/firewatch/model"
)

// A watch's memory limit follows the JSON the store holds: set from a known
// input size at once, raised as events come (by a tenth at least), never
// lowered, higher when the JSON is held twice (live, or a stream), and left
// alone when the user set GOMEMLIMIT.
func TestMemoryBudget(t *testing.T) {
	t.Cleanup(func() { debug.SetMemoryLimit(math.MaxInt64) })
	t.Setenv("GOMEMLIMIT", "")
	poll := func(n, size int) *model.Poll {
		p := &model.Poll{}
		for range n {
			p.Events = append(p.Events, &model.Event{Raw: make([]byte, size)})
		}
		return p
	}
	b := NewBudget(0)
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Fatalf("limit %d at start, want the 64 MiB floor", got)
	}
	b.take(poll(1000, 1000)) // 1 MB: still the floor
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Fatalf("limit %d after 1 MB, want the floor", got)
	}
	b.take(poll(100, 1<<20)) // 100 MiB more
	want := limitFor(b.json, false)
	if got := debug.SetMemoryLimit(-1); got != want || want <= 64<<20 {
		t.Fatalf("limit %d after %d bytes, want %d", got, b.json, want)
	}
	b.take(poll(1, 1000)) // a little: not worth a change
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Fatalf("limit %d after a small poll, want it kept at %d", got, want)
	}

	if want != 5*(b.json-1000)+16<<20 { // before the small poll
		t.Fatalf("live limit %d for %d bytes of JSON, want 5x + 16 MiB", want, b.json)
	}
	if NewBudget(60 << 20); debug.SetMemoryLimit(-1) != limitFor(60<<20, true) || limitFor(60<<20, true) != 60<<20*28/10+8<<20 {
		t.Fatalf("a replayed file's size sets the in-place limit at once")
	}

	debug.SetMemoryLimit(123 << 20)
	t.Setenv("GOMEMLIMIT", "123MiB")
	u := NewBudget(500 << 20)
	u.take(poll(10, 50<<20))
	if got := debug.SetMemoryLimit(-1); got != 123<<20 {
		t.Fatalf("limit %d, want the user's 123 MiB kept", got)
	}
}
