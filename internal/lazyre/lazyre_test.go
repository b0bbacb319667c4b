package lazyre

import (
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
