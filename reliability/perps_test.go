package reliability

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/testkit/e2e"
)

// Perps intents (issue 38, "Done when … the reliability suite includes perps intents"): USDC on
// 31337 deposited to the perps USDC of an account on the local perps exchange (chain 1337; the
// fill a sendAsset from the solver's exchange account; half the recipients never held anything,
// so the solver pays the exchange's activation fee for them), and perps USDC withdrawn from the
// exchange to USDC on 31337 (protocolVersion v2: the NonceMapping signed and posted to
// /authorize, then the user's own sendAsset to the engine's depository account under the same
// nonce). The exchange runs in the test process and is not behind the fault proxy.

// perpsUSDC is the perps USDC's address on the exchange: 16 zero bytes.
const perpsUSDC = "0x00000000000000000000000000000000"

// perps says whether the intent is a deposit to or a withdrawal from the perps exchange.
func (c *intentCase) perps() bool { return c.Kind == "perps-deposit" || c.Kind == "perps-withdrawal" }

// depositPerps pays a perps-deposit as a wallet does (the quote's steps on 31337), or signs and
// sends a perps-withdrawal's two steps: the NonceMapping posted to /authorize, the sendAsset
// posted to the exchange.
func (r *rig) depositPerps(ctx context.Context, c *intentCase) error {
	acct := devnet.TestAccounts()[c.Account]
	if c.Kind == "perps-deposit" {
		if c.PerpsKnown != nil {
			// A recipient the exchange knows already: no activation fee.
			if err := r.Exchange.CreditPerps(c.Recipient, c.PerpsKnown); err != nil {
				return fmt.Errorf("credit the recipient: %w", err)
			}
		}
		q, err := r.quoteWithRetry(ctx, map[string]any{"user": acct.Address.Hex(), "recipient": c.Recipient.Hex(),
			"refundTo": c.RefundTo.Hex(), "originChainId": 31337, "destinationChainId": devnet.ExchangeChainID,
			"originCurrency": devnet.USDCAddress.Hex(), "destinationCurrency": perpsUSDC, "amount": c.Amount.String(),
			"tradeType": "EXACT_INPUT", "includeProtocolData": true})
		if err != nil {
			return fmt.Errorf("quote: %w", err)
		}
		c.RequestID = q.RequestID
		if err := r.stream.follow(ctx, c.RequestID); err != nil {
			return fmt.Errorf("websocket subscribe: %w", err)
		}
		c.OrderID = common.HexToHash(q.Protocol.V2.OrderID)
		c.AmountOut, _ = new(big.Int).SetString(q.Details.CurrencyOut.Amount, 10)
		rc, err := (&e2e.Wallet{Key: acct.Key, RPCs: r.RPCs}).ExecuteSteps(ctx, q)
		if err != nil {
			return fmt.Errorf("steps: %w", err)
		}
		c.DepositTx = rc.TxHash
		c.Deposited = new(big.Int).Set(c.Amount)
		c.DepositedAt = time.Now()
		if c.Hint {
			_, _ = r.API.Do(ctx, http.MethodPost, "/transactions/index", map[string]any{"chainId": 31337, "txHash": c.DepositTx.Hex()}, nil)
		}
		return nil
	}

	body := map[string]any{"user": acct.Address.Hex(), "recipient": c.Recipient.Hex(), "refundTo": c.RefundTo.Hex(),
		"originChainId": devnet.ExchangeChainID, "destinationChainId": 31337, "originCurrency": perpsUSDC,
		"destinationCurrency": devnet.USDCAddress.Hex(), "amount": c.Amount.String(), "tradeType": "EXACT_INPUT",
		"protocolVersion": "v2", "includeProtocolData": true}
	var q map[string]any
	if err := r.retryPost(ctx, "/quote/v2", body, &q); err != nil {
		return fmt.Errorf("quote: %w", err)
	}
	c.RequestID = pstr(q, "requestId")
	if err := r.stream.follow(ctx, c.RequestID); err != nil {
		return fmt.Errorf("websocket subscribe: %w", err)
	}
	c.OrderID = common.HexToHash(pstr(q, "protocol.v2.orderId"))
	c.CurrencyOut = devnet.USDCAddress
	c.AmountOut, _ = new(big.Int).SetString(pstr(q, "details.currencyOut.amount"), 10)
	steps, _ := q["steps"].([]any)
	if len(steps) != 2 || pstr(steps[0], "id") != "authorize" || pstr(steps[1], "id") != "deposit" {
		return fmt.Errorf("the withdrawal's steps are %v, want authorize and deposit", steps)
	}
	auth := pitem(steps[0])
	nonceF, _ := pget(auth, "data.sign.value.nonce").(float64)
	nonce := uint64(nonceF)
	x := perps.Exchange{}
	sig, err := signTyped(x.NonceMappingTypedData(perps.NonceMapping{Wallet: acct.Address, Depositor: acct.Address, OrderID: c.OrderID, Nonce: nonce}), acct.Key)
	if err != nil {
		return err
	}
	var bound map[string]any
	if err := r.retryPost(ctx, "/authorize?signature="+sig, pget(auth, "data.post.body"), &bound); err != nil {
		return fmt.Errorf("POST /authorize: %w", err)
	}
	params := pget(pitem(steps[1]), "data.action.parameters")
	send := perps.SendAsset{Destination: pstr(params, "destination"), SourceDex: pstr(params, "sourceDex"),
		DestinationDex: pstr(params, "destinationDex"), Token: pstr(params, "token"), Amount: pstr(params, "amount"), Nonce: nonce}
	signed, err := signTyped(x.SendAssetTypedData(send, 31337), acct.Key) // the wallet's active chain, as the SDK signs
	if err != nil {
		return err
	}
	raw, err := hexutil.Decode(signed)
	if err != nil {
		return err
	}
	req, err := x.ExchangeRequestOf(send, 31337, raw)
	if err != nil {
		return err
	}
	var sent map[string]any
	if code, err := (&e2e.Client{BaseURL: r.Exchange.URL()}).Do(ctx, http.MethodPost, "/exchange", req, &sent); err != nil ||
		code != http.StatusOK || sent["status"] != "ok" {
		return fmt.Errorf("POST /exchange: %d %v %v", code, sent, err)
	}
	for _, t := range r.Exchange.Transfers(acct.Address) {
		if t.User == acct.Address && t.Nonce == nonce {
			c.PerpsDeposit = t.Hash.Hex()
		}
	}
	c.Deposited = new(big.Int).Set(c.Amount)
	c.DepositedAt = time.Now()
	return nil
}

// retryPost posts body to the API until it answers below 500 (Postgres may be down for a while,
// an answer may be lost) or for 90 s; a 429 (the /authorize limits) is waited out too. A 409
// after a failed attempt means the attempt took.
func (r *rig) retryPost(ctx context.Context, path string, body any, out *map[string]any) error {
	deadline := time.Now().Add(90 * time.Second)
	tried := false
	for {
		*out = nil
		code, err := r.API.Do(ctx, http.MethodPost, path, body, out)
		switch {
		case err == nil && code == http.StatusOK:
			return nil
		case err == nil && code == http.StatusConflict && tried:
			return nil
		case err == nil && code < 500 && code != http.StatusTooManyRequests:
			return fmt.Errorf("%d %v", code, *out)
		}
		tried = true
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%d %v %v", code, *out, err)
		}
		sleep(ctx, time.Second)
	}
}

// checkPerps checks a perps intent's money: for a deposit, on success exactly one transfer from
// the solver's exchange account to the recipient, of the quoted output (and the activation fee
// for a recipient the exchange did not know), the recipient's perps balance grown by exactly
// that and the fill kept once (perps_payments) with no EVM solver transaction; on refund no
// transfer to it and the USDC back on 31337. For a withdrawal, on success exactly one fill on
// 31337 and the recipient holding the quoted output; on refund no fill and the perps USDC back
// to refundTo on the exchange, in one transfer.
func (r *rig) checkPerps(ctx context.Context, c *intentCase, status string, nFill, nRefund int, solverTxs string, nSolverTxs int) []string {
	var problems []string
	solver, depository := devnet.SolverAddress(), devnet.ExchangeDepositoryAddress()
	if c.Kind == "perps-deposit" {
		var sent []string
		var got *big.Int
		for _, x := range r.Exchange.Transfers(c.Recipient) {
			if x.User == solver && x.Destination == c.Recipient {
				sent = append(sent, fmt.Sprintf("%s (fee %s)", x.Amount, x.Fee))
				got = x.Amount
				wantFee := int64(100_000_000)
				if c.PerpsKnown != nil {
					wantFee = 0
				}
				if x.Fee.Int64() != wantFee {
					problems = append(problems, fmt.Sprintf("the solver's transfer to the recipient paid a fee of %s, want %d", x.Fee, wantFee))
				}
			}
		}
		held := r.Exchange.PerpsBalance(c.Recipient)
		if c.PerpsKnown != nil {
			held = new(big.Int).Sub(held, c.PerpsKnown)
		}
		kept, keptErr := r.Sys.Store.PerpsPayment(ctx, c.RequestID, intent.TxKindFill)
		switch status {
		case "success":
			if len(sent) != 1 || got.Cmp(c.AmountOut) != 0 {
				problems = append(problems, fmt.Sprintf("the solver's transfers to the recipient on the exchange: %v, want one of the quoted %s", sent, c.AmountOut))
			}
			if held.Cmp(c.AmountOut) != 0 {
				problems = append(problems, fmt.Sprintf("the recipient's perps balance grew by %s, quoted output %s", held, c.AmountOut))
			}
			if keptErr != nil || kept == nil {
				problems = append(problems, fmt.Sprintf("no kept perps fill: %v", keptErr))
			}
			if nRefund != 0 || nSolverTxs != 0 {
				problems = append(problems, fmt.Sprintf("%d refunds on 31337 and stored EVM solver transactions %s, want none", nRefund, solverTxs))
			}
		case "refund":
			if len(sent) != 0 || held.Sign() != 0 {
				problems = append(problems, fmt.Sprintf("refunded, yet the solver sent the recipient %v (it holds %s more)", sent, held))
			}
			if nRefund != 1 {
				problems = append(problems, fmt.Sprintf("%d refunds on 31337, want 1", nRefund))
			}
			if got := r.Balance(r.t, 31337, devnet.USDCAddress, c.RefundTo); got.Cmp(c.Deposited) != 0 {
				problems = append(problems, fmt.Sprintf("refundTo holds %s USDC, want %s back", got, c.Deposited))
			}
		}
		return problems
	}
	var back []string
	for _, x := range r.Exchange.Transfers(c.RefundTo) {
		if x.User == depository && x.Destination == c.RefundTo {
			back = append(back, x.Amount.String())
		}
	}
	switch status {
	case "success":
		if nFill != 1 || len(back) != 0 {
			problems = append(problems, fmt.Sprintf("%d fills on 31337 and refunds %v on the exchange, want 1 fill and no refund", nFill, back))
		}
		if got := r.Balance(r.t, 31337, devnet.USDCAddress, c.Recipient); got.Cmp(c.AmountOut) != 0 {
			problems = append(problems, fmt.Sprintf("recipient holds %s USDC, quoted output %s", got, c.AmountOut))
		}
		if nSolverTxs != 1 || !strings.Contains(solverTxs, "fill×") {
			problems = append(problems, "stored solver transactions "+solverTxs+", want its fill only")
		}
	case "refund":
		if nFill != 0 || len(back) != 1 {
			problems = append(problems, fmt.Sprintf("%d fills on 31337 and refunds %v on the exchange, want no fill and 1 refund", nFill, back))
		}
		if got := r.Balance(r.t, 31337, devnet.USDCAddress, c.Recipient); got.Sign() != 0 {
			problems = append(problems, fmt.Sprintf("the recipient of a refunded withdrawal holds %s", got))
		}
	}
	return problems
}

// signTyped signs EIP-712 typed data with key: 0x and r‖s‖v, v 27 or 28, as wallets answer.
func signTyped(td apitypes.TypedData, key *ecdsa.PrivateKey) (string, error) {
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return "", err
	}
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		return "", err
	}
	sig[64] += 27
	return hexutil.Encode(sig), nil
}

// pget is the value at a dotted path of decoded JSON, nil when absent.
func pget(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// pstr is the string at a dotted path of decoded JSON, "" when absent or not a string.
func pstr(v any, path string) string {
	s, _ := pget(v, path).(string)
	return s
}

// pitem is a step's first item, nil when it has none.
func pitem(step any) any {
	items, _ := pget(step, "items").([]any)
	if len(items) == 0 {
		return nil
	}
	return items[0]
}
