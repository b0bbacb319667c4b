package sim

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Threads, as the service runs them: every start is turn 1 of a new thread
// (POST /v2/agent answers threadId and threadTurn); a start with threadId
// is the thread's next turn, a new job whose schema, when the body has
// none, is the previous turn's. A follow-up is refused with the service's
// codes: 404 thread_not_found, 409 thread_busy (with the running turn's
// runId), 410 thread_expired (ExpireThread, or its last turn expired by
// Options.Retention), 503 threads_disabled (Options.NoThreads).
// GET /v2/agent/threads/{threadId} lists the turns.

// thread is one conversation: its turns in order. Guarded by runsMu.
type thread struct {
	id      string
	turns   []*run
	schema  raw // the last turn's schema, inherited by a follow-up without one
	expired bool
}

const streamThreads uint64 = 100 // the threads' ids: apart from the script streams

// threadOf is r's thread, made (turn 1) when r has none; s.runsMu is held
// for writing.
func (s *Server) threadOfLocked(r *run) *thread {
	if r.thread != nil {
		return r.thread
	}
	if s.threads == nil {
		s.threads = map[string]*thread{}
	}
	t := &thread{id: randUUID(newRNG(s.o.Seed, r.idx, streamThreads)).String()}
	if r.meta != nil {
		t.schema = r.meta.schema
	}
	t.turns = []*run{r}
	r.thread, r.turn = t, 1
	s.threads[t.id] = t
	return t
}

// threadInfo is r's thread id and turn, made on first use.
func (s *Server) threadInfo(r *run) (string, int) {
	s.runsMu.Lock()
	defer s.runsMu.Unlock()
	t := s.threadOfLocked(r)
	return t.id, r.turn
}

// ExpireThread makes the thread refuse follow-ups with 410 thread_expired.
func (s *Server) ExpireThread(threadID string) {
	s.runsMu.Lock()
	defer s.runsMu.Unlock()
	if t := s.threads[strings.ToLower(threadID)]; t != nil {
		t.expired = true
	}
}

// threadErr is a follow-up's refusal: {"success":false,"code":...,"error":...}.
func threadErr(w http.ResponseWriter, status int, code, msg string, extra ...any) {
	o := obj{"success", false, "code", code, "error", msg}
	writeJSON(w, status, jsonOf(append(o, extra...)))
}

// followUpThread checks a follow-up to threadID and returns its thread;
// it has answered when ok is false. s.runsMu is held for writing.
func (s *Server) followUpThreadLocked(w http.ResponseWriter, threadID string) (t *thread, ok bool) {
	if s.o.NoThreads {
		threadErr(w, http.StatusServiceUnavailable, "threads_disabled", "Threads are not enabled for this team.")
		return nil, false
	}
	t = s.threads[strings.ToLower(threadID)]
	if t == nil {
		threadErr(w, http.StatusNotFound, "thread_not_found", "Thread not found")
		return nil, false
	}
	last := t.turns[len(t.turns)-1]
	if t.expired || s.expired(last) {
		threadErr(w, http.StatusGone, "thread_expired", "Thread has expired")
		return nil, false
	}
	if st, _ := last.status(last.v.Load(), s.simNow()); st == "processing" {
		threadErr(w, http.StatusConflict, "thread_busy", "A turn of this thread is still running", "runId", last.id)
		return nil, false
	}
	return t, true
}

// threadIDOf is the body's threadId: "" when absent or null; bad when it
// is not a string.
func threadIDOf(body []byte) (id string, bad bool) {
	var f map[string]jsontext.Value
	if json.Unmarshal(body, &f) != nil {
		return "", false
	}
	v, ok := f["threadId"]
	if !ok || v.Kind() == 'n' {
		return "", false
	}
	if json.Unmarshal(v, &id) != nil {
		return "", true
	}
	return id, false
}

// serveThread answers GET /v2/agent/threads/{threadId}: the turns in order,
// each with its job id, turn, prompt, status and creditsUsed, and with
// ?includeData=true its result when completed.
func (s *Server) serveThread(w *respWriter, req *http.Request) {
	tid := strings.ToLower(strings.TrimPrefix(req.URL.Path, "/v2/agent/threads/"))
	s.runsMu.RLock()
	t := s.threads[tid]
	var turns []*run
	expired := false
	if t != nil {
		turns = append(turns, t.turns...)
		expired = t.expired
	}
	s.runsMu.RUnlock()
	if t == nil {
		threadErr(w, http.StatusNotFound, "thread_not_found", "Thread not found")
		return
	}
	if expired || s.expired(turns[len(turns)-1]) {
		threadErr(w, http.StatusGone, "thread_expired", "Thread has expired")
		return
	}
	data := req.URL.Query().Get("includeData") == "true"
	now := s.simNow()
	out := arr{}
	for i, r := range turns {
		v := r.v.Load()
		st, _ := r.status(v, now)
		o := obj{"id", r.id, "threadTurn", i + 1, "prompt", r.info.prompt, "status", st, "createdAt", r.createdAt.Format(isoMillis)}
		if st != "processing" {
			o = append(o, "creditsUsed", r.credits(v, now))
		}
		if data && st == "completed" {
			if c := s.latestResult(r, v, now); c != "" {
				o = append(o, "data", raw(compactJSON(c)))
			}
		}
		out = append(out, o)
	}
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true, "threadId", tid, "turns", out}))
}

// StartRequest is one POST /v2/agent body the service was sent, and how
// it answered (its status; the new job's id when it started one).
type StartRequest struct {
	Body   jsontext.Value `json:"body"`
	Status int            `json:"status"`
	ID     string         `json:"id,omitempty"`
}

// Starts is every POST /v2/agent body received, in order, with its answer:
// what tests compare a rerun's request with.
func (s *Server) Starts() []StartRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]StartRequest(nil), s.starts...)
}

// logStart keeps a start's body and answer (and writes it to
// Options.StartLog as one JSON line).
func (s *Server) logStart(body []byte, status int, id string) {
	b := bytes.TrimSpace(body)
	if !jsontext.Value(b).IsValid() {
		b, _ = json.Marshal(string(b))
	}
	e := StartRequest{Body: bytes.Clone(b), Status: status, ID: id}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts = append(s.starts, e)
	if s.o.StartLog != nil {
		line, _ := json.Marshal(e)
		_, _ = s.o.StartLog.Write(append(line, '\n'))
	}
}
