package archive

import (
	"bytes"
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver" // SQLite compiled to Go, no cgo (also the "sqlite3" driver)
)

// SQLite settings: WAL lets a watch and `firewatch archive` read while the
// other writes; writes begin IMMEDIATE (the driver's default) so that two
// writers queue for the write lock instead of failing on a lock upgrade;
// synchronous=NORMAL is durable across a process crash (the last poll at
// most is lost on power failure). SQLite's own wait for the lock is short
// (sqliteBusySlice): the store waits slice after slice up to its
// Options.LockWait, so that it can say once that it waits (begin).
const sqliteBusySlice = 250 * time.Millisecond

var sqliteMagic = []byte("SQLite format 3\x00")

func sqliteURI(path string, params string) string {
	u := &url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if !filepath.IsAbs(path) {
		u = &url.URL{Scheme: "file", Opaque: url.PathEscape(filepath.ToSlash(path))}
	}
	return u.String() + "?" + params
}

// openSQLite opens (creating it with mode 0600 in a 0700 folder when it
// does not exist) the archive file at path; one that cannot be written is
// opened read-only.
func openSQLite(ctx context.Context, path string, o Options) (Store, error) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	where := path
	st, err := os.Stat(path)
	existing := false
	switch {
	case err == nil && st.IsDir():
		return nil, &CorruptError{Where: where, Err: errors.New("it is a folder")}
	case err == nil && st.Size() > 0:
		if err := checkExisting(ctx, path); err != nil {
			return nil, err
		}
		existing = true
	case err == nil:
		// An empty file is an empty database.
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("archive %s: %w", where, classify(err))
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("archive %s: %w", where, classify(err))
		}
		if f != nil {
			f.Close()
		}
	default:
		return nil, fmt.Errorf("archive %s: %w", where, err)
	}
	params := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=journal_mode(wal)&_pragma=synchronous(normal)&_txlock=immediate", sqliteBusySlice.Milliseconds())
	s, err := openSQLiteDB(ctx, path, params, o)
	if err != nil && existing && cannotWrite(err) {
		// A read-only file, folder or disk: read it as it is.
		return openSQLiteReadOnly(ctx, path, o, err)
	}
	return s, err
}

// openSQLiteDB opens path with the connection parameters params and
// readies the store (migrate, prepare).
func openSQLiteDB(ctx context.Context, path, params string, o Options) (*sqlStore, error) {
	c, err := (&driver.SQLite{}).OpenConnector(sqliteURI(path, params))
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", path, err)
	}
	db := sql.OpenDB(memConnector{c})
	// One connection: each is an SQLite instance of its own to set up, and
	// the store never holds one query open while running another.
	db.SetMaxOpenConns(1)
	s := &sqlStore{db: db, d: sqliteDialect, where: path, now: time.Now, lockWait: o.LockWait, waiting: o.Waiting}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		if cannotWrite(err) {
			return nil, err
		}
		return nil, &CorruptError{Where: path, Err: err}
	}
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// sqliteMemory is the memory SQLite may use (it runs in memory of its own,
// 256 MB unless told): a body of MaxBody is copied into it twice on its way
// in. It is taken as it is needed, and only then.
const sqliteMemory = 1 << 30

// memConnector opens SQLite connections with sqliteMemory.
type memConnector struct{ sqldriver.Connector }

func (m memConnector) Connect(ctx context.Context) (sqldriver.Conn, error) {
	if bits.UintSize == 64 {
		ctx = sqlite3.WithMaxMemory(ctx, sqliteMemory)
	}
	return m.Connector.Connect(ctx)
}

// cannotWrite reports an open that failed because the file, its folder
// (where the -wal and -shm files go) or its disk cannot be written.
func cannotWrite(err error) bool {
	return errors.Is(err, sqlite3.CANTOPEN) || errors.Is(err, sqlite3.READONLY) || errors.Is(err, ErrReadOnly) ||
		errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)
}

// openSQLiteReadOnly opens an archive that cannot be written: read-only,
// or, when not even the -shm file can be made (a read-only folder or
// disk) and no -wal file holds writes, as an immutable file. rwErr is why
// it could not be opened for writing.
func openSQLiteReadOnly(ctx context.Context, path string, o Options, rwErr error) (Store, error) {
	s, err := openSQLiteDB(ctx, path, "mode=ro", o)
	if err != nil && cannotWrite(err) {
		if st, werr := os.Stat(path + "-wal"); werr == nil && st.Size() > 0 {
			return nil, fmt.Errorf("archive %s: it cannot be written (%v), and its -wal file holds writes that only a writable archive can read; make the file and its folder writable once", path, rwErr)
		}
		s, err = openSQLiteDB(ctx, path, "mode=ro&immutable=1", o)
	}
	if err != nil {
		return nil, err
	}
	s.readOnly = true
	return s, nil
}

// checkExisting reads an existing file without writing to it: it must be
// an SQLite database whose schema this firewatch knows.
func checkExisting(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("archive %s: %w", path, err)
	}
	head := make([]byte, 20)
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil || !bytes.Equal(head[:len(sqliteMagic)], sqliteMagic) {
		return &CorruptError{Where: path, Err: errors.New("the file is not an SQLite database")}
	}
	if head[18] == 2 && head[19] == 2 {
		// Already in WAL mode (every archive firewatch wrote): opening
		// it for writing changes nothing, and the schema version is
		// read before anything is written (migrate).
		return nil
	}
	db, err := sql.Open("sqlite3", sqliteURI(path, fmt.Sprintf("mode=ro&_pragma=busy_timeout(%d)", DefaultLockWait.Milliseconds())))
	if err != nil {
		return &CorruptError{Where: path, Err: err}
	}
	defer db.Close()
	s := &sqlStore{db: db, d: sqliteDialect, where: path}
	v, err := s.version(ctx, db)
	if err != nil {
		return &CorruptError{Where: path, Err: err}
	}
	if v > SchemaVersion {
		return &NewerError{Where: path, Version: v}
	}
	if v == 0 {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master`).Scan(&n); err != nil {
			return &CorruptError{Where: path, Err: err}
		}
		if n > 0 {
			return &CorruptError{Where: path, Err: errors.New("it is an SQLite database but not a firewatch archive")}
		}
	}
	return nil
}
