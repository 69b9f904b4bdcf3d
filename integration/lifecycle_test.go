package integration

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/testkit/e2e"
)

// freshAddress is an address nobody holds a key for and nothing has paid yet, so its balance
// after a refund is exactly what the refund paid.
func freshAddress(t *testing.T) common.Address {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(k.PublicKey)
}

// ethBridge quotes amount wei of ETH from 31337 to 31338 for user, paying recipient, with the
// protocol data; refundTo is left out when it is the zero address.
func (s *stack) ethBridge(t *testing.T, ctx context.Context, user, recipient, refundTo common.Address, amount string) *quote.Response {
	t.Helper()
	body := map[string]any{"user": user.Hex(), "recipient": recipient.Hex(), "originChainId": 31337, "destinationChainId": 31338,
		"originCurrency": common.Address{}.Hex(), "destinationCurrency": common.Address{}.Hex(),
		"amount": amount, "tradeType": "EXACT_INPUT", "includeProtocolData": true}
	if refundTo != (common.Address{}) {
		body["refundTo"] = refundTo.Hex()
	}
	q, err := s.API.Quote(ctx, body)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// badDeposit is how a test case pays for the quoted order instead of following its steps.
type badDeposit func(t *testing.T, ctx context.Context, w *e2e.Wallet, q *quote.Response) (chainID uint64, currency common.Address, amount *big.Int)

// depositStep is the quote's deposit step transaction.
func depositStep(t *testing.T, q *quote.Response) quote.TxData {
	t.Helper()
	for _, s := range q.Steps {
		if s.ID == "deposit" {
			return s.Items[0].Data
		}
	}
	t.Fatal("the quote has no deposit step")
	return quote.TxData{}
}

// The spec's failReason values for deposit problems (intent-service.md, Errors), each ending in
// a refund of what was deposited to refundTo on the chain the deposit was made on, status
// refund, and never a fill.
func TestDepositProblemsAreRefunded(t *testing.T) {
	s := startStack(t)
	cases := []struct {
		name    string
		reason  intent.FailReason
		deposit badDeposit
	}{
		{"DEPOSITED_AMOUNT_TOO_LOW_TO_FILL: half of the quoted ETH", intent.FailReasonDepositedAmountTooLowToFill,
			func(t *testing.T, ctx context.Context, w *e2e.Wallet, q *quote.Response) (uint64, common.Address, *big.Int) {
				d := depositStep(t, q)
				v, _ := new(big.Int).SetString(d.Value, 10)
				d.Value = new(big.Int).Div(v, big.NewInt(2)).String()
				if _, err := w.SendTx(ctx, d); err != nil {
					t.Fatal(err)
				}
				return d.ChainID, common.Address{}, new(big.Int).Div(v, big.NewInt(2))
			}},
		{"DEPOSIT_CHAIN_MISMATCH: the ETH deposit is made on the destination chain", intent.FailReasonDepositChainMismatch,
			func(t *testing.T, ctx context.Context, w *e2e.Wallet, q *quote.Response) (uint64, common.Address, *big.Int) {
				d := depositStep(t, q)
				d.ChainID = 31338
				if _, err := w.SendTx(ctx, d); err != nil {
					t.Fatal(err)
				}
				v, _ := new(big.Int).SetString(d.Value, 10)
				return 31338, common.Address{}, v
			}},
		{"INCORRECT_DEPOSIT_CURRENCY: USDC paid for an ETH order", intent.FailReasonIncorrectDepositCurrency,
			func(t *testing.T, ctx context.Context, w *e2e.Wallet, q *quote.Response) (uint64, common.Address, *big.Int) {
				amount := big.NewInt(7_000_000)
				orderID := common.HexToHash(q.Protocol.V2.OrderID)
				approve := quote.TxData{ChainID: 31337, To: devnet.USDCAddress.Hex(), Value: "0",
					Data: hexutil.Encode(evm.ERC20ABI.PackApprove(devnet.DepositoryAddress, amount))}
				if _, err := w.SendTx(ctx, approve); err != nil {
					t.Fatal(err)
				}
				dep := quote.TxData{ChainID: 31337, To: devnet.DepositoryAddress.Hex(), Value: "0",
					Data: hexutil.Encode(evm.DepositoryABI.PackDepositErc20(orderID, devnet.USDCAddress, amount))}
				if _, err := w.SendTx(ctx, dep); err != nil {
					t.Fatal(err)
				}
				return 31337, devnet.USDCAddress, amount
			}},
		{"ORDER_EXPIRED: the deposit arrives after the order's deadline", intent.FailReasonOrderExpired,
			func(t *testing.T, ctx context.Context, w *e2e.Wallet, q *quote.Response) (uint64, common.Address, *big.Int) {
				// The deadline is moved into the past where the engine keeps it, as if the
				// quote's lifetime had run out before the user paid.
				if _, err := s.Sys.Pool.Exec(ctx, `UPDATE quotes SET quote = jsonb_set(quote, '{deadline}', to_jsonb($2::bigint))
					WHERE request_id = $1`, q.RequestID, time.Now().Add(-time.Minute).Unix()); err != nil {
					t.Fatal(err)
				}
				d := depositStep(t, q)
				if _, err := w.SendTx(ctx, d); err != nil {
					t.Fatal(err)
				}
				v, _ := new(big.Int).SetString(d.Value, 10)
				return d.ChainID, common.Address{}, v
			}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			acct := devnet.TestAccounts()[1+i]
			refundTo := freshAddress(t)
			wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
			q := s.ethBridge(t, ctx, acct.Address, devnet.TestAccounts()[8].Address, refundTo, "100000000000000000")
			chainID, currency, amount := tc.deposit(t, ctx, wallet, q)
			final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
			if err != nil {
				t.Fatal(err)
			}
			s.recordHistory(t, q.RequestID, "refund-"+string(tc.reason))
			if final.Status != "refund" || final.FailReason != string(tc.reason) || final.RefundFailReason != "N/A" {
				t.Fatalf("final status %+v (seen %v), want refund with %s", final, seen, tc.reason)
			}
			if got := s.balance(t, chainID, currency, refundTo); got.Cmp(amount) != 0 {
				t.Fatalf("refundTo holds %s of %s on %d, want the deposited %s", got, currency, chainID, amount)
			}
			if n := s.Refunds(t, chainID, q.RequestID); n != 1 {
				t.Fatalf("%d refunds on chain for the request, want exactly 1", n)
			}
			if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 0 {
				t.Fatalf("a refunded order was filled %d times", n)
			}
			if len(final.TxHashes) != 1 {
				t.Fatalf("status txHashes %v, want the refund transaction", final.TxHashes)
			}
		})
	}
}

// usdcTransfer moves USDC on a chain from the wallet's account.
func usdcTransfer(t *testing.T, ctx context.Context, w *e2e.Wallet, chainID uint64, to common.Address, amount *big.Int) {
	t.Helper()
	if _, err := w.SendTx(ctx, quote.TxData{ChainID: chainID, To: devnet.USDCAddress.Hex(), Value: "0",
		Data: hexutil.Encode(evm.ERC20ABI.PackTransfer(to, amount))}); err != nil {
		t.Fatal(err)
	}
}

// Fill problems found before the fill is signed (spec, Errors): the fill is over the solver's
// capacity (SOLVER_CAPACITY_EXCEEDED), the solver holds too little on the destination
// (SOLVER_BALANCE_TOO_LOW), or the token refuses the recipient
// (DESTINATION_TOKEN_TRANSFER_REJECTED). Each ends in a refund of the deposit on the origin,
// status refund, and no fill.
func TestFillProblemsAreRefunded(t *testing.T) {
	s := startStack(t, map[string]string{"SOLVER_MAX_FILL": "ETH=0.05"})
	deployer := &e2e.Wallet{Key: devnet.DeployerKey(), RPCs: s.RPCs}
	cases := []struct {
		name     string
		reason   intent.FailReason
		currency common.Address // bridged on both sides
		amount   string
		// before runs after the quote and before the deposit; the returned func undoes it.
		before func(t *testing.T, ctx context.Context, recipient common.Address) func()
	}{
		{"SOLVER_CAPACITY_EXCEEDED: 0.1 ETH over a capacity of 0.05 ETH per fill (SOLVER_MAX_FILL)",
			intent.FailReasonSolverCapacityExceeded, common.Address{}, "100000000000000000",
			func(*testing.T, context.Context, common.Address) func() { return func() {} }},
		{"SOLVER_BALANCE_TOO_LOW: the solver's USDC on the destination is moved away", intent.FailReasonSolverBalanceTooLow,
			devnet.USDCAddress, "25000000", func(t *testing.T, ctx context.Context, _ common.Address) func() {
				holder := devnet.TestAccounts()[9]
				held := s.balance(t, 31338, devnet.USDCAddress, devnet.SolverAddress())
				usdcTransfer(t, ctx, &e2e.Wallet{Key: devnet.SolverKey(), RPCs: s.RPCs}, 31338, holder.Address, held)
				return func() {
					usdcTransfer(t, context.Background(), &e2e.Wallet{Key: holder.Key, RPCs: s.RPCs}, 31338, devnet.SolverAddress(), held)
				}
			}},
		{"EXECUTION_REVERTED: the solver's allowance to the output settler is withdrawn, so the fill would revert", intent.FailReasonExecutionReverted,
			devnet.USDCAddress, "25000000", func(t *testing.T, ctx context.Context, _ common.Address) func() {
				approve := func(ctx context.Context, amount *big.Int) {
					if _, err := (&e2e.Wallet{Key: devnet.SolverKey(), RPCs: s.RPCs}).SendTx(ctx, quote.TxData{ChainID: 31338,
						To: devnet.USDCAddress.Hex(), Value: "0", Data: hexutil.Encode(evm.ERC20ABI.PackApprove(devnet.OutputSettlerAddress, amount))}); err != nil {
						t.Fatal(err)
					}
				}
				approve(ctx, new(big.Int))
				return func() { approve(context.Background(), abi.MaxUint256) }
			}},
		{"DESTINATION_TOKEN_TRANSFER_REJECTED: the token blocks the recipient after the quote", intent.FailReasonDestinationTokenTransferRejected,
			devnet.USDCAddress, "25000000", func(t *testing.T, ctx context.Context, recipient common.Address) func() {
				block := func(ctx context.Context, on bool) {
					if _, err := deployer.SendTx(ctx, quote.TxData{ChainID: 31338, To: devnet.USDCAddress.Hex(), Value: "0",
						Data: hexutil.Encode(evm.ERC20ABI.PackSetBlocked(recipient, on))}); err != nil {
						t.Fatal(err)
					}
				}
				block(ctx, true)
				return func() { block(context.Background(), false) }
			}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			acct := devnet.TestAccounts()[1+i]
			refundTo, recipient := freshAddress(t), freshAddress(t)
			wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
			q, err := s.API.Quote(ctx, map[string]any{"user": acct.Address.Hex(), "recipient": recipient.Hex(),
				"refundTo": refundTo.Hex(), "originChainId": 31337, "destinationChainId": 31338,
				"originCurrency": tc.currency.Hex(), "destinationCurrency": tc.currency.Hex(),
				"amount": tc.amount, "tradeType": "EXACT_INPUT", "includeProtocolData": true})
			if err != nil {
				t.Fatal(err)
			}
			undo := tc.before(t, ctx, recipient)
			defer undo()
			if _, err := wallet.ExecuteSteps(ctx, q); err != nil {
				t.Fatal(err)
			}
			final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
			if err != nil {
				t.Fatal(err)
			}
			if final.Status != "refund" || final.FailReason != string(tc.reason) || final.RefundFailReason != "N/A" {
				t.Fatalf("final status %+v (seen %v), want refund with %s", final, seen, tc.reason)
			}
			if got := s.balance(t, 31337, tc.currency, refundTo); got.String() != tc.amount {
				t.Fatalf("refundTo got %s base units of %s back, want the deposited %s", got, tc.currency, tc.amount)
			}
			if n := s.Refunds(t, 31337, q.RequestID); n != 1 {
				t.Fatalf("%d refunds on chain, want exactly 1", n)
			}
			if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 0 {
				t.Fatalf("a refunded order was filled %d times", n)
			}
			if got := s.balance(t, 31338, tc.currency, recipient); got.Sign() != 0 {
				t.Fatalf("the recipient of a refunded order received %s", got)
			}
		})
	}

	t.Run("ORDER_ALREADY_FILLED: another party paid the order first, so it is not refunded", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		acct := devnet.TestAccounts()[6]
		refundTo, recipient := freshAddress(t), freshAddress(t)
		q := s.ethBridge(t, ctx, acct.Address, recipient, refundTo, "40000000000000000")
		out := q.Details.CurrencyOut.Amount
		if _, err := deployer.SendTx(ctx, quote.TxData{ChainID: 31338, To: devnet.OutputSettlerAddress.Hex(), Value: out,
			Data: hexutil.Encode(evm.OutputSettlerABI.PackFillNative(common.HexToHash(q.Protocol.V2.OrderID), recipient))}); err != nil {
			t.Fatal(err)
		}
		if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
			t.Fatal(err)
		}
		final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
		if err != nil {
			t.Fatal(err)
		}
		if final.Status != "failure" || final.FailReason != string(intent.FailReasonOrderAlreadyFilled) {
			t.Fatalf("final %+v (seen %v), want failure with ORDER_ALREADY_FILLED", final, seen)
		}
		if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 1 {
			t.Fatalf("%d fills, want only the other party's", n)
		}
		if got := s.balance(t, 31338, common.Address{}, recipient); got.String() != out {
			t.Fatalf("recipient holds %s, paid once %s", got, out)
		}
		if n := s.Refunds(t, 31337, q.RequestID); n != 0 {
			t.Fatalf("an order its recipient was paid for was also refunded %d times", n)
		}
	})
}

// Refund problems (spec, refundFailReason) and the manual admin refund that resolves the one
// an operator can: a refund worth less than its gas ends in failure with
// AMOUNT_TOO_LOW_TO_REFUND and pays nothing; a refund the chain would revert (refundTo is a
// contract that refuses ETH) ends in failure with MANUAL_REFUND_REQUIRED and waits for an
// operator, whose adminRefund (POST /admin/requests/{id}/refund) pays the depositor once,
// ends in status refund with MANUAL_ADMIN_REFUND, and is in the audit table.
func TestRefundProblemsAndManualAdminRefund(t *testing.T) {
	s := startStack(t)
	admin := s.Admin
	refundPath := func(id string) string { return "/admin/requests/" + id + "/refund" }
	// payTooLittle deposits value for q's order and waits for it to end in failure with
	// DEPOSITED_AMOUNT_TOO_LOW_TO_FILL and the given refundFailReason.
	payTooLittle := func(t *testing.T, ctx context.Context, acct devnet.Account, q *quote.Response, value *big.Int,
		refundReason intent.RefundFailReason) {
		t.Helper()
		d := depositStep(t, q)
		d.Value = value.String()
		if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).SendTx(ctx, d); err != nil {
			t.Fatal(err)
		}
		final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
		if err != nil {
			t.Fatal(err)
		}
		if final.Status != "failure" || final.FailReason != string(intent.FailReasonDepositedAmountTooLowToFill) ||
			final.RefundFailReason != string(refundReason) {
			t.Fatalf("final status %+v (seen %v), want failure with refundFailReason %s", final, seen, refundReason)
		}
	}

	t.Run("AMOUNT_TOO_LOW_TO_REFUND: 1 wei deposited", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		acct := devnet.TestAccounts()[1]
		q := s.ethBridge(t, ctx, acct.Address, devnet.TestAccounts()[8].Address, freshAddress(t), "100000000000000000")
		payTooLittle(t, ctx, acct, q, big.NewInt(1), intent.RefundFailReasonAmountTooLowToRefund)
		if n := s.Refunds(t, 31337, q.RequestID); n != 0 {
			t.Fatalf("%d refunds paid for a refund worth less than its gas", n)
		}
	})

	t.Run("MANUAL_REFUND_REQUIRED, then MANUAL_ADMIN_REFUND", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		acct := devnet.TestAccounts()[2]
		// TestUSDC has no payable function: a native refund to it reverts.
		q := s.ethBridge(t, ctx, acct.Address, devnet.TestAccounts()[8].Address, devnet.USDCAddress, "100000000000000000")

		// Before a deposit there is no intent workflow yet, so nothing to refund.
		var refused map[string]any
		if code, err := admin.Do(ctx, "POST", refundPath(q.RequestID), map[string]any{"reason": "early", "operator": "alice"}, &refused); err != nil || code != 404 {
			t.Fatalf("admin refund before any deposit: %d %v %v, want 404", code, refused, err)
		}

		v, _ := new(big.Int).SetString(depositStep(t, q).Value, 10)
		half := new(big.Int).Div(v, big.NewInt(2))
		payTooLittle(t, ctx, acct, q, half, intent.RefundFailReasonManualRefundRequired)
		if n := s.Refunds(t, 31337, q.RequestID); n != 0 {
			t.Fatalf("%d refunds paid before the operator acted", n)
		}

		var body map[string]any
		if code, err := (&e2e.Client{BaseURL: s.Admin.BaseURL}).Do(ctx, "POST", refundPath(q.RequestID),
			map[string]any{"reason": "refundTo cannot receive ETH", "operator": "alice"}, &body); err != nil || code != 401 {
			t.Fatalf("admin refund without the admin token: %d %v %v, want 401", code, body, err)
		}
		if code, err := admin.Do(ctx, "POST", refundPath(q.RequestID), map[string]any{"reason": " ", "operator": "alice"}, &body); err != nil || code != 400 {
			t.Fatalf("admin refund without a reason: %d %v %v, want 400", code, body, err)
		}

		before := s.balance(t, 31337, common.Address{}, acct.Address)
		var res map[string]any
		code, err := admin.Do(ctx, "POST", refundPath(q.RequestID), map[string]any{"reason": "refundTo cannot receive ETH", "operator": "alice"}, &res)
		if err != nil || code != 200 {
			t.Fatalf("admin refund: %d %v %v", code, res, err)
		}
		if res["status"] != "refund" || !strings.EqualFold(fmt.Sprint(res["recipient"]), acct.Address.Hex()) || res["amount"] != half.String() {
			t.Fatalf("admin refund answered %v; want status refund paying %s to the depositor %s", res, half, acct.Address.Hex())
		}
		final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "refund")
		if err != nil {
			t.Fatal(err)
		}
		s.recordHistory(t, q.RequestID, "manual-admin-refund")
		if final.FailReason != string(intent.FailReasonManualAdminRefund) || final.RefundFailReason != "N/A" {
			t.Fatalf("status after the admin refund %+v (seen %v)", final, seen)
		}
		if got := new(big.Int).Sub(s.balance(t, 31337, common.Address{}, acct.Address), before); got.Cmp(half) != 0 {
			t.Fatalf("the depositor got %s back, want the deposited %s", got, half)
		}
		if n := s.Refunds(t, 31337, q.RequestID); n != 1 {
			t.Fatalf("%d refunds on chain, want exactly 1", n)
		}
		audit, err := s.Sys.Store.AdminRefunds(ctx, q.RequestID)
		if err != nil || len(audit) != 1 || audit[0].Operator != "alice" || audit[0].Reason != "refundTo cannot receive ETH" ||
			!strings.EqualFold(audit[0].TxHash, fmt.Sprint(res["txHash"])) || audit[0].CompletedAt == nil {
			t.Fatalf("audit rows %+v, %v", audit, err)
		}
		if code, err := admin.Do(ctx, "POST", refundPath(q.RequestID), map[string]any{"reason": "again", "operator": "bob"}, &body); err != nil || code != 409 {
			t.Fatalf("a second admin refund: %d %v %v, want 409", code, body, err)
		}
		if n := s.Refunds(t, 31337, q.RequestID); n != 1 {
			t.Fatalf("%d refunds on chain after a second admin refund, want exactly 1", n)
		}
	})
}

// depositLog is the depository's Deposit log of a receipt: the key of its refund request.
func depositRefundID(t *testing.T, chainID uint64, r *types.Receipt) string {
	t.Helper()
	for _, l := range r.Logs {
		if l.Address == devnet.DepositoryAddress {
			return intent.DepositRefundRequestID(chainID, r.TxHash.Hex(), l.Index)
		}
	}
	t.Fatalf("no deposit log in %s", r.TxHash)
	return ""
}

// No refund is skipped (spec, Errors: ORPHANED_DEPOSIT_REFUND; duplicateDeposits): a deposit
// naming no known order is refunded to its depositor as a request of its own, and every deposit
// after the first for an order — while the order's intent runs, and after it has ended — is
// refunded to refundTo as a child request; the parent's record lists them in
// duplicateDeposits, and the order is filled once.
func TestOrphanedAndDuplicateDepositsAreRefunded(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()

	t.Run("ORPHANED_DEPOSIT_REFUND: a deposit for no known order", func(t *testing.T) {
		acct := devnet.TestAccounts()[4]
		w := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
		amount := big.NewInt(30_000_000_000_000_000)
		r, err := w.SendTx(ctx, quote.TxData{ChainID: 31337, To: devnet.DepositoryAddress.Hex(), Value: amount.String(),
			Data: hexutil.Encode(evm.DepositoryABI.PackDepositNative(common.HexToHash("0x0badc0de")))})
		if err != nil {
			t.Fatal(err)
		}
		before := s.balance(t, 31337, common.Address{}, acct.Address)
		id := depositRefundID(t, 31337, r)
		final, seen, err := s.API.WaitStatus(ctx, id, "success", "failure", "refund")
		if err != nil {
			t.Fatal(err)
		}
		if final.Status != "refund" || final.FailReason != string(intent.FailReasonOrphanedDepositRefund) {
			t.Fatalf("orphaned deposit's request ended %+v (seen %v)", final, seen)
		}
		if got := new(big.Int).Sub(s.balance(t, 31337, common.Address{}, acct.Address), before); got.Cmp(amount) != 0 {
			t.Fatalf("the depositor got %s back, deposited %s", got, amount)
		}
		if n := s.Refunds(t, 31337, id); n != 1 {
			t.Fatalf("%d refunds, want exactly 1", n)
		}
		s.recordHistory(t, id, "deposit-refund-orphaned")
	})

	t.Run("duplicate deposits while the intent runs and after it ended", func(t *testing.T) {
		acct := devnet.TestAccounts()[5]
		refundTo := freshAddress(t)
		w := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
		q := s.ethBridge(t, ctx, acct.Address, devnet.TestAccounts()[8].Address, refundTo, "100000000000000000")
		d := depositStep(t, q)
		if _, err := w.SendTx(ctx, d); err != nil {
			t.Fatal(err)
		}
		second, err := w.SendTx(ctx, d) // paid again before the first is filled
		if err != nil {
			t.Fatal(err)
		}
		final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
		if err != nil || final.Status != "success" {
			t.Fatalf("parent ended %+v (seen %v), %v", final, seen, err)
		}
		s.recordHistory(t, q.RequestID, "duplicate-deposit-parent")
		third, err := w.SendTx(ctx, d) // and once more after it was filled
		if err != nil {
			t.Fatal(err)
		}
		children := []string{depositRefundID(t, 31337, second), depositRefundID(t, 31337, third)}
		for _, id := range children {
			st, seen, err := s.API.WaitStatus(ctx, id, "success", "failure", "refund")
			if err != nil || st.Status != "refund" || st.FailReason != string(intent.FailReasonOrphanedDepositRefund) {
				t.Fatalf("refund request %s ended %+v (seen %v), %v", id, st, seen, err)
			}
			if n := s.Refunds(t, 31337, id); n != 1 {
				t.Fatalf("%d refunds for %s, want exactly 1", n, id)
			}
			if id == children[0] {
				s.recordHistory(t, id, "deposit-refund-duplicate-child")
			}
			rec, err := s.Sys.Store.Record(ctx, id)
			if err != nil || rec.DuplicateDeposits == nil || rec.DuplicateDeposits.ParentRequestID != q.RequestID {
				t.Fatalf("refund request record %+v, %v: want duplicateDeposits naming the parent", rec, err)
			}
		}
		v, _ := new(big.Int).SetString(d.Value, 10)
		if got := s.balance(t, 31337, common.Address{}, refundTo); got.Cmp(new(big.Int).Mul(v, big.NewInt(2))) != 0 {
			t.Fatalf("refundTo got %s back, want the two extra deposits of %s", got, v)
		}
		if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 1 {
			t.Fatalf("order filled %d times, want exactly 1", n)
		}
		rec, err := s.Sys.Store.Record(ctx, q.RequestID)
		if err != nil || rec.DuplicateDeposits == nil || rec.DuplicateDeposits.ParentRequestID != q.RequestID ||
			!slices.Equal(rec.DuplicateDeposits.RefundRequestIDs, children) {
			t.Fatalf("parent record duplicateDeposits %+v, %v; want %v", rec.DuplicateDeposits, err, children)
		}
	})

	// Issue 33, point 1 (review L19): "an extra deposit into an existing order by a different
	// depositor is refunded to its depositor, not to the order's refundTo", while the order's
	// intent runs and after it has ended.
	t.Run("extra deposits by another depositor are refunded to that depositor", func(t *testing.T) {
		acct, stranger := devnet.TestAccounts()[6], devnet.TestAccounts()[3]
		refundTo := freshAddress(t)
		q := s.ethBridge(t, ctx, acct.Address, devnet.TestAccounts()[8].Address, refundTo, "100000000000000000")
		d := depositStep(t, q)
		if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).SendTx(ctx, d); err != nil {
			t.Fatal(err)
		}
		other := &e2e.Wallet{Key: stranger.Key, RPCs: s.RPCs}
		pay := func() string {
			t.Helper()
			r, err := other.SendTx(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			return depositRefundID(t, 31337, r)
		}
		during := pay()
		if final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund"); err != nil || final.Status != "success" {
			t.Fatalf("parent ended %+v (seen %v), %v", final, seen, err)
		}
		after := pay()
		for _, id := range []string{during, after} {
			st, seen, err := s.API.WaitStatus(ctx, id, "success", "failure", "refund")
			if err != nil || st.Status != "refund" {
				t.Fatalf("refund request %s ended %+v (seen %v), %v", id, st, seen, err)
			}
			rec, err := s.Sys.Store.Record(ctx, id)
			if err != nil || !strings.EqualFold(rec.RefundTo, stranger.Address.Hex()) {
				t.Fatalf("refund request %s refunds to %q, %v; want the depositor %s", id, rec.RefundTo, err, stranger.Address.Hex())
			}
			if n := s.Refunds(t, 31337, id); n != 1 {
				t.Fatalf("%d refunds for %s, want exactly 1", n, id)
			}
			for _, l := range s.refundReceipt(t, id).Logs {
				if l.Address == devnet.DepositoryAddress && common.BytesToAddress(l.Topics[2].Bytes()) != stranger.Address {
					t.Fatalf("refund %s paid %s, want the depositor %s", id, common.BytesToAddress(l.Topics[2].Bytes()), stranger.Address)
				}
			}
		}
		if got := s.balance(t, 31337, common.Address{}, refundTo); got.Sign() != 0 {
			t.Fatalf("the order's refundTo got %s of another depositor's deposits", got)
		}
	})
}
