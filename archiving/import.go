package archiving

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// MoreComplete reports whether a recording of a run (r, with polls polls)
// is a more complete copy than the archive's: a finished run over one that
// was not, else more events, else more polls. An equal copy is not.
func MoreComplete(r *archive.Run, polls int, held *archive.Run) bool {
	switch {
	case r.Complete != held.Complete:
		return r.Complete
	case r.Events != held.Events:
		return r.Events > held.Events
	}
	return polls > held.Polls
}

// What an import reads, at most: a recording's header is a line of a few
// kilobytes; each later line is one poll, which holds at most one trace
// answer (the client's limit, 256 MB); a whole recording is at most
// maxImportBytes. Anything larger is not a recording firewatch wrote.
const (
	maxHeaderLine  = 1 << 20
	maxImportBytes = 2 << 30
)

// MaxPollLine is the longest poll line an import reads (a variable for the
// tests, which do not read 257 MB to see it refused).
var MaxPollLine = 256<<20 + 1<<20

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

// ReadRecording reads a --record file into the archive's form, each poll
// redacted with sec, with bounds (MaxPollLine, maxImportBytes), each poll
// compressed as it is read. The run's figures are derived by a replay:
// afterwards, from the file read in place, for a regular file (what it
// costs is about the file's size, once the lines are let go); as the lines
// are read, through a pipe, for any other input (a FIFO, a device), which
// cannot be read twice. A last line cut short (what a crash during --record
// leaves) is left out and its size returned as cut.
func ReadRecording(ctx context.Context, sec *text.Secrets, file string) (r *archive.Run, polls []archive.Poll, cut int, err error) {
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
	var h poller.Header
	if json.Unmarshal(head, &h) != nil || !h.IsRecording() {
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
		line, complete, err := readLine(in, buf, MaxPollLine, rest)
		switch {
		case err == io.EOF:
		case errors.Is(err, errLineTooLong):
			readErr = over(fmt.Errorf("%s: line %d is longer than %s, which no poll is", name, len(polls)+2, text.Size(MaxPollLine)))
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
	d, _, err := DeriveFromRecording(ctx, src)
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
		d, _, err := DeriveFromRecording(ctx, pr)
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

// receivedAt is a recording line's receive time. The recorder writes it
// first, `{"receivedAt":"<RFC 3339>",...`, which is read in place: the line
// may be a whole trace of megabytes. Any other line is decoded; without a
// time, now.
func receivedAt(line []byte) time.Time {
	const prefix = `{"receivedAt":"`
	if rest, ok := bytes.CutPrefix(line, []byte(prefix)); ok {
		if i := bytes.IndexByte(rest[:min(len(rest), 64)], '"'); i > 0 {
			if t, err := time.Parse(time.RFC3339Nano, string(rest[:i])); err == nil {
				return t
			}
		}
	}
	var pl struct {
		ReceivedAt time.Time `json:"receivedAt"`
	}
	_ = json.Unmarshal(line, &pl, json.RejectUnknownMembers(false))
	if pl.ReceivedAt.IsZero() {
		return time.Now()
	}
	return pl.ReceivedAt
}
