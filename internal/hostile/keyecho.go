package hostile

import (
	"bytes"
	"fmt"
)

// KeyEchoForms echoes the request's API key back in the trace in forms that
// are not the key's bytes but become them once JSON is unescaped or the
// text is sanitised: a letter written as a \u escape, a zero-width space
// (raw and as \u200d), an escape sequence and a C1 control inside it; in a
// reasoning summary, a tool call's parameters (a value and a member name)
// and an error message.
var KeyEchoForms = register("key-echo-forms", Fault{
	Doc: "the key echoed as \\u-escaped letters, with zero-width characters, an escape sequence or a C1 control inside it",
	Trace: func(_ int, job string, a *Answer) {
		k := a.Key
		if len(k) < 8 {
			return
		}
		forms := []string{
			k[:1] + fmt.Sprintf(`\u%04x`, k[1]) + k[2:],             // a letter as \u escape
			k[:4] + "\u200b" + k[4:],                                // zero-width space, raw UTF-8
			k[:6] + `\u200d` + k[6:],                                // zero-width joiner, escaped
			k[:5] + `\u001b[31m` + k[5:],                            // an escape sequence
			k[:3] + `\u0085` + k[3:],                                // a C1 control
			fmt.Sprintf(`\u%04x`, k[0]) + k[1:4] + "\u2066" + k[4:], // both, and a bidi isolate
		}
		inject(func(t *trace, _ string) ([][]byte, [][]byte) {
			var out [][]byte
			for i, f := range forms {
				id := fmt.Sprintf("0190f3a4-0000-7000-8000-0000000e%04d", i)
				var e []byte
				switch i % 3 {
				case 0:
					e = injected(t, id, "reasoning.summary", int64(900000+i), map[string]any{"text": "KEYFORM"})
				case 1:
					e = injected(t, id, "tool_call.started", int64(900000+i), map[string]any{
						"toolCallId": fmt.Sprintf("echo-%d", i), "toolName": "echo", "parameters": map[string]any{"q": "KEYFORM", "NAMEFORM": 1}})
				case 2:
					e = injected(t, id, "error.occurred", int64(900000+i), map[string]any{
						"error": map[string]any{"code": "internal", "source": "tool", "retryable": true, "message": "KEYFORM"}})
				}
				lit := []byte(`"echo ` + f + ` end"`)
				e = bytes.ReplaceAll(e, []byte(`"KEYFORM"`), lit)
				e = bytes.ReplaceAll(e, []byte(`"NAMEFORM"`), []byte(`"`+f+`"`))
				out = append(out, e)
			}
			return out, nil
		})(0, job, a)
	},
})

// HostileText holds, as a JSON string's body, what a terminal could act
// on: escape sequences (CSI, OSC 8), C1 controls (CSI, OSC, ST) and bidi
// characters (overrides, isolates, marks), each escaped and raw, and a
// byte 0x9b that is not part of any UTF-8 character.
const HostileText = `\u001b[31mred\u001b[0m \u001b]8;;https://x\u001b\\link \u009b31m \u009d0;title\u009c ` +
	`\u202eRLO\u202c \u2066LRI\u2069 \u202aLRE \u202bRLE \u202dLRO \u2067RLI \u2068FSI \u200eLRM \u200fRLM \u061cALM ` +
	"\u009b32m \u009d0;raw\u009c \u202eraw-RLO\u202c \u2066raw-LRI\u2069 \u200f \x9b7m"

// KeyEchoHostileText echoes the key, plain, split by a zero-width space,
// split by an escape sequence and with a letter \u-escaped, in strings
// that also carry HostileText, beside members that carry HostileText
// alone: in a reasoning summary, a tool call's parameters and an error.
// Redacting the key must not undo what keeps the rest inert.
var KeyEchoHostileText = register("key-echo-hostile-text", Fault{
	Doc: "the key echoed (plain, split by a zero-width space or an escape sequence, \\u-escaped) amid escape sequences, C1 controls and bidi characters",
	Trace: func(_ int, job string, a *Answer) {
		k := a.Key
		if len(k) < 8 {
			return
		}
		forms := []string{
			k,
			k[:4] + "\u200b" + k[4:],
			k[:5] + `\u001b[31m` + k[5:],
			k[:1] + fmt.Sprintf(`\u%04x`, k[1]) + k[2:],
		}
		inject(func(t *trace, _ string) ([][]byte, [][]byte) {
			var out [][]byte
			n := 0
			for _, f := range forms {
				for kind := range 3 {
					id := fmt.Sprintf("0190f3a4-0000-7000-8000-0000000f%04d", n)
					var e []byte
					switch kind {
					case 0:
						e = injected(t, id, "reasoning.summary", int64(910000+n), map[string]any{"text": "KEYFORM", "note": "HOSTILE"})
					case 1:
						e = injected(t, id, "tool_call.started", int64(910000+n), map[string]any{
							"toolCallId": fmt.Sprintf("hostile-%d", n), "toolName": "echo", "parameters": map[string]any{"q": "KEYFORM", "h": "HOSTILE"}})
					case 2:
						e = injected(t, id, "error.occurred", int64(910000+n), map[string]any{
							"error": map[string]any{"code": "internal", "source": "tool", "retryable": true, "message": "KEYFORM", "hint": "HOSTILE"}})
					}
					e = bytes.ReplaceAll(e, []byte(`"KEYFORM"`), []byte(`"echo `+f+` `+HostileText+` end"`))
					e = bytes.ReplaceAll(e, []byte(`"HOSTILE"`), []byte(`"`+HostileText+`"`))
					out = append(out, e)
					n++
				}
			}
			return out, nil
		})(0, job, a)
	},
})
