package archive

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"
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

var flaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

func encode(b []byte) (int, []byte) {
	if len(b) < compressMin {
		return encRaw, b
	}
	var buf bytes.Buffer
	buf.Grow(len(b) / 3)
	w := flaters.Get().(*flate.Writer)
	w.Reset(&buf)
	_, _ = w.Write(b)
	_ = w.Close()
	flaters.Put(w)
	if buf.Len() >= len(b)*9/10 {
		return encRaw, b
	}
	return encDeflate, buf.Bytes()
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
