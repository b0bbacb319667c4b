// Package archive keeps agent runs past the service's retention: each run's
// list item and status, every poll as a recording holds it, its artifact
// snapshots and the summary firewatch derived. Two stores share one SQL
// schema: an embedded SQLite file (the default, pure Go: sqlite.go, WAL,
// BEGIN IMMEDIATE; a watch's polls, snapshots and renewals on SQLite's own
// connection with statements prepared once: sqlite_hot.go) and PostgreSQL
// (a team's shared archive: postgres.go, pgx). Runs are keyed by the
// service's base URL and their id.
//
//   - One record per run, joined by one rule, Merge (merge.go: the later
//     and more specific source wins).
//   - The schema: numbered migrations embedded per database (migrations/,
//     migrations.go, each run in one transaction, the version a row of
//     fw_meta), the statements in sql.go; the tables are in docs/archive.md.
//   - The DSN (--archive, FIREWATCH_ARCHIVE, off: ResolveDSN, RedactDSN,
//     Password; pgx's keyword form in keyword.go), TeamOf (a run's team, a
//     hash of the key), compression (codec.go), crawls (crawls.go).
//   - The failures a person acts on (errors.go): ErrNoSpace, ErrReadOnly,
//     ErrLocked (a lock waited for up to Options.LockWait), ErrTooLarge;
//     ErrUnavailable (lease.go) when PostgreSQL cannot be reached. An
//     SQLite file that cannot be written is opened read-only; another
//     program's database is never written.
//   - Leases (lease.go, the Coordinator half of Store; lease_sql.go): the
//     processes sharing an archive poll each run once. Times are the
//     database's; a lease is believed only for its TTL (at most
//     MaxLeaseTTL) after its last renewal; AppendLeased is fenced by the
//     lease's token in the poll's own transaction. Doorbells (listen.go):
//     PostgreSQL's NOTIFY after each stored poll, LISTENed on one
//     connection per store that hands them out by lease key.
//   - Claimed moments (moments.go, the Claimer half): a notification moment
//     for one sink sent once by the processes sharing the archive, under a
//     short claim on the database's clock.
//
// No UI, no HTTP: it imports only text.
package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/firewatch/firewatch/text"
)

// SchemaVersion is the version of the schema this firewatch writes.
const SchemaVersion = 9

// Off is the DSN that turns archiving off.
const Off = "off"

// EnvDSN is the environment variable that picks the archive.
const EnvDSN = "FIREWATCH_ARCHIVE"

// ErrNotFound is returned when the archive does not hold a run or snapshot.
var ErrNotFound = errors.New("not in the archive")

// ErrOff is returned by Open for the DSN "off".
var ErrOff = errors.New("archiving is off")

// Run is what the archive holds about one run besides its polls: the one
// record every reader takes its figures from. Strings are "" and pointers
// nil when unknown. What a source says joins the record by Merge.
type Run struct {
	Service string // the service's base URL
	ID      string

	Prompt string
	Model  string
	Effort string
	URLs   []string
	Schema []byte // the JSON schema as sent, nil when none
	Label  string
	// Team is the team that owns the run, as TeamOf names it (never the
	// key): the last key whose list showed the run, or that archived it.
	// "" when unknown (archived before teams were kept, or imported).
	Team      string
	Status    string // the service's status word; "cancelled" when the trace says so
	CreatedAt *time.Time
	// CreatedAtLocal says CreatedAt is firewatch's own clock when it
	// started the run, not the service's time (which replaces it). Not
	// stored.
	CreatedAtLocal bool
	ExpiresAt      *time.Time
	CreditsUsed    *float64
	MaxCredits     *float64
	Item           []byte // the list item as received (JSON), nil when not seen
	Result         []byte // the status's data (the result, JSON), nil when not seen

	// What firewatch derived (SetDerived).
	Outcome    string // the run's outcome word, "" while not finished
	FinishedAt *time.Time
	DurationMs *int64
	TokensUsed *float64
	Events     int
	ToolCalls  int
	Errors     int
	Attention  int
	// CreditsByAgent is the estimated credits of each agent, by agent id
	// (attention.EstimateCredits); nil when not derived.
	CreditsByAgent map[string]float64
	Summary        []byte // the full summary JSON (with attention and creditsByAgent)
	// SummaryEncoded, when set, is stored instead of Summary: the summary
	// compressed as it was written (Encode), never held whole. Get fills
	// Summary.
	SummaryEncoded *Encoded

	// Kept by the store.
	StartedAt *time.Time // the first poll's recording start
	Polls     int
	PollBytes int64 // bytes of poll bodies as stored
	Complete  bool  // archived after the run finished: nothing more will come
	Expired   bool  // the service no longer has it
	// CancelRequested: firewatch asked the service to cancel the run.
	CancelRequested bool
	// CancelledBy and StartedBy name who cancelled or started the run
	// through a hub (the person's name); "" when nobody did there.
	CancelledBy, StartedBy string
	// RerunOf is the run this one was rerun from ("" when none), and
	// RerunChanged the request fields the rerun changed (the body's names:
	// "effort", "maxCredits"...). ThreadID and ThreadTurn are the service's
	// thread and this run's turn in it ("" and 0 when not known).
	RerunOf      string
	RerunChanged []string
	ThreadID     string
	ThreadTurn   int
	// Request is the POST /v2/agent body firewatch sent to start the run
	// (JSON), nil when another program started it.
	Request []byte
	// SortAt is the run's place in List's order (its creation time, else
	// when it was first seen), with its id a key no two runs share: a
	// listing continues after it with Query.Before and BeforeID.
	SortAt time.Time
	// Gaps is how many parts (artifact snapshots) the archive pass could
	// not fetch: the next pass fetches the run again. Set by ReplaceRun.
	Gaps       int
	ArchivedAt time.Time
}

// SortTime is when the run was created, else when it was first seen.
func (r *Run) SortTime() time.Time {
	switch {
	case r.CreatedAt != nil:
		return *r.CreatedAt
	case r.StartedAt != nil:
		return *r.StartedAt
	}
	return r.ArchivedAt
}

// Poll is one recording line: {"receivedAt":..., "trace":{...}}.
type Poll struct {
	ReceivedAt time.Time
	Line       []byte // without the trailing newline
	// Encoded, when set, is stored instead of Line: the line deflated as
	// it was written (NewEncoder). Polls fills Line.
	Encoded *Encoded
	// Seq is the poll's place in the run, from 0 (read by Polls and
	// PollsSince; not written).
	Seq int64
}

// encoded is how the poll's line is stored.
func (p *Poll) encoded() (int, []byte) {
	if p.Encoded != nil {
		return p.Encoded.enc, p.Encoded.body
	}
	return encode(p.Line)
}

// Held is how the archive holds a run.
type Held struct {
	Complete  bool   // archived after it finished
	HasItem   bool   // the list item is held
	HasStatus bool   // the service's status was read (expiresAt is known)
	Polls     int    // 0: only what a start, a list or a cancel said
	Outcome   string // the trace's outcome, "" when not read
	Team      string // the team that owns it ("" unknown)
	Expired   bool   // marked as no longer kept by the service
	Gaps      int    // parts an archive pass could not fetch
	// StartedBy and CancelledBy: who did it through a hub ("" nobody).
	StartedBy, CancelledBy string
	// ThreadID and ThreadTurn: the run's thread and turn ("", 0 unknown).
	ThreadID   string
	ThreadTurn int
	// CreditsUsed is the credits the record says (nil unknown): the
	// team's list carries none.
	CreditsUsed *float64
}

// Query selects runs for List.
type Query struct {
	Service string    // "" for every service
	Team    string    // "" for every team; else only the runs that team owns
	Since   time.Time // created at or after (zero: no bound)
	Before  time.Time // created before (zero: no bound)
	// BeforeID, with Before, continues a listing after the run (Before,
	// BeforeID): the runs that sort after it, newest first by creation
	// time then id, so that a page ends on a unique key even when many
	// runs share one creation time.
	BeforeID string
	Status   string // "" or "all" for any; else the status word (processing, completed, failed, cancelled)
	Grep     string // case-insensitive substring of the prompt
	Limit    int    // 0: no limit
}

// Pruned says what Prune deleted.
type Pruned struct {
	Runs   int
	Polls  int
	Crawls int   // crawls, by the runs' rule (first seen before the cut-off, or the id)
	Bytes  int64 // stored bytes of polls and snapshots
}

// Stats is the archive's size.
type Stats struct {
	Runs, Polls, Events int
	PollBytes           int64
	SnapshotBytes       int64
}

// Store is an archive.
type Store interface {
	// Where names the archive for messages: a path, or a DSN with its
	// password redacted.
	Where() string
	// PutRun records what is known of a run, joined to what is held by
	// Merge (creating the run when it is new).
	PutRun(ctx context.Context, r *Run) error
	// AppendPolls adds polls after the ones held, in one short
	// transaction, creating the run when it is new.
	AppendPolls(ctx context.Context, service, id string, startedAt time.Time, polls []Poll) error
	// ReplaceRun stores a run fetched whole (by the archive pass or an
	// import): its fields, its polls (replacing any held) and its
	// snapshots, all in one transaction.
	ReplaceRun(ctx context.Context, r *Run, polls []Poll, snapshots map[string]string) error
	// PutSnapshot stores one artifact snapshot's content.
	PutSnapshot(ctx context.Context, service, id, snapshotID, content string) error
	// SetDerived is PutRun for a run the archive already holds: what
	// firewatch derived from the run (the Outcome ... Summary fields of r,
	// and any other field set). A run not held is left out: a watch of an
	// id the service never had stores nothing.
	SetDerived(ctx context.Context, r *Run) error
	// MarkExpired records that the service no longer has the run.
	MarkExpired(ctx context.Context, service, id string) error
	// Claim records that team's list of service shows the runs ids: the
	// team owns them, and they are not expired.
	Claim(ctx context.Context, service, team string, ids []string) error

	// Get returns a run; service "" finds the id under any service (the
	// given one first). ErrNotFound when it is not held.
	Get(ctx context.Context, service, id string) (*Run, error)
	// Polls returns a run's polls in order.
	Polls(ctx context.Context, service, id string) ([]Poll, error)
	// Snapshot returns one snapshot's content.
	Snapshot(ctx context.Context, service, id, snapshotID string) (string, error)
	// List returns runs, newest first, without their Summary.
	List(ctx context.Context, q Query) ([]Run, error)
	// Each calls fn with each run List would return, in its order, one
	// at a time (r is reused: fn keeps nothing of it); fn's error stops it
	// and is returned.
	Each(ctx context.Context, q Query, fn func(r *Run) error) error
	// Held returns, for the given ids of one service, how each is held;
	// ids not held are absent.
	Held(ctx context.Context, service string, ids []string) (map[string]Held, error)
	// Listed returns the list items of team's newest runs of service, as
	// the service last listed them (runs held with their item and not
	// expired), newest first, at most limit: the team's list shown from
	// the archive.
	Listed(ctx context.Context, service, team string, limit int) ([][]byte, error)
	// SnapshotIDs returns the ids of the snapshots held for a run.
	SnapshotIDs(ctx context.Context, service, id string) ([]string, error)
	// Prune deletes runs created before before (service "" for every
	// service), or the run id when id is set, and the crawls by the same
	// rule (first seen before before, or the crawl id).
	Prune(ctx context.Context, service string, before time.Time, id string) (Pruned, error)
	// Pruning says what Prune would delete, deleting nothing.
	Pruning(ctx context.Context, service string, before time.Time, id string) (Pruned, error)
	Stats(ctx context.Context) (Stats, error)
	Close() error

	// The leases of the processes that share the archive (lease.go).
	Coordinator
}

// DefaultPath is the default archive file: $XDG_DATA_HOME/firewatch/archive.db
// (~/.local/share/firewatch/archive.db), or the platform's data folder
// (~/Library/Application Support on macOS, %LocalAppData% on Windows).
func DefaultPath() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "firewatch", "archive.db"), nil
	}
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "firewatch", "archive.db"), nil
		}
	case "darwin", "ios":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "Application Support", "firewatch", "archive.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no data folder for the archive (set --archive or %s): %w", EnvDSN, err)
	}
	return filepath.Join(home, ".local", "share", "firewatch", "archive.db"), nil
}

// ResolveDSN is the archive's DSN: the flag's value, else FIREWATCH_ARCHIVE,
// else the default path.
func ResolveDSN(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if v := os.Getenv(EnvDSN); v != "" {
		return v, nil
	}
	return DefaultPath()
}

// IsPostgres reports whether dsn names a PostgreSQL server: a URL
// (postgres://, postgresql://) or pgx's keyword form ("host=db user=fw
// password=... dbname=fw"); anything else is an SQLite file.
func IsPostgres(dsn string) bool {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return true
	}
	_, ok := keywordDSN(dsn)
	return ok
}

// RedactDSN is dsn with its password (URL user info, a password=
// parameter, or a keyword DSN's password) written as the key is
// (text.Redacted): the one place a DSN is made printable.
func RedactDSN(dsn string) string {
	if !IsPostgres(dsn) {
		return dsn
	}
	if kv, ok := keywordDSN(dsn); ok {
		return kv.redacted(dsn)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://" + text.Redacted
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "REDACTEDPASSWORD")
		}
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "REDACTEDPASSWORD")
		u.RawQuery = q.Encode()
	}
	return strings.ReplaceAll(u.String(), "REDACTEDPASSWORD", text.Redacted)
}

// Password is dsn's password (URL user info, a password= parameter, or a
// keyword DSN's password), "" for none: the caller adds it to the secrets
// (text.Secrets.AddPassword), which redact it where it stands as a
// password.
func Password(dsn string) string {
	if !IsPostgres(dsn) {
		return ""
	}
	if kv, ok := keywordDSN(dsn); ok {
		return kv.get("password")
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return ""
	}
	if u.User != nil {
		if pw, has := u.User.Password(); has {
			return pw
		}
	}
	return u.Query().Get("password")
}

// Open opens the archive dsn names ("off": ErrOff), creating and migrating
// it when needed. A database written by a newer firewatch, or a file that is
// not one, is an error that names it; such a file is not changed.
//
// An SQLite file that cannot be written (a read-only file, folder or disk)
// is opened read-only: it is read, and every write fails with ErrReadOnly.
func Open(ctx context.Context, dsn string) (Store, error) {
	return OpenWith(ctx, dsn, Options{})
}

// Options tune OpenWith.
type Options struct {
	// LockWait bounds how long a write waits for another program's write
	// lock on an SQLite archive before it fails with ErrLocked; 0 is
	// DefaultLockWait.
	LockWait time.Duration
	// Waiting, if set, is called once, the first time a write of this
	// store has to wait for such a lock, so that the wait can be said.
	Waiting func()
}

// DefaultLockWait is how long a write waits for another writer's lock.
const DefaultLockWait = 30 * time.Second

// OpenWith is Open with options.
func OpenWith(ctx context.Context, dsn string, o Options) (Store, error) {
	if o.LockWait <= 0 {
		o.LockWait = DefaultLockWait
	}
	switch {
	case dsn == Off:
		return nil, ErrOff
	case dsn == "":
		return nil, errors.New("archive: empty DSN")
	case IsPostgres(dsn):
		return openPostgres(ctx, dsn, o)
	}
	return openSQLite(ctx, dsn, o)
}

// NewerError is a database written by a newer firewatch.
type NewerError struct {
	Where   string
	Version int
}

func (e *NewerError) Error() string {
	return fmt.Sprintf("archive %s: written by a newer firewatch (schema version %d; this one reads up to %d); it was left as it is", e.Where, e.Version, SchemaVersion)
}

// CorruptError is a file that is not an archive firewatch can read.
type CorruptError struct {
	Where string
	Err   error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("archive %s: not a database firewatch can read (%v); it was left as it is", e.Where, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// TeamOf names the team of an API key without storing the key: a one-way
// hash of it ("" for no key). Two keys of one team are two names; a run
// belongs to the last one whose list showed it (Store.Claim).
func TeamOf(key string) string {
	if key == "" {
		return ""
	}
	h := sha256.Sum256([]byte("firewatch team of key\x00" + key))
	return "k1:" + hex.EncodeToString(h[:16])
}
