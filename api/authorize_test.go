package api

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// perpsKey is the withdrawing user's key (a fixed one), strangerKey another wallet's.
var (
	perpsKey, _    = crypto.HexToECDSA("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	strangerKey, _ = crypto.HexToECDSA("8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63")
	perpsUser      = crypto.PubkeyToAddress(perpsKey.PublicKey)
	stranger       = crypto.PubkeyToAddress(strangerKey.PublicKey)
	authorizeNonce = uint64(1770329064777)
)

// perpsRequest stores request n from origin (1337 for a withdrawal from the perps exchange) of
// user, with its order id, through the store's own insert.
func perpsRequest(t *testing.T, st *store.Store, n int, origin uint64, user common.Address) (requestID string, orderID common.Hash) {
	t.Helper()
	requestID, orderID = fmt.Sprintf("0x%064x", 0xa000+n), common.HexToHash(fmt.Sprintf("0x%x", 0xb000+n))
	if err := st.InsertQuote(context.Background(), intent.NewQuote{
		Record:  intent.Record{ID: requestID, Status: intent.StatusWaiting, User: user.Hex(), Recipient: user.Hex()},
		OrderID: orderID.Hex(), ExpiresAt: time.Now().Add(time.Hour), Origin: origin, Dest: 31338, VolumeUSD: decimal.NewFromInt(10)}); err != nil {
		t.Fatal(err)
	}
	return requestID, orderID
}

// signedAuthorize is the authorize step's post as the SDK sends it: the step's body (with the
// referrer it adds), and k's signature of the message m in the query.
func signedAuthorize(t *testing.T, k *ecdsa.PrivateKey, m perps.NonceMapping) call {
	t.Helper()
	return signedAuthorizeUnder(t, perps.Default(), k, m)
}

// signedAuthorizeUnder is signedAuthorize with the message naming the exchange x.
func signedAuthorizeUnder(t *testing.T, x perps.Exchange, k *ecdsa.PrivateKey, m perps.NonceMapping) call {
	t.Helper()
	hash, _, err := apitypes.TypedDataAndHash(x.NonceMappingTypedData(m))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(hash, k)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return authorizeCall(perps.AuthorizeBodyOf(m), hexutil.Encode(sig))
}

// authorizeCall posts body with signature.
func authorizeCall(body perps.AuthorizeBody, signature string) call {
	return call{"POST", "/authorize?signature=" + signature, fmt.Sprintf(`{"type":%q,"walletChainId":%d,"wallet":%q,"depositor":%q,`+
		`"nonce":%d,"id":%q,"signatureChainId":%d,"referrer":"relay.link"}`,
		body.Type, body.WalletChainID, body.Wallet, body.Depositor, body.Nonce, body.ID, body.SignatureChainID)}
}

// authorizeAPI serves the API over st, over real HTTP, limited by limits when it is not nil.
func authorizeAPI(t *testing.T, st *store.Store, limits *ratelimit.Limiter) string {
	t.Helper()
	s := &Server{Store: st, Chains: unreachableChains(t).Registry(), Quotes: &quote.Engine{}, Indexer: &fakeIndexer{},
		Logger: slog.New(slog.DiscardHandler), Limits: limits}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

func withdrawalMapping(order common.Hash) perps.NonceMapping {
	return perps.NonceMapping{Wallet: perpsUser, Depositor: perpsUser, OrderID: order, Nonce: authorizeNonce, SignatureChainID: 1}
}

// "Step authorize ... Then post to /authorize. The signature may be made on any EVM chain":
// the wallet's signature over the body's message binds the nonce to the order, on the default
// chain or another; posting the same binding again answers the binding stored.
func TestAuthorizeSignedByTheWalletBindsTheNonceToTheOrder(t *testing.T) {
	st := store.New(testenv.Pool(t))
	base := authorizeAPI(t, st, nil)
	requestID, order := perpsRequest(t, st, 1, perps.ChainID, perpsUser)
	m := withdrawalMapping(order)
	a := send(t, base, signedAuthorize(t, perpsKey, m), nil)
	want := map[string]any{"message": "Nonce mapping stored", "requestId": requestID, "orderId": order.Hex(),
		"wallet": strings.ToLower(perpsUser.Hex()), "depositor": strings.ToLower(perpsUser.Hex()), "nonce": float64(authorizeNonce),
		"signatureChainId": float64(1)}
	if a.status != http.StatusOK || fmt.Sprint(a.body) != fmt.Sprint(want) {
		t.Fatalf("authorize: %d %v, want 200 %v", a.status, a.body, want)
	}
	// The same binding again, this time signed on the wallet's chain (42161): the first stands.
	again := m
	again.SignatureChainID = 42161
	if a := send(t, base, signedAuthorize(t, perpsKey, again), nil); a.status != http.StatusOK || fmt.Sprint(a.body) != fmt.Sprint(want) {
		t.Fatalf("the same again: %d %v, want 200 %v", a.status, a.body, want)
	}
	bound, err := st.PerpsNonceMapping(context.Background(), perpsUser.Hex(), authorizeNonce)
	if err != nil || bound.RequestID != requestID || bound.SignatureChainID != 1 || !strings.HasPrefix(bound.Signature, "0x") {
		t.Fatalf("stored: %+v %v", bound, err)
	}

	// Another request signed on another chain (the user's active one, as the SDK overrides it).
	requestID2, order2 := perpsRequest(t, st, 2, perps.ChainID, perpsUser)
	m2 := withdrawalMapping(order2)
	m2.Nonce, m2.SignatureChainID = authorizeNonce+1, 8453
	if a := send(t, base, signedAuthorize(t, perpsKey, m2), nil); a.status != http.StatusOK || a.body["requestId"] != requestID2 ||
		a.body["signatureChainId"] != float64(8453) {
		t.Fatalf("signed on chain 8453: %d %v", a.status, a.body)
	}
}

// "The deposit must use exactly the nonce of the authorization; otherwise the transfer cannot be
// tied to the requestId": a nonce is bound to one order and an order to one nonce (409).
func TestAuthorizeRefusesANonceOfAnotherOrderAndAnotherNonceForTheOrder(t *testing.T) {
	st := store.New(testenv.Pool(t))
	base := authorizeAPI(t, st, nil)
	_, order1 := perpsRequest(t, st, 1, perps.ChainID, perpsUser)
	_, order2 := perpsRequest(t, st, 2, perps.ChainID, perpsUser)
	if a := send(t, base, signedAuthorize(t, perpsKey, withdrawalMapping(order1)), nil); a.status != http.StatusOK {
		t.Fatalf("first: %d %v", a.status, a.body)
	}
	reused := withdrawalMapping(order2) // the nonce already bound to order 1
	a := send(t, base, signedAuthorize(t, perpsKey, reused), nil)
	checkError(t, "the nonce for another order", a.status, a.body, CodeNonceMappingConflict)
	other := withdrawalMapping(order1)
	other.Nonce++
	a = send(t, base, signedAuthorize(t, perpsKey, other), nil)
	checkError(t, "the order with another nonce", a.status, a.body, CodeNonceMappingConflict)
	if _, err := st.PerpsNonceMapping(context.Background(), perpsUser.Hex(), other.Nonce); err == nil {
		t.Fatal("a refused binding was stored")
	}
}

// "They only affect signature validity, not fund routing": a signature that is not the wallet's
// over the message the body describes is refused (400 INVALID_SIGNATURE), whether the body
// disagrees with what was signed (another depositor, nonce, order or signatureChainId) or
// another key signed it; nothing is stored.
func TestAuthorizeRefusesASignatureThatIsNotTheWalletsOverTheBody(t *testing.T) {
	st := store.New(testenv.Pool(t))
	base := authorizeAPI(t, st, nil)
	_, order := perpsRequest(t, st, 1, perps.ChainID, perpsUser)
	m := withdrawalMapping(order)
	good := signedAuthorize(t, perpsKey, m)
	sig := good.path[strings.Index(good.path, "=")+1:]
	for name, change := range map[string]func(*perps.NonceMapping){
		"depositor differs":        func(b *perps.NonceMapping) { b.Depositor = stranger },
		"nonce differs":            func(b *perps.NonceMapping) { b.Nonce++ },
		"signatureChainId differs": func(b *perps.NonceMapping) { b.SignatureChainID = 10 },
	} {
		b := m
		change(&b)
		a := send(t, base, authorizeCall(perps.AuthorizeBodyOf(b), sig), nil)
		checkError(t, name, a.status, a.body, CodeInvalidSignature)
	}
	flipped := []byte(sig)
	flipped[10] ^= 1 // another r: another signer, or none
	for name, c := range map[string]call{
		"another key's signature": signedAuthorize(t, strangerKey, m),
		"a corrupted signature":   authorizeCall(perps.AuthorizeBodyOf(m), string(flipped)),
		"a short signature":       authorizeCall(perps.AuthorizeBodyOf(m), sig[:len(sig)-2]),
		"not hex":                 authorizeCall(perps.AuthorizeBodyOf(m), "0xzz"),
	} {
		a := send(t, base, c, nil)
		checkError(t, name, a.status, a.body, CodeInvalidSignature)
	}
	if _, err := st.PerpsNonceMapping(context.Background(), perpsUser.Hex(), authorizeNonce); err == nil {
		t.Fatal("a refused authorization was stored")
	}
}

// "Withdrawal: ... the origin chain is 1337": the order must be a stored request's, a withdrawal
// from the perps exchange, and the wallet its user; every field of the body is checked.
func TestAuthorizeChecksTheOrderAndEveryField(t *testing.T) {
	st := store.New(testenv.Pool(t))
	base := authorizeAPI(t, st, nil)
	_, order := perpsRequest(t, st, 1, perps.ChainID, perpsUser)
	_, evmOrder := perpsRequest(t, st, 2, 31337, perpsUser)
	unknown := withdrawalMapping(common.HexToHash("0xdead"))
	notMine := perps.NonceMapping{Wallet: stranger, Depositor: stranger, OrderID: order, Nonce: authorizeNonce, SignatureChainID: 1}
	for name, c := range map[string]struct {
		call
		code string
	}{
		"an unknown order":           {signedAuthorize(t, perpsKey, unknown), CodeRequestNotFound},
		"a request not from 1337":    {signedAuthorize(t, perpsKey, withdrawalMapping(evmOrder)), CodeInvalidInput},
		"a wallet that is not users": {signedAuthorize(t, strangerKey, notMine), CodeForbidden},
	} {
		a := send(t, base, c.call, nil)
		checkError(t, name, a.status, a.body, c.code)
	}

	good := signedAuthorize(t, perpsKey, withdrawalMapping(order))
	for name, body := range map[string]string{
		"not JSON":                     "{",
		"two values":                   good.body + good.body,
		"another type":                 strings.Replace(good.body, `"nonce-mapping"`, `"other"`, 1),
		"walletChainId not 1337":       strings.Replace(good.body, `"walletChainId":1337`, `"walletChainId":1`, 1),
		"walletChainId a string":       strings.Replace(good.body, `"walletChainId":1337`, `"walletChainId":"1337"`, 1),
		"nonce a string":               strings.Replace(good.body, fmt.Sprintf(`"nonce":%d`, authorizeNonce), fmt.Sprintf(`"nonce":"%d"`, authorizeNonce), 1),
		"nonce a fraction":             strings.Replace(good.body, fmt.Sprintf(`"nonce":%d`, authorizeNonce), `"nonce":1.5`, 1),
		"nonce zero":                   strings.Replace(good.body, fmt.Sprintf(`"nonce":%d`, authorizeNonce), `"nonce":0`, 1),
		"nonce over 2^53":              strings.Replace(good.body, fmt.Sprintf(`"nonce":%d`, authorizeNonce), `"nonce":9007199254740992`, 1),
		"signatureChainId missing":     strings.Replace(good.body, `"signatureChainId":1`, `"x":1`, 1),
		"wallet not an address":        strings.Replace(good.body, strings.ToLower(perpsUser.Hex()), "0x12", 1),
		"wallet a wrong checksum":      strings.Replace(good.body, strings.ToLower(perpsUser.Hex()), "0x2c7536E3605D9C16a7a3D7b1898e529396a65c24", 1),
		"id not 32 bytes":              strings.Replace(good.body, order.Hex(), "0x1234", 1),
		"depositor missing":            strings.Replace(good.body, `"depositor"`, `"depositer"`, 1),
		"signatureChainId is negative": strings.Replace(good.body, `"signatureChainId":1`, `"signatureChainId":-1`, 1),
	} {
		a := send(t, base, call{"POST", good.path, body}, nil)
		checkError(t, name, a.status, a.body, CodeInvalidInput)
	}
	a := send(t, base, call{"POST", "/authorize", good.body}, nil)
	checkError(t, "no signature", a.status, a.body, CodeInvalidInput)
}

// "POST /authorize, elevated key: 5 per 60 seconds per (key, wallet); aggregate ceiling 30 per
// 60 seconds per key": the 6th call for one wallet and the 31st for one key are 429, in the
// shape of every limit, whatever the calls' bodies.
func TestAuthorizeIsLimitedPerKeyAndWalletAndPerKey(t *testing.T) {
	st := store.New(testenv.Pool(t))
	p := ratelimit.DefaultPolicy()
	base := authorizeAPI(t, st, ratelimit.New(ratelimit.Options{Redis: testenv.RedisClient(t), Prefix: redisPrefix(), Policy: p}))
	_, order := perpsRequest(t, st, 1, perps.ChainID, perpsUser)
	for _, tier := range []auth.Tier{auth.TierDefault, auth.TierElevated} {
		key, _ := createKey(t, st, "acme-"+string(tier), store.NewKey{Label: "server", Tier: tier})
		header := map[string]string{"x-api-key": key}
		// One wallet: refused after 5 (bad signatures count like good ones).
		m := withdrawalMapping(order)
		c := authorizeCall(perps.AuthorizeBodyOf(m), "0x"+strings.Repeat("11", 65))
		overLimit(t, string(tier)+": one wallet", base, c, header, ratelimit.AuthorizeWallet, auth.Rate{Count: 5, Period: time.Minute})
		// Without the key, the same wallet counts against the client IP's buckets, not the key's.
		if a := send(t, base, signedAuthorize(t, perpsKey, withdrawalMapping(order)), nil); a.status != http.StatusOK {
			t.Fatalf("%s: a good authorize without a key (its IP's buckets): %d %v", tier, a.status, a.body)
		}
		// The key over many wallets: 30 in all (5 spent above), the 31st refused by the ceiling.
		for n := 6; n <= 31; n++ {
			w := common.HexToAddress(fmt.Sprintf("0x%040x", 0xc000+n))
			b := perps.AuthorizeBodyOf(perps.NonceMapping{Wallet: w, Depositor: w, OrderID: order, Nonce: uint64(n)})
			a := send(t, base, authorizeCall(b, "0x"+strings.Repeat("11", 65)), header)
			if n <= 30 {
				if a.status == http.StatusTooManyRequests {
					t.Fatalf("%s: call %d refused: %v", tier, n, a.body)
				}
				continue
			}
			checkError(t, fmt.Sprintf("%s: call %d", tier, n), a.status, a.body, CodeRateLimited)
			if got := a.header.Get("RateLimit-Policy"); !strings.Contains(got, `"authorize";q=30;w=60`) || a.header.Get("Retry-After") == "" {
				t.Fatalf("%s: the 31st call's fields: %v", tier, a.header)
			}
			if !strings.Contains(a.body["message"].(string), "authorize (30 per 60 s)") {
				t.Fatalf("%s: the 31st call's message: %v", tier, a.body)
			}
		}
	}
	// Without a key, per client IP: another wallet's 5 (the one above used 2 of its own).
	w := common.HexToAddress("0x00000000000000000000000000000000000000e1")
	c := authorizeCall(perps.AuthorizeBodyOf(perps.NonceMapping{Wallet: w, Depositor: w, OrderID: order, Nonce: 1}), "0x"+strings.Repeat("11", 65))
	overLimit(t, "no key: one wallet", base, c, nil, ratelimit.AuthorizeWallet, p.Anonymous[ratelimit.AuthorizeWallet])
}

// The authorize step's message names the exchange as the quote wrote it (the perps chain's
// configured word, chains.Chain.Exchange): POST /authorize verifies that message, not the local
// exchange's default naming.
func TestAuthorizeVerifiesTheMessageUnderTheChainsOwnExchangeNaming(t *testing.T) {
	st := store.New(testenv.Pool(t))
	venue := devnet.ExchangeChainConfig(deadRPC)
	venue.Exchange = "Venue"
	reg, err := chains.NewRegistry(append(devnet.ChainConfigs(map[uint64]string{31337: deadRPC, 31338: deadRPC}), venue))
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Store: st, Chains: reg, Quotes: &quote.Engine{}, Indexer: &fakeIndexer{}, Logger: slog.New(slog.DiscardHandler)}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	_, order := perpsRequest(t, st, 1, perps.ChainID, perpsUser)
	m := withdrawalMapping(order)
	// Signed under the default naming: not the message the quote asked for.
	if a := send(t, hs.URL, signedAuthorize(t, perpsKey, m), nil); a.status != http.StatusUnauthorized && a.status != http.StatusBadRequest {
		t.Fatalf("signed under the default naming: %d %v, want it refused", a.status, a.body)
	}
	if a := send(t, hs.URL, signedAuthorizeUnder(t, perps.Exchange{Word: "Venue"}, perpsKey, m), nil); a.status != http.StatusOK {
		t.Fatalf("signed under the chain's naming: %d %v, want 200", a.status, a.body)
	}
}
