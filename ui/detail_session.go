package ui

import (
	"time"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
)

// sessionState is a session's symbol, its style and a few words.
func sessionState(e *env, b *model.BrowserSession) (string, theme.Style, string) {
	st, sym := e.st, e.sym
	switch b.State {
	case model.StateRunning:
		s := "open"
		if t := startOf(b); !t.IsZero() {
			s += " since " + e.clockTime(t)
		}
		return sym.Session, st.Running, s
	case model.StateUnfinished:
		return sym.Unfinished, st.Warn, "unfinished"
	}
	s := "closed"
	if b.HasDuration {
		s += " after " + text.Duration(time.Duration(b.DurationMs)*time.Millisecond)
	}
	return sym.Pending, st.Muted, s
}

func newSessionDetail(e *env, b *model.BrowserSession, live *model.LiveSession) overlay {
	id := ""
	if b != nil {
		id = b.ID
	} else {
		id = live.ID
	}
	d := newDetailView(e, "Browser session "+describe.ShortID(id))
	current := func() *model.LiveSession {
		if b != nil {
			return b.Live
		}
		return live
	}
	var fieldsBody *textBody
	build := func() {
		f := &fields{env: e}
		f.field("session id", id)
		if b != nil {
			f.field("agent", e.agentName(b.AgentID))
			symbol, symSt, state := sessionState(e, b)
			f.styledField("state", styleText{symSt, symbol + " " + state})
			if b.Started != nil {
				f.field("opened", f.when(b.Started.OccurredAt))
			}
			if b.Finished != nil {
				f.field("closed", f.when(b.Finished.OccurredAt))
			}
			if b.HasDuration {
				f.field("duration", text.Duration(time.Duration(b.DurationMs)*time.Millisecond))
			} else if b.State == model.StateRunning {
				if dur, ok := e.since(startOf(b)); ok {
					f.field("open for", text.Elapsed(dur))
				}
			}
		} else {
			f.field("agent", "(the trace has not mentioned this session yet)")
		}
		switch lv := current(); {
		case lv != nil:
			f.styledField("live view", styleText{e.st.Accent, lv.LiveViewURL})
			if lv.ViewportWidth > 0 || lv.ViewportHeight > 0 {
				f.field("viewport", itoa(lv.ViewportWidth)+"x"+itoa(lv.ViewportHeight))
			}
			f.lines = append(f.lines, textLine{})
			f.muted(" o opens the live view in a browser (or copies it where there is none) · y copies it")
		case !e.liveView:
			f.field("live view", "not asked for: l turns live view on (the next poll asks the trace for links)")
		case b != nil && b.State == model.StateRunning:
			f.field("live view", "not in the last poll's active sessions yet")
		default:
			f.field("live view", "none: the session is closed")
		}
		if fieldsBody == nil {
			fieldsBody = newTextBody(e, f.lines)
		} else {
			fieldsBody.tv.setLines(f.lines)
			fieldsBody.tv.clamp()
		}
	}
	build()
	d.addTab("Session", fieldsBody)
	if b != nil && b.Started != nil {
		d.addTab("Start event", newJSONBody(e, b.Started.Raw, "start event"))
	}
	if b != nil && b.Finished != nil {
		d.addTab("Finish event", newJSONBody(e, b.Finished.Raw, "finish event"))
	}
	d.refresh = build
	d.concerns = func(delta *model.Delta) bool {
		if delta.LiveSessions || delta.RunChanged {
			return true
		}
		for _, x := range delta.Sessions {
			if x == b {
				return true
			}
		}
		return false
	}
	d.ticks = func() bool { return b != nil && b.State == model.StateRunning }
	d.link = func() (string, string) {
		if lv := current(); lv != nil {
			return lv.LiveViewURL, "live-view link"
		}
		return "", ""
	}
	d.copy = func() (string, string) {
		if lv := current(); lv != nil && lv.LiveViewURL != "" {
			return lv.LiveViewURL, "live-view link"
		}
		return id, "browser session id"
	}
	return d
}
