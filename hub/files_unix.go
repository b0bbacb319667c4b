//go:build unix

package hub

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// openNoWait opens path for reading without waiting for a writer (a FIFO)
// or a carrier (a device), and without it becoming a controlling terminal.
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}

// checkOwner refuses what is neither the hub's user's nor root's: its
// owner could change it.
func checkOwner(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := int(st.Uid); uid != 0 && uid != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d, neither the hub's user (uid %d) nor root, who could change it", path, uid, os.Geteuid())
	}
	return nil
}

// checkFolders checks every folder on the way from / to path (following
// symbolic links, each link checked as an entry of its folder) and
// returns the file's path with the links resolved.
func checkFolders(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	cur := string(filepath.Separator)
	rest := splitPath(abs)
	if err := checkFolder(cur); err != nil {
		return "", err
	}
	for links := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if err := checkOwner(next, fi); err != nil {
			return "", err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			if links++; links > maxSymlinks {
				return "", fmt.Errorf("%s: too many symbolic links", path)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if filepath.IsAbs(target) {
				cur = string(filepath.Separator)
			}
			rest = append(splitPath(target), rest...)
		case len(rest) == 0:
			cur = next // the file itself: the caller checks it
		default:
			if err := checkFolder(next); err != nil {
				return "", err
			}
			cur = next
		}
	}
	return cur, nil
}

func splitPath(p string) []string {
	var out []string
	for _, s := range strings.Split(filepath.ToSlash(p), "/") {
		// ".." is kept: Join takes it against the folder reached, as the
		// kernel does past a link.
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// checkFolder refuses a folder that is not the user's or root's, or that
// group or others may write without its sticky bit.
func checkFolder(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	if err := checkOwner(dir, fi); err != nil {
		return err
	}
	if m := fi.Mode(); m.Perm()&0o022 != 0 && m&fs.ModeSticky == 0 {
		return fmt.Errorf("the folder %s can be written by others (mode %#o), who could replace what is in it: chmod go-w %s", dir, m.Perm(), dir)
	}
	return nil
}
