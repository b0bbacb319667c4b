package util

//go:generate go run ../_tools unicode-case-folding-map -o ../_tools/unicode-case-folding-map.json
//go:generate go run ../_tools emb-structs -i ../_tools/unicode-case-folding-map.json -o ./unicode_case_folding.gen.go

import "sync"

// unicodeCaseFoldings is built on the first non-ASCII rune folded, not at
// program start (firewatch's copy: see FIREWATCH.md).
var unicodeCaseFoldings = sync.OnceValue(buildUnicodeCaseFoldings)

func buildUnicodeCaseFoldings() map[rune][]rune {
	unicodeCaseFoldings := make(map[rune][]rune, _unicodeCaseFoldingLength)
	cTo := 0
	for i := range _unicodeCaseFoldingLength {
		tTo := cTo + int(_unicodeCaseFoldingToIndex[i])
		to := _unicodeCaseFoldingTo[cTo:tTo]
		unicodeCaseFoldings[_unicodeCaseFoldingFrom[i]] = to
		cTo = tTo
	}
	return unicodeCaseFoldings
}
