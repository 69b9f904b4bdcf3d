package main

import (
	"runtime/debug"
)

// The garbage collector of `dev`, the process that holds the whole engine and the Temporal
// server: with Go's default (GOGC=100) it collected about every 100 ms at 50 intents a second
// and took about a tenth of the process's CPU, on the path of every fill. A target of 400%
// (a heap up to five times what is live, a few hundred MB here) cut the machine's busy cores at
// that load from about 1.5 to 1.3 (BENCHMARKS.md); the soft memory limit makes the collector
// work harder rather than let the heap pass it. GOGC and GOMEMLIMIT, when set, are Go's own and
// win.
const (
	devGCPercent   = 400
	devMemoryLimit = 2 << 30
)

// tuneGC applies devGCPercent and devMemoryLimit where the environment (lookup) sets neither
// GOGC nor GOMEMLIMIT, and reports what it set.
func tuneGC(lookup func(string) (string, bool)) (percent bool, limit bool) {
	if _, set := lookup("GOGC"); !set {
		debug.SetGCPercent(devGCPercent)
		percent = true
	}
	if _, set := lookup("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(devMemoryLimit)
		limit = true
	}
	return percent, limit
}
