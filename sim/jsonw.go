package sim

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// The wire JSON is built by hand, byte by byte, so that field order is the
// one the spec shows and so that the simulator stays an independent check on
// the project's decoder. obj and arr are ordered JSON values for tool
// parameters and results.

// obj is an ordered JSON object: alternating keys (string) and values.
type obj []any

// arr is a JSON array.
type arr []any

// raw is JSON text inserted as it is.
type raw []byte

// appendJSON appends v as compact JSON. Supported: nil, string, bool, int,
// int64, float64, []string, obj, arr, raw.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	case []string:
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		return append(b, ']')
	case obj:
		b = append(b, '{')
		for i := 0; i+1 < len(v); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, v[i].(string))
			b = append(b, ':')
			b = appendJSON(b, v[i+1])
		}
		return append(b, '}')
	case arr:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case raw:
		return append(b, v...)
	}
	panic("sim: appendJSON: unsupported type")
}

func appendString(b []byte, s string) []byte {
	out, err := jsontext.AppendQuote(b, s)
	if err != nil {
		panic("sim: invalid UTF-8 in scripted text: " + s)
	}
	return out
}

// appendField appends `,"name":value`.
func appendField(b []byte, name string, v any) []byte {
	b = append(b, ',')
	b = appendString(b, name)
	b = append(b, ':')
	return appendJSON(b, v)
}

func jsonOf(v any) []byte { return appendJSON(nil, v) }

// appendIndented appends v as JSON indented by two spaces (for the content of
// workspace files).
func indentJSON(v any) string {
	out, err := jsontext.AppendFormat(nil, appendJSON(nil, v), jsontext.WithIndent("  "))
	if err != nil {
		panic(err)
	}
	return string(out)
}
