package integration

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/chains/evm/eip7702"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/testkit/e2e"
)

// gaslessUser is a fresh wallet holding usdc of the devnet's USDC on 31337 and no ETH at all.
func (s *stack) gaslessUser(t *testing.T, ctx context.Context, usdc *big.Int) *ecdsa.PrivateKey {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	funder := &e2e.Wallet{Key: devnet.TestAccounts()[9].Key, RPCs: s.RPCs}
	if _, err := funder.SendTx(ctx, quote.TxData{ChainID: 31337, To: devnet.USDCAddress.Hex(),
		Data: hexutil.Encode(evm.ERC20ABI.PackTransfer(crypto.PubkeyToAddress(key.PublicKey), usdc)), Value: "0"}); err != nil {
		t.Fatal(err)
	}
	return key
}

// gaslessBody is the POST /execute body that relays q's steps (approve and deposit) as one batch
// through the user's account delegated to the devnet's BatchExecutor: an EIP-7702 authorization
// at the user's nonce 0 and the batch signed by signer (the user, or someone else to make it fail).
func gaslessBody(t *testing.T, user, signer *ecdsa.PrivateKey, q *quote.Response, subsidize bool) map[string]any {
	t.Helper()
	var calls []eip7702.Call
	for _, st := range q.Steps {
		for _, it := range st.Items {
			v, _ := new(big.Int).SetString(it.Data.Value, 10)
			calls = append(calls, eip7702.Call{To: common.HexToAddress(it.Data.To), Value: v, Data: common.FromHex(it.Data.Data)})
		}
	}
	auth, err := eip7702.SignAuthorization(user, 31337, devnet.BatchExecutorAddress(), 0)
	if err != nil {
		t.Fatal(err)
	}
	data, err := eip7702.SignedExecuteCalldata(signer, 31337, calls, big.NewInt(1), big.NewInt(time.Now().Add(time.Hour).Unix()))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"executionKind": "rawCalls", "requestId": q.RequestID,
		"data": map[string]any{"chainId": 31337, "to": crypto.PubkeyToAddress(user.PublicKey).Hex(), "data": hexutil.Encode(data), "value": "0",
			"authorizationList": []map[string]any{{"chainId": auth.ChainID.Uint64(), "address": auth.Address.Hex(), "nonce": auth.Nonce,
				"yParity": auth.V, "r": hexutil.EncodeBig(auth.R.ToBig()), "s": hexutil.EncodeBig(auth.S.ToBig())}}},
		"executionOptions": map[string]any{"subsidizeFees": subsidize}}
}

// Issue 37, "Done when": "A wallet with zero ETH bridges USDC through /execute on the devnet, the
// sponsor pays exactly the gas used". A fresh wallet holding only USDC quotes USDC 31337 → 31338
// and POSTs /execute with its 7702 authorization and the approve + deposit batch signed for its
// account. The relayer (never the solver) sends it; the request goes waiting → depositing →
// success (its events in that order), its record has feature gasless_execution, the recipient holds the quoted output,
// the wallet still holds no ETH, and the integrator's balance is down by exactly the relayed
// transaction's gas (gasUsed × effective price) at the devnet's ETH price, rounded up to the
// micro-dollar, which is the record's feeSponsorship.actual.sponsorPayment.
func TestAWalletWithoutETHBridgesUSDCThroughExecuteAndTheSponsorPaysExactlyTheGas(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	const integrator = "gasless-app"
	keyed := s.sponsorKey(t, integrator, "5")
	amount := big.NewInt(50_000_000)
	user := s.gaslessUser(t, ctx, amount)
	userAddr, recipient := crypto.PubkeyToAddress(user.PublicKey), freshAddress(t)
	q, err := keyed.Quote(ctx, map[string]any{"user": userAddr.Hex(), "recipient": recipient.Hex(), "originChainId": 31337,
		"destinationChainId": 31338, "originCurrency": devnet.USDCAddress.Hex(), "destinationCurrency": devnet.USDCAddress.Hex(),
		"amount": amount.String(), "tradeType": "EXACT_INPUT"})
	if err != nil {
		t.Fatal(err)
	}
	before := s.sponsorBalance(t, integrator)

	t.Run("the public service's validation messages, nothing started", func(t *testing.T) {
		for _, c := range []struct {
			body map[string]any
			want string
		}{
			{map[string]any{"executionKind": "rawCalls", "requestId": q.RequestID, "data": map[string]any{"chainId": 31337, "data": "0x", "value": "0"}}, "to is required"},
			{map[string]any{"executionKind": "rawCalls", "requestId": q.RequestID, "data": map[string]any{"chainId": 31337, "to": userAddr.Hex(), "value": "0"}}, "data is required"},
			{map[string]any{"executionKind": "rawCalls", "requestId": q.RequestID, "data": map[string]any{"chainId": 31337, "to": userAddr.Hex(), "data": "0x"}}, "value is required"},
			{map[string]any{"executionKind": "rawCalls", "requestId": q.RequestID, "data": map[string]any{"to": userAddr.Hex(), "data": "0x", "value": "0"}}, "chainId is required"},
			{map[string]any{"executionKind": "rawCalls", "requestId": q.RequestID, "data": map[string]any{"chainId": 31337, "to": userAddr.Hex(), "data": "0x", "value": "0",
				"authorizationList": []any{}}}, "authorizationList cannot be empty"},
			{map[string]any{"executionKind": "rawCalls", "requestId": q.RequestID}, "data is required"},
		} {
			var out map[string]any
			code, err := keyed.Do(ctx, http.MethodPost, "/execute", c.body, &out)
			if err != nil || code != http.StatusBadRequest || out["error"] != c.want || len(out) != 1 {
				t.Errorf("%v: %d %v %v, want 400 {error: %q}", c.body, code, out, err, c.want)
			}
		}
		var out map[string]any
		if code, _ := s.API.Do(ctx, http.MethodPost, "/execute", gaslessBody(t, user, user, q, true), &out); code != http.StatusUnauthorized ||
			out["error"] != "Unauthorized" {
			t.Errorf("without a key: %d %v, want 401 {error: Unauthorized}", code, out)
		}
	})

	t.Run("a batch signed by another key is refused by its simulation, decoded", func(t *testing.T) {
		other, _ := crypto.GenerateKey()
		var out struct {
			Error, Message, RequestID string
			Details                   *evm.RevertDetails
		}
		code, err := keyed.Do(ctx, http.MethodPost, "/execute", gaslessBody(t, user, other, q, true), &out)
		if err != nil || code != http.StatusBadRequest {
			t.Fatalf("%d %+v %v, want 400", code, out, err)
		}
		if out.Error != "INVALID_SIGNATURE" || out.RequestID != q.RequestID || out.Details == nil || out.Details.Revert.Type != evm.RevertCustomError ||
			out.Details.Revert.Name != "InvalidSignature" || out.Details.Revert.Selector != "0x8baa579f" ||
			!strings.EqualFold(out.Details.TopLevel.Address, userAddr.Hex()) {
			t.Fatalf("the simulation's answer %+v (details %+v)", out, out.Details)
		}
		if st, code, _ := s.API.Status(ctx, q.RequestID); code == http.StatusOK && st.Status != "waiting" {
			t.Fatalf("a refused execution moved the request: %+v", st)
		}
	})

	var out map[string]any
	code, err := keyed.Do(ctx, http.MethodPost, "/execute", gaslessBody(t, user, user, q, true), &out)
	if err != nil || code != http.StatusOK || out["message"] != "Transaction submitted" || out["requestId"] != q.RequestID {
		t.Fatalf("POST /execute: %d %v %v", code, out, err)
	}
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "success" {
		t.Fatalf("final %+v, seen %v: want success", final, seen)
	}
	// The status a poll may miss, the events (webhooks, websocket) carry in order.
	if got := s.outboxStatuses(t, ctx, q.RequestID); !strings.HasPrefix(got, "waiting,depositing,") || !strings.HasSuffix(got, ",success") {
		t.Fatalf("the request's events %s, want waiting, depositing, …, success", got)
	}
	if code, _ := keyed.Do(ctx, http.MethodPost, "/execute", gaslessBody(t, user, user, q, true), &out); code != http.StatusConflict {
		t.Errorf("executing the request again: %d %v, want 409", code, out)
	}

	rec := storedRecord(t, s, q.RequestID)
	if f, _ := get(t, rec, "features").([]any); !slices.Contains(f, any(intent.FeatureGaslessExecution)) {
		t.Errorf("features %v, want %s", f, intent.FeatureGaslessExecution)
	}
	if eth := s.balance(t, 31337, common.Address{}, userAddr); eth.Sign() != 0 {
		t.Errorf("the user holds %s wei: it paid no gas and received none", eth)
	}
	stored, err := s.Sys.Store.QuoteByRequestID(ctx, q.RequestID)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.balance(t, 31338, devnet.USDCAddress, recipient); got.String() != stored.Execution.AmountOut {
		t.Errorf("the recipient holds %s, quoted %s", got, stored.Execution.AmountOut)
	}

	// The relayed transaction: sent by the relayer, its gas charged to the integrator exactly.
	var relayTx, from string
	if err := s.Sys.Pool.QueryRow(ctx, `SELECT tx_hash, from_address FROM solver_transactions WHERE request_id = $1 AND kind = 'relay'
		ORDER BY attempt DESC LIMIT 1`, q.RequestID).Scan(&relayTx, &from); err != nil {
		t.Fatal(err)
	}
	if !strings.EqualFold(from, devnet.RelayerAddress().Hex()) {
		t.Errorf("the relayed call was signed by %s, want the relayer %s", from, devnet.RelayerAddress().Hex())
	}
	gas := s.txFee(t, 31337, relayTx)
	wantUSD := decimal.NewFromBigInt(gas, -18).Mul(decimal.NewFromInt(devnet.ETHUSDPrice)).RoundCeil(6)
	if charged := before.Sub(s.sponsorBalance(t, integrator)); !charged.Equal(wantUSD) {
		t.Errorf("the integrator paid USD %s, want exactly the relayed gas %s wei = USD %s", charged, gas, wantUSD)
	}
	kinds, sum := s.ledger(t, q.RequestID, integrator)
	if !slices.Equal(kinds, []string{"relay_reserve", "relay_charge"}) || !sum.Equal(s.sponsorBalance(t, integrator)) {
		t.Errorf("ledger %v, deltas %s, balance %s", kinds, sum, s.sponsorBalance(t, integrator))
	}
	pay := get(t, rec, "data.feeSponsorship.actual.sponsorPayment")
	if str(t, pay, "amount") != intent.USDMicros(wantUSD).String() {
		t.Errorf("sponsorPayment %v, want %s micro-USD", pay, intent.USDMicros(wantUSD))
	}
	t.Logf("relayed %s: gas %s wei, integrator charged USD %s", relayTx, gas, wantUSD)
}

// Issue 37, point 5: "no partial sponsorship; an empty balance is SPONSOR_BALANCE_TOO_LOW before
// anything is sent", and "a relayed call that does not deposit what was quoted costs the
// integrator its gas and the user nothing else". An integrator whose balance cannot cover the
// relayed transaction's most executes a request: it fails with SPONSOR_BALANCE_TOO_LOW, nothing
// is kept or sent, the balance is unchanged. A batch that deposits less than quoted (executed
// with subsidizeFees false: the user was to pay the origin gas in the fee) is relayed, its
// deposit refunded in full with DEPOSITED_AMOUNT_TOO_LOW_TO_FILL, and the integrator is charged
// exactly the relayed gas.
func TestGaslessMoneyRules(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	quoteFor := func(t *testing.T, c *e2e.Client, user *ecdsa.PrivateKey, amount *big.Int) *quote.Response {
		t.Helper()
		q, err := c.Quote(ctx, map[string]any{"user": crypto.PubkeyToAddress(user.PublicKey).Hex(), "recipient": freshAddress(t).Hex(),
			"originChainId": 31337, "destinationChainId": 31338, "originCurrency": devnet.USDCAddress.Hex(),
			"destinationCurrency": devnet.USDCAddress.Hex(), "amount": amount.String(), "tradeType": "EXACT_INPUT", "includeProtocolData": true})
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	relays := func(t *testing.T, requestID string) int {
		t.Helper()
		var n int
		if err := s.Sys.Pool.QueryRow(ctx, `SELECT count(*) FROM solver_transactions WHERE request_id = $1 AND kind = 'relay'`, requestID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("SPONSOR_BALANCE_TOO_LOW before anything is sent", func(t *testing.T) {
		const integrator = "gasless-broke"
		keyed := s.sponsorKey(t, integrator, "0.000001")
		amount := big.NewInt(20_000_000)
		user := s.gaslessUser(t, ctx, amount)
		q := quoteFor(t, keyed, user, amount)
		var out map[string]any
		if code, err := keyed.Do(ctx, http.MethodPost, "/execute", gaslessBody(t, user, user, q, true), &out); err != nil || code != http.StatusOK {
			t.Fatalf("POST /execute: %d %v %v", code, out, err)
		}
		final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
		if err != nil {
			t.Fatal(err)
		}
		if final.Status != "failure" || final.FailReason != string(intent.FailReasonSponsorBalanceTooLow) {
			t.Fatalf("final %+v (seen %v), want failure SPONSOR_BALANCE_TOO_LOW", final, seen)
		}
		if n := relays(t, q.RequestID); n != 0 {
			t.Errorf("%d relayed transactions kept, want none", n)
		}
		if b := s.sponsorBalance(t, integrator); !b.Equal(decimal.RequireFromString("0.000001")) {
			t.Errorf("the balance moved to %s", b)
		}
		if got := s.balance(t, 31337, devnet.USDCAddress, crypto.PubkeyToAddress(user.PublicKey)); got.Cmp(amount) != 0 {
			t.Errorf("the user holds %s USDC, want its %s untouched", got, amount)
		}
	})

	t.Run("a call depositing less than quoted costs the integrator its gas and the user nothing", func(t *testing.T) {
		const integrator = "gasless-short"
		keyed := s.sponsorKey(t, integrator, "5")
		amount := big.NewInt(20_000_000)
		user := s.gaslessUser(t, ctx, amount)
		userAddr := crypto.PubkeyToAddress(user.PublicKey)
		q := quoteFor(t, keyed, user, amount)
		// The quote's steps, the deposit's amount halved: the depository takes what the call says.
		short := quoteFor(t, keyed, user, new(big.Int).Div(amount, big.NewInt(2)))
		q.Steps = short.Steps
		for i := range q.Steps {
			for j := range q.Steps[i].Items {
				// the short quote's calldata names its own order: put back the executed quote's
				q.Steps[i].Items[j].Data.Data = strings.ReplaceAll(q.Steps[i].Items[j].Data.Data,
					strings.TrimPrefix(short.Protocol.V2.OrderID, "0x"), strings.TrimPrefix(q.Protocol.V2.OrderID, "0x"))
			}
		}
		before := s.sponsorBalance(t, integrator)
		var out map[string]any
		if code, err := keyed.Do(ctx, http.MethodPost, "/execute", gaslessBody(t, user, user, q, false), &out); err != nil || code != http.StatusOK {
			t.Fatalf("POST /execute: %d %v %v", code, out, err)
		}
		final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
		if err != nil {
			t.Fatal(err)
		}
		if final.Status != "refund" || final.FailReason != string(intent.FailReasonDepositedAmountTooLowToFill) {
			t.Fatalf("final %+v (seen %v), want refund DEPOSITED_AMOUNT_TOO_LOW_TO_FILL", final, seen)
		}
		if got := s.balance(t, 31337, devnet.USDCAddress, userAddr); got.Cmp(amount) != 0 {
			t.Errorf("the user holds %s USDC after the refund, want all of its %s back", got, amount)
		}
		if eth := s.balance(t, 31337, common.Address{}, userAddr); eth.Sign() != 0 {
			t.Errorf("the user holds %s wei", eth)
		}
		var relayTx string
		if err := s.Sys.Pool.QueryRow(ctx, `SELECT tx_hash FROM solver_transactions WHERE request_id = $1 AND kind = 'relay'
			ORDER BY attempt DESC LIMIT 1`, q.RequestID).Scan(&relayTx); err != nil {
			t.Fatal(err)
		}
		want := decimal.NewFromBigInt(s.txFee(t, 31337, relayTx), -18).Mul(decimal.NewFromInt(devnet.ETHUSDPrice)).RoundCeil(6)
		if charged := before.Sub(s.sponsorBalance(t, integrator)); !charged.Equal(want) {
			t.Errorf("the integrator paid USD %s, want the relayed gas, USD %s", charged, want)
		}
	})
}

// Issue 37, point 3: "requestId optional (the quote's, else a new one)". A standalone call, here
// the EIP-7702 upgrade of a fresh account with no ETH (its authorization for the BatchExecutor
// and a signed batch approving nothing), is executed without a requestId: the answer names a
// new requestId, whose request (requestType Call, feature gasless_execution) ends in success
// once the relayed transaction is mined; the account's code is then the delegation designator,
// it still holds no ETH, and the integrator paid exactly the relayed gas.
func TestAStandaloneCallIsRelayedUnderANewRequestID(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const integrator = "gasless-upgrade"
	keyed := s.sponsorKey(t, integrator, "5")
	user, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	userAddr := crypto.PubkeyToAddress(user.PublicKey)
	auth, err := eip7702.SignAuthorization(user, 31337, devnet.BatchExecutorAddress(), 0)
	if err != nil {
		t.Fatal(err)
	}
	calls := []eip7702.Call{{To: devnet.USDCAddress, Data: evm.ERC20ABI.PackApprove(devnet.DepositoryAddress, new(big.Int))}}
	data, err := eip7702.SignedExecuteCalldata(user, 31337, calls, big.NewInt(1), big.NewInt(time.Now().Add(time.Hour).Unix()))
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"executionKind": "rawCalls",
		"data": map[string]any{"chainId": 31337, "to": userAddr.Hex(), "data": hexutil.Encode(data), "value": "0",
			"authorizationList": []map[string]any{{"chainId": 31337, "address": auth.Address.Hex(), "nonce": auth.Nonce,
				"yParity": auth.V, "r": hexutil.EncodeBig(auth.R.ToBig()), "s": hexutil.EncodeBig(auth.S.ToBig())}}},
		"executionOptions": map[string]any{"subsidizeFees": false}}
	before := s.sponsorBalance(t, integrator)
	var out map[string]any
	code, err := keyed.Do(ctx, http.MethodPost, "/execute", body, &out)
	id, _ := out["requestId"].(string)
	if err != nil || code != http.StatusOK || out["message"] != "Transaction submitted" || len(id) != 66 {
		t.Fatalf("POST /execute without a requestId: %d %v %v", code, out, err)
	}
	final, seen, err := s.API.WaitStatus(ctx, id, "success", "failure", "refund")
	if err != nil || final.Status != "success" {
		t.Fatalf("the standalone call's request: %+v (seen %v) %v", final, seen, err)
	}
	rec := storedRecord(t, s, id)
	if f, _ := get(t, rec, "features").([]any); !slices.Contains(f, any(intent.FeatureGaslessExecution)) || rec["requestType"] != "Call" {
		t.Errorf("features %v, requestType %v", get(t, rec, "features"), rec["requestType"])
	}
	c, err := s.Devnet.Chain(31337).Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	code7702, err := c.CodeAt(ctx, userAddr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]byte{0xef, 0x01, 0x00}, devnet.BatchExecutorAddress().Bytes()...); !bytes.Equal(code7702, want) {
		t.Errorf("the account's code %x, want the delegation %x", code7702, want)
	}
	if eth := s.balance(t, 31337, common.Address{}, userAddr); eth.Sign() != 0 {
		t.Errorf("the account holds %s wei", eth)
	}
	var relayTx string
	if err := s.Sys.Pool.QueryRow(ctx, `SELECT tx_hash FROM solver_transactions WHERE request_id = $1 AND kind = 'relay'
		ORDER BY attempt DESC LIMIT 1`, id).Scan(&relayTx); err != nil {
		t.Fatal(err)
	}
	want := decimal.NewFromBigInt(s.txFee(t, 31337, relayTx), -18).Mul(decimal.NewFromInt(devnet.ETHUSDPrice)).RoundCeil(6)
	if charged := before.Sub(s.sponsorBalance(t, integrator)); !charged.Equal(want) {
		t.Errorf("the integrator paid USD %s, want the relayed gas, USD %s", charged, want)
	}
}
