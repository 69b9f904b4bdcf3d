package solana_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/intent"
)

// walletTx compiles a deposit step's item as a wallet does from the JSON the API serves: its
// instructions (base58 keys, hex data) into one transaction paid by the item's from, with a
// recent blockhash.
func walletTx(t *testing.T, step intent.Step) *solanago.Transaction {
	t.Helper()
	raw, err := json.Marshal(step.Items[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		From         string `json:"from"`
		Instructions []struct {
			Keys []struct {
				Pubkey     string `json:"pubkey"`
				IsSigner   bool   `json:"isSigner"`
				IsWritable bool   `json:"isWritable"`
			} `json:"keys"`
			ProgramID string `json:"programId"`
			Data      string `json:"data"`
		} `json:"instructions"`
		AddressLookupTableAddresses []string `json:"addressLookupTableAddresses"`
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	if data.AddressLookupTableAddresses == nil || len(data.AddressLookupTableAddresses) != 0 {
		t.Errorf("addressLookupTableAddresses = %v, want [] (%s)", data.AddressLookupTableAddresses, raw)
	}
	var ixs []solanago.Instruction
	for _, ix := range data.Instructions {
		var metas solanago.AccountMetaSlice
		for _, k := range ix.Keys {
			metas = append(metas, &solanago.AccountMeta{PublicKey: solanago.MustPublicKeyFromBase58(k.Pubkey), IsSigner: k.IsSigner, IsWritable: k.IsWritable})
		}
		d, err := hex.DecodeString(ix.Data)
		if err != nil {
			t.Fatalf("instruction data %q is not hex: %v", ix.Data, err)
		}
		ixs = append(ixs, solanago.NewInstruction(solanago.MustPublicKeyFromBase58(ix.ProgramID), metas, d))
	}
	tx, _, err := solana.CompileAndMeasure(ixs, solanago.MustPublicKeyFromBase58(data.From), latestBlockhash(t))
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// orderID is a distinct order id for each test.
func orderID(tag byte) string {
	b := make([]byte, 32)
	for i := range b {
		b[i] = tag
	}
	return "0x" + hex.EncodeToString(b)
}

func TestFundingStepsShape(t *testing.T) {
	vault := newKey(t).PublicKey()
	c := dial(t, vault)
	user := svm.TestAddresses()[7]
	o := chains.FundingOrder{RequestID: "0xreq", OrderID: orderID(7), User: user.String(),
		Currency: intent.Currency{ChainID: solana.ChainID, Address: svm.USDCMint.String(), Symbol: "USDC", Decimals: svm.USDCDecimals},
		Amount:   big.NewInt(2_500_000)}
	steps, err := c.FundingSteps(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 1 || steps[0].ID != "deposit" || steps[0].Kind != intent.StepKindTransaction || steps[0].RequestID != "0xreq" ||
		len(steps[0].Items) != 1 || steps[0].Items[0].Status != intent.StepItemIncomplete {
		t.Fatalf("steps = %+v, want one incomplete deposit transaction", steps)
	}
	d := steps[0].Items[0].Data
	if d.From != user.String() || d.To != vault.String() || d.Value != "2500000" || d.ChainID != solana.ChainID || d.SVMTx == nil {
		t.Fatalf("item data = %+v", d)
	}
	// The vault has no USDC account yet: created idempotently (instruction 1 of the ATA
	// program), then the transferChecked, then the memo of the order id.
	ixs := d.Instructions
	if len(ixs) != 3 || ixs[0].ProgramID != solanago.SPLAssociatedTokenAccountProgramID.String() || ixs[0].Data != "01" ||
		ixs[1].ProgramID != solanago.TokenProgramID.String() || !strings.HasPrefix(ixs[1].Data, "0c") ||
		ixs[2].ProgramID != solanago.MemoProgramID.String() || ixs[2].Data != hex.EncodeToString([]byte(orderID(7))) {
		t.Fatalf("instructions = %+v", ixs)
	}
	if k := ixs[1].Keys[3]; k.Pubkey != user.String() || !k.IsSigner || k.IsWritable {
		t.Errorf("transferChecked's authority = %+v, want the user, signer, read-only", k)
	}
	raw, _ := json.Marshal(steps[0])
	for _, field := range []string{`"instructions":[`, `"addressLookupTableAddresses":[]`, `"programId":`, `"isSigner":true`, `"isWritable":true`, `"pubkey":`} {
		if !strings.Contains(string(raw), field) {
			t.Errorf("step JSON lacks %s: %s", field, raw)
		}
	}
	// An EVM item keeps its bytes: no Solana fields.
	evm, _ := json.Marshal(intent.TxData{From: "0x1", To: "0x2", Data: "0x", Value: "0", ChainID: 1})
	if string(evm) != `{"from":"0x1","to":"0x2","data":"0x","value":"0","chainId":1}` {
		t.Errorf("an EVM item's data is %s", evm)
	}
}

func TestTransactionTooLarge(t *testing.T) {
	payer := svm.TestAccounts()[6]
	bh := latestBlockhash(t)
	sized := func(memo int) []solanago.Instruction {
		return []solanago.Instruction{system.NewTransferInstruction(1_000_000, payer.PublicKey, newKey(t).PublicKey()).Build(),
			solana.MemoInstruction(strings.Repeat("a", memo))}
	}
	_, base, err := solana.CompileAndMeasure(sized(0), payer.PublicKey, bh)
	if err != nil {
		t.Fatal(err)
	}
	// A memo one byte too long (a memo of n bytes adds n, its length being one byte up to 127
	// and two from 128 on): refused, with the measured size and the excess in the message.
	over := solana.MaxTransactionSize - base
	_, size, err := solana.CompileAndMeasure(sized(over), payer.PublicKey, bh)
	var tooLarge *chains.TxTooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Size != size || size <= solana.MaxTransactionSize || tooLarge.Limit != solana.MaxTransactionSize {
		t.Fatalf("a %d-byte transaction: %v (size %d), want a *chains.TxTooLargeError", size, err, size)
	}
	if want := "is " + itoa(size) + " bytes, " + itoa(size-solana.MaxTransactionSize) + " over Solana's 1232 byte limit"; !strings.Contains(err.Error(), want) {
		t.Errorf("message %q lacks %q", err, want)
	}
	// The largest that fits is accepted, measures what the signed wire is, and the chain takes it.
	tx, size, err := solana.CompileAndMeasure(sized(over-1), payer.PublicKey, bh)
	if err != nil || size != solana.MaxTransactionSize {
		t.Fatalf("a transaction of the limit: size %d, %v", size, err)
	}
	sendAndConfirm(t, tx, payer.PrivateKey)
	wire, _ := tx.MarshalBinary()
	if len(wire) != size {
		t.Errorf("signed, the transaction is %d bytes; measured %d", len(wire), size)
	}
	t.Logf("a transfer with an empty memo is %d bytes; with a memo of %d bytes, %d (accepted); of %d bytes, %d (refused)",
		base, over-1, solana.MaxTransactionSize, over, tooLarge.Size)
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

func TestSimulateFill(t *testing.T) {
	c := dial(t, newKey(t).PublicKey())
	solver := svm.SolverAddress().String()
	for _, currency := range []string{solana.NativeAddress, svm.USDCMint.String()} {
		if err := c.SimulateFill(t.Context(), solver, currency, newKey(t).PublicKey().String()); err != nil {
			t.Errorf("SimulateFill(%s) to a new account: %v, want nil", currency, err)
		}
	}
	// A solver with nothing cannot pay: the chain's refusal, typed.
	broke := newKey(t).PublicKey().String()
	err := c.SimulateFill(t.Context(), broke, svm.USDCMint.String(), newKey(t).PublicKey().String())
	var revert *chains.RevertError
	if !errors.As(err, &revert) || revert.Name == "" {
		t.Fatalf("SimulateFill by an empty account: %v, want a *chains.RevertError", err)
	}
	t.Logf("refused: %s (%s)", revert.Name, revert.Reason)
	// A recipient whose token account the mint's freeze authority froze is blocked.
	frozen := newKey(t)
	freeze(t, frozen.PublicKey())
	err = c.SimulateFill(t.Context(), solver, svm.USDCMint.String(), frozen.PublicKey().String())
	if !errors.As(err, &revert) || !revert.Blocked {
		t.Fatalf("SimulateFill to a frozen account: %v, want a blocked *chains.RevertError", err)
	}
	if _, _, err := c.DepositAddressSteps(chains.FundingOrder{}, ""); !errors.Is(err, chains.ErrUnsupported) {
		t.Errorf("DepositAddressSteps: %v, want ErrUnsupported", err)
	}
	if _, err := c.SweepCost(t.Context(), solana.NativeAddress); !errors.Is(err, chains.ErrUnsupported) {
		t.Errorf("SweepCost: %v, want ErrUnsupported", err)
	}
}

// freeze creates owner's USDC account and has the deployer (the mint's freeze authority) freeze it.
func freeze(t *testing.T, owner solanago.PublicKey) {
	t.Helper()
	deployer := svm.DeployerKey()
	ata, _, _ := solanago.FindAssociatedTokenAddress(owner, svm.USDCMint)
	tx, _, err := solana.CompileAndMeasure([]solanago.Instruction{
		solana.CreateATAIdempotent(deployer.PublicKey(), owner, svm.USDCMint),
		token.NewFreezeAccountInstruction(ata, svm.USDCMint, deployer.PublicKey(), nil).Build(),
	}, deployer.PublicKey(), latestBlockhash(t))
	if err != nil {
		t.Fatal(err)
	}
	sendAndConfirm(t, tx, deployer)
}

// addTokenAccount gives owner a second USDC account (not its associated one) and moves amount
// into it from its associated one; it returns the new account.
func addTokenAccount(t *testing.T, owner svm.Account, amount uint64) solanago.PublicKey {
	t.Helper()
	acct := newKey(t)
	rent, err := rpcClient(t).GetMinimumBalanceForRentExemption(t.Context(), 165, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	tx, _, err := solana.CompileAndMeasure([]solanago.Instruction{
		system.NewCreateAccountInstruction(rent, 165, solanago.TokenProgramID, owner.PublicKey, acct.PublicKey()).Build(),
		token.NewInitializeAccount3Instruction(owner.PublicKey, acct.PublicKey(), svm.USDCMint).Build(),
		token.NewTransferCheckedInstruction(amount, svm.USDCDecimals, svm.USDCAccount(owner.PublicKey), svm.USDCMint, acct.PublicKey(), owner.PublicKey, nil).Build(),
	}, owner.PublicKey, latestBlockhash(t))
	if err != nil {
		t.Fatal(err)
	}
	sendAndConfirm(t, tx, owner.PrivateKey, acct)
	return acct.PublicKey()
}

// Issue 36, point 4: RecipientRent is the rent a fill to the recipient needs beyond its fee. An
// SPL token to a wallet without an associated token account of the mint: the account's
// rent-exempt minimum (165 bytes), nothing when it has one. SOL: no account is created, but a
// new address must be paid at least an empty account's rent-exempt minimum; a funded wallet
// has no minimum.
func TestRecipientRent(t *testing.T) {
	c := dial(t, newKey(t).PublicKey())
	cl := rpcClient(t)
	tokenRent, err := cl.GetMinimumBalanceForRentExemption(t.Context(), solana.TokenAccountSize, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	emptyRent, err := cl.GetMinimumBalanceForRentExemption(t.Context(), solana.EmptyAccountSize, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	fresh := newKey(t).PublicKey().String()
	holder := svm.TestAccounts()[2].PublicKey.String()
	for _, tc := range []struct {
		name, currency, recipient string
		rent                      uint64
		min                       *big.Int
	}{
		{"USDC to a wallet without a token account", svm.USDCMint.String(), fresh, tokenRent, nil},
		{"USDC to a wallet with one", svm.USDCMint.String(), holder, 0, nil},
		{"SOL to a new address", solana.NativeAddress, fresh, 0, new(big.Int).SetUint64(emptyRent)},
		{"SOL to a funded wallet", solana.NativeAddress, holder, 0, nil},
	} {
		r, err := c.RecipientRent(t.Context(), tc.currency, tc.recipient)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Rent == nil || r.Rent.Uint64() != tc.rent || (r.MinPayment == nil) != (tc.min == nil) ||
			(tc.min != nil && r.MinPayment.Cmp(tc.min) != 0) {
			t.Errorf("%s: rent %v, minimum payment %v; want %d and %v", tc.name, r.Rent, r.MinPayment, tc.rent, tc.min)
		}
	}
	if tokenRent != 2039280 || emptyRent != 890880 {
		t.Logf("the chain's rent-exempt minima: token account %d, empty account %d lamports", tokenRent, emptyRent)
	}
}
