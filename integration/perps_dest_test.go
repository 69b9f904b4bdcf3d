package integration

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/exchange"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/e2e"
)

// Issue 38, point 2: "deposits to 1337 (recipient an exchange address; the activation fee passed
// through in the swap cost; the fill a sendAsset from the solver's exchange account)". USDC on
// the devnet's 31337 is bridged to the local perps exchange through the API to success: to the
// perps USDC of an account the exchange has never seen (the exchange charges the solver its USD 1
// activation fee, which the quote passed through in the swap cost) and to the spot USDC of an
// account that exists (no fee). The recipient holds exactly the quoted output, the solver's
// account paid it (and the fee) in one transfer, and the status names that transfer.
func TestDepositsToThePerpsExchangeReachSuccess(t *testing.T) {
	s := testkit.Start(t, testkit.Options{Exchange: true})
	solver := devnet.SolverAddress()
	spot := s.Exchange.SpotUSDC().ID
	for i, tc := range []struct {
		name, currency string
		recipient      common.Address
		fee            int64 // the activation fee the solver pays, perps units
		swapUSD        string
	}{
		{"USDC to the perps USDC of a new account", "0x00000000000000000000000000000000", freshAddress(t), 100_000_000, "-1.00"},
		{"USDC to the spot USDC of an account that exists", exchange.DefaultSpotUSDCTokenID, devnet.TestAddresses()[2], 0, "0.00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			acct := devnet.TestAccounts()[4+i]
			q, err := s.API.Quote(ctx, map[string]any{"user": acct.Address.Hex(), "recipient": tc.recipient.Hex(),
				"originChainId": 31337, "destinationChainId": devnet.ExchangeChainID, "originCurrency": devnet.USDCAddress.Hex(),
				"destinationCurrency": tc.currency, "amount": "25000000", "tradeType": "EXACT_INPUT", "includeProtocolData": true})
			if err != nil {
				t.Fatal(err)
			}
			out := q.Details.CurrencyOut
			if out.Currency.ChainID != devnet.ExchangeChainID || out.Currency.Decimals != 8 || !strings.EqualFold(out.Currency.Address, tc.currency) {
				t.Fatalf("currencyOut %+v", out.Currency)
			}
			if got := q.Details.ExpandedPriceImpact.Swap.USD; !decimal.RequireFromString(got).Equal(decimal.RequireFromString(tc.swapUSD)) {
				t.Errorf("the swap cost is USD %s, want %s (the exchange's activation fee passed through for a new account only)", got, tc.swapUSD)
			}
			want, _ := new(big.Int).SetString(out.Amount, 10)
			held := func(a common.Address) *big.Int {
				if tc.currency == exchange.DefaultSpotUSDCTokenID {
					return s.Exchange.SpotBalance(a, spot)
				}
				return s.Exchange.PerpsBalance(a)
			}
			before, solverBefore, solverPerpsBefore := held(tc.recipient), held(solver), s.Exchange.PerpsBalance(solver)

			if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
				t.Fatal(err)
			}
			final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
			if err != nil {
				t.Fatal(err)
			}
			if final.Status != "success" || len(final.TxHashes) != 1 || final.DestinationChainID != devnet.ExchangeChainID {
				t.Fatalf("final %+v (seen %v)", final, seen)
			}
			if got := new(big.Int).Sub(held(tc.recipient), before); got.Cmp(want) != 0 {
				t.Fatalf("the recipient received %s, quoted %s exactly", got, want)
			}
			var sent []exchange.Transfer
			for _, x := range s.Exchange.Transfers(solver) {
				if x.User == solver && x.Destination == tc.recipient {
					sent = append(sent, x)
				}
			}
			if len(sent) != 1 || sent[0].Amount.Cmp(want) != 0 || sent[0].Fee.Int64() != tc.fee {
				t.Fatalf("the solver's transfers to the recipient: %+v, want one of %s with a fee of %d", sent, want, tc.fee)
			}
			paid := new(big.Int).Sub(solverBefore, held(solver))
			if tc.currency == exchange.DefaultSpotUSDCTokenID {
				if paid.Cmp(want) != 0 || s.Exchange.PerpsBalance(solver).Cmp(solverPerpsBefore) != 0 {
					t.Fatalf("the solver paid %s of spot USDC and its perps balance moved: want %s and no fee", paid, want)
				}
			} else if paid.Cmp(new(big.Int).Add(want, big.NewInt(tc.fee))) != 0 {
				t.Fatalf("the solver paid %s, want the output %s and the activation fee %d", paid, want, tc.fee)
			}
			kept, err := s.Sys.Store.PerpsPayment(ctx, q.RequestID, intent.TxKindFill)
			if err != nil || !strings.EqualFold(kept.TxHash, final.TxHashes[0]) {
				t.Fatalf("the status names %v, the kept fill %+v (%v)", final.TxHashes, kept, err)
			}
		})
	}
}

// Issue 38, points 2 and 3: a withdrawal from the perps exchange is quoted only with
// protocolVersion v2 ("Withdrawal: protocolVersion: v2 is mandatory", 400 without), and its
// steps are the spec's two, in order: authorize (kind signature: the NonceMapping message, domain
// ServiceNonceMapping version 2 on chain 1 by default, its id the order id, posted to /authorize
// with the same fields) and deposit (kind transaction: a sendAsset of the amount, as a decimal
// string, to the depository account, with the same nonce, and its EIP-712 types).
func TestAWithdrawalFromThePerpsExchangeIsQuotedWithItsTwoSteps(t *testing.T) {
	s := testkit.Start(t, testkit.Options{Exchange: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	user := devnet.TestAddresses()[3]
	body := map[string]any{"user": user.Hex(), "recipient": user.Hex(), "originChainId": devnet.ExchangeChainID,
		"destinationChainId": 31337, "originCurrency": "0x00000000000000000000000000000000", "destinationCurrency": devnet.USDCAddress.Hex(),
		"amount": "1000000000", "tradeType": "EXACT_INPUT", "includeProtocolData": true}
	var refused map[string]any
	if code, err := s.API.Do(ctx, http.MethodPost, "/quote/v2", body, &refused); err != nil || code != http.StatusBadRequest ||
		refused["errorCode"] != "INVALID_INPUT" || !strings.Contains(fmt.Sprint(refused["message"]), "protocolVersion v2") {
		t.Fatalf("without protocolVersion: %d %v %v, want 400 INVALID_INPUT naming protocolVersion v2", code, refused, err)
	}
	body["protocolVersion"] = "v2"
	var q map[string]any
	if code, err := s.API.Do(ctx, http.MethodPost, "/quote/v2", body, &q); err != nil || code != http.StatusOK {
		t.Fatalf("with protocolVersion v2: %d %v %v", code, q, err)
	}
	orderID := str(t, q, "protocol.v2.orderId")
	steps, _ := q["steps"].([]any)
	if len(steps) != 2 || str(t, steps[0], "id") != "authorize" || str(t, steps[0], "kind") != "signature" ||
		str(t, steps[1], "id") != "deposit" || str(t, steps[1], "kind") != "transaction" {
		t.Fatalf("steps %v, want authorize (signature) then deposit (transaction)", steps)
	}
	auth := get(t, steps[0], "items").([]any)[0]
	sign := get(t, auth, "data.sign")
	if str(t, sign, "domain.name") != "ServiceNonceMapping" || str(t, sign, "domain.version") != "2" ||
		get(t, sign, "domain.chainId").(float64) != 1 || str(t, sign, "primaryType") != "NonceMapping" ||
		!strings.EqualFold(str(t, sign, "value.wallet"), user.Hex()) || !strings.EqualFold(str(t, sign, "value.depositor"), user.Hex()) ||
		str(t, sign, "value.id") != orderID {
		t.Fatalf("authorize's sign %v", sign)
	}
	post := get(t, auth, "data.post")
	nonce := get(t, sign, "value.nonce").(float64)
	if str(t, post, "endpoint") != "/authorize" || str(t, post, "method") != "POST" || str(t, post, "body.type") != "nonce-mapping" ||
		get(t, post, "body.walletChainId").(float64) != devnet.ExchangeChainID || get(t, post, "body.nonce").(float64) != nonce ||
		str(t, post, "body.id") != orderID || get(t, post, "body.signatureChainId").(float64) != 1 {
		t.Fatalf("authorize's post %v", post)
	}
	dep := get(t, get(t, steps[1], "items").([]any)[0], "data")
	in, _ := new(big.Int).SetString(str(t, q, "details.currencyIn.amount"), 10)
	wantAmount := decimal.NewFromBigInt(in, -8)
	if str(t, dep, "action.type") != "sendAsset" || get(t, dep, "nonce").(float64) != nonce ||
		get(t, dep, "action.parameters.nonce").(float64) != nonce ||
		!strings.EqualFold(str(t, dep, "action.parameters.destination"), devnet.ExchangeDepositoryAddress().Hex()) ||
		!decimal.RequireFromString(str(t, dep, "action.parameters.amount")).Equal(wantAmount) ||
		str(t, dep, "eip712PrimaryType") != "ExchangeTransaction:SendAsset" {
		t.Fatalf("deposit's data %v (amount in %s)", dep, in)
	}
}

// Issue 38, "Done when": "a withdrawal from it reaches success through the API and the local
// exchange". A wallet with perps USDC on the local exchange quotes a withdrawal to USDC on 31337
// (protocolVersion v2), signs the authorize step's NonceMapping and posts it to /authorize as the
// SDK does (POST {endpoint}?signature=0x… with the step's body), then signs the deposit step's
// sendAsset with the same nonce and posts it to the exchange: the engine finds the transfer to
// its depository account, ties it to the order by the nonce, has the oracles attest it (the
// nonce mapping handed to them with it), fills on 31337, and the request reaches success with
// the recipient holding exactly the quoted output.
func TestAWithdrawalFromThePerpsExchangeReachesSuccess(t *testing.T) {
	s := testkit.Start(t, testkit.Options{Exchange: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	recipient := freshAddress(t)
	q, requestID, final := withdrawFromExchange(t, ctx, s, devnet.TestAccounts()[5], recipient, "0x00000000000000000000000000000000", "2500000000")
	want := str(t, q, "details.currencyOut.amount")
	if got := s.Balance(t, 31337, devnet.USDCAddress, recipient); got.String() != want {
		t.Fatalf("the recipient holds %s, quoted %s", got, want)
	}
	if got := s.Exchange.PerpsBalance(devnet.ExchangeDepositoryAddress()); got.String() != "2600000000" {
		t.Fatalf("the depository account holds %s, want its 100000000 and the 2500000000 withdrawn", got)
	}
	// Issue 38 point 5: the public SDK's perps flow checks the legacy /intents/status (v1); it
	// follows the request to success too.
	var v1 struct {
		Status     string   `json:"status"`
		InTxHashes []string `json:"inTxHashes"`
	}
	if code, err := s.API.Do(ctx, http.MethodGet, "/intents/status?requestId="+requestID, nil, &v1); err != nil || code != http.StatusOK ||
		v1.Status != "success" || len(v1.InTxHashes) != 1 || v1.InTxHashes[0] != final.InTxHashes[0] {
		t.Fatalf("GET /intents/status: %d %+v %v, want success with the transfer", code, v1, err)
	}
}

// withdrawFromExchange is a withdrawal as the public SDK makes it: acct quotes amount of currency
// from the exchange to USDC on 31337 for recipient (protocolVersion v2), signs the authorize
// step's NonceMapping and posts it to /authorize, signs the deposit step's sendAsset with the
// same nonce and posts it to the exchange, and waits for the request to end, which must be in
// success with the transfer in and the fill out. It returns the quote, its request id and the
// final status.
func withdrawFromExchange(t *testing.T, ctx context.Context, s *testkit.Stack, acct devnet.Account, recipient common.Address,
	currency, amount string) (map[string]any, string, *e2e.Status) {
	t.Helper()
	var q map[string]any
	if code, err := s.API.Do(ctx, http.MethodPost, "/quote/v2", map[string]any{"user": acct.Address.Hex(), "recipient": recipient.Hex(),
		"originChainId": devnet.ExchangeChainID, "destinationChainId": 31337, "originCurrency": currency,
		"destinationCurrency": devnet.USDCAddress.Hex(), "amount": amount, "tradeType": "EXACT_INPUT", "protocolVersion": "v2",
		"includeProtocolData": true}, &q); err != nil || code != http.StatusOK {
		t.Fatalf("quote: %d %v %v", code, q, err)
	}
	requestID, orderID := str(t, q, "requestId"), str(t, q, "protocol.v2.orderId")
	steps := q["steps"].([]any)
	auth := get(t, steps[0], "items").([]any)[0]
	nonce := uint64(get(t, auth, "data.sign.value.nonce").(float64))
	x := perps.Exchange{}
	td := x.NonceMappingTypedData(perps.NonceMapping{Wallet: acct.Address, Depositor: acct.Address, OrderID: common.HexToHash(orderID), Nonce: nonce})
	sig := signTyped(t, td, acct.Key)
	var bound map[string]any
	if code, err := s.API.Do(ctx, http.MethodPost, "/authorize?signature="+sig, get(t, auth, "data.post.body"), &bound); err != nil || code != http.StatusOK {
		t.Fatalf("POST /authorize: %d %v %v", code, bound, err)
	}
	params := get(t, get(t, steps[1], "items").([]any)[0], "data.action.parameters")
	send := perps.SendAsset{Destination: str(t, params, "destination"), SourceDex: str(t, params, "sourceDex"),
		DestinationDex: str(t, params, "destinationDex"), Token: str(t, params, "token"), Amount: str(t, params, "amount"), Nonce: nonce}
	// The wallet signs for its active chain (31337), as the SDK does.
	postSendAsset(t, ctx, s.Exchange.URL(), send, acct.Key)
	final, seen, err := s.API.WaitStatus(ctx, requestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "success" || len(final.InTxHashes) != 1 || len(final.TxHashes) != 1 {
		t.Fatalf("final %+v (seen %v), want success with the transfer in and the fill out", final, seen)
	}
	return q, requestID, final
}

// Issue 38 point 1 (the exchange's balances "by token id, DEX-suffixed ids"), the other way: a
// withdrawal of USDC held on the DEX xyz (currency 0x6d1e…ce054 followed by hex("xyz")) reaches
// success; the user's sendAsset moves it between the xyz balances (sourceDex and destinationDex
// "xyz"), the depository's xyz balance grows by exactly the amount, and the recipient on 31337
// holds exactly the quoted output.
func TestAWithdrawalOfUSDCOnTheDexXyzReachesSuccess(t *testing.T) {
	s := testkit.Start(t, testkit.Options{Exchange: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	acct := devnet.TestAccounts()[6]
	usdc := s.Exchange.SpotUSDC().ID
	if err := s.Exchange.CreditDex(acct.Address, devnet.ExchangeDex, usdc, big.NewInt(5_000_000_000)); err != nil {
		t.Fatal(err)
	}
	depository := devnet.ExchangeDepositoryAddress()
	before := s.Exchange.DexBalance(depository, devnet.ExchangeDex, usdc)
	recipient := freshAddress(t)
	q, _, _ := withdrawFromExchange(t, ctx, s, acct, recipient, devnet.ExchangeDexUSDCAddress, "2500000000")
	params := get(t, get(t, q["steps"].([]any)[1], "items").([]any)[0], "data.action.parameters")
	if str(t, params, "sourceDex") != devnet.ExchangeDex || str(t, params, "destinationDex") != devnet.ExchangeDex {
		t.Fatalf("the deposit step's sendAsset %v, want it between the xyz balances", params)
	}
	if got := new(big.Int).Sub(s.Exchange.DexBalance(depository, devnet.ExchangeDex, usdc), before); got.Int64() != 2_500_000_000 {
		t.Fatalf("the depository's xyz USDC grew by %s, want the 2500000000 withdrawn", got)
	}
	if got := s.Exchange.DexBalance(acct.Address, devnet.ExchangeDex, usdc); got.Int64() != 2_500_000_000 {
		t.Fatalf("the user's xyz USDC is %s, want the 2500000000 left", got)
	}
	want := str(t, q, "details.currencyOut.amount")
	if got := s.Balance(t, 31337, devnet.USDCAddress, recipient); got.String() != want {
		t.Fatalf("the recipient holds %s, quoted %s", got, want)
	}
}

// postSendAsset signs send with key for the wallet's active chain (31337), as the SDK does, and
// posts it to the exchange at url, which must take it.
func postSendAsset(t *testing.T, ctx context.Context, url string, send perps.SendAsset, key *ecdsa.PrivateKey) {
	t.Helper()
	x := perps.Exchange{}
	raw, err := hexutil.Decode(signTyped(t, x.SendAssetTypedData(send, 31337), key))
	if err != nil {
		t.Fatal(err)
	}
	req, err := x.ExchangeRequestOf(send, 31337, raw)
	if err != nil {
		t.Fatal(err)
	}
	var sent map[string]any
	if code, err := (&e2e.Client{BaseURL: url}).Do(ctx, http.MethodPost, "/exchange", req, &sent); err != nil ||
		code != http.StatusOK || sent["status"] != "ok" {
		t.Fatalf("POST /exchange: %d %v %v", code, sent, err)
	}
}

// signTyped signs EIP-712 typed data with key: 0x and r‖s‖v, v 27 or 28, as wallets answer.
func signTyped(t *testing.T, td apitypes.TypedData, key *ecdsa.PrivateKey) string {
	t.Helper()
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return hexutil.Encode(sig)
}

// Issue 38 point 4: "a transfer with another nonce cannot be tied to the request and is handled
// as an orphan". A wallet sends perps USDC to the engine's depository account under a nonce it
// bound to no order (no /authorize): the engine finds it, ties it to nothing, and refunds it
// in full to its sender out of the depository account (ORPHANED_DEPOSIT_REFUND), once.
func TestATransferToTheDepositoryUnderAnUnboundNonceIsRefundedAsAnOrphan(t *testing.T) {
	s := testkit.Start(t, testkit.Options{Exchange: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	acct := devnet.TestAccounts()[6]
	before := s.Exchange.PerpsBalance(acct.Address)
	send := perps.SendAsset{Destination: strings.ToLower(devnet.ExchangeDepositoryAddress().Hex()),
		Token: "USDC:" + exchange.DefaultSpotUSDCTokenID, Amount: "3.000000", Nonce: uint64(time.Now().UnixMilli())}
	postSendAsset(t, ctx, s.Exchange.URL(), send, acct.Key)
	var tx string
	for _, x := range s.Exchange.Transfers(acct.Address) {
		if x.Nonce == send.Nonce {
			tx = x.Hash.Hex()
		}
	}
	refundID := intent.DepositRefundRequestID(devnet.ExchangeChainID, tx, 0)
	final, seen, err := s.API.WaitStatus(ctx, refundID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "refund" || final.FailReason != string(intent.FailReasonOrphanedDepositRefund) || len(final.TxHashes) != 1 {
		t.Fatalf("the orphan's request %+v (seen %v), want refund ORPHANED_DEPOSIT_REFUND with one refund", final, seen)
	}
	if got := s.Exchange.PerpsBalance(acct.Address); got.Cmp(before) != 0 {
		t.Fatalf("the sender holds %s after the refund, %s before the transfer: want all of it back", got, before)
	}
	var back int
	for _, x := range s.Exchange.Transfers(acct.Address) {
		if x.User == devnet.ExchangeDepositoryAddress() {
			back++
		}
	}
	if back != 1 {
		t.Fatalf("%d transfers from the depository to the sender, want 1", back)
	}
}

// Issue 38, point 1: "balances per address (perps USDC, spot tokens by token id, DEX-suffixed
// ids)", with public-api-notes §7.1's "HIP-3 DEX tokens: spot address + hex(DEX name), e.g.
// 0x6d1e7cde53ba9467b783cb7c530ce05478797a for USDC on xyz". USDC on the devnet's 31337 is
// bridged to USDC on the local exchange's DEX xyz for an account the exchange has never seen: the
// request reaches success, the recipient's xyz balance grows by exactly the quoted output (and
// no other balance of it moves), and the solver paid it in one sendAsset naming the 16-byte
// token and the DEX in sourceDex/destinationDex, the activation fee out of its perps USDC.
func TestPerpsDepositToUSDCOnTheDexXyzReachesSuccess(t *testing.T) {
	s := testkit.Start(t, testkit.Options{Exchange: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	solver := devnet.SolverAddress()
	usdc := s.Exchange.SpotUSDC().ID
	acct := devnet.TestAccounts()[7]
	recipient := freshAddress(t)
	q, err := s.API.Quote(ctx, map[string]any{"user": acct.Address.Hex(), "recipient": recipient.Hex(),
		"originChainId": 31337, "destinationChainId": devnet.ExchangeChainID, "originCurrency": devnet.USDCAddress.Hex(),
		"destinationCurrency": devnet.ExchangeDexUSDCAddress, "amount": "25000000", "tradeType": "EXACT_INPUT", "includeProtocolData": true})
	if err != nil {
		t.Fatal(err)
	}
	out := q.Details.CurrencyOut
	if out.Currency.ChainID != devnet.ExchangeChainID || out.Currency.Decimals != 8 || out.Currency.Address != "0x6d1e7cde53ba9467b783cb7c530ce05478797a" {
		t.Fatalf("currencyOut %+v, want USDC on xyz", out.Currency)
	}
	if got := q.Details.ExpandedPriceImpact.Swap.USD; !decimal.RequireFromString(got).Equal(decimal.RequireFromString("-1.00")) {
		t.Errorf("the swap cost is USD %s, want -1.00 (the activation fee of a new account passed through)", got)
	}
	want, _ := new(big.Int).SetString(out.Amount, 10)
	xyz := func(a common.Address) *big.Int { return s.Exchange.DexBalance(a, devnet.ExchangeDex, usdc) }
	solverXyz, solverPerps := xyz(solver), s.Exchange.PerpsBalance(solver)

	if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "success" || len(final.TxHashes) != 1 || final.DestinationChainID != devnet.ExchangeChainID {
		t.Fatalf("final %+v (seen %v)", final, seen)
	}
	if got := xyz(recipient); got.Cmp(want) != 0 {
		t.Fatalf("the recipient's xyz USDC is %s, quoted %s exactly", got, want)
	}
	if p, sp := s.Exchange.PerpsBalance(recipient), s.Exchange.SpotBalance(recipient, usdc); p.Sign() != 0 || sp.Sign() != 0 {
		t.Fatalf("the recipient's perps (%s) or spot (%s) USDC moved", p, sp)
	}
	var sent []exchange.Transfer
	for _, x := range s.Exchange.Transfers(solver) {
		if x.User == solver && x.Destination == recipient {
			sent = append(sent, x)
		}
	}
	if len(sent) != 1 || sent[0].Amount.Cmp(want) != 0 || sent[0].Token != "USDC:"+exchange.DefaultSpotUSDCTokenID ||
		sent[0].SourceDex != devnet.ExchangeDex || sent[0].DestinationDex != devnet.ExchangeDex || sent[0].Fee.Cmp(exchange.ActivationFee) != 0 {
		t.Fatalf("the solver's transfers to the recipient: %+v, want one of %s USDC between the xyz balances, the activation fee charged", sent, want)
	}
	if paid := new(big.Int).Sub(solverXyz, xyz(solver)); paid.Cmp(want) != 0 {
		t.Fatalf("the solver paid %s of xyz USDC, want %s", paid, want)
	}
	if fee := new(big.Int).Sub(solverPerps, s.Exchange.PerpsBalance(solver)); fee.Cmp(exchange.ActivationFee) != 0 {
		t.Fatalf("the solver's perps USDC moved by %s, want the activation fee", fee)
	}
	kept, err := s.Sys.Store.PerpsPayment(ctx, q.RequestID, intent.TxKindFill)
	if err != nil || !strings.EqualFold(kept.TxHash, final.TxHashes[0]) {
		t.Fatalf("the status names %v, the kept fill %+v (%v)", final.TxHashes, kept, err)
	}
}
