package archive

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/ncruces/go-sqlite3"

	"github.com/firewatch/firewatch/text"
)

// The kinds of failure to write the archive that a user can act on, each
// said in words of its own (errors.Is on a store's error): the commands
// give them the exit code of an output that cannot be written.
var (
	// ErrNoSpace: the archive's disk (or the database's quota) is full.
	ErrNoSpace = errors.New("no space left on the archive's disk")
	// ErrReadOnly: the archive (its file, its folder or the database
	// user) cannot be written; it is still read.
	ErrReadOnly = errors.New("the archive is read-only")
	// ErrLocked: another program held the archive's write lock for longer
	// than the store waits (Options.LockWait).
	ErrLocked = errors.New("another program holds the archive's write lock")
	// ErrTooLarge: one body (a poll, a snapshot, a result) is larger,
	// compressed, than MaxBody; it is not stored, the rest is.
	ErrTooLarge = errors.New("too large for the archive")
)

// MaxBody bounds one body the archive stores, compressed. The SQLite store
// runs in memory of its own (sqliteMemory), into which a body is copied
// twice on its way in. A trace of the client's largest (256 MB) compresses
// to well under it unless it is mostly noise.
const MaxBody = 128 << 20

// maxStored is MaxBody (a variable for the tests).
var maxStored = MaxBody

// fits is nil for a body of n bytes that the archive stores, else
// ErrTooLarge naming what.
func fits(what string, n int) error {
	if n <= maxStored {
		return nil
	}
	return &kindError{ErrTooLarge, fmt.Errorf("%s of %s compressed; at most %s", what, text.Size(n), text.Size(maxStored))}
}

// kindError is a store's error with the kind a user can act on.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string   { return e.kind.Error() + " (" + e.err.Error() + ")" }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// classify gives err its kind, when it has one of the above.
func classify(err error) error {
	if err == nil || errors.Is(err, ErrNoSpace) || errors.Is(err, ErrReadOnly) || errors.Is(err, ErrLocked) || errors.Is(err, ErrTooLarge) ||
		errors.Is(err, ErrUnavailable) {
		return err
	}
	var pe *pgconn.PgError
	switch {
	case errors.Is(err, sqlite3.FULL), errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT),
		errors.As(err, &pe) && pe.Code == "53100":
		return &kindError{ErrNoSpace, err}
	case errors.Is(err, sqlite3.READONLY), errors.Is(err, syscall.EROFS),
		errors.As(err, &pe) && pe.Code == "25006":
		return &kindError{ErrReadOnly, err}
	}
	return err
}

// busy reports an SQLite lock held by another connection.
func busy(err error) bool {
	return errors.Is(err, sqlite3.BUSY) || errors.Is(err, sqlite3.LOCKED)
}

// unreachable reports a PostgreSQL error that says the server cannot be
// reached (now): no connection, a connection that dropped, the server
// shutting down or starting, or no answer before the caller's deadline.
// The database's refusals (a constraint, a permission, a full disk) are
// not.
func unreachable(err error) bool {
	if errors.Is(err, ErrUnavailable) {
		return false // said already
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		// Class 08: connection exceptions; 57P01-57P03: shutting down,
		// crashed, not accepting connections yet.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	case errors.As(err, &ce), errors.As(err, &ne), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, context.DeadlineExceeded):
		return true
	}
	// pgx's own word for a connection it closed after a failure.
	return strings.Contains(err.Error(), "conn closed")
}
