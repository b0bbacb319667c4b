package poller

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/text"
)

// Threads: every start is turn 1 of a thread; a start with threadId is the
// thread's next turn. The codes a follow-up is refused with (Error.Code):
const (
	ThreadBusy      = "thread_busy"      // 409: a turn is still running (Error.RunID names it)
	ThreadExpired   = "thread_expired"   // 410
	ThreadNotFound  = "thread_not_found" // 404
	ThreadsDisabled = "threads_disabled" // 503
)

// threadOf reads threadId and threadTurn from an answer; "" and 0 when
// absent or not what they should be.
func threadOf(o object) (string, int) {
	id := o.sanitized("threadId")
	if !isUUID(id) {
		return "", 0
	}
	turn := 0
	if n, ok := o.numIn("threadTurn", 1, 1e6); ok && n == float64(int(n)) {
		turn = int(n)
	}
	return strings.ToLower(id), turn
}

// ThreadTurn is one turn of a thread as GET /v2/agent/threads/{id} lists
// it. Its shape is not published: read leniently, strings sanitised.
type ThreadTurn struct {
	ID          string
	Turn        int // 0 when absent
	Prompt      string
	Status      string
	CreditsUsed *float64
	Data        jsontext.Value // with includeData, the completed turn's result; raw
}

// Thread lists the thread's turns in order (with their results when data
// is set). A turn without a job id is left out.
func (c *Client) Thread(ctx context.Context, threadID string, data bool) ([]ThreadTurn, error) {
	const op = "thread"
	if !isUUID(threadID) {
		return nil, &Error{Kind: KindInvalidID, Op: op, detail: "a thread id is a UUID", secrets: c.secrets}
	}
	var q url.Values
	if data {
		q = url.Values{"includeData": {"true"}}
	}
	r, err := c.send(ctx, op, http.MethodGet, "/v2/agent/threads/"+strings.ToLower(threadID), q, nil, 0, maxOtherBody)
	if err != nil {
		return nil, err
	}
	o, err := c.answer(op, r)
	if err != nil {
		return nil, err
	}
	if d, ok := o.obj("data"); ok {
		o = d
	}
	var out []ThreadTurn
	for i, v := range o.array("turns", "jobs", "runs", "data") {
		t, ok := parseObject(v)
		if !ok {
			continue
		}
		id := t.sanitized("id")
		if id == "" {
			id = t.sanitized("jobId")
		}
		if !isUUID(id) {
			continue
		}
		tt := ThreadTurn{ID: strings.ToLower(id), Prompt: text.Sanitize(t.sanitized("prompt")), Status: t.sanitized("status"), Data: t.raw("data")}
		if n, ok := t.numIn("threadTurn", 1, 1e6); ok {
			tt.Turn = int(n)
		} else if n, ok := t.numIn("turn", 1, 1e6); ok {
			tt.Turn = int(n)
		} else {
			tt.Turn = i + 1
		}
		if f, ok := t.num("creditsUsed"); ok {
			tt.CreditsUsed = &f
		}
		out = append(out, tt)
	}
	return out, nil
}
