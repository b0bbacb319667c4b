package ui

import "sort"

// union is the union of sorted lists, addressed by rank, without
// materialising it: the timeline of an agent's subtree is the union of its
// agents' event lists (each already in timeline order), and the finished
// tool calls of a subtree the union of per-agent lists in finish order.
// Every operation costs O(lists × log length), never O(total), so moving
// through a 100 000-event timeline filtered to one subtree costs what it
// costs at 1 000 events.
//
// key must be strictly increasing within a list and distinct across lists;
// all keys are in [0, span).
type union[T any] struct {
	lists [][]T
	key   func(T) int
	span  int
}

// Len is the number of items.
func (u *union[T]) Len() int {
	n := 0
	for _, l := range u.lists {
		n += len(l)
	}
	return n
}

// Rank is the number of items whose key is less than k.
func (u *union[T]) Rank(k int) int {
	n := 0
	for _, l := range u.lists {
		n += sort.Search(len(l), func(i int) bool { return u.key(l[i]) >= k })
	}
	return n
}

// keyAt is the key of the item of rank i (0 ≤ i < Len).
func (u *union[T]) keyAt(i int) int {
	if len(u.lists) == 1 {
		return u.key(u.lists[0][i])
	}
	// The smallest k with more than i items at or below it.
	return sort.Search(u.span, func(k int) bool { return u.Rank(k+1) > i })
}

// Window appends to dst the items of ranks [i, i+n), in order.
func (u *union[T]) Window(dst []T, i, n int) []T {
	total := u.Len()
	if i < 0 {
		n += i
		i = 0
	}
	if i >= total || n <= 0 {
		return dst
	}
	n = min(n, total-i)
	if len(u.lists) == 1 {
		return append(dst, u.lists[0][i:i+n]...)
	}
	k0 := u.keyAt(i)
	cur := make([]int, len(u.lists))
	for j, l := range u.lists {
		cur[j] = sort.Search(len(l), func(x int) bool { return u.key(l[x]) >= k0 })
	}
	for ; n > 0; n-- {
		best, bk := -1, 0
		for j, l := range u.lists {
			if cur[j] < len(l) {
				if k := u.key(l[cur[j]]); best < 0 || k < bk {
					best, bk = j, k
				}
			}
		}
		if best < 0 {
			break
		}
		dst = append(dst, u.lists[best][cur[best]])
		cur[best]++
	}
	return dst
}

// At is the item of rank i.
func (u *union[T]) At(i int) (T, bool) {
	var buf [1]T
	w := u.Window(buf[:0], i, 1)
	if len(w) == 0 {
		var zero T
		return zero, false
	}
	return w[0], true
}
