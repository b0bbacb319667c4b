package model

import "github.com/firewatch/firewatch/text"

// Thread is the service's conversation a run is a turn of: the thread's id
// and the run's turn in it (from 1). Zero when the service did not say.
type Thread struct {
	ID   string
	Turn int
}

// SetThread records the run's thread and turn (from its status or the
// archive's record); a zero id or turn leaves what is known. The id comes
// from the wire: it is sanitised and bounded.
func (s *Store) SetThread(t Thread) {
	if t.ID != "" {
		if len(t.ID) > 64 {
			t.ID = t.ID[:64]
		}
		s.thread.ID = text.Sanitize(t.ID)
	}
	if t.Turn > 0 && t.Turn < 1e6 {
		s.thread.Turn = t.Turn
	}
}

// Thread is the run's thread and turn, as far as they are known.
func (s *Store) Thread() Thread { return s.thread }
