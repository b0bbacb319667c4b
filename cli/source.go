package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// A FILE or JOB_ID argument (export, report, replay) is read by one rule:
// an existing file, or -, is a file (a --record recording or a saved trace
// body); otherwise a UUID is a job id, whose trace is fetched from the
// service (FIRECRAWL_API_KEY); anything else is a file that cannot be
// opened.

// sourceArgs is what the argument is called in help and errors.
const sourceArgs = "a FILE (a --record file or a saved trace body; - for stdin) or a JOB_ID"

// isJobSource reports whether arg names a job rather than a file.
func isJobSource(arg string) bool {
	if arg == "-" {
		return false
	}
	if _, err := os.Stat(arg); err == nil {
		return false
	}
	return poller.ValidateJobID(arg) == nil
}

// sourceFlags registers --api-url and --api-key, for a JOB_ID, unless the
// command has them.
func sourceFlags(f *pflag.FlagSet, apiURL, apiKey *string) {
	if f.Lookup("api-url") == nil {
		f.StringVar(apiURL, "api-url", "", "service base URL for a JOB_ID (default $FIRECRAWL_API_URL, else https://api.firecrawl.dev)")
	}
	if f.Lookup("api-key") == nil {
		f.StringVar(apiKey, "api-key", "", "API key for a JOB_ID; prefer $FIRECRAWL_API_KEY")
	}
}

// runSource is an opened FILE or JOB_ID.
type runSource struct {
	In   io.Reader
	Name string        // what messages call it
	Req  model.Request // what the run was asked (a JOB_ID's, from the service)
	// Archived says where a JOB_ID was read from the archive ("finished,
	// /path/archive.db"); "" when it came from a file or the service.
	Archived string
	close    func()
}

func (s *runSource) Close() {
	if s != nil && s.close != nil {
		s.close()
	}
}

// openSource opens arg by the rule above. A file that cannot be read is a
// usage error. A JOB_ID takes the key and address the way every command
// does (a.service: no key is a usage error, and the key joins a.secrets);
// the service's answers, a refusal included, are the client's typed errors.
func (a *app) openSource(ctx context.Context, arg, apiURL, apiKey string) (*runSource, error) {
	if !isJobSource(arg) {
		in, name, closeIn, err := a.openRecording(arg)
		if err != nil {
			return nil, err
		}
		return &runSource{In: in, Name: name, close: closeIn}, nil
	}
	// A job id is read from the archive, else from the service.
	if src, err := a.archivedSource(ctx, poller.ResolveBaseURL(apiURL), strings.ToLower(arg)); src != nil || err != nil {
		return src, err
	}
	svc, err := a.service(apiURL, apiKey)
	if err != nil {
		return nil, err
	}
	c, err := a.client(svc, nil, nil)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	body, err := c.Trace(ctx, arg, false)
	if err != nil {
		return nil, err
	}
	// The client redacts every answer but the trace, which the watch's
	// decoder redacts; this one is replayed, so it is redacted here.
	body, _ = a.secrets.RedactJSON(body)
	src := &runSource{In: bytes.NewReader(body), Name: fmt.Sprintf("run %s", arg)}
	if req, err := c.RunRequest(ctx, arg); err == nil {
		src.Req = req
	}
	return src, nil
}

// archivedSource is job id from the archive; nil when the archive is off
// or does not hold it.
func (a *app) archivedSource(ctx context.Context, service, id string) (*runSource, error) {
	st, err := a.openArchive(ctx)
	if err != nil || st == nil {
		return nil, err
	}
	defer st.Close()
	r, rec, err := a.jobFromStore(ctx, st, service, id)
	if isArchiveNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	state := "finished"
	if !r.Complete {
		state = "archived while it was still processing"
	}
	return &runSource{In: bytes.NewReader(rec), Name: "archived run " + id, Archived: state + ", " + st.Where()}, nil
}
