//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/firewatch/firewatch/poller"
)

// TestImportStopsAtASignal: an import reading an input that does not end (a
// FIFO whose writer stays) ends at a signal with 130, also while it waits
// for the next bytes.
func TestImportStopsAtASignal(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "rec.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	release := make(chan struct{})
	defer close(release)
	wrote := make(chan struct{})
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			close(wrote)
			return
		}
		defer f.Close()
		f.WriteString(`{"firewatch":"recording","version":2,"jobId":"019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b","startedAt":"2026-11-25T20:50:30Z"}` + "\n")
		for range 3 {
			f.WriteString(`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}` + "\n")
		}
		close(wrote)
		<-release // the input goes on, with nothing more to read yet
	}()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan int, 1)
	var errOut bytes.Buffer
	go func() {
		done <- execute(ctx, []string{"archive", "import", fifo, "--archive", filepath.Join(dir, "a.db")}, strings.NewReader(""), &bytes.Buffer{}, &errOut, poller.Retry{})
	}()
	<-wrote
	cancel(errInterrupted)
	select {
	case code := <-done:
		if code != ExitInterrupted {
			t.Fatalf("exit %d\n%s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the import went on reading after the signal")
	}
}
