package cli

import (
	"crypto/rand"
	"encoding/binary"

	"github.com/spf13/pflag"
)

// seedFlag registers --seed: 0 (the default) picks a fresh one, so two
// demos (or simulators) never share job ids, trace ids included.
func seedFlag(f *pflag.FlagSet, p *int64, what string) {
	f.Int64Var(p, "seed", 0, "the simulator's seed: the same seed gives the same "+what+", ids included (default: a fresh one, printed)")
}

// chooseSeed is the seed to run with: the one given, else a fresh random
// one (never 0, which the simulator takes as its own default).
func chooseSeed(given int64) int64 {
	if given != 0 {
		return given
	}
	var b [8]byte
	for {
		_, _ = rand.Read(b[:])
		// Positive, so that it reads back the same through --seed.
		if s := int64(binary.LittleEndian.Uint64(b[:]) >> 1); s != 0 {
			return s
		}
	}
}
