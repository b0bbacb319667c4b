package hub

import (
	"context"
	"errors"
	"os"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// DefaultRecheck is how often the hub looks at the keys files while
// sessions are open (Config.Recheck).
const DefaultRecheck = 2 * time.Second

// Why a session ended when its key was taken away (context.Cause).
var (
	ErrRevoked = errors.New("the key was removed from the hub's keys")
	ErrDemoted = errors.New("the key is no longer an operator's")
)

// racyMtime is how recent a file's modification time is for a change of
// the file to maybe not change it.
const racyMtime = 2 * time.Second

// openSession is a session the recheck may end.
type openSession struct {
	s      *Session
	cancel context.CancelCauseFunc
}

// watchedKeys is what the recheck knows of one keys file: the last list
// read from it, and the file's state then, so that a file unchanged is
// not read again.
type watchedKeys struct {
	path string
	role Role
	good bool            // keys holds a list read from the file
	keys map[string]bool // the fingerprints of the keys it lists
	seen os.FileInfo     // the file as it was just before keys were read
	bad  bool            // the last read failed (logged once)
}

// changed says whether the file may differ from what was read: it is
// read again only then.
func (f *watchedKeys) changed() bool {
	if !f.good || f.bad || f.seen == nil {
		return true
	}
	fi, err := os.Stat(f.path)
	if err != nil {
		return true
	}
	return !os.SameFile(fi, f.seen) || !fi.ModTime().Equal(f.seen.ModTime()) || fi.Size() != f.seen.Size()
}

// refresh reads the file again if it changed; it says whether the list
// may be different. A file that cannot be read keeps its last good list:
// a keys file half-written or refused by the checks ends no one's session.
func (f *watchedKeys) refresh(h *Hub) bool {
	if !f.changed() {
		return false
	}
	fi, err := os.Stat(f.path)
	var list []listed
	if err == nil {
		list, err = readKeys(f.path)
	}
	if err != nil {
		if !f.bad {
			h.log.printf("cannot read the keys again: %v; the sessions open keep the last list read", err)
			f.bad = true
		}
		return false
	}
	if f.bad {
		h.log.printf("the keys of %s can be read again", f.path)
		f.bad = false
	}
	keys := make(map[string]bool, len(list))
	for _, e := range list {
		keys[gossh.FingerprintSHA256(e.key)] = true
	}
	f.good, f.keys, f.seen = true, keys, fi
	// A file changed just now may change again within the same tick of
	// its clock, the size kept: it is read again until its time is past.
	if time.Since(fi.ModTime()) < racyMtime {
		f.seen = nil
	}
	return true
}

// watchKeys reads the keys files a first time, before the hub takes a
// login, and returns what recheck starts from.
func (h *Hub) watchKeys() []*watchedKeys {
	var files []*watchedKeys
	for _, f := range []struct {
		path string
		role Role
	}{{h.cfg.People.Operators, Operator}, {h.cfg.People.Viewers, Viewer}} {
		if f.path != "" {
			w := &watchedKeys{path: f.path, role: f.role}
			w.refresh(h)
			files = append(files, w)
		}
	}
	return files
}

// recheck looks at the keys files every cfg.Recheck while sessions are
// open, and ends each session whose key is no longer listed, or no longer
// an operator's when it logged in as one, until ctx ends. Only a file
// changed since it was read is read again.
func (h *Hub) recheck(ctx context.Context, files []*watchedKeys) {
	tick := time.NewTicker(h.cfg.Recheck)
	defer tick.Stop()
	var seen uint64 // h.opened at the last look at the sessions
	var pending map[*Session]bool
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		h.mu.Lock()
		n, opened := len(h.open), h.opened
		h.mu.Unlock()
		if n == 0 {
			pending = nil
			continue
		}
		// Read again the files that changed; look at the sessions then,
		// or when one opened since the last look (its login may have
		// read the files before the last read), or to confirm a removal.
		changed := opened != seen || len(pending) > 0
		for _, f := range files {
			changed = f.refresh(h) || changed
		}
		known := true
		for _, f := range files {
			known = known && f.good
		}
		// With a file never read, who it lists is not known: no one is
		// ended for what it might not list.
		if !changed || !known {
			continue
		}
		seen = opened
		pending = h.look(files, pending)
	}
}

// look ends the open sessions the files no longer allow what they were
// given, once two looks a recheck apart agree: a file saved in place
// (`echo KEY > viewers`, an editor's truncate and write) is empty for a
// moment, and a read in that moment is not a removal. It returns the
// sessions found lacking for the first time, for the next look.
func (h *Hub) look(files []*watchedKeys, pending map[*Session]bool) map[*Session]bool {
	h.mu.Lock()
	var ends []openSession
	next := map[*Session]bool{}
	for _, o := range h.open {
		if roleIn(files, o.s.Person.Key).Access() < o.s.Access {
			if pending[o.s] {
				ends = append(ends, o)
			} else {
				next[o.s] = true
			}
		}
	}
	h.mu.Unlock()
	for _, o := range ends {
		why := ErrRevoked
		if roleIn(files, o.s.Person.Key) != 0 {
			why = ErrDemoted
		}
		h.log.printf("revoked %s from %s: %v; the session ends", o.s.Person, o.s.Addr, why)
		o.cancel(why)
	}
	return next
}

// roleIn is the role the files give the key of fingerprint key (an
// operator's file first, as at login); 0 when none lists it.
func roleIn(files []*watchedKeys, key string) Role {
	for _, f := range files {
		if f.keys[key] {
			return f.role
		}
	}
	return 0
}
