package panics

import (
	"context"
	"strings"
	"testing"
)

func boom() { panic("boom") }

// Under a handler a panic is recovered, told and returned, with where it
// happened; without one Catch recovers nothing.
func TestCatch(t *testing.T) {
	var told *Error
	ctx := WithHandler(context.Background(), func(e *Error) { told = e })
	p := Catch(ctx, boom)
	if p == nil || told != p || p.Value != "boom" {
		t.Fatalf("Catch: %v, told %v", p, told)
	}
	if w := p.Where(); !strings.HasPrefix(w, "panics.boom (panics_test.go:") {
		t.Errorf("Where: %q", w)
	}
	if p := Catch(ctx, func() {}); p != nil {
		t.Errorf("no panic: %v", p)
	}
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("without a handler the panic was %v, want it to go on", r)
		}
	}()
	Catch(context.Background(), boom)
	t.Error("without a handler Catch returned")
}
