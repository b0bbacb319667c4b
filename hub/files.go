package hub

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
)

// The files that say who may log in and who the hub is (the people's
// authorized_keys files, the host key) are read with care: whoever can
// write one, or replace it, can give themselves access or pose as the hub.
// So, as sshd's StrictModes does, the hub reads such a file only when it is
// a regular file owned by its user or root that group and others cannot
// write (nor read, for a private key), in folders that are likewise the
// user's or root's and that group and others cannot write, from / down.
// A folder others may write with its sticky bit set (/tmp) is taken, as
// its entries that are the user's cannot be renamed or removed by others:
// the entry below it must then be the user's or root's.
//
// The file is opened without waiting (a FIFO or a device put in its place
// would otherwise hold open(2) until a writer comes), is read up to a
// bound, and the whole read has a deadline: one stuck read (a hung network
// filesystem) holds one goroutine, which the logins after it wait for
// rather than start another.

// fileReadTimeout bounds reading one of the hub's files at a login.
const fileReadTimeout = 2 * time.Second

// maxSymlinks bounds the symbolic links followed on the way to a file.
const maxSymlinks = 40

// readTrusted reads the file at path that grants access (private: a
// private key, which group and others may not read either), under the
// rules above, within fileReadTimeout and max bytes.
func readTrusted(path string, max int64, private bool) ([]byte, error) {
	return fileReads.do(path, fileReadTimeout, func() ([]byte, error) { return readChecked(path, max, private) })
}

func readChecked(path string, max int64, private bool) ([]byte, error) {
	f, err := openNoWait(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): the hub reads only a regular file", path, kindOf(fi.Mode()))
	}
	if err := checkOwner(path, fi); err != nil {
		return nil, err
	}
	if m := fi.Mode().Perm(); private && m&0o077 != 0 {
		return nil, fmt.Errorf("%s can be read or written by others (mode %#o), who could pose as the hub: chmod 600 %s", path, m, path)
	} else if m&0o022 != 0 {
		return nil, fmt.Errorf("%s can be written by others (mode %#o), who could give themselves access: chmod go-w %s", path, m, path)
	}
	real, err := checkFolders(path)
	if err != nil {
		return nil, err
	}
	if ri, err := os.Stat(real); err != nil || !os.SameFile(fi, ri) {
		return nil, fmt.Errorf("%s changed while it was read", path)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is larger than %d bytes: not a file the hub reads", path, max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes: not a file the hub reads", path, max)
	}
	return b, nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	}
	return "mode " + m.String()
}

// fileReads is every read of the hub's files in flight.
var fileReads = &flights{by: map[string]*flight{}}

// flights runs at most one read of a path at a time: a caller that comes
// while one is in flight takes its answer if it began after the caller
// came, else waits for its end and begins its own. Every caller waits no
// longer than its timeout; a read that never ends holds one goroutine.
type flights struct {
	mu sync.Mutex
	by map[string]*flight
}

type flight struct {
	began time.Time
	done  chan struct{}
	b     []byte
	err   error
}

var errTooSlow = errors.New("took too long")

func (f *flights) do(path string, timeout time.Duration, read func() ([]byte, error)) ([]byte, error) {
	came := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		fl := f.by[path]
		if fl == nil {
			fl = &flight{began: time.Now(), done: make(chan struct{})}
			f.by[path] = fl
			go func() {
				fl.b, fl.err = read()
				f.mu.Lock()
				delete(f.by, path)
				f.mu.Unlock()
				close(fl.done)
			}()
		}
		f.mu.Unlock()
		select {
		case <-fl.done:
			if !fl.began.Before(came) {
				return fl.b, fl.err
			}
		case <-deadline.C:
			return nil, fmt.Errorf("%s could not be read within %s: %w", path, timeout, errTooSlow)
		}
	}
}
