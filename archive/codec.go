package archive

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"

	kflate "github.com/klauspost/compress/flate"
)

// Bodies (poll lines, snapshots, summaries) are stored raw or deflated,
// whichever is smaller: a poll that brought a few events is a few hundred
// bytes that deflate barely shrinks, a large one shrinks four to tenfold.
const (
	encRaw     = 0
	encDeflate = 1
)

// compressMin is the smallest body worth deflating.
const compressMin = 256

// A flater deflates into its own buffer, kept from body to body, and the
// body is copied out at its size: a large body (a first poll's whole trace)
// then allocates what it compresses to, not a guess at it or the steps of
// a growing buffer, which the collector would have to catch up with.
//
// The deflate is klauspost's: the same format (compress/flate reads it),
// about three times as fast at its fastest level, which matters to a live
// watch that deflates every poll.
type flater struct {
	w   *kflate.Writer
	buf bytes.Buffer
}

// flaters keeps flaters from body to body. Not a sync.Pool: a watch
// writes a poll every few seconds, and the collector empties a pool in
// between, so each body would make a new flate.Writer (about 1 MB to
// allocate and clear, which makes the next collection come sooner).
var flaters = make(chan *flater, 2)

// maxKept is the largest buffer a flater keeps for the next body.
const maxKept = 4 << 20

func getFlater() *flater {
	var f *flater
	select {
	case f = <-flaters:
	default:
		f = &flater{}
		f.w, _ = kflate.NewWriter(&f.buf, kflate.BestSpeed)
	}
	f.buf.Reset()
	f.w.Reset(&f.buf)
	return f
}

func putFlater(f *flater) {
	if f.buf.Cap() > maxKept {
		f.buf = bytes.Buffer{}
	}
	select {
	case flaters <- f:
	default:
	}
}

func encode(b []byte) (int, []byte) {
	if len(b) < compressMin {
		return encRaw, b
	}
	f := getFlater()
	defer putFlater(f)
	_, _ = f.w.Write(b)
	_ = f.w.Close()
	if f.buf.Len() >= len(b)*9/10 {
		return encRaw, b
	}
	return encDeflate, bytes.Clone(f.buf.Bytes())
}

// Encoded is a body as the archive stores it, deflated while it was
// written (Encoder, Encode).
type Encoded struct {
	enc  int
	body []byte
}

// Size is what the body takes in the archive.
func (e *Encoded) Size() int { return len(e.body) }

// Encoder deflates a body written to it in parts, as they come: a large
// body (a first poll's whole trace, a long run's summary: megabytes of
// JSON) is never held whole, only what it compresses to. Done ends it.
type Encoder struct{ f *flater }

// NewEncoder starts a body.
func NewEncoder() *Encoder { return &Encoder{f: getFlater()} }

func (e *Encoder) Write(p []byte) (int, error) { return e.f.w.Write(p) }

// Done ends the body and returns it; the Encoder is not used after.
func (e *Encoder) Done() (*Encoded, error) {
	f := e.f
	e.f = nil
	defer putFlater(f)
	if err := f.w.Close(); err != nil {
		return nil, err
	}
	return &Encoded{enc: encDeflate, body: bytes.Clone(f.buf.Bytes())}, nil
}

// Encode is the body that write writes, through an Encoder.
func Encode(write func(io.Writer) error) (*Encoded, error) {
	e := NewEncoder()
	if err := write(e); err != nil {
		putFlater(e.f)
		return nil, err
	}
	return e.Done()
}

// maxBody bounds what a stored body inflates to.
const maxBody = 1 << 30

func decode(enc int, b []byte) ([]byte, error) {
	switch enc {
	case encRaw:
		return b, nil
	case encDeflate:
		r := flate.NewReader(bytes.NewReader(b))
		defer r.Close()
		out, err := io.ReadAll(io.LimitReader(r, maxBody))
		if err != nil {
			return nil, fmt.Errorf("inflating a stored body: %w", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("a stored body has unknown encoding %d", enc)
}
