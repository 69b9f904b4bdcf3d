package exchange

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// usd is v whole USDC in perps units.
func usd(v int64) *big.Int { return new(big.Int).Mul(big.NewInt(v), big.NewInt(100_000_000)) }

func startExchange(t *testing.T) *Server {
	t.Helper()
	s, err := Start(t.Context(), Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func newKey(t *testing.T) (*ecdsa.PrivateKey, common.Address) {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k, crypto.PubkeyToAddress(k.PublicKey)
}

// post POSTs body as JSON and decodes the answer into out (when not nil); it returns the status.
func post(t *testing.T, url string, body, out any) int {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v: %s", url, err, raw)
		}
	}
	return resp.StatusCode
}

// nowNonce is a fresh nonce: the time in milliseconds plus off.
func nowNonce(off time.Duration) uint64 { return uint64(time.Now().Add(off).UnixMilli()) }

// send is a sendAsset of amount perps USDC to to, nonce n, on chain 0xa4b1.
func send(s *Server, to common.Address, amount string, n uint64) SendAsset {
	return SendAsset{SignatureChainID: "0xa4b1", ExchangeChain: "Mainnet", Destination: to.Hex(), Token: s.SpotUSDC().Wire(),
		Amount: amount, Nonce: n}
}

// submit signs a with key and POSTs it; it returns the answer's status and response.
func submit(t *testing.T, s *Server, key *ecdsa.PrivateKey, a SendAsset) reply {
	t.Helper()
	sig, err := Sign(key, s.Name(), a)
	if err != nil {
		t.Fatal(err)
	}
	return submitSigned(t, s, a, a.Nonce, sig)
}

func submitSigned(t *testing.T, s *Server, a SendAsset, nonce uint64, sig Signature) reply {
	t.Helper()
	var r reply
	if code := post(t, s.URL()+"/exchange", map[string]any{"action": Action(s.Name(), a), "nonce": nonce, "signature": sig}, &r); code != http.StatusOK {
		t.Fatalf("POST /exchange: %d", code)
	}
	return r
}

func mustOK(t *testing.T, r reply) {
	t.Helper()
	if r.Status != "ok" || !reflect.DeepEqual(r.Response, map[string]any{"type": "default"}) {
		t.Fatalf("answer %+v, want ok", r)
	}
}

func wantPerps(t *testing.T, s *Server, who common.Address, want *big.Int) {
	t.Helper()
	if got := s.PerpsBalance(who); got.Cmp(want) != 0 {
		t.Errorf("perps balance of %s: %s, want %s", who.Hex(), FormatAmount(got, 8), FormatAmount(want, 8))
	}
}

// TestSendAssetMovesExactlyTheAmount: a sendAsset signed with go-ethereum (the EIP-712 message
// of the domain "ExchangeSignTransaction" v1 on the wallet's chain id) moves exactly its amount
// from the signer's perps balance to the destination's, and the ledger of both shows it.
func TestSendAssetMovesExactlyTheAmount(t *testing.T) {
	s := startExchange(t)
	key, from := newKey(t)
	_, to := newKey(t)
	if err := s.CreditPerps(from, usd(100)); err != nil {
		t.Fatal(err)
	}
	if err := s.CreditPerps(to, big.NewInt(1)); err != nil { // an existing account: no activation fee
		t.Fatal(err)
	}
	n := nowNonce(0)
	mustOK(t, submit(t, s, key, send(s, to, "10.5", n)))
	wantPerps(t, s, from, new(big.Int).Sub(usd(100), big.NewInt(10_5000_0000)))
	wantPerps(t, s, to, big.NewInt(10_5000_0001))

	for _, who := range []common.Address{from, to} {
		tr := s.Transfers(who)
		if len(tr) != 1 || tr[0].User != from || tr[0].Destination != to || tr[0].Amount.Cmp(big.NewInt(10_5000_0000)) != 0 ||
			tr[0].Fee.Sign() != 0 || tr[0].Nonce != n {
			t.Errorf("transfers of %s: %+v", who.Hex(), tr)
		}
	}
}

// TestSendAssetToANewAccountChargesTheActivationFee holds "The perps exchange charges a USD 1
// activation fee on new deposits": a sendAsset to a destination that has never held anything
// costs its sender 1 USDC of perps USDC on top, recorded as the transfer's fee; the next one to
// the same destination costs nothing more.
func TestSendAssetToANewAccountChargesTheActivationFee(t *testing.T) {
	s := startExchange(t)
	key, from := newKey(t)
	_, to := newKey(t)
	if err := s.CreditPerps(from, usd(100)); err != nil {
		t.Fatal(err)
	}
	mustOK(t, submit(t, s, key, send(s, to, "10", nowNonce(0))))
	wantPerps(t, s, from, usd(89))
	wantPerps(t, s, to, usd(10))
	if tr := s.Transfers(to); len(tr) != 1 || tr[0].Fee.Cmp(ActivationFee) != 0 {
		t.Errorf("the transfer's fee: %+v", tr)
	}
	mustOK(t, submit(t, s, key, send(s, to, "10", nowNonce(time.Millisecond))))
	wantPerps(t, s, from, usd(79))
	wantPerps(t, s, to, usd(20))

	// From spot, the fee still comes from the sender's perps balance.
	_, other := newKey(t)
	if err := s.CreditSpot(from, s.SpotUSDC().ID, usd(5)); err != nil {
		t.Fatal(err)
	}
	a := send(s, other, "5", nowNonce(2*time.Millisecond))
	a.SourceDex, a.DestinationDex = DexSpot, DexSpot
	mustOK(t, submit(t, s, key, a))
	wantPerps(t, s, from, usd(78))
	if got := s.SpotBalance(other, s.SpotUSDC().ID); got.Cmp(usd(5)) != 0 {
		t.Errorf("the destination's spot USDC: %s", got)
	}
}

// snapshot is everything a refused action must leave as it was.
type snapshot struct {
	Perps, Spot map[common.Address]string
	Ledger      int
	Nonces      map[common.Address][]uint64
}

func take(s *Server, who ...common.Address) snapshot {
	out := snapshot{Perps: map[common.Address]string{}, Spot: map[common.Address]string{}, Nonces: map[common.Address][]uint64{}}
	for _, a := range who {
		out.Perps[a] = s.PerpsBalance(a).String()
		out.Spot[a] = s.SpotBalance(a, s.SpotUSDC().ID).String()
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	out.Ledger = len(s.st.ledger)
	for _, a := range who {
		out.Nonces[a] = append([]uint64(nil), s.st.nonces[a]...)
	}
	return out
}

// TestRefusalsChangeNothing: every action the exchange refuses (a bad signature, a reused
// nonce, a nonce outside (now - 2 days, now + 1 day), insufficient funds, too many decimals, a
// bad amount or token, ...) is answered {"status":"err"} with a message that says why, and
// changes no balance, no nonce and no ledger.
func TestRefusalsChangeNothing(t *testing.T) {
	s := startExchange(t)
	key, from := newKey(t)
	otherKey, _ := newKey(t)
	_, to := newKey(t)
	if err := s.CreditPerps(from, usd(100)); err != nil {
		t.Fatal(err)
	}
	if err := s.CreditPerps(to, usd(1)); err != nil {
		t.Fatal(err)
	}
	used := nowNonce(-time.Minute)
	mustOK(t, submit(t, s, key, send(s, to, "1", used)))

	sign := func(k *ecdsa.PrivateKey, a SendAsset) Signature {
		sig, err := Sign(k, s.Name(), a)
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	fresh := func() SendAsset { return send(s, to, "1", nowNonce(0)) }
	cases := []struct {
		name string
		run  func() reply
		want string
	}{
		{"signed by another key", func() reply { return submit(t, s, otherKey, fresh()) }, "does not exist"},
		{"signed for another amount", func() reply {
			a := fresh()
			sig := sign(key, a)
			a.Amount = "2"
			return submitSigned(t, s, a, a.Nonce, sig)
		}, "does not exist"},
		{"signed on another chain id", func() reply {
			a := fresh()
			sig := sign(key, a)
			a.SignatureChainID = "0x1"
			return submitSigned(t, s, a, a.Nonce, sig)
		}, "does not exist"},
		{"v is neither 27 nor 28", func() reply {
			a := fresh()
			sig := sign(key, a)
			sig.V -= 27
			return submitSigned(t, s, a, a.Nonce, sig)
		}, "invalid signature"},
		{"s is not hex", func() reply {
			a := fresh()
			sig := sign(key, a)
			sig.S = "0xzz"
			return submitSigned(t, s, a, a.Nonce, sig)
		}, "invalid signature"},
		{"the nonce was used", func() reply { return submit(t, s, key, send(s, to, "1", used)) }, "already used"},
		{"the nonce is more than 2 days old", func() reply {
			return submit(t, s, key, send(s, to, "1", nowNonce(-NonceMaxAge-time.Second)))
		}, "too far in the past"},
		{"the nonce is more than a day ahead", func() reply {
			return submit(t, s, key, send(s, to, "1", nowNonce(NonceMaxAhead+time.Second)))
		}, "too far in the future"},
		{"the request's nonce is not the action's", func() reply {
			a := fresh()
			return submitSigned(t, s, a, a.Nonce+1, sign(key, a))
		}, "is not the request's nonce"},
		{"insufficient funds", func() reply { return submit(t, s, key, send(s, to, "99.00000001", nowNonce(0))) }, "Insufficient balance"},
		{"the activation fee is not covered", func() reply {
			_, newcomer := newKey(t)
			return submit(t, s, key, send(s, newcomer, "98.5", nowNonce(0)))
		}, "Insufficient balance"},
		{"more decimals than the token has", func() reply { return submit(t, s, key, send(s, to, "1.000000001", nowNonce(0))) }, "has 9 decimals; the token has 8"},
		{"a negative amount", func() reply { return submit(t, s, key, send(s, to, "-1", nowNonce(0))) }, "not a decimal number"},
		{"an exponent", func() reply { return submit(t, s, key, send(s, to, "1e2", nowNonce(0))) }, "not a decimal number"},
		{"a zero amount", func() reply { return submit(t, s, key, send(s, to, "0.0", nowNonce(0))) }, "must be positive"},
		{"an unknown token", func() reply {
			a := fresh()
			a.Token = "USDC:0x6d1e7cde53ba9467b783cb7c530ce055"
			return submit(t, s, key, a)
		}, "unknown token"},
		{"perps USDC to spot", func() reply {
			a := fresh()
			a.Token, a.DestinationDex = "USDC:"+PerpsUSDCID.Hex(), DexSpot
			return submit(t, s, key, a)
		}, "perps balances only"},
		{"an unknown dex", func() reply {
			a := fresh()
			a.DestinationDex = "xyz"
			return submit(t, s, key, a)
		}, "unknown dex"},
		{"a sub-account", func() reply {
			a := fresh()
			a.FromSubAccount = to.Hex()
			return submit(t, s, key, a)
		}, "no sub-accounts"},
		{"another network", func() reply {
			a := fresh()
			a.ExchangeChain = "Testnet"
			return submit(t, s, key, a)
		}, "is not this exchange's network"},
		{"a destination that is no address", func() reply {
			a := fresh()
			a.Destination = "0x1234"
			return submit(t, s, key, a)
		}, "is not an address"},
		{"a signatureChainId that is no hex", func() reply {
			a := fresh()
			a.SignatureChainID = "42161"
			return submitSigned(t, s, a, a.Nonce, Signature{R: "0x1", S: "0x1", V: 27})
		}, "signatureChainId"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := take(s, from, to)
			r := c.run()
			msg, _ := r.Response.(string)
			if r.Status != "err" || !strings.Contains(msg, c.want) {
				t.Errorf("answer %+v, want err saying %q", r, c.want)
			}
			if after := take(s, from, to); !reflect.DeepEqual(before, after) {
				t.Errorf("a refusal changed the state:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

// TestNonceMustExceedTheSmallestOfTheHundredHighest holds the real exchange's nonce rule: once a
// signer has 100 nonces stored, a new one must be greater than the smallest of its 100 highest,
// even when it was never used and lies within the time window.
func TestNonceMustExceedTheSmallestOfTheHundredHighest(t *testing.T) {
	s := startExchange(t)
	key, from := newKey(t)
	_, to := newKey(t)
	if err := s.CreditPerps(from, usd(100)); err != nil {
		t.Fatal(err)
	}
	if err := s.CreditPerps(to, usd(1)); err != nil {
		t.Fatal(err)
	}
	base := nowNonce(-time.Hour)
	// Nonces base+2, base+4, ..., base+200: 100 of them, with gaps never used.
	for i := uint64(1); i <= NonceSetSize; i++ {
		mustOK(t, submit(t, s, key, send(s, to, "0.00000001", base+2*i)))
	}
	before := take(s, from, to)
	for n, why := range map[uint64]string{base + 1: "not greater than", base + 2: "already used", base: "not greater than"} {
		r := submit(t, s, key, send(s, to, "0.00000001", n))
		if msg, _ := r.Response.(string); r.Status != "err" || !strings.Contains(msg, why) {
			t.Errorf("nonce base+%d: %+v, want a refusal saying %q", n-base, r, why)
		}
	}
	if after := take(s, from, to); !reflect.DeepEqual(before, after) {
		t.Errorf("a refusal changed the state")
	}
	// A gap above the smallest is fine, and pushes the smallest (base+2) out of the set; base+4
	// is still there, base+5 is new and pushes base+3 out.
	mustOK(t, submit(t, s, key, send(s, to, "0.00000001", base+3)))
	r := submit(t, s, key, send(s, to, "0.00000001", base+4))
	if msg, _ := r.Response.(string); r.Status != "err" || !strings.Contains(msg, "already used") {
		t.Errorf("nonce base+4 again: %+v", r)
	}
	r = submit(t, s, key, send(s, to, "0.00000001", base+5))
	mustOK(t, r)
	s.st.mu.Lock()
	got := s.st.nonces[from]
	s.st.mu.Unlock()
	if len(got) != NonceSetSize || got[0] != base+4 {
		t.Errorf("stored nonces: %d, smallest base+%d", len(got), got[0]-base)
	}
}

// TestPerpsAndSpotMoves: spot USDC moves between a user's perps and spot balances (sourceDex ""
// and destinationDex "spot", and back) and between spot balances.
func TestPerpsAndSpotMoves(t *testing.T) {
	s := startExchange(t)
	key, from := newKey(t)
	usdc := s.SpotUSDC().ID
	if err := s.CreditPerps(from, usd(100)); err != nil {
		t.Fatal(err)
	}
	a := send(s, from, "40", nowNonce(0))
	a.DestinationDex = DexSpot
	mustOK(t, submit(t, s, key, a))
	wantPerps(t, s, from, usd(60))
	if got := s.SpotBalance(from, usdc); got.Cmp(usd(40)) != 0 {
		t.Errorf("spot USDC: %s", got)
	}
	a = send(s, from, "15.25", nowNonce(time.Millisecond))
	a.SourceDex = DexSpot
	mustOK(t, submit(t, s, key, a))
	wantPerps(t, s, from, big.NewInt(75_2500_0000))
	if got := s.SpotBalance(from, usdc); got.Cmp(big.NewInt(24_7500_0000)) != 0 {
		t.Errorf("spot USDC: %s", got)
	}
	// Perps USDC named by its listing address, 16 zero bytes, moves between perps balances.
	a = send(s, from, "0.25", nowNonce(2*time.Millisecond))
	a.Token = "USDC:" + PerpsUSDCID.Hex()
	mustOK(t, submit(t, s, key, a))
	wantPerps(t, s, from, big.NewInt(75_2500_0000))
}

// TestInfo: the info endpoint answers clearinghouseState (withdrawable perps USDC),
// spotClearinghouseState, ledgerUpdates (a user's sends, in and out, from startTime) and
// spotMeta in the exchange's shapes.
func TestInfo(t *testing.T) {
	s := startExchange(t)
	key, from := newKey(t)
	_, to := newKey(t)
	info := func(body map[string]any, out any) {
		t.Helper()
		if code := post(t, s.URL()+"/info", body, out); code != http.StatusOK {
			t.Fatalf("info %v: %d", body, code)
		}
	}
	var meta struct {
		Tokens []struct {
			Name        string `json:"name"`
			Index       int    `json:"index"`
			TokenID     string `json:"tokenId"`
			SzDecimals  int    `json:"szDecimals"`
			WeiDecimals int    `json:"weiDecimals"`
		} `json:"tokens"`
	}
	info(map[string]any{"type": "spotMeta"}, &meta)
	if len(meta.Tokens) != 1 || meta.Tokens[0].Name != "USDC" || meta.Tokens[0].Index != 0 || meta.Tokens[0].TokenID != DefaultSpotUSDCTokenID ||
		meta.Tokens[0].SzDecimals != 8 || meta.Tokens[0].WeiDecimals != 8 {
		t.Errorf("spotMeta: %+v", meta)
	}

	// The faucet, over HTTP.
	var r reply
	post(t, s.URL()+"/devnet/credit", map[string]any{"user": from.Hex(), "token": "perps", "amount": "100", "dex": ""}, &r)
	mustOK(t, r)
	post(t, s.URL()+"/devnet/credit", map[string]any{"user": from.Hex(), "token": s.SpotUSDC().Wire(), "amount": "7.5", "dex": "spot"}, &r)
	mustOK(t, r)
	post(t, s.URL()+"/devnet/credit", map[string]any{"user": from.Hex(), "token": "perps", "amount": "1.123456789", "dex": ""}, &r)
	if r.Status != "err" {
		t.Errorf("a credit with 9 decimals: %+v", r)
	}

	start := time.Now().UnixMilli()
	n := nowNonce(0)
	mustOK(t, submit(t, s, key, send(s, to, "10.5", n)))

	var ch struct {
		Withdrawable string `json:"withdrawable"`
	}
	info(map[string]any{"type": "clearinghouseState", "user": from.Hex()}, &ch)
	if ch.Withdrawable != "88.5" {
		t.Errorf("clearinghouseState withdrawable %q, want 88.5", ch.Withdrawable)
	}
	info(map[string]any{"type": "clearinghouseState", "user": common.Address{}.Hex()}, &ch)
	if ch.Withdrawable != "0.0" {
		t.Errorf("an unknown user's withdrawable %q, want 0.0", ch.Withdrawable)
	}

	var spot struct {
		Balances []map[string]any `json:"balances"`
	}
	info(map[string]any{"type": "spotClearinghouseState", "user": from.Hex()}, &spot)
	want := []map[string]any{{"coin": "USDC", "token": 0.0, "tokenId": DefaultSpotUSDCTokenID, "total": "7.5", "hold": "0.0", "entryNtl": "0.0"}}
	if !reflect.DeepEqual(spot.Balances, want) {
		t.Errorf("spotClearinghouseState: %v, want %v", spot.Balances, want)
	}

	type update struct {
		Time  int64          `json:"time"`
		Hash  string         `json:"hash"`
		Delta map[string]any `json:"delta"`
	}
	for _, who := range []common.Address{from, to} {
		var ups []update
		info(map[string]any{"type": "ledgerUpdates", "user": who.Hex(), "startTime": start}, &ups)
		wantDelta := map[string]any{"type": "send", "user": from.Hex(), "destination": to.Hex(), "sourceDex": "", "destinationDex": "",
			"token": s.SpotUSDC().Wire(), "amount": "10.5", "fee": "1.0", "nonce": float64(n)}
		if len(ups) != 1 || !reflect.DeepEqual(ups[0].Delta, wantDelta) || ups[0].Time < start || len(ups[0].Hash) != 66 {
			t.Errorf("ledgerUpdates of %s: %+v", who.Hex(), ups)
		}
		info(map[string]any{"type": "ledgerUpdates", "user": who.Hex(), "startTime": time.Now().Add(time.Hour).UnixMilli()}, &ups)
		if len(ups) != 0 {
			t.Errorf("ledgerUpdates from an hour ahead: %+v", ups)
		}
	}

	if code := post(t, s.URL()+"/info", map[string]any{"type": "l2Book"}, nil); code != http.StatusBadRequest {
		t.Errorf("an unsupported info type: %d, want 400", code)
	}
	if code := post(t, s.URL()+"/info", map[string]any{"type": "clearinghouseState", "user": "nobody"}, nil); code != http.StatusBadRequest {
		t.Errorf("a user that is no address: %d, want 400", code)
	}
	resp, err := http.Post(s.URL()+"/exchange", "application/json", strings.NewReader("{"))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("an unreadable body: %d, want 422", resp.StatusCode)
	}
}

// TestParseAmountIsStrict: digits, optionally a point and digits; no sign, exponent, spaces or
// more decimals than the token has.
func TestParseAmountIsStrict(t *testing.T) {
	good := map[string]string{"1": "100000000", "10.5": "1050000000", "0.00000001": "1", "007": "700000000", "0": "0"}
	for in, want := range good {
		if v, err := ParseAmount(in, 8); err != nil || v.String() != want {
			t.Errorf("ParseAmount(%q) = %v, %v; want %s", in, v, err, want)
		}
	}
	for _, in := range []string{"", ".5", "5.", "-1", "+1", "1e3", " 1", "1 ", "1.000000001", "0x10", "1,5", "1..2", "NaN", strings.Repeat("9", 61)} {
		if v, err := ParseAmount(in, 8); err == nil {
			t.Errorf("ParseAmount(%q) = %v, want an error", in, v)
		}
	}
	for in, want := range map[int64]string{0: "0.0", 1: "0.00000001", 100000000: "1.0", 1050000000: "10.5", 123456789012: "1234.56789012"} {
		if got := FormatAmount(big.NewInt(in), 8); got != want {
			t.Errorf("FormatAmount(%d) = %q, want %q", in, got, want)
		}
	}
}

// The signer recovered from a go-ethereum signature is the key's address, on any chain id.
func TestSignerRecoversTheKey(t *testing.T) {
	key, addr := newKey(t)
	for _, chain := range []string{"0x1", "0xa4b1", "0x66eee"} {
		a := SendAsset{SignatureChainID: chain, ExchangeChain: "Mainnet", Destination: addr.Hex(), Token: "USDC:" + DefaultSpotUSDCTokenID, Amount: "1", Nonce: 1}
		sig, err := Sign(key, DefaultName, a)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := Signer(DefaultName, a, sig); err != nil || got != addr {
			t.Errorf("chain %s: recovered %s, %v; want %s", chain, got.Hex(), err, addr.Hex())
		}
		if got, err := Signer("Other", a, sig); err == nil && got == addr {
			t.Errorf("chain %s: the signature verified for another exchange name", chain)
		}
	}
}

// TestConcurrentSendsAreEachAppliedOnce: transfers posted at the same time, by one signer with
// distinct nonces and by another signer reusing the same nonces (nonces are per signer), are
// each applied exactly once: the balances add up to the cent and every nonce is stored.
func TestConcurrentSendsAreEachAppliedOnce(t *testing.T) {
	s := startExchange(t)
	keyA, a := newKey(t)
	keyB, b := newKey(t)
	_, to := newKey(t)
	for _, who := range []common.Address{a, b, to} {
		if err := s.CreditPerps(who, usd(100)); err != nil {
			t.Fatal(err)
		}
	}
	const n = 40
	base := nowNonce(-time.Minute)
	errs := make(chan error, 2*n)
	for i := range uint64(n) {
		for _, k := range []*ecdsa.PrivateKey{keyA, keyB} {
			go func() {
				act := send(s, to, "0.01", base+i)
				sig, err := Sign(k, s.Name(), act)
				if err != nil {
					errs <- err
					return
				}
				body, _ := json.Marshal(map[string]any{"action": Action(s.Name(), act), "nonce": act.Nonce, "signature": sig})
				resp, err := http.Post(s.URL()+"/exchange", "application/json", bytes.NewReader(body))
				if err != nil {
					errs <- err
					return
				}
				defer resp.Body.Close()
				var r reply
				if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "ok" {
					errs <- fmt.Errorf("answer %+v, %v", r, err)
					return
				}
				errs <- nil
			}()
		}
	}
	for range 2 * n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	wantPerps(t, s, a, new(big.Int).Sub(usd(100), big.NewInt(n*1_000_000)))
	wantPerps(t, s, b, new(big.Int).Sub(usd(100), big.NewInt(n*1_000_000)))
	wantPerps(t, s, to, new(big.Int).Add(usd(100), big.NewInt(2*n*1_000_000)))
	if got := len(s.Transfers(to)); got != 2*n {
		t.Errorf("the destination's ledger has %d transfers, want %d", got, 2*n)
	}
}
