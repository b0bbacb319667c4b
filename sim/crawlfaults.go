package sim

import (
	"fmt"
	"slices"
	"strings"
)

// Crawl faults (Options.CrawlFaults): crawls that misbehave the way real
// deployments have been seen to, for firewatch's watch to be tried
// against (and shown with firewatch serve --crawl-fault).
const (
	// CrawlFaultResend: the socket sends each document again after the
	// next one, as a delivery that is at least once does.
	CrawlFaultResend = "socket-resend"
	// CrawlFaultReorder: the socket sends the documents in swapped pairs,
	// not in the status list's order (pages finish out of order).
	CrawlFaultReorder = "socket-reorder"
	// CrawlFaultDrop: the socket closes, without done, after about a
	// quarter of the crawl's pages in document messages (a proxy's idle
	// timeout, a deploy).
	CrawlFaultDrop = "socket-drop"
	// CrawlFaultSilent: the socket sends every document, then neither done
	// nor a close, while the status says the crawl ended.
	CrawlFaultSilent = "socket-silent"
	// CrawlFaultForeignNext: the status answers' next links name another
	// origin (a deployment behind a proxy that names its own address).
	CrawlFaultForeignNext = "foreign-next"
	// CrawlFaultUnbounded: status answers carry every document the
	// request's limit asks for (Options.CrawlPageDocs aside), never cut by
	// size: with large documents (Options.CrawlMarkdownBytes) an answer
	// can be larger than a client reads.
	CrawlFaultUnbounded = "unbounded-pages"
)

var crawlFaultNames = []string{CrawlFaultResend, CrawlFaultReorder, CrawlFaultDrop, CrawlFaultSilent, CrawlFaultForeignNext, CrawlFaultUnbounded}

// CrawlFaults returns the crawl faults' names, for help and completion.
func CrawlFaults() []string { return slices.Clone(crawlFaultNames) }

// foreignOrigin is where CrawlFaultForeignNext's next links point.
const foreignOrigin = "http://firecrawl-api.internal:3002"

func checkCrawlFaults(faults []string) error {
	for _, f := range faults {
		if !slices.Contains(crawlFaultNames, f) {
			return fmt.Errorf("sim: unknown crawl fault %q (known: %s)", f, strings.Join(crawlFaultNames, ", "))
		}
	}
	return nil
}

func (s *Server) crawlFault(name string) bool { return slices.Contains(s.o.CrawlFaults, name) }

// socketPlan is the order the socket sends documents in: of the n
// documents settled so far (indexes into the crawl's documents), what to
// send after the sent already sent, and whether the crawl is over.
type socketPlan struct {
	resend, reorder bool
	next            int // the next document not yet sent once
	last            int // the last document sent, for resend; -1: none
}

// take returns the documents to send now, in order.
func (p *socketPlan) take(settled int, over bool) []int {
	var out []int
	for p.next < settled {
		i := p.next
		if p.reorder && i+1 >= settled && !over {
			break // its pair's other half has not settled yet
		}
		pair := []int{i}
		if p.reorder && i+1 < settled {
			pair = []int{i + 1, i}
		}
		for _, d := range pair {
			out = append(out, d)
			if p.resend && p.last >= 0 {
				out = append(out, p.last)
			}
			p.last = d
		}
		p.next += len(pair)
	}
	return out
}
