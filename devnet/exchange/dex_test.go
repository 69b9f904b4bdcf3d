package exchange

import (
	"log/slog"
	"math/big"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// startDexExchange runs an exchange with the HIP-3 DEX "xyz".
func startDexExchange(t *testing.T) *Server {
	t.Helper()
	s, err := Start(t.Context(), Options{Logger: slog.New(slog.DiscardHandler), Dexes: []string{"xyz"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestSendAssetHonoursSourceDexAndDestinationDex holds issue 38's "balances per address (perps
// USDC, spot tokens by token id, DEX-suffixed ids)": a transfer's sourceDex and destinationDex
// name the balance it moves out of and into, "" the perps balance, "spot" the spot one and a
// configured DEX's name that DEX's. USDC moves perps → xyz, xyz → another account's xyz (exactly
// its amount, no activation fee for an existing account), xyz → spot and spot → xyz, and each
// balance per (address, token, dex) moves by exactly the amount.
func TestSendAssetHonoursSourceDexAndDestinationDex(t *testing.T) {
	s := startDexExchange(t)
	key, from := newKey(t)
	_, to := newKey(t)
	usdc := s.SpotUSDC().ID
	if err := s.CreditPerps(from, usd(100)); err != nil {
		t.Fatal(err)
	}
	if err := s.CreditPerps(to, big.NewInt(1)); err != nil {
		t.Fatal(err)
	}
	dex := func(who common.Address) *big.Int { return s.DexBalance(who, "xyz", usdc) }
	move := func(src, dst string, to common.Address, amount string, off time.Duration) {
		t.Helper()
		a := send(s, to, amount, nowNonce(off))
		a.SourceDex, a.DestinationDex = src, dst
		mustOK(t, submit(t, s, key, a))
	}
	move("", "xyz", from, "40", 0)
	wantPerps(t, s, from, usd(60))
	if got := dex(from); got.Cmp(usd(40)) != 0 {
		t.Fatalf("xyz USDC after perps → xyz: %s, want 40 USDC", got)
	}
	move("xyz", "xyz", to, "12.5", time.Millisecond)
	if got, got2 := dex(from), dex(to); got.Cmp(big.NewInt(27_5000_0000)) != 0 || got2.Cmp(big.NewInt(12_5000_0000)) != 0 {
		t.Fatalf("xyz USDC after xyz → xyz: sender %s, recipient %s", got, got2)
	}
	wantPerps(t, s, from, usd(60)) // an existing destination: no activation fee
	wantPerps(t, s, to, big.NewInt(1))
	move("xyz", "spot", from, "7.5", 2*time.Millisecond)
	move("spot", "xyz", from, "2.5", 3*time.Millisecond)
	if got, spot := dex(from), s.SpotBalance(from, usdc); got.Cmp(big.NewInt(22_5000_0000)) != 0 || spot.Cmp(usd(5)) != 0 {
		t.Fatalf("after xyz → spot and back: xyz %s, spot %s", got, spot)
	}
	if got := s.SpotBalance(to, usdc); got.Sign() != 0 {
		t.Errorf("the recipient's spot USDC moved: %s", got)
	}
	tr := s.Transfers(to)
	if len(tr) != 1 || tr[0].SourceDex != "xyz" || tr[0].DestinationDex != "xyz" || tr[0].Token != s.SpotUSDC().Wire() {
		t.Errorf("the recipient's ledger: %+v", tr)
	}
}

// TestAnUnknownDexIsRefusedAndChangesNothing: "a DEX must exist (configured list) else the action
// is refused", in the exchange's own error shape ({"status":"err","response":"…"}, HTTP 200), and
// nothing changes: no balance, no nonce, no ledger line.
func TestAnUnknownDexIsRefusedAndChangesNothing(t *testing.T) {
	s := startDexExchange(t)
	key, from := newKey(t)
	_, to := newKey(t)
	if err := s.CreditPerps(from, usd(100)); err != nil {
		t.Fatal(err)
	}
	n := nowNonce(0)
	for _, dexes := range [][2]string{{"", "abc"}, {"abc", ""}, {"xyz", "XYZ"}, {"spot", "xy"}} {
		a := send(s, to, "1", n)
		a.SourceDex, a.DestinationDex = dexes[0], dexes[1]
		r := submit(t, s, key, a)
		msg, _ := r.Response.(string)
		if r.Status != "err" || !strings.Contains(msg, "unknown dex") {
			t.Errorf("dexes %q: %+v, want an err naming the unknown dex", dexes, r)
		}
	}
	wantPerps(t, s, from, usd(100))
	if len(s.Transfers(from)) != 0 {
		t.Errorf("ledger: %+v", s.Transfers(from))
	}
	// The nonce was not used: the same nonce is accepted for a transfer to a known DEX.
	a := send(s, to, "1", n)
	a.DestinationDex = "xyz"
	mustOK(t, submit(t, s, key, a))
	if got := s.DexBalance(to, "xyz", s.SpotUSDC().ID); got.Cmp(usd(1)) != 0 {
		t.Errorf("xyz USDC of the recipient: %s", got)
	}
}

// TestDexNamesAreChecked: a configured DEX is 1 to 32 ASCII letters and digits, neither "" nor
// "spot", and listed once.
func TestDexNamesAreChecked(t *testing.T) {
	for _, dexes := range [][]string{{""}, {"spot"}, {"x y"}, {"é"}, {strings.Repeat("a", 33)}, {"xyz", "xyz"}} {
		if s, err := Start(t.Context(), Options{Logger: slog.New(slog.DiscardHandler), Dexes: dexes}); err == nil {
			_ = s.Close()
			t.Errorf("dexes %q were accepted", dexes)
		}
	}
}

// TestInfoAnswersBalancesPerDex: clearinghouseState and spotClearinghouseState take the real
// exchange's "dex" field: with "xyz" they answer that DEX's USDC as withdrawable and its
// balances by token, in the shapes they have without it; an unknown dex is 400. The faucet
// credits a DEX balance ("dex":"xyz").
func TestInfoAnswersBalancesPerDex(t *testing.T) {
	s := startDexExchange(t)
	_, user := newKey(t)
	var r reply
	post(t, s.URL()+"/devnet/credit", map[string]any{"user": user.Hex(), "token": s.SpotUSDC().Wire(), "amount": "7.25", "dex": "xyz"}, &r)
	mustOK(t, r)
	post(t, s.URL()+"/devnet/credit", map[string]any{"user": user.Hex(), "token": s.SpotUSDC().Wire(), "amount": "1", "dex": "nope"}, &r)
	if msg, _ := r.Response.(string); r.Status != "err" || !strings.Contains(msg, "unknown dex") {
		t.Errorf("a credit to an unknown dex: %+v", r)
	}
	if err := s.CreditSpot(user, s.SpotUSDC().ID, usd(3)); err != nil {
		t.Fatal(err)
	}
	info := func(body map[string]any, out any) {
		t.Helper()
		if code := post(t, s.URL()+"/info", body, out); code != http.StatusOK {
			t.Fatalf("info %v: %d", body, code)
		}
	}
	var ch struct {
		Withdrawable string `json:"withdrawable"`
	}
	info(map[string]any{"type": "clearinghouseState", "user": user.Hex(), "dex": "xyz"}, &ch)
	if ch.Withdrawable != "7.25" {
		t.Errorf("clearinghouseState of xyz: withdrawable %q, want 7.25", ch.Withdrawable)
	}
	info(map[string]any{"type": "clearinghouseState", "user": user.Hex()}, &ch)
	if ch.Withdrawable != "0.0" {
		t.Errorf("clearinghouseState of the perps dex: withdrawable %q, want 0.0", ch.Withdrawable)
	}
	var spot struct {
		Balances []map[string]any `json:"balances"`
	}
	info(map[string]any{"type": "spotClearinghouseState", "user": user.Hex(), "dex": "xyz"}, &spot)
	want := []map[string]any{{"coin": "USDC", "token": 0.0, "tokenId": DefaultSpotUSDCTokenID, "total": "7.25", "hold": "0.0", "entryNtl": "0.0"}}
	if !reflect.DeepEqual(spot.Balances, want) {
		t.Errorf("spotClearinghouseState of xyz: %v, want %v", spot.Balances, want)
	}
	info(map[string]any{"type": "spotClearinghouseState", "user": user.Hex()}, &spot)
	if len(spot.Balances) != 1 || spot.Balances[0]["total"] != "3.0" {
		t.Errorf("spotClearinghouseState: %v, want the 3 USDC of spot only", spot.Balances)
	}
	if code := post(t, s.URL()+"/info", map[string]any{"type": "clearinghouseState", "user": user.Hex(), "dex": "abc"}, nil); code != http.StatusBadRequest {
		t.Errorf("an unknown dex: %d, want 400", code)
	}
}
