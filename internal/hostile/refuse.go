package hostile

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Refuser stands before Next and answers the first N requests to one route
// (Method and a path prefix) with a 429 that asks for one second
// (Retry-After: 1), or with Status when it is set (a 5xx), then lets
// requests through: the same fault for every caller of that route, to
// check that they all wait, say it and give up alike.
type Refuser struct {
	Next          http.Handler
	Method, Route string
	N             int
	Status        int // 0: 429

	mu   sync.Mutex
	seen int
}

func (f *Refuser) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == f.Method && strings.HasPrefix(r.URL.Path, f.Route) {
		f.mu.Lock()
		f.seen++
		refuse := f.seen <= f.N
		f.mu.Unlock()
		if refuse {
			w.Header().Set("Content-Type", "application/json")
			if f.Status != 0 {
				w.WriteHeader(f.Status)
				fmt.Fprint(w, `{"success":false,"error":"Internal server error"}`)
				return
			}
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"success":false,"error":"Rate limit exceeded"}`)
			return
		}
	}
	f.Next.ServeHTTP(w, r)
}

// Requests is the number of requests to the route so far.
func (f *Refuser) Requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen
}
