package sim

import "time"

// DefaultRetention is how long the service keeps a run: after it the run's
// status, trace and snapshots answer 404 and the list leaves it out.
const DefaultRetention = 24 * time.Hour

// retention is Options.Retention, else the service's 24 hours (for
// expiresAt only: with no Retention set nothing expires, so that a long
// --history stays whole).
func (s *Server) retention() time.Duration {
	if s.o.Retention > 0 {
		return s.o.Retention
	}
	return DefaultRetention
}

// wallNow is the simulator's wall clock, on the same scale as createdAt.
func (s *Server) wallNow() time.Time {
	el := time.Since(s.start)
	if s.o.elapsed != nil {
		el = s.o.elapsed()
	}
	return s.base.Add(el)
}

// expired reports whether the service has forgotten r.
func (s *Server) expired(r *run) bool {
	return s.o.Retention > 0 && !s.wallNow().Before(r.createdAt.Add(s.retention()))
}
