package hub

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"

	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/text"
)

// Role is what a person may do through the hub.
type Role int

const (
	// Viewer sees the screens and runs the commands that only read.
	Viewer Role = iota + 1
	// Operator may also cancel and start runs.
	Operator
)

func (r Role) String() string {
	switch r {
	case Viewer:
		return "viewer"
	case Operator:
		return "operator"
	}
	return "nobody"
}

// Person is who logged in: the comment of their key in the authorized
// keys or operators file (their name), what they may do, and the key's
// fingerprint.
type Person struct {
	Name string
	Role Role
	Key  string // SHA256:...
}

// maxName is the longest name kept from a key's comment, in bytes.
const maxName = 64

// People are the two files that say who may log in: OpenSSH
// authorized_keys files, read again at every login so that editing one
// grants or revokes at once (and rechecked while sessions are open, which
// ends those of a key removed: revoke.go). A key in both is an operator's.
type People struct {
	Viewers, Operators string // paths; "" for none
}

// Find is the person whose key k is, from the files as they are now. A
// key that neither lists is ok == false; err says why a file could not be
// read (the login is then refused too).
func (p People) Find(k gossh.PublicKey) (Person, bool, error) {
	want := k.Marshal()
	found := Person{Key: gossh.FingerprintSHA256(k)}
	var errs []error
	for _, f := range []struct {
		path string
		role Role
	}{{p.Operators, Operator}, {p.Viewers, Viewer}} {
		if f.path == "" {
			continue
		}
		keys, err := readKeys(f.path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range keys {
			if bytes.Equal(e.key.Marshal(), want) {
				found.Name, found.Role = e.name, f.role
				if found.Name == "" {
					found.Name = "unnamed " + found.Key[:min(len(found.Key), 19)]
				}
				return found, true, nil
			}
		}
	}
	return found, false, errors.Join(errs...)
}

// Check reads both files as a login would and says what is wrong with
// them: one that cannot be read or is writable by others is an error;
// lines that are not keys, or keys with options (from=, command=...),
// which the hub does not apply and so ignores, are warnings.
func (p People) Check() (warnings []string, err error) {
	if p.Viewers == "" && p.Operators == "" {
		return nil, errors.New("no one may log in: give --authorized-keys FILE (viewers) or --operators FILE")
	}
	n := 0
	for _, path := range []string{p.Viewers, p.Operators} {
		if path == "" {
			continue
		}
		keys, err := readKeys(path)
		if err != nil {
			return nil, err
		}
		n += len(keys)
		w, err := lint(path)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, w...)
	}
	if n == 0 {
		warnings = append(warnings, "no key is listed yet: every login is refused until one is added")
	}
	return warnings, nil
}

type listed struct {
	key  gossh.PublicKey
	name string
}

// readKeys reads an authorized_keys file: its keys without options, each
// with its comment as a name, sanitised (it reaches the log and screens).
func readKeys(path string) ([]listed, error) {
	b, err := readGuarded(path)
	if err != nil {
		return nil, err
	}
	var out []listed
	for rest := b; len(rest) > 0; {
		k, comment, options, r, err := gossh.ParseAuthorizedKey(rest)
		if err != nil {
			break // no key on the lines left
		}
		rest = r
		if len(options) > 0 {
			continue // from=, command=, restrict...: not applied, so not trusted
		}
		out = append(out, listed{key: k, name: name(comment)})
	}
	return out, nil
}

// lint lists the lines of an authorized_keys file the hub ignores.
func lint(path string) ([]string, error) {
	b, err := readGuarded(path)
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for i := 1; sc.Scan(); i++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		_, _, options, _, err := gossh.ParseAuthorizedKey([]byte(line))
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("%s:%d: not a public key; the line is ignored", path, i))
		case len(options) > 0:
			out = append(out, fmt.Sprintf("%s:%d: key options (%s) are not applied by the hub, so the key is ignored", path, i, text.Sanitize(strings.Join(options, ","))))
		}
	}
	return out, nil
}

// maxKeysFile bounds an authorized_keys file read at every login.
const maxKeysFile = 4 << 20

// readGuarded reads a file that grants access: only a regular file that
// its user or root owns and that nobody else could change or replace
// (files.go), within a bound on size and time.
func readGuarded(path string) ([]byte, error) { return readTrusted(path, maxKeysFile, false) }

// name is a key's comment as a person's name: sanitised, one line, short.
func name(comment string) string {
	s := strings.Join(strings.Fields(text.Sanitize(comment)), " ")
	if len(s) > maxName {
		s = strings.ToValidUTF8(s[:maxName], "")
	}
	return s
}
