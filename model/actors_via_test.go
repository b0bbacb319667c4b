package model

import "testing"

// TestActorVia: a hub's name is made safe and bounded, and a record
// splits back into the person and the hub, a person's name holding " via
// hub " kept whole; a record without a hub is the person alone.
func TestActorVia(t *testing.T) {
	for in, want := range map[string]string{"prod": "prod", "Prod-2.example_x": "Prod-2.example_x", "a b/c": "a-b-c",
		"\x1b[31mred": "31mred", "héllo": "h-llo", "...": "", "": "", string(make([]byte, 100)): ""} {
		if got := HubName(in); got != want {
			t.Errorf("HubName(%q) = %q, want %q", in, got, want)
		}
	}
	long := ""
	for range 100 {
		long += "x"
	}
	if got := HubName(long); len(got) != 63 {
		t.Errorf("HubName(100 x) is %d bytes", len(got))
	}
	for _, c := range []struct{ person, hub, rec string }{
		{"alice", "prod", "alice via hub prod"},
		{"alice (mcp:claude-code)", "prod", "alice (mcp:claude-code) via hub prod"},
		{"bob via hub x", "prod", "bob via hub x via hub prod"},
		{"alice", "", "alice"},
		{"mcp:claude-code", "", "mcp:claude-code"},
	} {
		rec := ActorVia(c.person, c.hub)
		if rec != c.rec {
			t.Errorf("ActorVia(%q, %q) = %q, want %q", c.person, c.hub, rec, c.rec)
		}
		if p, h := SplitActor(rec); p != c.person || h != c.hub {
			t.Errorf("SplitActor(%q) = %q, %q", rec, p, h)
		}
	}
	// Not a hub's name after the words: the person alone.
	if p, h := SplitActor("carol via hub a b"); p != "carol via hub a b" || h != "" {
		t.Errorf("SplitActor: %q, %q", p, h)
	}
}
