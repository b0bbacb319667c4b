package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxRequest is the longest line a client may send (a JSON-RPC message):
// a longer one is answered with an error and dropped, unread.
const MaxRequest = 1 << 20

// Transport is the server's stdio: newline-delimited JSON-RPC on r and w,
// with every line checked before the SDK reads it. The SDK's stream
// decoder cannot go on after a line that is not JSON (it ends the
// connection), so a line that is not a JSON-RPC message, or longer than
// MaxRequest, is answered here with the JSON-RPC error for it (-32700
// parse error, -32600 invalid request) and dropped: a client that sends
// garbage is told so and the server goes on.
func Transport(r io.Reader, w io.Writer) mcp.Transport {
	lw := &lockedWriter{w: w}
	pr, pw := io.Pipe()
	go guard(r, pw, lw)
	return &mcp.IOTransport{Reader: pr, Writer: lw}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes one message (the SDK writes each in one call).
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// guard copies the lines of r that are JSON-RPC messages to pw, answering
// the others on w.
func guard(r io.Reader, pw *io.PipeWriter, w io.Writer) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= MaxRequest {
			line = append(line, chunk...)
		} else if line != nil || len(chunk) > 0 {
			line = append(line[:0], '!') // too long: kept as a mark, not the bytes
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if msg, ok := check(line); !ok {
				w.Write(msg)
			} else if _, werr := pw.Write(append(bytes.TrimRight(line, "\r\n"), '\n')); werr != nil {
				return
			}
		}
		line = line[:0]
		if err != nil {
			pw.CloseWithError(err)
			return
		}
	}
}

// check says whether line is a JSON-RPC 2.0 message, else the error to
// answer it with.
func check(line []byte) ([]byte, bool) {
	if len(line) == 1 && line[0] == '!' {
		return rpcError(nil, -32600, "request too large: at most 1 MiB a message"), false
	}
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		return rpcError(nil, -32700, "parse error: each line must be one JSON-RPC message"), false
	}
	if line[0] == '[' {
		return rpcError(nil, -32600, "invalid request: batches are not accepted"), false
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if line[0] != '{' || json.Unmarshal(line, &m) != nil || m.JSONRPC != "2.0" ||
		(m.Method == nil && m.Result == nil && m.Error == nil) || !validRPCID(m.ID) {
		id := m.ID
		if !validRPCID(id) {
			id = nil
		}
		return rpcError(id, -32600, "invalid request: not a JSON-RPC 2.0 message"), false
	}
	return nil, true
}

// validRPCID is an id JSON-RPC allows: absent, a string or a number.
func validRPCID(id json.RawMessage) bool {
	if len(id) == 0 {
		return true
	}
	switch id[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

func rpcError(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return append(b, '\n')
}
