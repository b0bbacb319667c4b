package attention

import "time"

// median keeps durations as they arrive and answers their median in constant
// time: the upper median, the element a sorted copy holds at len/2. A
// max-heap holds the lower half and a min-heap the upper half (with the
// extra element when the count is odd), so adding costs O(log n) where
// keeping a sorted slice cost O(n): at 100 000 events, an agent's gaps
// between events made the tracker's first pass quadratic.
type median struct {
	lo hheap // max-heap (values negated)
	hi hheap // min-heap
}

// Len is how many durations were added.
func (m *median) Len() int { return len(m.lo) + len(m.hi) }

// Add takes d in.
func (m *median) Add(d time.Duration) {
	if len(m.hi) > 0 && d < m.hi[0] {
		m.lo.push(-d)
	} else {
		m.hi.push(d)
	}
	// Rebalance: hi holds len/2 rounded up.
	switch {
	case len(m.lo) > len(m.hi):
		m.hi.push(-m.lo.pop())
	case len(m.hi) > len(m.lo)+1:
		m.lo.push(-m.hi.pop())
	}
}

// Median is the upper median, 0 when nothing was added.
func (m *median) Median() time.Duration {
	if len(m.hi) == 0 {
		return 0
	}
	return m.hi[0]
}

// hheap is a binary min-heap of durations.
type hheap []time.Duration

func (h *hheap) push(d time.Duration) {
	*h = append(*h, d)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *hheap) pop() time.Duration {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s[l] < s[m] {
			m = l
		}
		if r < n && s[r] < s[m] {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
