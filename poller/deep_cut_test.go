package poller

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestCutDeep: what lies deeper than the limit becomes one marker string,
// brackets inside strings are left alone, and the result is JSON.
func TestCutDeep(t *testing.T) {
	t.Parallel()
	body := `{"a":"[[[{{","b":[[[1,"]]]",{"c":[2]}]]],"d":[]}`
	out, cut := cutDeep([]byte(body), 3)
	want := `{"a":"[[[{{","b":[[` + tooDeep + `]],"d":[]}`
	if !cut || string(out) != want || !jsontext.Value(out).IsValid() {
		t.Fatalf("got %s (cut %v)\nwant %s", out, cut, want)
	}
	if same, cut := cutDeep([]byte(body), 10); cut || string(same) != body {
		t.Fatalf("nothing too deep, yet %s", same)
	}
	deep := `{"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	if out, _ := cutDeep([]byte(deep), 128); !jsontext.Value(out).IsValid() || len(out) > 300 {
		t.Fatalf("deep: %d bytes", len(out))
	}
}
