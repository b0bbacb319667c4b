package archiving

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
)

// TestReaderJobsOnly: a reader for a hub's session never opens a file,
// even one named as the job id in the working folder; without JobsOnly an
// existing file wins, as the FILE-or-JOB_ID rule says.
func TestReaderJobsOnly(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	const id = "019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7"
	if err := os.WriteFile(filepath.Join(dir, id), []byte("a file of the host's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opened := 0
	r := &Reader{
		File: func(arg string) (io.Reader, string, func(), error) {
			opened++
			return strings.NewReader(""), arg, func() {}, nil
		},
		Archive: func(context.Context) (archive.Store, error) { return nil, nil },
		Client: func(string, string) (*poller.Client, error) {
			return nil, os.ErrPermission // the service is not asked here
		},
	}
	if in, err := r.Open(context.Background(), id, "", ""); err != nil || opened != 1 {
		t.Fatalf("a file of that name: %v %v, opened %d", in, err, opened)
	}
	r.JobsOnly = true
	if _, err := r.Open(context.Background(), id, "", ""); err == nil || opened != 1 {
		t.Fatalf("jobs only: %v, opened %d times", err, opened)
	}
	if _, err := r.Open(context.Background(), "run.ndjson", "", ""); err == nil || opened != 1 {
		t.Fatalf("jobs only, a file name: %v, opened %d times", err, opened)
	}
}
