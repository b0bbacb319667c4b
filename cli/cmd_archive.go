package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// firewatch archive: keep the team's runs past the service's 24 hours.

type archiveOptions struct {
	Every time.Duration
	Once  bool
}

func (a *app) archiveCommand() *cobra.Command {
	o := &watchOptions{}
	ao := &archiveOptions{}
	cmd := &cobra.Command{
		Use:   "archive",
		Short: "Keep the team's runs past the service's 24 hours, in the archive",
		Long: `Page through the team's runs (GET /v2/agent) and fetch every run the archive
does not hold, or held while it was still processing: its status, trace and
artifact snapshots. Then sleep (--every) and do it again; --once does one
pass and exits (for cron or a systemd timer).

One request at a time; a 429 is waited out as everywhere else. A second
pass fetches nothing new; a pass killed halfway is completed by the next.
Each run is written in one transaction: nothing half-written.

A run the service cannot give now (an answer that stays 5xx) is skipped and
said, with why, on its own line; what could be read of it is kept (a run
without one of its snapshots is still archived), and the next pass tries
the rest again. A first-generation run has no trace: its list item and
status are archived as the whole of it. Runs are kept per team:
a pass marks expired only runs its own key's team owns and no longer lists.

Exit codes: 0 the pass did its job (runs it skipped are said and tried
again next pass). Only a pass that could archive none of the runs it had to
fetch, or could not read the list, fails, with the code of the failure as
for any request: 6 the service refused (a bad key, a 4xx, a 429 that
stayed), 1 it failed (a 5xx, the network). 2 bad usage, or an archive
firewatch cannot read; 8 the archive cannot be written (no space left,
read-only, or another program held its lock for 30s); 130 interrupted.
With --every a failed pass is said and the next one runs.

The archive is --archive, else $FIREWATCH_ARCHIVE, else
$XDG_DATA_HOME/firewatch/archive.db (see docs/archive.md).`,
		Example: `  firewatch archive --once
  firewatch archive --every 30m
  firewatch archive import run.ndjson
  firewatch archive prune --before 90d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.archiveRun(cmd, o, ao)) },
	}
	f := cmd.Flags()
	f.DurationVar(&ao.Every, "every", 10*time.Minute, "time between passes")
	f.BoolVar(&ao.Once, "once", false, "one pass, then exit")
	o.register(cmd, flagsConnection)
	cmd.AddCommand(a.archiveImportCommand(), a.archivePruneCommand())
	return cmd
}

func (a *app) archiveRun(cmd *cobra.Command, o *watchOptions, ao *archiveOptions) error {
	if ao.Every < time.Second {
		return badUsage("--every %s: it must be at least 1s", ao.Every)
	}
	svc, err := a.service(o.APIURL, o.APIKey)
	if err != nil {
		return err
	}
	term, _ := isTerminal(a.stderr.w)
	// The client waits out a 429 or a 5xx as poller.Retry says, each wait
	// said on stderr (on a terminal, over the progress line).
	say := func(line string) { fmt.Fprintf(a.stderr, "firewatch: %s\n", line) }
	if term {
		say = func(line string) { fmt.Fprintf(a.stderr, "\r\x1b[Kfirewatch: %s\n", line) }
	}
	c, err := a.client(svc, nil, say)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	st, err := a.requireArchive(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	service := svc.baseURL
	for {
		p := &archivePass{a: a, c: c, st: st, service: service, team: archive.TeamOf(svc.key), term: term}
		err := p.run(ctx)
		if ctx.Err() != nil {
			return errInterrupted
		}
		if err != nil {
			if ao.Once {
				return err
			}
			fmt.Fprintf(a.stderr, "firewatch: archive: pass failed: %s; next pass in %s\n", a.secrets.Redact(err.Error()), text.Duration(ao.Every))
		}
		if ao.Once {
			return nil
		}
		t := time.NewTimer(ao.Every)
		select {
		case <-ctx.Done():
			t.Stop()
			return errInterrupted
		case <-t.C:
		}
	}
}

// archivePass is one pass of firewatch archive.
type archivePass struct {
	a       *app
	c       *poller.Client
	st      archive.Store
	service string
	team    string // archive.TeamOf the pass's key
	term    bool

	seen, fetched, expired, requests int
	forgotten                        int // archived runs the service no longer lists
	skipped                          int // runs it could not fetch (said each)
	lastSkip                         error
	partial                          int // runs archived without some of their parts
	bytes                            int64
	started                          time.Time
}

// errNothingArchived is a pass that had runs to fetch and could fetch
// none. Its exit code is its last failure's, as for one request
// (exitcode.go): 6 when the service refused (a 4xx, a 429 that stayed), 1
// when it failed (a 5xx, the network).
type errNothingArchived struct {
	n    int
	last error
}

func (e *errNothingArchived) Error() string {
	return fmt.Sprintf("archive: none of the %d runs to fetch could be archived (each said above); the next pass tries again", e.n)
}

func (e *errNothingArchived) Unwrap() error { return e.last }

// progress says where the pass is: a line rewritten in place on a
// terminal, one line at the end otherwise.
func (p *archivePass) progress(final bool) {
	line := fmt.Sprintf("archive: %d runs seen, %d fetched, %s", p.seen, p.fetched, text.Size(int(p.bytes)))
	if p.partial > 0 {
		line += fmt.Sprintf(", %d without some snapshots", p.partial)
	}
	if p.skipped > 0 {
		line += fmt.Sprintf(", %d skipped (tried again next pass)", p.skipped)
	}
	if p.expired > 0 {
		line += fmt.Sprintf(", %d gone before they could be fetched", p.expired)
	}
	if p.forgotten > 0 {
		line += fmt.Sprintf(", %d no longer kept by the service", p.forgotten)
	}
	switch {
	case p.term && !final:
		fmt.Fprintf(p.a.stderr, "\r\x1b[K%s", line)
	case p.term:
		fmt.Fprintf(p.a.stderr, "\r\x1b[K%s (%s)\n", line, text.Duration(time.Since(p.started)))
	case final:
		fmt.Fprintf(p.a.stderr, "firewatch: %s, %d requests, %s\n", line, p.requests, text.Duration(time.Since(p.started)))
	}
}

func (p *archivePass) run(ctx context.Context) error {
	p.started = time.Now()
	pager := p.c.RunPages()
	defer p.progress(true)
	listed := map[string]bool{}
	for !pager.Done() {
		p.requests++
		l, err := pager.Next(ctx)
		if err != nil {
			if errors.Is(err, poller.ErrCursorLoop) {
				return nil // the list did not end: nothing can be said gone
			}
			return err
		}
		ids := make([]string, 0, len(l.Runs))
		for _, r := range l.Runs {
			ids = append(ids, r.ID)
			listed[r.ID] = true
		}
		held, err := p.st.Held(ctx, p.service, ids)
		if err != nil {
			return archiveErr(err)
		}
		if err := p.claim(ctx, held); err != nil {
			return err
		}
		cp := &completer{c: p.c, st: p.st, secrets: p.a.secrets, service: p.service, team: p.team}
		for i := range l.Runs {
			ri := &l.Runs[i]
			p.seen++
			var hp *archive.Held
			if h, ok := held[ri.ID]; ok {
				hp = &h
			}
			done, err := cp.complete(ctx, ri, hp)
			p.requests += done.requests
			p.bytes += done.bytes
			if done.fetched {
				p.fetched++
			}
			if done.gone {
				p.expired++
			}
			if err != nil {
				return err
			}
			switch {
			case done.skipErr != nil:
				p.skipped++
				p.lastSkip = done.skipErr
				p.skip(ri.ID, done.skipped, done.skipErr)
			case done.firstGen:
				p.say(fmt.Sprintf("archive: run %s archived without a trace: a first-generation run has none", ri.ID))
			case done.gaps > 0:
				p.partial++
				p.skip(ri.ID, fmt.Sprintf("archived without %d of its snapshots", done.gaps), done.gapErr)
			}
			if done.requests > 0 {
				p.progress(false)
			}
		}
		p.progress(false)
	}
	if err := p.markGone(ctx, listed); err != nil {
		return err
	}
	if p.fetched == 0 && p.skipped > 0 {
		return &errNothingArchived{p.skipped, p.lastSkip}
	}
	return nil
}

// claim records that this pass's team lists the held runs of a page: they
// are its own (a run another key archived, or one archived before teams
// were kept), and not expired (one marked so by mistake comes back).
func (p *archivePass) claim(ctx context.Context, held map[string]archive.Held) error {
	var ids []string
	for id, h := range held {
		if p.team != "" && h.Team != p.team || h.Expired {
			ids = append(ids, id)
		}
	}
	if err := p.st.Claim(ctx, p.service, p.team, ids); err != nil {
		return archiveErr(err)
	}
	return nil
}

// markGone records that the service no longer has the archived runs of
// this pass's team that its whole list left out (it lists every run the
// team keeps), so that history says "expired" and a run archived while
// processing is not waited for. Another team's runs, and runs whose team
// is not known, are left as they are: this key's list says nothing of
// them.
func (p *archivePass) markGone(ctx context.Context, listed map[string]bool) error {
	if p.team == "" {
		return nil
	}
	var gone []string
	err := p.st.Each(ctx, archive.Query{Service: p.service, Team: p.team}, func(r *archive.Run) error {
		if !r.Expired && !listed[r.ID] && r.SortTime().Before(p.started) {
			gone = append(gone, r.ID)
		}
		return nil
	})
	if err != nil {
		return archiveErr(err)
	}
	for _, id := range gone {
		if err := p.st.MarkExpired(ctx, p.service, id); err != nil {
			return archiveErr(err)
		}
		p.forgotten++
	}
	return nil
}

// skip says why a run (or a part of it) could not be archived, on a line
// of its own.
func (p *archivePass) skip(id, what string, err error) {
	p.say(fmt.Sprintf("archive: run %s %s (%s); the next pass tries again", id, what, p.a.secrets.Redact(err.Error())))
}

// say says one line about a run, over the progress line on a terminal.
func (p *archivePass) say(line string) {
	if p.term {
		fmt.Fprintf(p.a.stderr, "\r\x1b[Kfirewatch: %s\n", line)
		return
	}
	fmt.Fprintf(p.a.stderr, "firewatch: %s\n", line)
}

// runFromInfo is a list item as the archive holds it.
func runFromInfo(sec *text.Secrets, service string, ri *poller.RunInfo) *archive.Run {
	r := &archive.Run{Service: service, ID: ri.ID, Prompt: ri.Prompt, Model: ri.Model, Effort: ri.Effort, URLs: ri.URLs,
		Label: ri.Label, Status: ri.Status, CreditsUsed: ri.CreditsUsed}
	if !ri.CreatedAt.IsZero() {
		t := ri.CreatedAt.UTC()
		r.CreatedAt = &t
	}
	if ri.Raw != nil {
		item, _ := sec.RedactJSON(ri.Raw)
		r.Item = bytes.Clone(item)
		var it struct {
			Options struct {
				Schema     jsontext.Value `json:"schema"`
				MaxCredits *float64       `json:"maxCredits"`
			} `json:"options"`
		}
		if json.Unmarshal(r.Item, &it) == nil {
			if it.Options.Schema.Kind() == '{' {
				r.Schema = bytes.Clone(it.Options.Schema)
			}
			r.MaxCredits = it.Options.MaxCredits
		}
	}
	return r
}

// applyStatus adds GET /v2/agent/{id}'s fields.
func applyStatus(sec *text.Secrets, r *archive.Run, s *poller.Status) {
	if s.Status != "" {
		r.Status = s.Status
	}
	if s.Model != "" {
		r.Model = s.Model
	}
	if s.Effort != "" {
		r.Effort = s.Effort
	}
	if s.CreditsUsed != nil {
		r.CreditsUsed = s.CreditsUsed
	}
	if s.ExpiresAt != nil {
		t := s.ExpiresAt.UTC()
		r.ExpiresAt = &t
	}
	if s.Data != nil {
		res, _ := sec.RedactJSON(s.Data)
		r.Result = bytes.Clone(res)
	}
}

// firewatch archive import FILE...

func (a *app) archiveImportCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "import FILE...",
		Short:   "Add --record recordings to the archive",
		Example: `  firewatch archive import runs/*.ndjson`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return badUsage("archive import needs one or more recording files")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.archiveImport(cmd, args)) },
	}
}

func (a *app) archiveImport(cmd *cobra.Command, files []string) error {
	ctx := cmd.Context()
	st, err := a.requireArchive(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, f := range files {
		name := text.Sanitize(f)
		r, polls, cut, err := readRecording(ctx, a.secrets, f)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return asUsage(err)
		}
		if cut > 0 {
			fmt.Fprintf(a.stderr, "firewatch: %s: its last line is cut short (%s; a --record that was stopped mid-write): the %d complete polls before it are imported\n", name, text.Size(cut), len(polls))
		}
		if held, err := st.Get(ctx, r.Service, r.ID); err == nil && held.Service == r.Service && held.Polls > 0 && !moreComplete(r, len(polls), held) {
			fmt.Fprintf(a.print, "kept %s as the archive holds it (%s); %s holds %s\n", r.ID, completeness(held.Complete, held.Events, held.Polls), name, completeness(r.Complete, r.Events, len(polls)))
			continue
		} else if err != nil && !isArchiveNotFound(err) {
			return archiveErr(err)
		}
		if err := st.ReplaceRun(ctx, r, polls, nil); err != nil {
			return archiveErr(err)
		}
		fmt.Fprintf(a.print, "imported %s (%d polls, %d events) from %s\n", r.ID, len(polls), r.Events, name)
	}
	return nil
}

// moreComplete reports whether a recording of a run (r, with polls polls)
// is a more complete copy than the archive's: a finished run over one that
// was not, else more events, else more polls. An equal copy is not.
func moreComplete(r *archive.Run, polls int, held *archive.Run) bool {
	switch {
	case r.Complete != held.Complete:
		return r.Complete
	case r.Events != held.Events:
		return r.Events > held.Events
	}
	return polls > held.Polls
}

// completeness says how complete a copy of a run is.
func completeness(complete bool, events, polls int) string {
	state := "not finished"
	if complete {
		state = "finished"
	}
	return fmt.Sprintf("%s, %d events in %d polls", state, events, polls)
}

// What an import reads, at most: a recording's header is a line of a few
// kilobytes; each later line is one poll, which holds at most one trace
// answer (the client's limit, 256 MB); a whole recording is at most
// maxImportBytes. Anything larger is not a recording firewatch wrote.
const (
	maxHeaderLine  = 1 << 20
	maxImportBytes = 2 << 30
)

// maxPollLine is the longest poll line an import reads (a variable for the
// tests, which do not read 257 MB to see it refused).
var maxPollLine = 256<<20 + 1<<20

// ctxReader stops reading when ctx ends (a signal), however long the
// input.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// errLineTooLong is a line past its bound.
var errLineTooLong = errors.New("line too long")

// readLine reads one line (without its newline) into buf[:0], at most
// bytes (limit); complete is false for a last line without a newline. A long line
// grows the buffer to room for rest more bytes at once (what is left of a
// file, when known), not by doubling: a line of 200 MB then costs 200 MB,
// not the steps to it as well.
func readLine(r *bufio.Reader, buf []byte, limit int, rest int64) (line []byte, complete bool, err error) {
	line = buf[:0]
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > limit+1 {
			return nil, false, errLineTooLong
		}
		if need := len(line) + len(part); need > cap(line) && need > 1<<20 && rest > 0 {
			grown := make([]byte, len(line), min(int64(limit)+1, max(int64(need), rest)))
			copy(grown, line)
			line = grown
		}
		line = append(line, part...)
		switch {
		case err == nil:
			return line[:len(line)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(line) > 0:
			return line, false, nil
		}
		return nil, false, err
	}
}

// readRecording reads a --record file into the archive's form, each poll
// redacted with sec, with bounds (maxPollLine, maxImportBytes), each poll
// compressed as it is read. The run's figures are derived by a replay:
// afterwards, from the file read in place, for a regular file (what it
// costs is about the file's size, once the lines are let go); as the lines
// are read, through a pipe, for any other input (a FIFO, a device), which
// cannot be read twice. A last line cut short (what a crash during --record
// leaves) is left out and its size returned as cut.
func readRecording(ctx context.Context, sec *text.Secrets, file string) (r *archive.Run, polls []archive.Poll, cut int, err error) {
	name := text.Sanitize(file)
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	// A read waiting on a pipe or a FIFO ends at a signal too.
	defer context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Unix(1, 0)) })()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	if st.Mode().IsRegular() && os.Getenv("GOMEMLIMIT") == "" {
		// What an import holds at most is about twice the longest line
		// (the line, then the file read in place for the replay, and the
		// compressed polls): the collector runs by it, not by its default
		// (a heap of twice what it held last), which would let a long
		// line cost four times its size.
		prev := debug.SetMemoryLimit(max(64<<20, 3*min(st.Size(), maxImportBytes)+64<<20))
		defer debug.SetMemoryLimit(prev)
	}
	limited := &io.LimitedReader{R: f, N: maxImportBytes + 1}
	in := bufio.NewReaderSize(ctxReader{ctx, limited}, 1<<20)
	over := func(err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if limited.N <= 0 {
			return fmt.Errorf("%s: larger than %s, which no recording is", name, text.Size(maxImportBytes))
		}
		return err
	}
	head, complete, err := readLine(in, nil, maxHeaderLine, 0)
	if err != nil || !complete {
		return nil, nil, 0, over(fmt.Errorf("%s: not a --record recording (its first line is not a recording header)", name))
	}
	var h struct {
		Firewatch string    `json:"firewatch"`
		Version   int       `json:"version"`
		JobID     string    `json:"jobId"`
		BaseURL   string    `json:"baseUrl"`
		StartedAt time.Time `json:"startedAt"`
	}
	if json.Unmarshal(head, &h) != nil || h.Firewatch != "recording" {
		return nil, nil, 0, fmt.Errorf("%s: not a --record recording (its first line is not a recording header)", name)
	}
	if h.Version < 1 || h.Version > poller.RecordingVersion {
		return nil, nil, 0, fmt.Errorf("%s: recording version %d is not supported", name, h.Version)
	}
	if poller.ValidateJobID(h.JobID) != nil {
		return nil, nil, 0, fmt.Errorf("%s: the recording names no valid job id", name)
	}
	var live *liveDerive
	if !st.Mode().IsRegular() {
		live = deriveLive(ctx)
	}
	readErr := live.feed(head)
	good := int64(len(head) + 1) // the bytes up to the last complete line
	var buf []byte
	for readErr == nil {
		rest := int64(0)
		if st.Mode().IsRegular() {
			rest = st.Size() - good
		}
		line, complete, err := readLine(in, buf, maxPollLine, rest)
		switch {
		case err == io.EOF:
		case errors.Is(err, errLineTooLong):
			readErr = over(fmt.Errorf("%s: line %d is longer than %s, which no poll is", name, len(polls)+2, text.Size(maxPollLine)))
		case err != nil:
			readErr = over(fmt.Errorf("%s: %w", name, err))
		case !complete:
			cut = len(line)
		}
		if err != nil || !complete {
			break
		}
		buf, good = line, good+int64(len(line))+1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		line, _ = sec.RedactJSON(line)
		e, err := archive.Encode(func(w io.Writer) error { _, err := w.Write(line); return err })
		if err != nil {
			readErr = err
			break
		}
		if e.Size() > archive.MaxBody {
			readErr = fmt.Errorf("%s: line %d is a poll too large for the archive (%s compressed; at most %s)", name, len(polls)+2, text.Size(e.Size()), text.Size(archive.MaxBody))
			break
		}
		polls = append(polls, archive.Poll{ReceivedAt: receivedAt(line), Encoded: e})
		readErr = live.feed(line)
	}
	var d *archive.Run
	if live != nil {
		d, err = live.end()
	} else if readErr == nil {
		d, err = deriveFromFile(ctx, f, good, cut > 0)
	}
	switch {
	case ctx.Err() != nil:
		return nil, nil, 0, ctx.Err()
	case err != nil:
		return nil, nil, 0, fmt.Errorf("%s: %v", name, err)
	case readErr != nil:
		return nil, nil, 0, readErr
	}
	service := h.BaseURL
	if service == "" {
		service = poller.ResolveBaseURL("")
	}
	r = &archive.Run{Service: strings.TrimRight(service, "/"), ID: strings.ToLower(h.JobID)}
	if !h.StartedAt.IsZero() {
		t := h.StartedAt.UTC()
		r.StartedAt = &t
	}
	r = archive.Merge(r, d)
	return r, polls, cut, nil
}

// deriveFromFile derives a recording's figures from its file f, its first
// good bytes: the whole file read in place when nothing was cut from it.
func deriveFromFile(ctx context.Context, f *os.File, good int64, cut bool) (*archive.Run, error) {
	var src io.Reader = io.NewSectionReader(f, 0, good)
	if !cut {
		whole, err := os.Open(f.Name())
		if err != nil {
			return nil, err
		}
		defer whole.Close()
		src = whole
	}
	d, _, err := deriveFromRecording(ctx, src)
	return d, err
}

// liveDerive derives a recording's figures as its lines are read (an input
// that cannot be read twice): a replay reads them from a pipe.
type liveDerive struct {
	pw  *io.PipeWriter
	res chan liveDerived
}

type liveDerived struct {
	d   *archive.Run
	err error
}

func deriveLive(ctx context.Context) *liveDerive {
	pr, pw := io.Pipe()
	l := &liveDerive{pw: pw, res: make(chan liveDerived, 1)}
	go func() {
		d, _, err := deriveFromRecording(ctx, pr)
		pr.CloseWithError(cmp.Or(err, io.ErrClosedPipe))
		l.res <- liveDerived{d, err}
	}()
	return l
}

// feed gives the replay one line (nothing for a nil l: the file is
// replayed afterwards).
func (l *liveDerive) feed(line []byte) error {
	if l == nil {
		return nil
	}
	if _, err := l.pw.Write(line); err != nil {
		return err
	}
	_, err := l.pw.Write([]byte{'\n'})
	return err
}

// end is what the replay derived from the lines fed.
func (l *liveDerive) end() (*archive.Run, error) {
	l.pw.Close()
	d := <-l.res
	return d.d, d.err
}

// firewatch archive prune

type pruneOptions struct {
	Before string
	Run    string
	All    bool
	DryRun bool
}

func (a *app) archivePruneCommand() *cobra.Command {
	po := &pruneOptions{}
	cmd := &cobra.Command{
		Use:   "prune (--before AGE | --run ID | --all)",
		Short: "Delete archived runs, and say how much",
		Long: `Delete archived runs created before an age or date (--before), one run
(--run), or every run (--all), and say how many runs, polls and bytes went.

A cut-off that is not in the past (--before 0, a date to come) would delete
every run: it is refused unless --all is given too. --dry-run says what
would be deleted, and deletes nothing.`,
		Example: `  firewatch archive prune --before 90d --dry-run
  firewatch archive prune --before 90d
  firewatch archive prune --run 019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b
  firewatch archive prune --all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.archivePrune(cmd, po)) },
	}
	cmd.Flags().StringVar(&po.Before, "before", "", "delete runs created before this age (90d, 12w, 36h, or an RFC 3339 date)")
	cmd.Flags().StringVar(&po.Run, "run", "", "delete this run")
	cmd.Flags().BoolVar(&po.All, "all", false, "delete every run (or allow a --before that is not in the past)")
	cmd.Flags().BoolVar(&po.DryRun, "dry-run", false, "say what would be deleted, delete nothing")
	return cmd
}

func (a *app) archivePrune(cmd *cobra.Command, po *pruneOptions) error {
	if po.Run != "" && (po.Before != "" || po.All) || po.Run == "" && po.Before == "" && !po.All {
		return badUsage("archive prune needs one of --before AGE, --run ID or --all")
	}
	now := time.Now()
	var before time.Time
	switch {
	case po.Before != "":
		t, err := parseAge(po.Before, now)
		if err != nil {
			return badUsage("--before %q: %v", text.Sanitize(po.Before), err)
		}
		if !t.Before(now) && !po.All {
			return badUsage("--before %q is not in the past: it would delete every archived run; add --all to do that (--dry-run says what would go)", text.Sanitize(po.Before))
		}
		before = t
	case po.All:
		before = time.UnixMilli(math.MaxInt64) // after every run
	}
	if po.Run != "" && poller.ValidateJobID(po.Run) != nil {
		return badUsage("--run %q: a job id is a UUID", text.Sanitize(po.Run))
	}
	ctx := cmd.Context()
	st, err := a.requireArchive(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	id := strings.ToLower(po.Run)
	if po.DryRun {
		p, err := st.Pruning(ctx, "", before, id)
		if err != nil {
			return archiveErr(err)
		}
		_, err = fmt.Fprintf(a.print, "would prune %d runs (%d polls, %s); nothing was deleted (--dry-run)\n", p.Runs, p.Polls, text.Size(int(p.Bytes)))
		return err
	}
	p, err := st.Prune(ctx, "", before, id)
	if err != nil {
		return archiveErr(err)
	}
	_, err = fmt.Fprintf(a.print, "pruned %d runs (%d polls, %s)\n", p.Runs, p.Polls, text.Size(int(p.Bytes)))
	return err
}
