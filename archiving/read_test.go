package archiving

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestReaderBaseURL: a JOB_ID's archived copy is looked up under the
// service the command resolves (a hub session's: the hub's), not the
// environment's, when the archive holds the id under both.
func TestReaderBaseURL(t *testing.T) {
	const id, hubURL, envURL = "019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7", "http://hub.example:8080", "http://elsewhere.example"
	db := filepath.Join(t.TempDir(), "a.db")
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	poll := archive.Poll{ReceivedAt: time.Now(), Line: []byte(`{"receivedAt":"2026-11-20T10:00:01Z","trace":{"events":[]}}`)}
	for _, svc := range []string{hubURL, envURL} {
		if err := st.ReplaceRun(context.Background(), &archive.Run{Service: svc, ID: id, Prompt: "asked of " + svc, Status: "completed"}, []archive.Poll{poll}, nil); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	r := &Reader{
		Archive: func(ctx context.Context) (archive.Store, error) { return archive.Open(ctx, db) },
		Client: func(string, string) (*poller.Client, error) {
			return nil, os.ErrPermission // the service is not asked here
		},
	}
	t.Setenv(poller.EnvBaseURL, envURL)
	for _, tc := range []struct {
		baseURL func(string) string
		want    string
	}{{nil, envURL}, {func(string) string { return hubURL }, hubURL}} {
		r.BaseURL = tc.baseURL
		in, err := r.Open(context.Background(), id, "", "")
		if err != nil || !in.Archived || in.Rec.Service != tc.want || in.Rec.Prompt != "asked of "+tc.want {
			t.Fatalf("want the copy of %s: %+v %v", tc.want, in, err)
		}
	}
}
