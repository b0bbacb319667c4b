package poller

import "bytes"

// tooDeep is what cutDeep puts in place of a value nested too deep: a JSON
// string no service sends.
const tooDeep = `"\u0000firewatch: nested too deep"`

// cutDeep is body with every array or object nested deeper than limit
// replaced by tooDeep, so that one hostile item of a list (a crawl's
// options nested 20 000 levels) does not make the whole answer unreadable
// for a JSON decoder with a depth bound; cut reports whether anything was.
// body must be JSON for the result to be; strings are skipped whole.
func cutDeep(body []byte, limit int) (out []byte, cut bool) {
	depth := 0
	skipFrom := -1 // the depth at which a cut subtree started
	var b bytes.Buffer
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '"' {
			j := i + 1
			for j < len(body) && body[j] != '"' {
				if body[j] == '\\' {
					j++
				}
				j++
			}
			if skipFrom < 0 {
				b.Write(body[i:min(j+1, len(body))])
			}
			i = j
			continue
		}
		switch c {
		case '{', '[':
			depth++
			if skipFrom < 0 && depth > limit {
				skipFrom = depth
				cut = true
				b.WriteString(tooDeep)
				continue
			}
		case '}', ']':
			if skipFrom >= 0 && depth == skipFrom {
				skipFrom = -1
				depth--
				continue
			}
			depth--
		}
		if skipFrom < 0 {
			b.WriteByte(c)
		}
	}
	if !cut {
		return body, false
	}
	return b.Bytes(), true
}
