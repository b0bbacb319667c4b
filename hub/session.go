package hub

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"github.com/anmitsu/go-shlex"
	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/ui/remote"
)

// connState is what the hub knows of a connection while it logs in: what
// it tried, for the one line that says why it was refused.
type connState struct {
	mu      sync.Mutex
	addr    string
	user    string
	keys    []string // fingerprints of the keys tried that are not listed
	methods []string // other methods tried ("none" included): none is offered
	notes   []string // files that could not be read
	pending *pending // its place among the connections logging in
}

func (c *connState) add(list *[]string, s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, x := range *list {
		if x == s {
			return
		}
	}
	if len(*list) < 8 {
		*list = append(*list, s)
	}
}

// why is the reason a login was refused, for the log.
func (c *connState) why() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	if len(c.keys) > 0 {
		parts = append(parts, "key "+strings.Join(c.keys, ", ")+" is not in the authorized keys or operators file")
	}
	for _, m := range c.methods {
		if m != "none" {
			parts = append(parts, m+" is not offered (keys only)")
		}
	}
	parts = append(parts, c.notes...)
	if len(parts) == 0 {
		return "no key offered: the hub takes SSH keys only, no password, no keyboard-interactive"
	}
	return strings.Join(parts, "; ")
}

// attempt is the user name a client gave and whether it tried to log in.
func (c *connState) attempt() (user string, tried bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.user, len(c.keys)+len(c.methods)+len(c.notes) > 0
}

type stateKey struct{}

func stateOf(ctx ssh.Context) *connState {
	st, _ := ctx.Value(stateKey{}).(*connState)
	if st == nil {
		st = &connState{}
	}
	return st
}

// connect takes a new connection, or closes it (nil) when its address has
// opened too many lately, or the hub is stopping.
func (h *Hub) connect(ctx ssh.Context, conn net.Conn) net.Conn {
	addr := conn.RemoteAddr().String()
	if h.isStopping() {
		return nil
	}
	if ok, said := h.limiter.allow(conn.RemoteAddr()); !ok {
		if said {
			h.log.printf("refused %s: too many new connections from this address (at most %d at once, then one every %s)",
				addr, h.limiter.burst, h.limiter.every)
		}
		return nil
	}
	st := &connState{addr: addr, pending: h.pending.add(conn)}
	ctx.SetValue(stateKey{}, st)
	h.mu.Lock()
	h.conns[addr] = st
	h.mu.Unlock()
	return conn
}

func (h *Hub) take(conn net.Conn) *connState {
	addr := conn.RemoteAddr().String()
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.conns[addr]
	delete(h.conns, addr)
	return st
}

// failed logs a connection that did not log in.
func (h *Hub) failed(conn net.Conn, err error) {
	st := h.take(conn)
	if st == nil {
		return
	}
	h.pending.done(st.pending)
	if h.pending.closedByHub(st.pending) {
		return // said with the others the hub closed
	}
	user, tried := st.attempt()
	if user != "" {
		user = " as " + quote(user)
	}
	if !tried {
		h.log.printf("refused %s%s: it left before logging in (%v)", st.addr, user, err)
		return
	}
	h.log.printf("refused %s%s: %s", st.addr, user, st.why())
}

func (h *Hub) closed(conn net.Conn) {
	if st := h.take(conn); st != nil {
		h.pending.done(st.pending)
	}
}

// serverConfig notes every way a client tries to log in.
func (h *Hub) serverConfig(ctx ssh.Context) *gossh.ServerConfig {
	st := stateOf(ctx)
	return &gossh.ServerConfig{
		MaxAuthTries: 6,
		AuthLogCallback: func(conn gossh.ConnMetadata, method string, err error) {
			if err == nil {
				h.pending.done(st.pending) // logged in
			} else {
				h.pending.start(st.pending)
			}
			st.mu.Lock()
			st.user = conn.User()
			st.mu.Unlock()
			if err != nil && method != "publickey" {
				st.add(&st.methods, method)
			}
		},
	}
}

// publicKey lets in a key one of the files lists, as they are now.
func (h *Hub) publicKey(ctx ssh.Context, k ssh.PublicKey) bool {
	st := stateOf(ctx)
	h.pending.start(st.pending)
	_, ok, err := h.cfg.People.Find(k)
	if err != nil {
		st.add(&st.notes, "cannot read the keys: "+err.Error())
	}
	if !ok {
		st.add(&st.keys, gossh.FingerprintSHA256(k))
	}
	return ok
}

// serve is one session, from login to logout.
func (h *Hub) serve(sess ssh.Session) {
	start := time.Now()
	addr := sess.RemoteAddr().String()
	// Outside what the session's handler catches (below), a panic here is
	// still this session's alone, and said in the hub's log rather than
	// charm.land/ssh's, which is not redacted.
	defer func() {
		if r := recover(); r != nil {
			e := &panics.Error{Value: r, Stack: debug.Stack()}
			h.log.printf("panic in a session from %s: %v at %s; this session ends, the others go on", addr, r, e.Where())
			_ = sess.Exit(ExitPanicked)
		}
	}()
	panics.Hook(sess.Context(), "login")
	tell := func(msg string) { fmt.Fprintf(sess.Stderr(), "firewatch hub: %s\n", msg) }
	var p Person
	ok := false
	if k := sess.PublicKey(); k != nil {
		var err error
		p, ok, err = h.cfg.People.Find(k)
		if !ok {
			h.log.printf("refused %s: key %s is no longer listed (%v)", addr, p.Key, err)
		}
	}
	if !ok {
		tell("your key is not allowed on this hub")
		_ = sess.Exit(1)
		return
	}
	release, why := h.acquire(p)
	if release == nil {
		h.log.printf("refused %s %s: %s", p, addr, why)
		tell(why)
		_ = sess.Exit(1)
		return
	}
	defer release()

	ctx, cancel := context.WithCancelCause(h.base)
	defer cancel(nil)
	defer context.AfterFunc(sess.Context(), func() { cancel(errGone) })()
	// The access level is decided here, once: the services the session's
	// screens and command are given check it (Session.Allow).
	s := &Session{Person: p, Access: p.Role.Access(), Addr: addr, hub: h, Stdin: sess, Stdout: sess, Stderr: sess.Stderr()}
	// Open, the session is ended if its key is taken away (recheck).
	h.mu.Lock()
	h.open[s] = openSession{s: s, cancel: cancel}
	h.opened++
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.open, s)
		h.mu.Unlock()
	}()
	// A panic on one of the session's goroutines ends this session alone.
	var crashed atomic.Bool
	ctx = panics.WithHandler(ctx, func(e *panics.Error) {
		if crashed.CompareAndSwap(false, true) {
			where := ""
			if w := e.Where(); w != "" {
				where = " at " + w
			}
			h.log.printf("panic in the session of %s from %s: %v%s; this session ends, the others go on", p, addr, e.Value, where)
		}
		cancel(ErrPanicked)
	})

	ptyReq, winch, isPty := sess.Pty()
	var code int
	switch raw := sess.RawCommand(); {
	case raw != "" || !isPty:
		args, err := shlex.Split(raw, true)
		if err != nil {
			h.log.printf("refused %s %s: a command that cannot be read: %s", p, addr, quote(raw))
			tell("cannot read the command: " + err.Error())
			_ = sess.Exit(2)
			return
		}
		s.Args = args
		what := "command " + commandLine(args)
		if len(args) == 0 {
			what = "no command and no terminal"
		}
		h.log.printf("login %s from %s: %s", p, addr, what)
		panics.Catch(ctx, func() { code = h.cfg.Command(ctx, s) })
	default:
		env := append(sess.Environ(), "TERM="+ptyReq.Term, "SSH_CONNECTION="+sshConnection(sess))
		t := remote.New(sess, sess, env, ptyReq.Window.Width, ptyReq.Window.Height)
		defer t.Close()
		s.Term = t
		panics.Go(ctx, func() { h.follow(ctx, cancel, t, winch) })
		w, ht := t.Size()
		h.log.printf("login %s from %s: the runs screen at %dx%d, TERM=%s", p, addr, w, ht, quote(ptyReq.Term))
		panics.Catch(ctx, func() { code = h.cfg.Screens(ctx, s) })
	}
	if crashed.Load() {
		code = ExitPanicked
		tell("an internal error ended this session (the hub's log has it); the hub goes on")
	}
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, ErrStopping):
		tell("the hub is stopping; this session ends")
	case errors.Is(cause, ErrIdle):
		tell(fmt.Sprintf("no key for %s (the hub's --idle-timeout): this session ends", h.cfg.IdleTimeout))
	case errors.Is(cause, ErrRevoked):
		tell("your key was removed from the hub's keys: session ended")
	case errors.Is(cause, ErrDemoted):
		tell("your key is no longer an operator's on this hub: session ended (log in again as a viewer)")
	}
	ended := fmt.Sprintf("exit %d", code)
	if ctx.Err() != nil && cause != nil {
		ended += ", " + cause.Error()
	}
	h.log.printf("logout %s from %s after %s: %s", p, addr, time.Since(start).Round(time.Second), ended)
	_ = sess.Exit(code)
}

// follow keeps a terminal session's screen in step with it until ctx ends:
// its resizes, its going away, and its keys (none for the idle timeout
// ends it).
func (h *Hub) follow(ctx context.Context, cancel context.CancelCauseFunc, t *remote.Terminal, winch <-chan ssh.Window) {
	idle := time.NewTimer(h.cfg.IdleTimeout)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.Ended():
			cancel(errGone)
			return
		case w, ok := <-winch:
			if !ok {
				winch = nil
				continue
			}
			t.Resize(w.Width, w.Height)
		case <-idle.C:
			left := h.cfg.IdleTimeout - time.Since(t.LastKey())
			if left <= 0 {
				cancel(ErrIdle)
				return
			}
			idle.Reset(left)
		}
	}
}

// sshConnection is SSH_CONNECTION as sshd sets it: client address and
// port, server address and port. In a session's environment it tells the
// screens they are reached over SSH.
func sshConnection(sess ssh.Session) string {
	split := func(a net.Addr) string {
		host, port, err := net.SplitHostPort(a.String())
		if err != nil {
			return a.String() + " 0"
		}
		return host + " " + port
	}
	return split(sess.RemoteAddr()) + " " + split(sess.LocalAddr())
}
