package jsonview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// bigJSON is an array of n search results, about 250 bytes each.
func bigJSON(n int) jsontext.Value {
	var b strings.Builder
	b.WriteString(`{"query":"espresso","results":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"url":"https://example.com/page/%d","title":"Result number %d","score":%d.5,"fresh":true,"snippet":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore %d","tags":["a","b"]}`, i, i, i%100, i)
	}
	b.WriteString(`]}`)
	return jsontext.Value(b.String())
}

func benchView(b *testing.B, n int, expand bool) {
	v := bigJSON(n)
	m := New(v, DefaultStyles())
	m.SetSize(120, 40)
	if expand {
		m.ExpandAll()
	}
	m.MoveBy(m.Len() / 2) // the middle of the document
	m.View()
	b.ResetTimer()
	for range b.N {
		_ = m.View()
	}
	b.ReportMetric(float64(len(v)), "input-bytes")
	b.ReportMetric(float64(m.Len()), "rows")
}

// View costs the same whatever the size: only the 40 visible rows are
// rendered.
func BenchmarkView_Small_Expanded(b *testing.B) { benchView(b, 10, true) }
func BenchmarkView_5MB_Expanded(b *testing.B)   { benchView(b, 20_000, true) }
func BenchmarkView_5MB_Folded(b *testing.B)     { benchView(b, 20_000, false) }

// Parse and layout: once per value (New), once per width or fold change.
func BenchmarkNew_5MB(b *testing.B) {
	v := bigJSON(20_000)
	b.SetBytes(int64(len(v)))
	for range b.N {
		m := New(v, DefaultStyles())
		m.SetSize(120, 40)
	}
}

func BenchmarkExpandAll_5MB(b *testing.B) {
	v := bigJSON(20_000)
	m := New(v, DefaultStyles())
	m.SetSize(120, 40)
	b.ResetTimer()
	for range b.N {
		m.ExpandAll()
		m.FoldAll()
	}
}
