package sim

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// ---- rate limit ----

type limiter struct {
	mu      sync.Mutex
	buckets map[string]*bucket
}

// bucket is a fixed window (a minute, or Options.RateWindow), started by
// its first request.
type bucket struct {
	start time.Time
	n     int
}

// rateLimited counts the request against the bucket of its Authorization
// header (requests without one share the keyless bucket) and answers 429
// past the limit.
func (s *Server) rateLimited(w http.ResponseWriter, auth string) bool {
	if s.o.RateLimit < 0 {
		return false
	}
	now := time.Now()
	window := cmp.Or(s.o.RateWindow, time.Minute)
	s.limiter.mu.Lock()
	b := s.limiter.buckets[auth]
	if b == nil || now.Sub(b.start) >= window {
		if len(s.limiter.buckets) > 10000 {
			for k, old := range s.limiter.buckets {
				if now.Sub(old.start) >= window {
					delete(s.limiter.buckets, k)
				}
			}
		}
		b = &bucket{start: now}
		s.limiter.buckets[auth] = b
	}
	b.n++
	n, reset := b.n, b.start.Add(window)
	s.limiter.mu.Unlock()
	if n <= s.o.RateLimit {
		return false
	}
	secs := max(int(math.Ceil(reset.Sub(now).Seconds())), 1)
	s.write429(w, n, secs, reset, auth == "")
	return true
}

// write429 writes the real service's rate-limit answer. The wait is in the
// text; a Retry-After header only with Options.RetryAfterHeader; keyless
// requests also get retry_after_seconds.
func (s *Server) write429(w http.ResponseWriter, consumed, secs int, reset time.Time, keyless bool) {
	msg := fmt.Sprintf("Rate limit exceeded. Consumed (req/min): %d, Remaining (req/min): 0. "+
		"Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after %ds, resets at %s",
		consumed, secs, reset.UTC().Format(http.TimeFormat))
	o := obj{"success", false, "error", msg}
	if keyless {
		o = append(o, "retry_after_seconds", secs)
	}
	if s.o.RetryAfterHeader {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	writeJSON(w, http.StatusTooManyRequests, jsonOf(o))
}

// ---- chaos ----

// The chaos scenario serves its job's GET routes badly, on a schedule that
// depends only on the seed, the job's position, the route and the request's
// number on that route: even-numbered requests (the first included) are
// served cleanly; each odd-numbered one gets the next fault of a cycle that
// holds every fault kind once, in a seeded order, reshuffled every cycle.
// So every kind occurs in each block of 18 requests to one route (0-17,
// 18-35, ...), and a client that retries always gets through on the next
// try.

var faultKinds = []string{"429", "500", "502", "503", "truncated", "truncated-eof", "not-json", "drop", "slow"}

type faultPlan struct {
	seed int64
	idx  int
	mu   sync.Mutex
	n    map[string]int
}

func newFaultPlan(seed int64, idx int) *faultPlan {
	return &faultPlan{seed: seed, idx: idx, n: map[string]int{}}
}

func routeHash(route string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(route))
	return h.Sum64()
}

// at returns the fault for request n of route and a number in [0,1) to
// size it (slowness, cut point).
func (p *faultPlan) at(route string, n int) (string, float64) {
	if n%2 == 0 {
		return "", 0
	}
	k := n / 2
	cycle := k / len(faultKinds)
	r := newRNG(p.seed, p.idx, streamFaults+routeHash(route)%1000003*1000+uint64(cycle))
	perm := r.Perm(len(faultKinds))
	var x float64
	for range k%len(faultKinds) + 1 {
		x = r.Float64()
	}
	return faultKinds[perm[k%len(faultKinds)]], x
}

func (p *faultPlan) next(route string) (string, float64, int) {
	p.mu.Lock()
	n := p.n[route]
	p.n[route]++
	p.mu.Unlock()
	kind, x := p.at(route, n)
	return kind, x, n
}

const (
	html502 = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"
	html503 = "<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>The server is temporarily unable to service your request. Please try again later.</p></body></html>\n"
	htmlCF  = "<!DOCTYPE html><html lang=\"en-US\"><head><title>Just a moment...</title><meta http-equiv=\"refresh\" content=\"390\"></head><body><div class=\"main-wrapper\"><h1>api.firecrawl.dev</h1><p>Checking if the site connection is secure. This may take a few seconds.</p></div></body></html>"
)

// fault applies the next scheduled fault to a request for r's job. It
// returns true when the fault answered the request.
func (s *Server) fault(w *respWriter, req *http.Request, r *run, route string, h jobHandler) bool {
	kind, x, n := r.faults.next(route)
	if kind == "" {
		return false
	}
	s.mu.Lock()
	s.stats.Faults[kind]++
	s.mu.Unlock()
	switch kind {
	case "slow":
		d := max(time.Duration(float64(250*time.Millisecond+time.Duration(x*float64(450*time.Millisecond)))/s.o.Speed), 2*time.Millisecond)
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-req.Context().Done():
			t.Stop()
		}
		return false
	case "429":
		secs := int(math.Round(2 / s.o.Speed))
		s.write429(w, s.o.RateLimit+1+n, secs, time.Now().Add(time.Duration(secs)*time.Second), false)
	case "500":
		writeJSON(w, http.StatusInternalServerError, errBody(fmt.Sprintf(
			"An unexpected error occurred. Please contact help@firecrawl.com for help. Your exception ID is %016x", routeHash(route)^uint64(n))))
	case "502":
		writeRaw(w, http.StatusBadGateway, "text/html", []byte(html502))
	case "503":
		if n/len(faultKinds)%2 == 0 {
			writeJSON(w, http.StatusServiceUnavailable, errBody("Service temporarily unavailable. Please try again later."))
		} else {
			writeRaw(w, http.StatusServiceUnavailable, "text/html", []byte(html503))
		}
	case "not-json":
		writeRaw(w, http.StatusOK, "text/html; charset=UTF-8", []byte(htmlCF))
	case "drop":
		w.dropped = true
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			w.hangUp()
			_ = conn.Close()
		}
	case "truncated", "truncated-eof":
		rec := &recorder{h: http.Header{}}
		h(rec, req, route, r)
		body := rec.buf.Bytes()
		cut := len(body) / 3
		if len(body) > 12 {
			cut += int(x * float64(len(body)*2/3-10))
		}
		if kind == "truncated" {
			writeRaw(w, rec.status, rec.h.Get("Content-Type"), body[:cut])
			return true
		}
		// Promise the whole body, send part of it, hang up.
		w.status = rec.status
		w.dropped = true
		conn, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return true
		}
		fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", rec.status, http.StatusText(rec.status), rec.h.Get("Content-Type"), len(body))
		_, _ = bw.Write(body[:cut])
		_ = bw.Flush()
		w.hangUp()
		_ = conn.Close()
	}
	return true
}

func writeRaw(w http.ResponseWriter, status int, ctype string, body []byte) {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// recorder captures a response in memory.
type recorder struct {
	h      http.Header
	status int
	buf    bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.h }
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.buf.Write(p)
}
