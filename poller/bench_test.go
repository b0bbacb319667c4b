package poller

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/firewatch/firewatch/model"
)

// benchBody is a trace body of n events, the shape the service sends.
func benchBody(n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"success":true,"id":"%s","events":[`, stubJob)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(ev(fmt.Sprintf("0190f3a4-0000-7000-8000-%012d", i), i, "reasoning.summary",
			`,"text":"Compared the pricing pages of the three vendors; the second one hides its rate limits behind a sales call."`))
	}
	b.WriteString(`],"creditsUsed":120}`)
	return b.Bytes()
}

// BenchmarkPoll is the cost of one poll that brings nothing new (the
// steady state: the service sends the whole trace every time), without and
// with a recording (which scans each body whole for its top-level members).
func BenchmarkPoll(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		body := benchBody(n)
		for _, mode := range []struct {
			name      string
			recording bool
			same      bool // the body read told the decoder it is the last one
		}{{"recording", true, false}, {"plain", false, false}, {"plain-same", false, true}} {
			b.Run(fmt.Sprintf("events=%d/%s", n, mode.name), func(b *testing.B) {
				l := &loop{dec: model.NewDecoder()}
				if mode.recording {
					l.rec = &recorder{w: io.Discard}
				}
				if _, _, err := l.decode(body, 0); err != nil {
					b.Fatal(err)
				}
				same := 0
				if mode.same {
					same = len(body)
				}
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := l.decode(body, same); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRecord is the cost of recording a poll that brought 100 new
// events.
func BenchmarkRecord(b *testing.B) {
	p, err := model.DecodeTrace(benchBody(100))
	if err != nil {
		b.Fatal(err)
	}
	top := traceTop{id: []byte(`"` + stubJob + `"`), credits: []byte("120")}
	r := &recorder{w: io.Discard}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		r.id = nil
		r.poll(now, top, p)
	}
}
