package integration

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/testkit/e2e"
)

// depositAddressRequest turns a quoted request into one funded by a strict deposit address, as a
// quote with useDepositAddress makes it (the quote side, issue 35 point 2, is built beside this):
// the stored execution names the funding strategy and the address (its salt: the quote's order
// id and user), and the address is issued with the quote. It returns the address.
func (s *stack) depositAddressRequest(t *testing.T, ctx context.Context, q *quote.Response, user common.Address) common.Address {
	t.Helper()
	orderID := common.HexToHash(q.Protocol.V2.OrderID)
	addr := evm.DepositAddress(devnet.DepositAddressFactoryAddress, devnet.DepositAddressImplementationAddress, orderID, user)
	id := crypto.Keccak256Hash([]byte("depositAddressId"), orderID.Bytes()).Hex()
	patch, err := json.Marshal(map[string]any{
		"funding": intent.Funding{Family: "evm", Strategy: intent.FundingDepositAddress},
		"depositAddress": intent.ExecutionDepositAddress{ID: id, Address: addr.Hex(), Type: intent.DepositAddressStrict,
			OrderID: orderID.Hex(), Depositor: user.Hex()},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sys.Pool.Exec(ctx, `UPDATE quotes SET quote = quote || $2::jsonb WHERE request_id = $1`, q.RequestID, patch); err != nil {
		t.Fatal(err)
	}
	if err := s.Sys.Store.InsertDepositAddress(ctx, intent.DepositAddress{ID: id, Address: addr.Hex(), ChainID: 31337,
		Type: intent.DepositAddressStrict, OrderID: orderID.Hex(), Depositor: user.Hex(), RequestID: q.RequestID,
		Currency: q.Details.CurrencyIn.Currency.Address, RefundTo: user.Hex(), Route: []byte(`{}`), CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return addr
}

// Issue 35, point 3: "exact amount (fill)", each a test on the devnet, and point 6: "a sweep
// happens once". A strict deposit address is paid the exact quoted amount by a plain transfer
// from a wallet that sends no calldata: native ETH by a plain send, USDC by the token's
// transfer. The engine sees the payment at the address (the scanner, not a client's hint),
// sweeps the address into the depository once (one solver transaction of kind sweep, one Swept
// event, one Deposit event of the order: the sweep's, which is not routed as a second deposit),
// has the sweep's deposit attested and fills the order once; the request reaches success. Its
// record's inTxs are the payment and the sweep; its deposit (protocol.deposit.origin) is the
// sweep's Deposit event; the address's history names the request and the sweep.
func TestADepositAddressPaidByAPlainTransferIsSweptOnceAndFilled(t *testing.T) {
	s := startStack(t)
	cases := []struct {
		name     string
		currency common.Address
		amount   string
		history  string
	}{
		{"native ETH by a plain send", common.Address{}, "400000000000000000", "success-deposit-address-eth"},
		{"USDC by transfer", devnet.USDCAddress, "30000000", ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			acct, recipient := devnet.TestAccounts()[4+i], freshAddress(t)
			wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
			q, err := s.API.Quote(ctx, map[string]any{"user": acct.Address.Hex(), "recipient": recipient.Hex(), "originChainId": 31337,
				"destinationChainId": 31338, "originCurrency": tc.currency.Hex(), "destinationCurrency": tc.currency.Hex(),
				"amount": tc.amount, "tradeType": "EXACT_INPUT", "includeProtocolData": true})
			if err != nil {
				t.Fatal(err)
			}
			addr := s.depositAddressRequest(t, ctx, q, acct.Address)
			orderID := common.HexToHash(q.Protocol.V2.OrderID)
			amountIn := q.Details.CurrencyIn.Amount
			pay := quote.TxData{ChainID: 31337, To: addr.Hex(), Data: "0x", Value: amountIn}
			if tc.currency != (common.Address{}) {
				v, _ := new(big.Int).SetString(amountIn, 10)
				pay = quote.TxData{ChainID: 31337, To: tc.currency.Hex(), Data: hexutil.Encode(evm.ERC20ABI.PackTransfer(addr, v)), Value: "0"}
			}
			paid, err := wallet.SendTx(ctx, pay)
			if err != nil {
				t.Fatal(err)
			}
			final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
			if err != nil {
				t.Fatal(err)
			}
			if tc.history != "" {
				s.recordHistory(t, q.RequestID, tc.history)
			}
			if final.Status != "success" {
				t.Fatalf("final status %+v (seen %v)", final, seen)
			}
			minOut, _ := new(big.Int).SetString(q.Details.CurrencyOut.MinimumAmount, 10)
			if got := s.balance(t, 31338, tc.currency, recipient); got.Cmp(minOut) < 0 {
				t.Fatalf("recipient received %s, quoted minimum %s", got, minOut)
			}
			if n := s.fills(t, 31338, orderID); n != 1 {
				t.Fatalf("fills of the order: %d, want 1", n)
			}
			if n := s.Events(t, 31337, devnet.DepositAddressFactoryAddress, evm.DepositAddressFactoryABI.GetABI().Events["Swept"].ID)[orderID]; n != 1 {
				t.Fatalf("sweeps of the address: %d, want 1", n)
			}
			if n := s.Events(t, 31337, devnet.DepositoryAddress, evm.DepositoryABI.GetABI().Events["Deposit"].ID)[orderID]; n != 1 {
				t.Fatalf("deposits of the order in the depository: %d, want 1 (the sweep's)", n)
			}
			if b := s.balance(t, 31337, tc.currency, addr); b.Sign() != 0 {
				t.Fatalf("left at the address: %s", b)
			}
			var sweeps int
			var sweep string
			if err := s.Sys.Pool.QueryRow(ctx, `SELECT count(*), max(tx_hash) FROM solver_transactions WHERE request_id = $1 AND kind = 'sweep'`,
				q.RequestID).Scan(&sweeps, &sweep); err != nil || sweeps != 1 {
				t.Fatalf("kept sweeps of the request: %d, %v; want 1", sweeps, err)
			}

			rec, err := s.Sys.Store.Record(ctx, q.RequestID)
			if err != nil {
				t.Fatal(err)
			}
			var in []string
			for _, x := range rec.Data.InTxs {
				in = append(in, strings.ToLower(x.TxHash))
				if x.Status != string(intent.TxSuccess) || x.ChainID != 31337 || x.Block == 0 {
					t.Errorf("inTx %+v", x)
				}
			}
			if want := []string{strings.ToLower(paid.TxHash.Hex()), strings.ToLower(sweep)}; !slices.Equal(in, want) {
				t.Fatalf("record inTxs %v, want the payment and the sweep %v", in, want)
			}
			if origin := rec.Protocol.Deposit.Origin; origin == nil || !strings.EqualFold(origin.TransactionID, sweep) ||
				!strings.EqualFold(origin.OnchainID, orderID.Hex()) || origin.Amount != amountIn {
				t.Fatalf("protocol.deposit.origin = %+v, want the sweep's deposit of %s", origin, amountIn)
			}
			if len(final.InTxHashes) != 2 || len(final.TxHashes) != 1 {
				t.Fatalf("status hashes: in %v, out %v", final.InTxHashes, final.TxHashes)
			}

			// The scanner records the sweep on the payment once it scans the sweep's block.
			deadline := time.Now().Add(20 * time.Second)
			for {
				history, err := s.Sys.Store.DepositAddressTransfers(ctx, crypto.Keccak256Hash([]byte("depositAddressId"), orderID.Bytes()).Hex())
				if err != nil {
					t.Fatal(err)
				}
				if len(history) != 1 || !strings.EqualFold(history[0].TxHash, paid.TxHash.Hex()) || history[0].RequestID != q.RequestID ||
					history[0].Amount != amountIn || !strings.EqualFold(history[0].Sender, acct.Address.Hex()) {
					t.Fatalf("the address's history %+v", history)
				}
				if strings.EqualFold(history[0].SweepTx, sweep) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the address's history %+v names no sweep %s", history, sweep)
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
	}
}
