package lazyre

import (
	"strings"
	"sync"
	"testing"
)

func TestCompiledOnceOnFirstUse(t *testing.T) {
	re := New(`^a+b$`)
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() { got[i] = re() })
	}
	wg.Wait()
	for i, g := range got {
		if g != got[0] {
			t.Fatalf("call %d returned a different *regexp.Regexp", i)
		}
	}
	if !re().MatchString("aab") || re().MatchString("ba") {
		t.Fatal("the compiled expression does not match as written")
	}
}

func TestInvalidPatternPanicsOnFirstUseNotBefore(t *testing.T) {
	re := New(`(unclosed`) // must not panic here
	defer func() {
		if recover() == nil {
			t.Fatal("an invalid pattern did not panic on first use")
		}
	}()
	re()
}

func TestCheckCompilesEveryPattern(t *testing.T) {
	saved := patterns // those of the other tests
	patterns = nil
	defer func() { patterns = saved }()
	New(`^ok$`)
	if err := Check(); err != nil {
		t.Fatalf("Check on a valid pattern: %v", err)
	}
	New(`[unclosed`)
	if err := Check(); err == nil || !strings.Contains(err.Error(), "[unclosed") {
		t.Fatalf("Check with an invalid pattern: %v", err)
	}
}
