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

// wallNow is the simulator's wall clock, on the same scale as createdAt,
// moved on by PassTime.
func (s *Server) wallNow() time.Time {
	return s.base.Add(s.sinceStart() + time.Duration(s.passed.Load()))
}

// PassTime moves the wall clock that Options.Retention is measured on by d,
// at once: a test sees the service forget its runs (404 for their job
// routes, left out of the list) without waiting for it. The runs' pace is
// not changed.
func (s *Server) PassTime(d time.Duration) { s.passed.Add(int64(d)) }

// expired reports whether the service has forgotten r.
func (s *Server) expired(r *run) bool {
	return s.o.Retention > 0 && !s.wallNow().Before(r.createdAt.Add(s.retention()))
}
