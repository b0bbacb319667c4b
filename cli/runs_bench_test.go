package cli

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/poller"
)

// BenchmarkRunsJSON is runs -o json through n runs of a local list (20 a
// page): the time per run must not grow with n (each page is written as
// it comes). go test ./cli -run '^$' -bench RunsJSON -benchtime 3x
func BenchmarkRunsJSON(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			f := &listFront{page: func(_ int64, p int64) []string {
				var out []string
				for i := range int64(poller.ListPageSize) {
					out = append(out, runJSON(p*100+i, "completed"))
				}
				return out
			}}
			hs := httptest.NewServer(f)
			defer hs.Close()
			b.Setenv("FIRECRAWL_API_URL", hs.URL)
			b.Setenv("FIRECRAWL_API_KEY", "fc-test")
			args := []string{"runs", "-o", "json", "--limit", fmt.Sprint(n)}
			b.ResetTimer()
			for b.Loop() {
				f.requests.Store(0)
				if code := execute(context.Background(), args, strings.NewReader(""), io.Discard, io.Discard, poller.Retry{}); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/run")
		})
	}
}
