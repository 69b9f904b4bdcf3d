package main

import (
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 51 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond} {
		if got := percentile(d, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if percentile(nil, 50) != 0 {
		t.Error("percentile of nothing")
	}
}

// The anatomy is read off the chains' block times and the engine's transitions: each span is the
// difference of the two ends it names, and the engine's share starts at the block of the last
// required confirmation (the deposit's block + confirmations - 1) and ends at the submitted
// status, or at the fill's arrival in the destination node's pool (its broadcast).
func TestSummaryAnatomy(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	dep, fill := common.HexToHash("0x01"), common.HexToHash("0x02")
	origin := &watcher{blocks: map[uint64]time.Time{10: at(500), 11: at(1500)}, txs: map[common.Hash]uint64{dep: 10}}
	dest := &watcher{blocks: map[uint64]time.Time{20: at(2600)}, txs: map[common.Hash]uint64{fill: 20},
		pool: map[common.Hash]time.Time{fill: at(1850)}}
	r := &intentRun{due: at(0), quoted: at(10), sent: at(20), deposit: dep.Hex(), fillHash: fill.Hex(), final: "success",
		status: map[string]time.Time{"routed": at(700), "pending": at(1800), "submitted": at(1900), "success": at(2900)}}
	l := &load{cfg: config{origin: 1, dest: 2, confirmations: 2, route: "bridge", wallets: 1},
		watch: map[uint64]chainWatch{1: origin, 2: dest}, runs: []*intentRun{r}}
	s := l.summarise(cpuTimes{}, cpuTimes{}, "", "")
	want := map[string]float64{
		"deposit sent -> deposit mined (block seen)":                                     480,
		"deposit mined -> pending (confirmations, attestation)":                          1300,
		"  of which: deposit mined -> routed to its workflow (waiting with the deposit)": 200,
		"  of which: routed -> pending":                                                  1100,
		"pending -> submitted (fill signed and broadcast)":                               100,
		"submitted -> fill mined (block seen)":                                           700,
		"fill mined -> success":                                                          300,
		"deposit mined -> success":                                                       2400,
		"deposit sent -> success":                                                        2880,
		"engine share: last confirmation's block -> submitted":                           400,
		"engine share: last confirmation's block -> fill in the destination node's pool": 350,
	}
	for _, sp := range s.Spans {
		if w, ok := want[sp.Name]; !ok || sp.N != 1 || sp.P50ms != w {
			t.Errorf("%s: n %d p50 %v, want 1 and %v", sp.Name, sp.N, sp.P50ms, w)
		}
	}
	if s.Ended["success"] != 1 {
		t.Errorf("ended %v", s.Ended)
	}
}

// The steady window's spans count only the intents that succeed between the 10th and the 90th
// success, as the steady rate does: a slow first burst shows in the run's percentiles, not in
// the window's.
func TestSteadyWindowLeavesTheFirstAndLastSuccessesOut(t *testing.T) {
	l := oneIntentABlock(20, 100, 2000, func(i int) int {
		if i == 0 {
			return 900 // the cold first burst
		}
		return 200
	})
	s := l.summarise(cpuTimes{}, cpuTimes{}, "", "")
	got := map[string]span{}
	for _, sp := range s.Spans {
		got[sp.Name] = sp
	}
	if sp := got["engine share: last confirmation's block -> fill in the destination node's pool"]; sp.N != 20 || sp.MaxMs != 900 {
		t.Errorf("the run's share: %+v", sp)
	}
	if sp := got["steady window: engine share, last confirmation's block -> fill in the destination node's pool"]; sp.N != 17 || sp.MaxMs != 200 {
		t.Errorf("the window's share: %+v", sp)
	}
}

// A run's p99 is its slowest blocks: the summary names them, slowest first, with when they came.
func TestTheSummaryNamesTheSlowestConfirmingBlocks(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	d := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	byBlock := map[uint64][]time.Duration{10: d(100, 150), 11: d(120, 400, 130), 12: d(90), 13: d(300)}
	got := slowest(byBlock, func(b uint64) time.Time { return t0.Add(time.Duration(b) * time.Second) }, t0, 2)
	want := []blockShare{{Block: 11, AtSeconds: 11, Fills: 3, FirstMs: 120, LastMs: 400}, {Block: 13, AtSeconds: 13, Fills: 1, FirstMs: 300, LastMs: 300}}
	if !slices.Equal(got, want) {
		t.Fatalf("slowest = %+v, want %+v", got, want)
	}
}

// The targets of issue 18 (`make bench-intents`): at least 50 intents a second steady, deposit
// mined -> success p99 at most 5 s, the engine's share p99 at most 300 ms, every intent paid once;
// each verdict names its target and the run's figure, and a run without targets gets none.
func TestTargetsAreMetOrMissedEachOnItsOwn(t *testing.T) {
	want := targets{steady: 50, successP99: 5 * time.Second, engineP99: 300 * time.Millisecond}
	met := func(vs []verdict) []bool {
		var out []bool
		for _, v := range vs {
			out = append(out, v.Met)
		}
		return out
	}
	if got := met(want.check(50.3, 2500*time.Millisecond, 300*time.Millisecond, 0)); !slices.Equal(got, []bool{true, true, true, true}) {
		t.Errorf("a run on every target: %v", got)
	}
	if got := met(want.check(48.9, 5001*time.Millisecond, 301*time.Millisecond, 1)); !slices.Equal(got, []bool{false, false, false, false}) {
		t.Errorf("a run off every target: %v", got)
	}
	// A span nobody reached (no fill seen in the pool) is no figure, and misses its target.
	if got := met(want.check(50, 0, 0, 0)); !slices.Equal(got, []bool{true, false, false, true}) {
		t.Errorf("a run without latencies: %v", got)
	}
	if !want.check(49.0, time.Second, time.Millisecond, 0)[0].Met {
		t.Error("49/s, within 2% of 50/s, misses the steady target")
	}
	vs := want.check(50.3, 2500*time.Millisecond, 254*time.Millisecond, 0)
	if vs[2].Got != "254 ms" || vs[0].Got != "50.3/s" {
		t.Errorf("figures: %+v", vs)
	}
	if (targets{}).check(10, time.Second, time.Second, 3) != nil {
		t.Error("a run without targets has verdicts")
	}
}

// The targets are checked against the whole run, not only its steady window: a slow first
// block counts.
func TestTargetsSeeTheWholeRun(t *testing.T) {
	l := oneIntentABlock(100, 1000, 2500, func(i int) int {
		if i < 2 {
			return 900 // the first blocks are slow
		}
		return 100
	})
	s := l.summarise(cpuTimes{}, cpuTimes{}, "", "")
	if s.engineP99 != 900*time.Millisecond {
		t.Errorf("engine share p99 %v, want the first blocks' 900ms", s.engineP99)
	}
	if s.successP99 != 2500*time.Millisecond {
		t.Errorf("success p99 %v", s.successP99)
	}
	if sp := s.Spans[len(s.Spans)-1]; sp.P99ms != 100 {
		t.Errorf("%s: p99 %v ms, want the steady window's 100", sp.Name, sp.P99ms)
	}
}

// The steady rate is the slope through the window's successes: fifty a second in lumps, a
// block's at a time, reads 50/s within the target's 2% wherever the window's ends fall in their
// lumps and wherever one lump missed its block (so that the next brings a hundred); the rate
// from the window's two ends read anything from 48.0 to 53.3/s on the same lumps.
func TestTheSteadyRateIsTheSlopeThroughTheSuccesses(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	lumps := func(late int) []time.Time {
		var out []time.Time
		for b := range 24 {
			at := b
			if b == late {
				at++ // missed its block
			}
			for i := range 50 {
				// A lump's successes spread over 60 ms.
				out = append(out, t0.Add(time.Duration(at)*time.Second+time.Duration(i*60/50)*time.Millisecond))
			}
		}
		slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
		return out
	}
	for _, late := range []int{-1, 2, 3, 12, 20, 21, 22} {
		if got := steadyRate(lumps(late)); got < 50*(1-steadyTolerance) || got > 50*(1+steadyTolerance) {
			t.Errorf("lump %d late: steady %.2f/s, want 50 within 2%%", late, got)
		}
	}
	even := make([]time.Time, 1000)
	for i := range even {
		even[i] = t0.Add(time.Duration(i) * 20 * time.Millisecond)
	}
	if got := steadyRate(even); got < 49.99 || got > 50.01 {
		t.Errorf("one success every 20 ms: %.3f/s", got)
	}
	if steadyRate(even[:9]) != 0 {
		t.Error("a rate from fewer than ten successes")
	}
}

// oneIntentABlock is a load of n intents, one a second: intent i's deposit is mined at i s, its
// last confirmation comes confirmAfter ms later, its fill reaches the destination node's pool
// (and is submitted) share(i) ms after that, and it succeeds successAfter ms after its deposit.
func oneIntentABlock(n, confirmAfter, successAfter int, share func(i int) int) *load {
	t0 := time.Unix(1_800_000_000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	origin := &watcher{blocks: map[uint64]time.Time{}, txs: map[common.Hash]uint64{}}
	dest := &watcher{blocks: map[uint64]time.Time{}, txs: map[common.Hash]uint64{}, pool: map[common.Hash]time.Time{}}
	var runs []*intentRun
	for i := range n {
		dep, fill := common.BigToHash(big.NewInt(int64(2*i+1))), common.BigToHash(big.NewInt(int64(2*i+2)))
		base, b := 1000*i, uint64(2*i)
		origin.blocks[b], origin.blocks[b+1] = at(base), at(base+confirmAfter)
		origin.txs[dep] = b
		pooled := at(base + confirmAfter + share(i))
		dest.pool[fill] = pooled
		runs = append(runs, &intentRun{due: at(base), quoted: at(base), sent: at(base), deposit: dep.Hex(), fillHash: fill.Hex(), final: "success",
			status: map[string]time.Time{"submitted": pooled, "success": at(base + successAfter)}})
	}
	return &load{cfg: config{origin: 1, dest: 2, confirmations: 2, route: "bridge", wallets: 1},
		watch: map[uint64]chainWatch{1: origin, 2: dest}, runs: runs}
}

// Issue 35, point 7: "plain transfer mined → success within 2 blocks plus the engine's share".
// On the deposit-address route the chains' part (transfer mined -> success less the engine's
// share) has its own target, added after the others' verdicts, and none when it is not set.
func TestTheDepositAddressChainTargetIsItsOwnVerdict(t *testing.T) {
	want := targets{steady: 20, chainP99: 2 * time.Second}
	vs := want.checkChain(want.check(20, time.Second, time.Second, 0), 1900*time.Millisecond)
	if len(vs) != 3 || !vs[2].Met || vs[2].Got != "1900 ms" {
		t.Errorf("a run within 2 s: %+v", vs)
	}
	if vs := want.checkChain(nil, 2001*time.Millisecond); len(vs) != 1 || vs[0].Met {
		t.Errorf("a run past 2 s: %+v", vs)
	}
	if vs := want.checkChain(nil, 0); len(vs) != 1 || vs[0].Met {
		t.Errorf("no figure meets no target: %+v", vs)
	}
	if vs := (targets{}).checkChain(nil, time.Second); vs != nil {
		t.Errorf("no target, no verdict: %+v", vs)
	}
}
