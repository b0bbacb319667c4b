package hub

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// HostKey reads the hub's host key from path, or makes one there when
// there is none: ed25519, the private key 0600 (its folder 0700 when made)
// and the public key beside it as path.pub, for known_hosts. A key file
// that others may read is refused, as ssh refuses one: whoever reads it
// can pretend to be the hub.
func HostKey(path string) (signer gossh.Signer, made bool, err error) {
	b, err := readPrivate(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := makeHostKey(path); err != nil {
			return nil, false, err
		}
		made = true
		b, err = readPrivate(path)
	}
	if err != nil {
		return nil, false, err
	}
	signer, err = gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, false, fmt.Errorf("host key %s: %w", path, err)
	}
	return signer, made, nil
}

// maxHostKey bounds a host key file.
const maxHostKey = 64 << 10

// readPrivate reads a private key file that only its owner can read, in
// folders nobody else can write (files.go).
func readPrivate(path string) ([]byte, error) {
	b, err := readTrusted(path, maxHostKey, true)
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	return b, nil
}

// checkKeyFolder refuses to make a host key where others could replace
// it: the nearest folder of path that exists, and those above it, must be
// the user's or root's and not writable by others.
func checkKeyFolder(path string) error {
	dir := filepath.Dir(path)
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	real, err := checkFolders(dir)
	if err == nil {
		err = checkFolder(real)
	}
	if err != nil {
		return fmt.Errorf("host key %s: %w", path, err)
	}
	return nil
}

func makeHostKey(path string) error {
	if err := checkKeyFolder(path); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "firewatch hub")
	if err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	_, werr := f.Write(pem.EncodeToMemory(block))
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(path)
		return fmt.Errorf("host key %s: %w", path, err)
	}
	sp, err := gossh.NewPublicKey(pub)
	if err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	line := append(bytes.TrimSpace(gossh.MarshalAuthorizedKey(sp)), " firewatch hub\n"...)
	if err := os.WriteFile(path+".pub", line, 0o644); err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	return nil
}
