//go:build linux

package prefault

import (
	"bufio"
	"fmt"
	"os"
	"syscall"
	"testing"
)

// TestTextIsResident: after package initialisation the whole mapping that
// holds the test binary's code is resident, not only the pages run so far.
func TestTextIsResident(t *testing.T) {
	start, end, ok := textMapping()
	if !ok {
		t.Fatal("no mapping in /proc/self/maps holds this package's code")
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, 4096, madvPopulateRead); errno == syscall.EINVAL {
		t.Skip("this kernel has no MADV_POPULATE_READ (Linux 5.14+): nothing to check")
	}
	size, rss := smapsOf(t, start)
	if size != (end-start)>>10 {
		t.Fatalf("smaps gives %d kB for %#x-%#x", size, start, end)
	}
	// Allow a page or two for the kernel's accounting at the edges.
	if rss+8 < size {
		t.Errorf("text mapping %#x-%#x: %d kB of %d kB resident", start, end, rss, size)
	}
}

func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		line       string
		start, end uintptr
		ok         bool
	}{
		{"00400000-00ce4000 r-xp 00000000 fd:01 123 /usr/bin/firewatch", 0x400000, 0xce4000, true},
		{"7f48f5b8c000-7f48f5b8e000 rw-p 00000000 00:00 0", 0x7f48f5b8c000, 0x7f48f5b8e000, true},
		{"00400000 r-xp", 0, 0, false},
		{"00400000-00300000 r-xp", 0, 0, false},
		{"zz-10 r-xp", 0, 0, false},
		{"", 0, 0, false},
	} {
		s, e, ok := parseRange([]byte(c.line))
		if s != c.start || e != c.end || ok != c.ok {
			t.Errorf("parseRange(%q) = %#x, %#x, %v", c.line, s, e, ok)
		}
	}
}

// smapsOf returns the Size and Rss, in kB, of the mapping starting at start.
func smapsOf(t *testing.T, start uintptr) (size, rss uintptr) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if s, _, ok := parseRange([]byte(line)); ok { // a mapping's first line
			in = s == start
			continue
		}
		if !in {
			continue
		}
		var v uintptr
		if n, _ := fmt.Sscanf(line, "Size: %d kB", &v); n == 1 {
			size = v
		}
		if n, _ := fmt.Sscanf(line, "Rss: %d kB", &v); n == 1 {
			rss = v
			return size, rss
		}
	}
	t.Fatalf("no smaps entry for %#x", start)
	return 0, 0
}
