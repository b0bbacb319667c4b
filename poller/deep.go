package poller

import "errors"

// scanTop is scanTrace for a body whose events array the JSON reader cannot
// skip (an event nested past its depth limit, which the model sets aside):
// the array is cut out by matching brackets and the rest scanned as usual.
func scanTop(body []byte) (traceTop, error) {
	i, j, ok := eventsSpan(body)
	if !ok {
		return traceTop{}, errors.New("no events array")
	}
	b := make([]byte, 0, i+2+len(body)-j)
	b = append(append(append(b, body[:i]...), "[]"...), body[j:]...)
	return scanTrace(b)
}

// eventsSpan finds the value of the top-level member "events" of a JSON
// object by matching brackets outside strings: body[i:j] is the array.
func eventsSpan(body []byte) (i, j int, ok bool) {
	depth := 0
	for k := 0; k < len(body); k++ {
		switch c := body[k]; c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := stringEnd(body, k+1)
			if end < 0 {
				return 0, 0, false
			}
			if depth == 1 && string(body[k:end]) == `"events"` {
				v := end
				for v < len(body) && (body[v] == ' ' || body[v] == '\t' || body[v] == '\n' || body[v] == '\r' || body[v] == ':') {
					v++
				}
				if v < len(body) && body[v] == '[' {
					if n := matchEnd(body[v:]); n > 0 {
						return v, v + n, true
					}
					return 0, 0, false
				}
			}
			k = end - 1
		}
	}
	return 0, 0, false
}

// stringEnd is the index just past the closing quote of the string whose
// content starts at b[i], -1 when it does not end.
func stringEnd(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// matchEnd is the length of the array or object at the start of b, 0 when
// it does not end.
func matchEnd(b []byte) int {
	depth := 0
	for k := 0; k < len(b); k++ {
		switch b[k] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return k + 1
			}
		case '"':
			end := stringEnd(b, k+1)
			if end < 0 {
				return 0
			}
			k = end - 1
		}
	}
	return 0
}
