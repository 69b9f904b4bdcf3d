package solana_test

import (
	"errors"
	"math/big"
	"testing"

	solanago "github.com/gagliardetto/solana-go"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/intent"
)

// TestDeposits pays a quote's deposit step as a wallet would (the step's instructions from its
// JSON, compiled, signed by the user, sent) and finds it again through the family's funding: in
// the range of slots it landed in, by its signature, with its order, amount and payer.
func TestDeposits(t *testing.T) {
	cases := []struct {
		name     string
		user     svm.Account
		currency intent.Currency
		amount   int64
		// index is the transfer's instruction: after the vault's token account's creation for
		// USDC.
		index uint
	}{
		{"SOL", svm.TestAccounts()[1], intent.Currency{Address: solana.NativeAddress, Symbol: "SOL", Decimals: solana.NativeDecimals}, 1_500_000_000, 0},
		{"USDC", svm.TestAccounts()[2], intent.Currency{Address: svm.USDCMint.String(), Symbol: "USDC", Decimals: svm.USDCDecimals}, 12_345_678, 1},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vault := newKey(t).PublicKey()
			c := dial(t, vault)
			start, err := c.Head(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			order := orderID(byte(0x10 + i))
			o := chains.FundingOrder{RequestID: "0xr", OrderID: order, User: tc.user.PublicKey.String(), Currency: tc.currency, Amount: big.NewInt(tc.amount)}
			steps, err := c.FundingSteps(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			sig := sendAndConfirm(t, walletTx(t, steps[0]), tc.user.PrivateKey)
			head, err := c.Head(t.Context())
			if err != nil {
				t.Fatal(err)
			}

			want := intent.Deposit{ChainID: solana.ChainID, TxHash: sig.String(), LogIndex: tc.index, OrderID: order,
				Depositor: tc.user.PublicKey.String(), Currency: tc.currency.Address, Amount: big.NewInt(tc.amount).String(), Family: "svm"}
			got, err := c.Deposits(t.Context(), start, head)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("Deposits(%d, %d) = %+v, want the one deposit", start, head, got)
			}
			want.BlockNumber = got[0].BlockNumber
			if got[0] != want || got[0].BlockNumber < start || got[0].BlockNumber > head {
				t.Fatalf("Deposits(%d, %d) = %+v,\nwant %+v", start, head, got[0], want)
			}
			inTx, err := c.DepositsInTx(t.Context(), sig.String())
			if err != nil || len(inTx) != 1 || inTx[0] != want {
				t.Fatalf("DepositsInTx = %+v, %v; want %+v", inTx, err, want)
			}
			// Outside the slot it landed in, the range has no deposit.
			if before, err := c.Deposits(t.Context(), start, want.BlockNumber-1); err != nil || len(before) != 0 {
				t.Errorf("Deposits(%d, %d) = %+v, %v; want none", start, want.BlockNumber-1, before, err)
			}
			if after, err := c.Deposits(t.Context(), want.BlockNumber+1, head+1); err != nil || len(after) != 0 {
				t.Errorf("Deposits(%d, %d) = %+v, %v; want none", want.BlockNumber+1, head+1, after, err)
			}

			b, err := c.TxBlock(t.Context(), sig.String())
			if err != nil || b.Number != want.BlockNumber {
				t.Errorf("TxBlock = %+v, %v; want slot %d", b, err, want.BlockNumber)
			}
			facts, err := c.TxFacts(t.Context(), sig.String(), true)
			if err != nil || facts.Block != want.BlockNumber || facts.Fee == nil || facts.Fee.Int64() != solana.LamportsPerSignature || facts.Timestamp == 0 {
				t.Errorf("TxFacts = %+v, %v; want slot %d, a fee of one signature and a time", facts, err, want.BlockNumber)
			}
			if known, err := c.TxKnown(t.Context(), sig.String()); err != nil || !known {
				t.Errorf("TxKnown = %v, %v; want true", known, err)
			}
			bal, err := c.BalanceNow(t.Context(), tc.currency.Address, vault.String())
			if err != nil || bal.Cmp(big.NewInt(tc.amount)) != 0 {
				t.Errorf("the vault holds %v (%v), want %d", bal, err, tc.amount)
			}
			// The vault's token account exists now: the next deposit does not create it again.
			again, err := c.FundingSteps(t.Context(), o)
			if wantIxs := 2; err != nil || len(again[0].Items[0].Data.Instructions) != wantIxs {
				t.Errorf("the next deposit step: %+v, %v; want %d instructions", again, err, wantIxs)
			}
			t.Logf("%s deposit %s in slot %d (range %d..%d)", tc.name, sig, want.BlockNumber, start, head)
		})
	}
}

// TestNotDeposits: a transfer to the vault without a memo, with a memo that is no order id, or
// with memos of two orders (which one it pays cannot be told), and an unknown transaction are
// not deposits.
func TestNotDeposits(t *testing.T) {
	vault := newKey(t).PublicKey()
	c := dial(t, vault)
	user := svm.TestAccounts()[3]
	start, err := c.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := chains.FundingOrder{OrderID: orderID(0x20), User: user.PublicKey.String(), Amount: big.NewInt(1_000_000_000),
		Currency: intent.Currency{Address: solana.NativeAddress, Symbol: "SOL", Decimals: solana.NativeDecimals}}
	ixs, err := c.DepositInstructions(t.Context(), user.PublicKey, o)
	if err != nil {
		t.Fatal(err)
	}
	twoOrders := []solanago.Instruction{solana.MemoInstruction(orderID(0x21)), solana.MemoInstruction(orderID(0x22))}
	for _, memo := range [][]solanago.Instruction{nil, {solana.MemoInstruction("hello")}, twoOrders} {
		tx, _, err := solana.CompileAndMeasure(append(ixs[:1:1], memo...), user.PublicKey, latestBlockhash(t))
		if err != nil {
			t.Fatal(err)
		}
		sig := sendAndConfirm(t, tx, user.PrivateKey)
		if ds, err := c.DepositsInTx(t.Context(), sig.String()); err != nil || len(ds) != 0 {
			t.Errorf("DepositsInTx of a payment without an order id = %+v, %v; want none", ds, err)
		}
	}
	head, _ := c.Head(t.Context())
	if ds, err := c.Deposits(t.Context(), start, head); err != nil || len(ds) != 0 {
		t.Errorf("Deposits = %+v, %v; want none", ds, err)
	}
	unknown := solanago.SignatureFromBytes(make([]byte, 64)).String()
	if known, err := c.TxKnown(t.Context(), unknown); err != nil || known {
		t.Errorf("TxKnown(unknown) = %v, %v", known, err)
	}
	if _, err := c.DepositsInTx(t.Context(), unknown); !errors.Is(err, chains.ErrNotFound) {
		t.Errorf("DepositsInTx(unknown) = %v, want chains.ErrNotFound", err)
	}
	if _, err := c.TxBlock(t.Context(), unknown); !errors.Is(err, chains.ErrNotFound) {
		t.Errorf("TxBlock(unknown) = %v, want chains.ErrNotFound", err)
	}
}
