package poller

import (
	"bytes"
	"fmt"
	"io"
)

// Reading a 2xx body. The service sends the whole trace at every poll (a
// long run: ~10 MB), so the watch loop reads each body into the same buffer
// (the loop's body), sized from Content-Length with room to grow: a steady poll
// allocates nothing in proportion to the body, and a body is never copied
// on its way to the decoder. A body that outgrows the buffer (gzip: the
// transport decompresses, Content-Length is then unknown) is read into 1 MB
// chunks and assembled once complete, into a buffer with room to grow.
// Nothing grows past the limit: an endless body, an endless chunked body
// or a gzip bomb is refused once it passes the limit (memory holds the
// limit plus a chunk), and a body whose Content-Length is over the limit
// is refused before it is read. The chunks of a refused body are kept for
// the retry, which allocates nothing new; a good body lets them go, and
// one that uses less than a quarter of the buffer gives the excess back
// at the next read.

// bodyTooLarge says why a body was refused.
type bodyTooLarge struct {
	limit     int64
	announced int64 // Content-Length, if that was over the limit; -1 otherwise
	gzip      bool  // the transport was decompressing it
}

func (e *bodyTooLarge) Error() string {
	switch {
	case e.announced >= 0:
		return fmt.Sprintf("the answer announces %d bytes, more than the %d MB limit; not read", e.announced, e.limit>>20)
	case e.gzip:
		return fmt.Sprintf("the answer decompresses to more than %d MB (a gzip bomb?); stopped reading there", e.limit>>20)
	}
	return fmt.Sprintf("the answer is larger than %d MB; stopped reading there", e.limit>>20)
}

// bodyBuf is a body buffer kept from one read to the next: b[:n] is the
// last good body as received.
type bodyBuf struct {
	b       []byte
	n       int
	scratch []byte
	spill   [][]byte // chunks of a body that outgrew b; kept while bodies are refused
}

// spillChunk is the size of the chunks a body that outgrows its buffer is
// read into: memory holds at most the limit plus one chunk of it.
const spillChunk = 1 << 20

// spill reads the rest of a body that outgrew b (first is its next byte)
// into chunks, then moves it all into one buffer with room to grow. Past
// limit it stops with a *bodyTooLarge and keeps the chunks in bb for the
// retry; a good body lets them go. It returns the buffer to keep.
func spill(r io.Reader, b []byte, first byte, limit int64, gz bool, bb *bodyBuf) ([]byte, error) {
	k := 0
	next := func() []byte {
		if k == len(bb.spill) {
			bb.spill = append(bb.spill, make([]byte, spillChunk))
		}
		k++
		return bb.spill[k-1][:0]
	}
	total := int64(len(b)) + 1
	cur := append(next(), first)
	for {
		if len(cur) == cap(cur) {
			cur = next()
		}
		n, err := r.Read(cur[len(cur):cap(cur)])
		cur = cur[:len(cur)+n]
		total += int64(n)
		if total > limit {
			return b, &bodyTooLarge{limit: limit, announced: -1, gzip: gz}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return b, err
		}
	}
	nb := make([]byte, 0, min(total+total/4+4<<10, limit))
	nb = append(nb, b...)
	for i := range k {
		c := bb.spill[i]
		if i == k-1 {
			c = cur
		}
		nb = append(nb, c...)
	}
	bb.spill = nil
	return nb, nil
}

// readBody reads r to its end into bb's buffer and returns the bytes read
// and how many of them, from the start, are the same as the last body's
// (same). While the body is the same as the last one, it is read through a
// small scratch buffer and compared, not written again. length is the
// announced length (-1: unknown). It never holds more than limit bytes:
// past that it returns a *bodyTooLarge. On an error bb holds no body.
func readBody(r io.Reader, length, limit int64, gz bool, bb *bodyBuf) (body []byte, same int, err error) {
	prev := bb.n
	bb.n = 0
	b := bb.b[:0]
	defer func() { bb.b = b }()
	if length > limit {
		return nil, 0, &bodyTooLarge{limit: limit, announced: length, gzip: gz}
	}
	if length >= 0 && (int64(cap(b)) < length || int64(cap(b)) > 4*length+1<<20) {
		// Room to grow: a live run's body grows a little at every poll.
		b = make([]byte, 0, min(length+length/4+4<<10, limit))
		prev = 0
	}
	comparing := prev > 0
	if comparing && len(bb.scratch) == 0 {
		bb.scratch = make([]byte, 256<<10)
	}
	for {
		if len(b) == cap(b) {
			// Full: probe for the end before growing, so that a body of
			// exactly its Content-Length never grows the buffer.
			var probe [1]byte
			n, err := r.Read(probe[:])
			if n == 0 {
				if err == io.EOF {
					break
				}
				if err != nil {
					return nil, 0, err
				}
				continue
			}
			if comparing {
				comparing = false
				same = len(b)
			}
			if int64(len(b)) >= limit {
				return nil, 0, &bodyTooLarge{limit: limit, announced: -1, gzip: gz}
			}
			if err == nil {
				b, err = spill(r, b, probe[0], limit, gz, bb)
			} else {
				b = append(b, probe[0]) // the last byte: one copy
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, 0, err
			}
			break
		}
		var n int
		var err error
		if comparing {
			chunk := bb.scratch[:min(len(bb.scratch), cap(b)-len(b))]
			n, err = r.Read(chunk)
			old := b[len(b):min(len(b)+n, max(prev, len(b)))]
			k := commonPrefix(chunk[:n], old)
			if k < n {
				comparing = false
				same = len(b) + k
				copy(b[len(b)+k:len(b)+n], chunk[k:n])
			}
		} else {
			n, err = r.Read(b[len(b):cap(b)])
		}
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, err
		}
	}
	if comparing {
		same = len(b)
	}
	bb.n = len(b)
	return b, same, nil
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	if bytes.Equal(a[:n], b[:n]) {
		return n
	}
	i := 0
	for ; i+256 <= n && bytes.Equal(a[i:i+256], b[i:i+256]); i += 256 {
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
