package main

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestDevTunesTheCollectorUnlessGOGCOrGOMEMLIMITIsSet(t *testing.T) {
	prevPercent := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(prevPercent); debug.SetMemoryLimit(prevLimit) })

	if p, l := tuneGC(lookup(map[string]string{"GOGC": "100", "GOMEMLIMIT": "1GiB"})); p || l {
		t.Fatalf("GOGC and GOMEMLIMIT set: tuned %v %v", p, l)
	}
	if got := debug.SetGCPercent(-1); got != 100 {
		t.Fatalf("GOGC set: the target became %d", got)
	}
	debug.SetGCPercent(100)

	if p, l := tuneGC(lookup(map[string]string{})); !p || !l {
		t.Fatalf("nothing set: tuned %v %v", p, l)
	}
	if got := debug.SetGCPercent(100); got != devGCPercent {
		t.Fatalf("the target is %d, want %d", got, devGCPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != devMemoryLimit {
		t.Fatalf("the memory limit is %d, want %d", got, devMemoryLimit)
	}
}
