//go:build linux

package clipboard

import (
	"os"
	"path/filepath"
	"testing"

	atotto "github.com/atotto/clipboard"
)

// TestAtottoSearchesPathOnFirstUse: the patched github.com/atotto/clipboard
// (third_party/clipboard, imported by Bubbles' text area) looks for a
// clipboard utility when it is first used, not at program start. A PATH set
// after start-up holding only a fake xclip is the one it finds; the
// published package would have searched the PATH of start-up and found none.
func TestAtottoSearchesPathOnFirstUse(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "copied")
	script := "#!/bin/sh\nexec /bin/cat > '" + out + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("WAYLAND_DISPLAY", "")
	if err := atotto.WriteAll("firewatch"); err != nil {
		t.Fatalf("WriteAll with a fake xclip on PATH: %v", err)
	}
	if atotto.Unsupported {
		t.Error("Unsupported is set although xclip was found")
	}
	got, err := os.ReadFile(out)
	if err != nil || string(got) != "firewatch" {
		t.Errorf("the fake xclip got %q (%v), want %q", got, err, "firewatch")
	}
}
