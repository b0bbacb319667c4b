package text

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

const testKey = "fc-0123456789abcdef0123456789abcdef"

var testSecrets = NewSecrets(testKey)

// rebuilt reports whether the key can be read back from the JSON value v
// by any of the transformations output goes through: unescaping every
// string, and sanitising it.
func rebuilt(t *testing.T, v []byte) bool {
	t.Helper()
	dec := jsontext.NewDecoder(strings.NewReader(string(v)), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return strings.Contains(string(v), testKey)
		}
		if tok.Kind() == '"' {
			s := tok.String()
			if strings.Contains(s, testKey) || strings.Contains(sanitize(s), testKey) {
				return true
			}
		}
		if dec.StackDepth() == 0 {
			return false
		}
	}
}

func TestRedactJSONForms(t *testing.T) {
	k := testKey
	for _, tc := range []string{
		`"` + k + `"`,
		`"` + k[:1] + `\u0063` + k[2:] + `"`,
		`"` + k[:4] + "\u200b" + k[4:] + `"`,
		`"` + k[:6] + `\u200D` + k[6:] + `"`,
		`"` + k[:5] + `\u001b[31m` + k[5:] + `"`,
		`"` + k[:5] + `\u001b]8;;http://x\u0007` + k[5:] + `"`,
		`"` + k[:3] + `\u0085` + k[3:] + `"`,
		`{"` + k[:2] + `\u2066` + k[2:] + `":[1,{"x":"a ` + k[:9] + `\u0000` + k[9:] + ` b"}]}`,
	} {
		out, changed := testSecrets.RedactJSON([]byte(tc))
		if !changed || rebuilt(t, out) {
			t.Errorf("%s → %s (changed %v)", tc, out, changed)
		}
		if !jsontext.Value(out).IsValid() {
			t.Errorf("%s → %s: not valid JSON", tc, out)
		}
		if !strings.Contains(string(out), Redacted) {
			t.Errorf("%s → %s: no %s", tc, out, Redacted)
		}
	}
	// Nothing to do: the same bytes back.
	for _, tc := range []string{`{"a":"fc-0123 just a prefix"}`, `"` + k[:10] + `"`, `[1,2,3]`} {
		if out, changed := testSecrets.RedactJSON([]byte(tc)); changed || string(out) != tc {
			t.Errorf("%s → %s (changed %v)", tc, out, changed)
		}
	}
}

func TestSanitizeRedacts(t *testing.T) {
	for _, s := range []string{testKey, "x " + testKey[:4] + "\u200b" + testKey[4:], testKey[:5] + "\x1b[1m" + testKey[5:]} {
		if got := testSecrets.Sanitize(s); strings.Contains(got, testKey) || !strings.Contains(got, Redacted) {
			t.Errorf("Sanitize(%q) = %q", s, got)
		}
	}
}

// Whatever is inserted into the key, and whichever of its letters are
// written as escapes, RedactJSON leaves no string from which unescaping or
// sanitising rebuilds it.
func FuzzRedactJSON(f *testing.F) {
	f.Add(uint64(0), uint8(0), "\u200b")
	f.Add(uint64(1<<5|1<<9), uint8(7), "\x1b[31m")
	f.Add(uint64(0xffff), uint8(30), "\x1b]0;t\x07")
	f.Fuzz(func(t *testing.T, escapes uint64, at uint8, junk string) {
		k := testKey
		i := int(at) % (len(k) + 1)
		var b strings.Builder
		b.WriteString(`{"m":"`)
		for j := 0; j <= len(k); j++ {
			if j == i {
				for _, r := range junk {
					fmt.Fprintf(&b, `\u%04x`, r&0xffff)
				}
			}
			if j == len(k) {
				break
			}
			if escapes>>(j%64)&1 == 1 {
				fmt.Fprintf(&b, `\u%04x`, k[j])
			} else {
				b.WriteByte(k[j])
			}
		}
		b.WriteString(`"}`)
		out, _ := testSecrets.RedactJSON([]byte(b.String()))
		if rebuilt(t, out) {
			t.Fatalf("%s → %s", b.String(), out)
		}
	})
}

// mayHold is the quick test that spares RedactJSON's walk: it must say
// maybe wherever the walk finds the key, and no on ordinary events whose
// text holds the key's letters scattered (UUIDs, hex: the old subsequence
// test said maybe to nearly every event, so every first poll re-encoded
// the whole trace).
func TestMayHold(t *testing.T) {
	ordinary := `{"eventId":"0190f3a4-0000-7000-8000-000000000001","runId":"fc012345-6789-abcd-ef01-23456789abcd","text":"f c - 0 1 2 3 4 5 6 7 8 9 a b c d e f 0123456789abcdef0123456789abcdef fc-01"}`
	if !subsequence([]byte(ordinary), testKey) {
		t.Fatal("the test event should hold the key's bytes in order")
	}
	if mayHold([]byte(ordinary), testKey) {
		t.Errorf("mayHold(%s) = true, want false", ordinary)
	}
	k := testKey
	for _, tc := range []string{
		`"` + k + `"`,
		`"` + k[:1] + `\u0063` + k[2:] + `"`,
		`"\u0066` + k[1:] + `"`,
		`"` + k[:4] + "\u200b" + k[4:] + `"`,
		`"` + k[:5] + "\x1b[31m" + k[5:] + `"`,
		`"` + k[:5] + `\u001b]8;;http://x\u0007` + k[5:] + `"`,
		`"` + k[:3] + "\u0085" + k[3:] + `"`,
		`"` + k[:3] + `\u009b1m` + k[3:] + `"`,
		`"` + k[:9] + `\u0000\u007f` + k[9:] + `"`,
	} {
		if !mayHold([]byte(tc), k) {
			t.Errorf("mayHold(%s) = false", tc)
		}
	}
	for _, tc := range []string{`"` + k[:9] + `\n` + k[9:] + `"`, `"` + k[:9] + ` ` + k[9:] + `"`, `"` + k[:9] + `"`} {
		if mayHold([]byte(tc), k) {
			t.Errorf("mayHold(%s) = true: sanitising keeps what breaks the key there", tc)
		}
	}
}

// Whatever the bytes, mayHold never says no where RedactJSON's walk finds
// the key.
func FuzzMayHold(f *testing.F) {
	f.Add([]byte(`"` + testKey[:4] + "\u200b" + testKey[4:] + `"`))
	f.Add([]byte(`{"a":"` + testKey[:5] + `\u001b[1m` + testKey[5:] + `"}`))
	f.Add([]byte(`["` + testKey[:2] + `\u00` + testKey[2:] + `"]`))
	f.Fuzz(func(t *testing.T, v []byte) {
		if _, changed := testSecrets.redactJSON(v); changed && jsontext.Value(v).IsValid() && !mayHold(v, testKey) {
			t.Fatalf("mayHold(%q) = false, but the walk redacts it", v)
		}
	})
}

// TestSecretsAdd: a secret added later is redacted by the same value from
// then on, by every method; a nil set and a short string redact nothing,
// and Sanitize alone knows no secrets.
func TestSecretsAdd(t *testing.T) {
	s := NewSecrets(testKey)
	const dsn = "postgres://u:hunter2-long-password@db/x"
	const pw = "hunter2-long-password"
	if got := s.Redact(dsn); got != dsn {
		t.Fatalf("redacted before Add: %q", got)
	}
	s.Add(pw)
	s.Add(pw)
	s.Add("short")
	if got := s.Redact(dsn); got != "postgres://u:"+Redacted+"@db/x" {
		t.Errorf("Redact after Add = %q", got)
	}
	if out, changed := s.RedactJSON([]byte(`{"h":"` + pw[:3] + `\u200b` + pw[3:] + `"}`)); !changed || strings.Contains(string(out), pw) {
		t.Errorf("RedactJSON after Add = %s (changed %v)", out, changed)
	}
	if !s.Holds("x"+testKey) || s.Holds("short") || len(s.all()) != 2 {
		t.Errorf("Holds or the list is wrong: %q", s.all())
	}
	var none *Secrets
	none.Add(testKey)
	if none.Redact(testKey) != testKey || none.Holds(testKey) {
		t.Error("a nil set redacted")
	}
	if out, changed := none.RedactJSON([]byte(`"` + testKey + `"`)); changed || strings.Contains(string(out), Redacted) {
		t.Error("a nil set redacted JSON")
	}
	if Sanitize(testKey) != testKey {
		t.Error("Sanitize redacts without being given the secrets")
	}
}

// TestPasswordRedactedWhereItIsOne: a password is redacted where it stands
// as a DSN's password (user info, a password= parameter or keyword, quoted
// or escaped), and nowhere else: a password that is a common word leaves
// the word readable in every other place, by every method.
func TestPasswordRedactedWhereItIsOne(t *testing.T) {
	s := NewSecrets(testKey)
	s.AddPassword("firewatch")
	s.AddPassword("p@ss word")
	for in, want := range map[string]string{
		"firewatch: archive postgres://firewatch:firewatch@db/firewatch: failed": "firewatch: archive postgres://firewatch:" + Redacted + "@db/firewatch: failed",
		"host=db user=firewatch password=firewatch dbname=firewatch":             "host=db user=firewatch password=" + Redacted + " dbname=firewatch",
		"PASSWORD = 'firewatch' sslmode=disable":                                 "PASSWORD = '" + Redacted + "' sslmode=disable",
		"postgres://db/x?password=firewatch&sslmode=disable":                     "postgres://db/x?password=" + Redacted + "&sslmode=disable",
		"postgres://u:p%40ss%20word@db/x":                                        "postgres://u:" + Redacted + "@db/x",
		"password=firewatchers":                                                  "password=firewatchers",
		"the firewatch archive, password protected":                              "the firewatch archive, password protected",
		"key " + testKey: "key " + Redacted,
	} {
		if got := s.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
		if got, want := s.Holds(in), in != want; got != want {
			t.Errorf("Holds(%q) = %v", in, got)
		}
	}
	if out, changed := s.RedactJSON([]byte(`{"firewatch":"the firewatch run","dsn":"user=firewatch password=firewatch"}`)); !changed ||
		string(out) != `{"firewatch":"the firewatch run","dsn":"user=firewatch password=`+Redacted+`"}` {
		t.Errorf("RedactJSON = %s (changed %v)", out, changed)
	}
	if out, changed := s.RedactJSON([]byte(`{"firewatch":"password: firewatch"}`)); changed {
		t.Errorf("RedactJSON of a word = %s", out)
	}
	short := NewSecrets()
	short.AddPassword("pw")
	if got := short.Redact("pw password=pw"); got != "pw password="+Redacted {
		t.Errorf("a short password: %q", got)
	}
}

// An escaped password in a JSON string is found too.
func TestPasswordEscapedInJSON(t *testing.T) {
	s := NewSecrets()
	s.AddPassword("p@ss word")
	out, changed := s.RedactJSON([]byte(`{"dsn":"postgres://u:p%40ss%20word@db/x"}`))
	if !changed || strings.Contains(string(out), "p%40ss") {
		t.Errorf("RedactJSON = %s (changed %v)", out, changed)
	}
}

// FuzzKeyEcho: whatever the key (of a key's length, valid UTF-8, not all
// hex digits, which could hide inside \u escapes), a server echoing it in a
// JSON string the way Go's encoding/json (html escapes), a minimal encoder
// or PHP (every / and non-ASCII character escaped) write it, with lower- or
// upper-case hex, leaves no trace of it once RedactJSON has read the body:
// not in the bytes, not in the decoded string, and the body stays JSON.
func FuzzKeyEcho(f *testing.F) {
	f.Add(`fc-0123456789abcdef`, "text ")
	f.Add(`fc-a"b\c<d>&e/f-é`, "")
	f.Add("fc-\u2028\U0001F600/", "x")
	f.Add(`\ab-cdefgh`, `\`)
	f.Fuzz(func(t *testing.T, key, prefix string) {
		if len(key) < 8 || strings.Trim(key, "0123456789abcdefABCDEF") == "" || !utf8.ValidString(key) || !utf8.ValidString(prefix) {
			return
		}
		s := NewSecrets(key)
		bodies := [][]byte{[]byte(`"` + jsonEscape(prefix+key, false, true, true) + `"`)}
		for _, html := range []bool{false, true} {
			for _, ascii := range []bool{false, true} {
				e := jsonEscape(prefix+key, html, false, ascii)
				bodies = append(bodies, []byte(`"`+e+`"`), []byte(`"`+upperHex(e)+`"`))
			}
		}
		for _, body := range bodies {
			out, _ := s.RedactJSON(bytes.Clone(body))
			v := jsontext.Value(bytes.Clone(out))
			if !v.IsValid() {
				t.Fatalf("%s redacted to %s, not JSON", body, out)
			}
			str, err := jsontext.AppendUnquote(nil, out)
			if err != nil || bytes.Contains(str, []byte(key)) || bytes.Contains(out, []byte(key)) {
				t.Fatalf("%s redacted to %s (%v)", body, out, err)
			}
		}
	})
}

// jsonEscape writes s as the inside of a JSON string: quote, backslash and
// control characters escaped, and optionally <>& (html), / (slash) and
// every non-ASCII character (ascii) as \uXXXX escapes; html also escapes
// U+2028 and U+2029, as encoding/json does.
func jsonEscape(s string, html, slash, ascii bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '/' && slash:
			b.WriteString(`\/`)
		case r < 0x20 || html && (r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029):
			fmt.Fprintf(&b, `\u%04x`, r)
		case r >= 0x80 && ascii:
			if r >= 0x10000 {
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// upperHex writes the hex digits of the \u escapes of a jsonEscape result
// in upper case, as some encoders do.
func upperHex(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+1 < len(b) && b[i+1] == 'u' {
			for j := i + 2; j < i+6 && j < len(b); j++ {
				if 'a' <= b[j] && b[j] <= 'f' {
					b[j] -= 'a' - 'A'
				}
			}
			i += 5
		} else {
			i++ // an escaped character: skip it
		}
	}
	return string(b)
}

// Redacting a key echoed in any disguise leaves what the server escaped
// escaped: the value is not re-encoded, so no C1 control or bidi character
// it sent as \u escape comes out raw, in the string that held the key or
// beside it; and the redacted string itself holds nothing raw.
func TestRedactJSONKeepsEscapesAsSent(t *testing.T) {
	const k = "fc-0123456789abcdef"
	s := NewSecrets(k)
	hostile := `\u001b[31m \u009b31m \u009d0;t\u009c \u202eRLO\u202c \u2066LRI\u2069 \u200e \u061c`
	for _, form := range []string{
		k,
		k[:4] + "\u200b" + k[4:],
		k[:5] + `\u001b[31m` + k[5:],
		k[:1] + `\u0063` + k[2:],
		k[:5] + "\u202e" + k[5:],
	} {
		in := `{"a":"` + hostile + `","b":"echo ` + form + " " + hostile + " \u009b raw \u202e" + ` end","` + form + `":1}`
		out, changed := s.RedactJSON([]byte(in))
		if !changed || strings.Contains(string(out), k) || !strings.Contains(string(out), Redacted) {
			t.Errorf("%q: changed %v: %s", form, changed, out)
		}
		if !strings.HasPrefix(string(out), `{"a":"`+hostile+`",`) {
			t.Errorf("%q: the string beside the key is not as sent: %s", form, out)
		}
		for _, r := range string(out) {
			if r == 0x1b || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x61c {
				t.Errorf("%q: raw U+%04X in %q", form, r, out)
				break
			}
		}
	}
}
