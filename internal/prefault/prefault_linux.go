package prefault

import "unsafe"

// madvPopulateRead is MADV_POPULATE_READ.
const madvPopulateRead = 22

func init() {
	if start, end, ok := textMapping(); ok {
		madvise(start, end-start, madvPopulateRead)
	}
}

// textMapping returns the bounds of the mapping that holds this package's
// code (the executable's text, wherever the loader put it), from
// /proc/self/maps.
func textMapping() (start, end uintptr, ok bool) {
	fn := textMapping
	pc := **(**uintptr)(unsafe.Pointer(&fn))
	fd, ok := openMaps()
	if !ok {
		return 0, 0, false
	}
	defer closeFD(fd)
	var buf [16 << 10]byte
	have := 0
	for {
		n := read(fd, buf[have:])
		if n <= 0 {
			return 0, 0, false
		}
		have += n
		b := buf[:have]
		for {
			nl := indexByte(b, '\n')
			if nl < 0 {
				break
			}
			if s, e, ok := parseRange(b[:nl]); ok && s <= pc && pc < e {
				return s, e, true
			}
			b = b[nl+1:]
		}
		// Keep the partial last line and read on.
		have = copy(buf[:], b)
		if have == len(buf) {
			return 0, 0, false
		}
	}
}

// parseRange parses the "start-end" that begins a line of /proc/self/maps.
func parseRange(line []byte) (start, end uintptr, ok bool) {
	i := 0
	start, i, ok = hexAt(line, i)
	if !ok || i >= len(line) || line[i] != '-' {
		return 0, 0, false
	}
	end, i, ok = hexAt(line, i+1)
	if !ok || i >= len(line) || line[i] != ' ' || end <= start {
		return 0, 0, false
	}
	return start, end, true
}

// hexAt parses the hexadecimal number at line[i:] and returns it and the
// index after it.
func hexAt(line []byte, i int) (v uintptr, next int, ok bool) {
	j := i
	for ; j < len(line) && j-i < 16; j++ {
		c := line[j]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uintptr(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uintptr(c-'a'+10)
		default:
			return v, j, j > i
		}
	}
	return v, j, j > i
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
