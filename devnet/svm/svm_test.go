package svm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
	ata "github.com/gagliardetto/solana-go/programs/associated-token-account"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
)

// testSlotTime is the tests' slot: short, so that finality (32 slots) takes under two seconds,
// and long enough that a blockhash (150 slots) outlives any pause of a loaded machine between
// fetching it and sending a transaction. expirySlotTime is the expiry test's, on a chain of its
// own: 150 slots in a second and a half.
const (
	testSlotTime   = 50 * time.Millisecond
	expirySlotTime = 10 * time.Millisecond
)

// startChain starts a chain for one test on a free port; it stops with the test.
func startChain(t *testing.T, slot time.Duration) (*Chain, *rpc.Client) {
	t.Helper()
	c, err := Start(t.Context(), Options{SlotTime: slot})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	cl := c.Client()
	t.Cleanup(func() { _ = cl.Close() })
	return c, cl
}

// build signs a transaction of ixs paid by payer, with the latest confirmed blockhash.
func build(t *testing.T, cl *rpc.Client, payer solana.PrivateKey, signers []solana.PrivateKey, ixs ...solana.Instruction) *solana.Transaction {
	t.Helper()
	bh, err := cl.GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	return buildWith(t, bh.Value.Blockhash, payer, signers, ixs...)
}

func buildWith(t *testing.T, blockhash solana.Hash, payer solana.PrivateKey, signers []solana.PrivateKey, ixs ...solana.Instruction) *solana.Transaction {
	t.Helper()
	tx, err := solana.NewTransaction(ixs, blockhash, solana.TransactionPayer(payer.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	sign(t, tx, append([]solana.PrivateKey{payer}, signers...)...)
	return tx
}

func sign(t *testing.T, tx *solana.Transaction, keys ...solana.PrivateKey) {
	t.Helper()
	if _, err := tx.Sign(func(pub solana.PublicKey) *solana.PrivateKey {
		for _, k := range keys {
			if k.PublicKey().Equals(pub) {
				return &k
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// send sends tx with preflight and waits until it is confirmed.
func send(t *testing.T, cl *rpc.Client, tx *solana.Transaction) solana.Signature {
	t.Helper()
	sig, err := cl.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	if sig != tx.Signatures[0] {
		t.Fatalf("sendTransaction returned %s, the transaction's signature is %s", sig, tx.Signatures[0])
	}
	waitStatus(t, cl, sig, rpc.ConfirmationStatusConfirmed)
	return sig
}

// waitStatus polls getSignatureStatuses until sig reaches want (processed < confirmed <
// finalized) and returns that status.
func waitStatus(t *testing.T, cl *rpc.Client, sig solana.Signature, want rpc.ConfirmationStatusType) *rpc.SignatureStatusesResult {
	t.Helper()
	rank := map[rpc.ConfirmationStatusType]int{rpc.ConfirmationStatusProcessed: 1, rpc.ConfirmationStatusConfirmed: 2, rpc.ConfirmationStatusFinalized: 3}
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := cl.GetSignatureStatuses(t.Context(), false, sig)
		if err != nil {
			t.Fatal(err)
		}
		if s := st.Value[0]; s != nil && rank[s.ConfirmationStatus] >= rank[want] {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not reach %s in 10 s (status %+v)", sig, want, st.Value[0])
		}
		time.Sleep(testSlotTime)
	}
}

func balance(t *testing.T, cl *rpc.Client, who solana.PublicKey) uint64 {
	t.Helper()
	b, err := cl.GetBalance(t.Context(), who, rpc.CommitmentProcessed)
	if err != nil {
		t.Fatal(err)
	}
	return b.Value
}

func tokenBalance(t *testing.T, cl *rpc.Client, acct solana.PublicKey) string {
	t.Helper()
	b, err := cl.GetTokenAccountBalance(t.Context(), acct, rpc.CommitmentProcessed)
	if err != nil {
		t.Fatal(err)
	}
	if b.Value.Decimals != USDCDecimals {
		t.Errorf("%s: %d decimals, want %d", acct, b.Value.Decimals, USDCDecimals)
	}
	return b.Value.Amount
}

func getTx(t *testing.T, cl *rpc.Client, sig solana.Signature, enc solana.EncodingType) *rpc.GetTransactionResult {
	t.Helper()
	v := uint64(0)
	if enc == solana.EncodingJSON {
		enc = "" // the RPC's default; solana-go refuses to name it
	}
	out, err := cl.GetTransaction(t.Context(), sig, &rpc.GetTransactionOpts{Encoding: enc, Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &v})
	if err != nil {
		t.Fatalf("getTransaction %s: %v", sig, err)
	}
	return out
}

// rpcError is err's JSON-RPC error, or fails the test.
func rpcError(t *testing.T, err error) *jsonrpc.RPCError {
	t.Helper()
	var re *jsonrpc.RPCError
	if !errors.As(err, &re) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return re
}

func newKey(t *testing.T) solana.PrivateKey {
	t.Helper()
	k, err := solana.NewRandomPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestLocalnet(t *testing.T) {
	t.Parallel()
	c, cl := startChain(t, testSlotTime)
	ctx := t.Context()
	accts := TestAccounts()

	t.Run("genesis", func(t *testing.T) {
		if got := balance(t, cl, accts[0].PublicKey); got != TestAccountSOL*LamportsPerSOL {
			t.Errorf("test keypair 0 has %d lamports, want %d", got, TestAccountSOL*LamportsPerSOL)
		}
		if got := tokenBalance(t, cl, USDCAccount(accts[0].PublicKey)); got != "1000000000000" {
			t.Errorf("test keypair 0 has %s USDC base units, want %d", got, TestAccountUSDC)
		}
		if got := tokenBalance(t, cl, USDCAccount(SolverAddress())); got != "10000000000000" {
			t.Errorf("the solver has %s USDC base units, want %d", got, SolverUSDC)
		}
		gh, err := cl.GetGenesisHash(ctx)
		if err != nil || gh != c.GenesisHash {
			t.Errorf("getGenesisHash: %s, %v; the ready line said %s", gh, err, c.GenesisHash)
		}
		acct, err := cl.GetAccountInfoWithOpts(ctx, USDCMint, &rpc.GetAccountInfoOpts{Encoding: solana.EncodingBase64})
		if err != nil {
			t.Fatal(err)
		}
		var mint token.Mint
		if err := mint.UnmarshalWithDecoder(binDecoder(acct.GetBinary())); err != nil {
			t.Fatal(err)
		}
		if !acct.Value.Owner.Equals(solana.TokenProgramID) || mint.Decimals != USDCDecimals || !mint.IsInitialized ||
			mint.MintAuthority == nil || !mint.MintAuthority.Equals(DeployerAddress()) || mint.Supply != SolverUSDC+TestAccountCount*TestAccountUSDC {
			t.Errorf("USDC mint %s: owner %s, %+v", USDCMint, acct.Value.Owner, mint)
		}
	})

	t.Run("slots and blockhashes advance", func(t *testing.T) {
		s1, err := cl.GetSlot(ctx, rpc.CommitmentProcessed)
		if err != nil {
			t.Fatal(err)
		}
		bh1, err := cl.GetLatestBlockhash(ctx, rpc.CommitmentProcessed)
		if err != nil {
			t.Fatal(err)
		}
		// Slots pass on their own; a loaded machine may slow them, so wait for a few.
		var s2 uint64
		for deadline := time.Now().Add(10 * time.Second); s2 < s1+3 && time.Now().Before(deadline); time.Sleep(testSlotTime) {
			if s2, err = cl.GetSlot(ctx, rpc.CommitmentProcessed); err != nil {
				t.Fatal(err)
			}
		}
		bh2, err := cl.GetLatestBlockhash(ctx, rpc.CommitmentProcessed)
		if err != nil {
			t.Fatal(err)
		}
		if s2 < s1+3 || bh2.Value.Blockhash == bh1.Value.Blockhash || bh2.Value.LastValidBlockHeight <= bh1.Value.LastValidBlockHeight {
			t.Errorf("slot %d -> %d, blockhash %s -> %s (last valid %d -> %d)", s1, s2, bh1.Value.Blockhash, bh2.Value.Blockhash,
				bh1.Value.LastValidBlockHeight, bh2.Value.LastValidBlockHeight)
		}
		// A blockhash is valid through the block 150 after its own (every slot has a block here).
		if bh2.Value.LastValidBlockHeight != bh2.Context.Slot+MaxProcessingAge {
			t.Errorf("lastValidBlockHeight %d at slot %d: want slot + %d", bh2.Value.LastValidBlockHeight, bh2.Context.Slot, MaxProcessingAge)
		}
		fin, _ := cl.GetSlot(ctx, rpc.CommitmentFinalized)
		conf, _ := cl.GetSlot(ctx, rpc.CommitmentConfirmed)
		proc, _ := cl.GetSlot(ctx, rpc.CommitmentProcessed)
		if fin > conf || conf > proc || (proc > FinalizedDepth+2 && proc-fin < FinalizedDepth) {
			t.Errorf("finalized %d, confirmed %d, processed %d", fin, conf, proc)
		}
		if valid, err := cl.IsBlockhashValid(ctx, bh1.Value.Blockhash, rpc.CommitmentProcessed); err != nil || !valid.Value {
			t.Errorf("isBlockhashValid(%s) a few slots on: %v, %v", bh1.Value.Blockhash, valid, err)
		}
	})

	t.Run("SOL transfer", func(t *testing.T) {
		from := accts[1]
		to := newKey(t).PublicKey()
		const amount = 2 * LamportsPerSOL
		before := balance(t, cl, from.PublicKey)
		tx := build(t, cl, from.PrivateKey, nil, system.NewTransferInstruction(amount, from.PublicKey, to).Build())

		msg, err := tx.Message.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		fee, err := cl.GetFeeForMessage(ctx, base64.StdEncoding.EncodeToString(msg), rpc.CommitmentProcessed)
		if err != nil || fee.Value == nil || *fee.Value != LamportsPerSignature {
			t.Fatalf("getFeeForMessage: %+v, %v; want %d", fee, err, LamportsPerSignature)
		}

		sig := send(t, cl, tx)
		st := waitStatus(t, cl, sig, rpc.ConfirmationStatusFinalized)
		if st.Err != nil || st.Confirmations != nil {
			t.Errorf("finalized status %+v: want no error and null confirmations", st)
		}
		if got := balance(t, cl, to); got != amount {
			t.Errorf("recipient has %d lamports, want %d", got, amount)
		}
		if got := balance(t, cl, from.PublicKey); before-got != amount+LamportsPerSignature {
			t.Errorf("sender paid %d lamports, want %d (amount) + %d (fee)", before-got, amount, LamportsPerSignature)
		}

		res := getTx(t, cl, sig, solana.EncodingJSON)
		m := res.Meta
		if m.Err != nil || m.Fee != LamportsPerSignature || res.Slot != st.Slot || res.BlockTime == nil || res.Version != rpc.LegacyTransactionVersion {
			t.Errorf("getTransaction: slot %d (status %d), blockTime %v, version %d, err %v, fee %d", res.Slot, st.Slot, res.BlockTime, res.Version, m.Err, m.Fee)
		}
		parsed, err := res.Transaction.GetTransaction()
		if err != nil {
			t.Fatal(err)
		}
		keys := parsed.Message.AccountKeys
		if len(keys) != 3 || !keys[0].Equals(from.PublicKey) || !keys[1].Equals(to) || parsed.Signatures[0] != sig {
			t.Fatalf("transaction keys %v, signatures %v", keys, parsed.Signatures)
		}
		if m.PreBalances[0]-m.PostBalances[0] != amount+LamportsPerSignature || m.PreBalances[1] != 0 || m.PostBalances[1] != amount {
			t.Errorf("balances %v -> %v", m.PreBalances, m.PostBalances)
		}
		if len(m.LogMessages) == 0 || !strings.Contains(m.LogMessages[0], system.ProgramID.String()) {
			t.Errorf("logs %q", m.LogMessages)
		}
		bin := getTx(t, cl, sig, solana.EncodingBase64)
		if got, _ := bin.Transaction.GetTransaction(); got == nil || got.Signatures[0] != sig {
			t.Errorf("base64 getTransaction: %v", got)
		}
	})

	var splSig solana.Signature
	t.Run("SPL USDC transfer", func(t *testing.T) {
		from := accts[2]
		to := newKey(t)
		const amount = 1_234_567 // 1.234567 USDC
		fromATA, toATA := USDCAccount(from.PublicKey), USDCAccount(to.PublicKey())
		tx := build(t, cl, from.PrivateKey, nil,
			ata.NewCreateInstruction(from.PublicKey, to.PublicKey(), USDCMint).Build(),
			token.NewTransferCheckedInstruction(amount, USDCDecimals, fromATA, USDCMint, toATA, from.PublicKey, nil).Build())
		splSig = send(t, cl, tx)

		if got := tokenBalance(t, cl, toATA); got != "1234567" {
			t.Errorf("recipient's USDC account holds %s, want %d", got, amount)
		}
		if got := tokenBalance(t, cl, fromATA); got != "999998765433" {
			t.Errorf("sender's USDC account holds %s, want %d", got, TestAccountUSDC-amount)
		}
		owned, err := cl.GetTokenAccountsByOwner(ctx, to.PublicKey(), &rpc.GetTokenAccountsConfig{Mint: &USDCMint},
			&rpc.GetTokenAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentProcessed})
		if err != nil {
			t.Fatal(err)
		}
		if len(owned.Value) != 1 || !owned.Value[0].Pubkey.Equals(toATA) {
			t.Fatalf("getTokenAccountsByOwner: %+v", owned.Value)
		}
		var acct token.Account
		if err := acct.UnmarshalWithDecoder(binDecoder(owned.Value[0].Account.Data.GetBinary())); err != nil {
			t.Fatal(err)
		}
		if acct.Amount != amount || !acct.Mint.Equals(USDCMint) || !acct.Owner.Equals(to.PublicKey()) {
			t.Errorf("token account %+v", acct)
		}
		byProgram, err := cl.GetTokenAccountsByOwner(ctx, to.PublicKey(), &rpc.GetTokenAccountsConfig{ProgramId: &solana.TokenProgramID},
			&rpc.GetTokenAccountsOpts{Encoding: solana.EncodingJSONParsed})
		if err != nil || len(byProgram.Value) != 1 || !strings.Contains(string(byProgram.Value[0].Account.Data.GetRawJSON()), `"amount":"1234567"`) {
			t.Errorf("getTokenAccountsByOwner (programId, jsonParsed): %+v, %v", byProgram, err)
		}

		res := getTx(t, cl, splSig, solana.EncodingJSON)
		pre, post := tokenAmounts(t, res, res.Meta.PreTokenBalances), tokenAmounts(t, res, res.Meta.PostTokenBalances)
		if pre[fromATA] != "1000000000000" || post[fromATA] != "999998765433" || post[toATA] != "1234567" {
			t.Errorf("token balances %v -> %v", pre, post)
		}
		if len(res.Meta.InnerInstructions) == 0 {
			t.Errorf("no inner instructions for the associated token account's creation")
		}
	})

	t.Run("signatures for address", func(t *testing.T) {
		from := accts[2].PublicKey
		one := 1
		newest, err := cl.GetSignaturesForAddressWithOpts(ctx, from, &rpc.GetSignaturesForAddressOpts{Limit: &one, Commitment: rpc.CommitmentConfirmed})
		if err != nil {
			t.Fatal(err)
		}
		if len(newest) != 1 || newest[0].Signature != splSig || newest[0].Err != nil || newest[0].BlockTime == nil {
			t.Fatalf("newest signature of %s: %+v, want %s", from, newest, splSig)
		}
		// Another transaction from the same account, then before/until page around it.
		sig := send(t, cl, build(t, cl, accts[2].PrivateKey, nil, memoIx("hello", from)))
		all, err := cl.GetSignaturesForAddressWithOpts(ctx, from, &rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentConfirmed})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 2 || all[0].Signature != sig || all[1].Signature != splSig || all[0].Memo == nil || *all[0].Memo != "[5] hello" {
			t.Fatalf("signatures of %s, newest first: %s, want %s and %s", from, stringify(all), sig, splSig)
		}
		before, _ := cl.GetSignaturesForAddressWithOpts(ctx, from, &rpc.GetSignaturesForAddressOpts{Before: sig, Commitment: rpc.CommitmentConfirmed})
		until, _ := cl.GetSignaturesForAddressWithOpts(ctx, from, &rpc.GetSignaturesForAddressOpts{Until: splSig, Commitment: rpc.CommitmentConfirmed})
		if len(before) != 1 || before[0].Signature != splSig || len(until) != 1 || until[0].Signature != sig {
			t.Errorf("before %s: %+v; until %s: %+v", sig, before, splSig, until)
		}
		if _, err := cl.GetSignaturesForAddressWithOpts(ctx, from, &rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentProcessed}); err == nil {
			t.Errorf("getSignaturesForAddress at processed: no error (the RPC refuses below confirmed)")
		}
	})

	t.Run("failing transaction", func(t *testing.T) {
		payer := newKey(t)
		air, err := cl.RequestAirdrop(ctx, payer.PublicKey(), LamportsPerSOL, rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, cl, air, rpc.ConfirmationStatusConfirmed)
		if got := balance(t, cl, payer.PublicKey()); got != LamportsPerSOL {
			t.Fatalf("airdropped %d lamports, want %d", got, LamportsPerSOL)
		}
		overdraw := system.NewTransferInstruction(5*LamportsPerSOL, payer.PublicKey(), accts[3].PublicKey).Build()

		// With preflight, the RPC refuses it with the simulation's error and logs.
		_, err = cl.SendTransactionWithOpts(ctx, build(t, cl, payer, nil, overdraw), rpc.TransactionOpts{})
		re := rpcError(t, err)
		data, _ := re.Data.(map[string]any)
		if re.Code != -32002 || !strings.HasPrefix(re.Message, "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1") ||
			data == nil || data["logs"] == nil || !strings.Contains(stringify(data["err"]), `"InstructionError"`) {
			t.Errorf("preflight failure: %d %q %v", re.Code, re.Message, re.Data)
		}
		if got := balance(t, cl, payer.PublicKey()); got != LamportsPerSOL {
			t.Errorf("a refused transaction charged %d lamports", LamportsPerSOL-got)
		}

		// Without it, the transaction lands, fails, and pays its fee.
		tx := build(t, cl, payer, nil, overdraw)
		sig, err := cl.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{SkipPreflight: true})
		if err != nil {
			t.Fatal(err)
		}
		st := waitStatus(t, cl, sig, rpc.ConfirmationStatusConfirmed)
		if !strings.Contains(stringify(st.Err), `{"InstructionError":[0,{"Custom":1}]}`) {
			t.Errorf("status err %s, want InstructionError [0, Custom 1]", stringify(st.Err))
		}
		if got := balance(t, cl, payer.PublicKey()); got != LamportsPerSOL-LamportsPerSignature {
			t.Errorf("after a failed transaction the payer has %d lamports, want %d", got, LamportsPerSOL-LamportsPerSignature)
		}
		res := getTx(t, cl, sig, solana.EncodingJSON)
		if res.Meta.Err == nil || res.Meta.Fee != LamportsPerSignature || len(res.Meta.LogMessages) == 0 {
			t.Errorf("getTransaction of the failed one: err %v fee %d logs %q", res.Meta.Err, res.Meta.Fee, res.Meta.LogMessages)
		}
		// The same transaction again is a duplicate.
		_, err = cl.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{})
		if re := rpcError(t, err); re.Code != -32002 || !strings.Contains(re.Message, "already been processed") {
			t.Errorf("resent: %d %q", re.Code, re.Message)
		}
	})

	t.Run("v0 with an address lookup table", func(t *testing.T) {
		payer := accts[8]
		recent, err := cl.GetSlot(ctx, rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		slot := binary.LittleEndian.AppendUint64(nil, recent)
		table, bump, err := solana.FindProgramAddress([][]byte{payer.PublicKey.Bytes(), slot}, solana.AddressLookupTableProgramID)
		if err != nil {
			t.Fatal(err)
		}
		metas := func() solana.AccountMetaSlice {
			return solana.AccountMetaSlice{solana.Meta(table).WRITE(), solana.Meta(payer.PublicKey).SIGNER(),
				solana.Meta(payer.PublicKey).SIGNER().WRITE(), solana.Meta(solana.SystemProgramID)}
		}
		recipients := solana.PublicKeySlice{newKey(t).PublicKey(), newKey(t).PublicKey()}
		create := append(append([]byte{0, 0, 0, 0}, slot...), bump)
		extend := binary.LittleEndian.AppendUint64([]byte{2, 0, 0, 0}, uint64(len(recipients)))
		for _, r := range recipients {
			extend = append(extend, r.Bytes()...)
		}
		send(t, cl, build(t, cl, payer.PrivateKey, nil,
			solana.NewInstruction(solana.AddressLookupTableProgramID, metas(), create),
			solana.NewInstruction(solana.AddressLookupTableProgramID, metas(), extend)))
		time.Sleep(2 * testSlotTime) // addresses extended in a slot are usable from the next

		bh, err := cl.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := solana.NewTransaction([]solana.Instruction{
			system.NewTransferInstruction(LamportsPerSOL, payer.PublicKey, recipients[0]).Build(),
			system.NewTransferInstruction(2*LamportsPerSOL, payer.PublicKey, recipients[1]).Build(),
		}, bh.Value.Blockhash, solana.TransactionPayer(payer.PublicKey), solana.TransactionAddressTables(map[solana.PublicKey]solana.PublicKeySlice{table: recipients}))
		if err != nil {
			t.Fatal(err)
		}
		sign(t, tx, payer.PrivateKey)
		if len(tx.Message.AddressTableLookups) != 1 || len(tx.Message.AccountKeys) != 2 {
			t.Fatalf("the transaction does not load its recipients from the table: keys %v", tx.Message.AccountKeys)
		}
		sig := send(t, cl, tx)
		if got := balance(t, cl, recipients[1]); got != 2*LamportsPerSOL {
			t.Errorf("recipient loaded from the table has %d lamports", got)
		}
		res := getTx(t, cl, sig, solana.EncodingJSON)
		la := res.Meta.LoadedAddresses
		if res.Version != 0 || len(la.Writable) != 2 || !la.Writable[0].Equals(recipients[0]) || !la.Writable[1].Equals(recipients[1]) || len(la.ReadOnly) != 0 {
			t.Errorf("version %d, loaded addresses %+v", res.Version, la)
		}
		if n := len(res.Meta.PostBalances); n != 4 || res.Meta.PostBalances[2] != LamportsPerSOL || res.Meta.PostBalances[3] != 2*LamportsPerSOL {
			t.Errorf("post balances %v: want the payer, the system program, then the loaded recipients", res.Meta.PostBalances)
		}
		// A client that does not say it reads version 0 is refused, as by the real RPC.
		_, err = cl.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
		if re := rpcError(t, err); re.Code != -32015 {
			t.Errorf("getTransaction of a v0 transaction without maxSupportedTransactionVersion: %d %q", re.Code, re.Message)
		}
	})

	t.Run("durable nonce", func(t *testing.T) {
		payer := accts[4]
		nonce := newKey(t)
		rent, err := cl.GetMinimumBalanceForRentExemption(ctx, 80, "")
		if err != nil {
			t.Fatal(err)
		}
		send(t, cl, build(t, cl, payer.PrivateKey, []solana.PrivateKey{nonce},
			system.NewCreateAccountInstruction(rent, 80, solana.SystemProgramID, payer.PublicKey, nonce.PublicKey()).Build(),
			system.NewInitializeNonceAccountInstruction(payer.PublicKey, nonce.PublicKey(), solana.SysVarRecentBlockHashesPubkey, solana.SysVarRentPubkey).Build()))
		time.Sleep(2 * testSlotTime) // a nonce advances only to a later blockhash
		acct, err := cl.GetAccountInfoWithOpts(ctx, nonce.PublicKey(), &rpc.GetAccountInfoOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentProcessed})
		if err != nil {
			t.Fatal(err)
		}
		stored := solana.HashFromBytes(acct.GetBinary()[40:72])
		to := newKey(t).PublicKey()
		// The nonce stands in for the blockhash; no blockhash of the chain's is named.
		tx := buildWith(t, stored, payer.PrivateKey, nil,
			system.NewAdvanceNonceAccountInstruction(nonce.PublicKey(), solana.SysVarRecentBlockHashesPubkey, payer.PublicKey).Build(),
			system.NewTransferInstruction(LamportsPerSOL, payer.PublicKey, to).Build())
		send(t, cl, tx)
		if got := balance(t, cl, to); got != LamportsPerSOL {
			t.Errorf("the nonce transaction's recipient has %d lamports", got)
		}
		// The nonce has moved on: the same nonce again is refused.
		again := buildWith(t, stored, payer.PrivateKey, nil,
			system.NewAdvanceNonceAccountInstruction(nonce.PublicKey(), solana.SysVarRecentBlockHashesPubkey, payer.PublicKey).Build(),
			system.NewTransferInstruction(LamportsPerSOL+1, payer.PublicKey, to).Build())
		_, err = cl.SendTransactionWithOpts(ctx, again, rpc.TransactionOpts{})
		if re := rpcError(t, err); re.Code != -32002 || !strings.Contains(re.Message, "Blockhash not found") {
			t.Errorf("a spent nonce: %d %q", re.Code, re.Message)
		}
	})

	t.Run("airdrops", func(t *testing.T) {
		to := newKey(t).PublicKey()
		var sigs []solana.Signature
		for range 3 { // the same request three times in one slot: three airdrops
			sig, err := cl.RequestAirdrop(ctx, to, LamportsPerSOL, rpc.CommitmentConfirmed)
			if err != nil {
				t.Fatal(err)
			}
			sigs = append(sigs, sig)
		}
		for _, sig := range sigs {
			waitStatus(t, cl, sig, rpc.ConfirmationStatusConfirmed)
		}
		if got := balance(t, cl, to); got != 3*LamportsPerSOL {
			t.Errorf("three airdrops of 1 SOL left %d lamports", got)
		}
		res := getTx(t, cl, sigs[0], solana.EncodingJSON)
		tx, err := res.Transaction.GetTransaction()
		if err != nil {
			t.Fatal(err)
		}
		if res.Meta.Err != nil || !tx.Message.AccountKeys[0].Equals(FaucetAddress()) || !tx.Message.AccountKeys[1].Equals(to) {
			t.Errorf("the airdrop's transaction: keys %v, err %v", tx.Message.AccountKeys, res.Meta.Err)
		}
	})

	t.Run("batch", func(t *testing.T) {
		out, err := cl.RPCCallBatch(ctx, jsonrpc.RPCRequests{
			jsonrpc.NewRequest("getSlot"),
			jsonrpc.NewRequest("getBalance", accts[0].PublicKey.String()),
			jsonrpc.NewRequest("noSuchMethod"),
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 3 || out[0].Error != nil || out[1].Error != nil || out[2].Error == nil || out[2].Error.Code != -32601 {
			t.Fatalf("batch: %+v", out)
		}
		var bal rpc.GetBalanceResult
		if err := out[1].GetObject(&bal); err != nil || bal.Value != TestAccountSOL*LamportsPerSOL {
			t.Errorf("getBalance in a batch: %+v, %v", bal, err)
		}
	})

	t.Run("1232-byte limit", func(t *testing.T) {
		from := accts[5]
		// A memo sized so that the whole transaction is exactly n bytes on the wire.
		withSize := func(n int) *solana.Transaction {
			tx := build(t, cl, from.PrivateKey, nil, memoIx(strings.Repeat("a", 500), from.PublicKey))
			wire, _ := tx.MarshalBinary()
			size := 500 + n - len(wire)
			tx = build(t, cl, from.PrivateKey, nil, memoIx(strings.Repeat("a", size), from.PublicKey))
			if wire, _ := tx.MarshalBinary(); len(wire) != n {
				t.Fatalf("built %d bytes, want %d", len(wire), n)
			}
			return tx
		}
		send(t, cl, withSize(MaxTransactionSize))
		for _, n := range []int{MaxTransactionSize + 1, MaxTransactionSize + 100} {
			_, err := cl.SendTransactionWithOpts(ctx, withSize(n), rpc.TransactionOpts{})
			if re := rpcError(t, err); re.Code != -32602 || !strings.Contains(re.Message, "too large") {
				t.Errorf("%d bytes: %d %q, want -32602 too large", n, re.Code, re.Message)
			}
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := cl.GetBalance(ctx, solana.PublicKey{}, "")
		if err != nil {
			t.Errorf("getBalance of the zero key: %v", err)
		}
		var out any
		err = cl.RPCCallForInto(ctx, &out, "getBalance", []any{"not-a-key"})
		if re := rpcError(t, err); re.Code != -32602 {
			t.Errorf("getBalance of a bad key: %d %q", re.Code, re.Message)
		}
		err = cl.RPCCallForInto(ctx, &out, "sendTransaction", []any{"AQID", map[string]any{"encoding": "base64"}})
		if re := rpcError(t, err); re.Code != -32602 || !strings.HasPrefix(re.Message, "failed to deserialize") {
			t.Errorf("sendTransaction of garbage: %d %q", re.Code, re.Message)
		}
		// The server is still up after garbage (the runtime never saw it).
		if h, err := cl.GetHealth(ctx); err != nil || h != rpc.HealthOk {
			t.Errorf("getHealth after garbage: %q, %v", h, err)
		}
	})
}

// tokenAmounts is a transaction's token balances by account address.
func tokenAmounts(t *testing.T, res *rpc.GetTransactionResult, bs []rpc.TokenBalance) map[solana.PublicKey]string {
	t.Helper()
	tx, err := res.Transaction.GetTransaction()
	if err != nil {
		t.Fatal(err)
	}
	out := map[solana.PublicKey]string{}
	for _, b := range bs {
		if !b.Mint.Equals(USDCMint) {
			t.Errorf("token balance of mint %s", b.Mint)
		}
		out[tx.Message.AccountKeys[b.AccountIndex]] = b.UiTokenAmount.Amount
	}
	return out
}

// memoIx is a memo instruction of text signed by signer. (solana-go's memo builder prefixes the
// text with its length, which the memo program takes as part of the text.)
func memoIx(text string, signer solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(signer).SIGNER()}, []byte(text))
}

func binDecoder(b []byte) *bin.Decoder { return bin.NewBinDecoder(b) }

func stringify(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A transaction whose blockhash is more than 150 blocks old is refused with the real error, and
// dropped without a trace when preflight is skipped.
func TestBlockhashExpiry(t *testing.T) {
	t.Parallel()
	_, cl := startChain(t, expirySlotTime)
	ctx := t.Context()
	accts := TestAccounts()
	from := accts[6]
	old, err := cl.GetLatestBlockhash(ctx, rpc.CommitmentProcessed)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		h, err := cl.GetBlockHeight(ctx, rpc.CommitmentProcessed)
		if err != nil {
			t.Fatal(err)
		}
		if h > old.Value.LastValidBlockHeight {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("block height %d did not pass %d in 20 s", h, old.Value.LastValidBlockHeight)
		}
		time.Sleep(10 * expirySlotTime)
	}
	if valid, err := cl.IsBlockhashValid(ctx, old.Value.Blockhash, rpc.CommitmentProcessed); err != nil || valid.Value {
		t.Errorf("isBlockhashValid past its last valid block height: %v, %v", valid, err)
	}
	ix := system.NewTransferInstruction(LamportsPerSOL, from.PublicKey, accts[7].PublicKey).Build()
	_, err = cl.SendTransactionWithOpts(ctx, buildWith(t, old.Value.Blockhash, from.PrivateKey, nil, ix), rpc.TransactionOpts{})
	re := rpcError(t, err)
	if data, _ := re.Data.(map[string]any); re.Code != -32002 || re.Message != "Transaction simulation failed: Blockhash not found" || data["err"] != "BlockhashNotFound" {
		t.Errorf("expired blockhash: %d %q %v", re.Code, re.Message, re.Data)
	}
	// Without preflight the RPC takes it and the chain drops it: no status, no transfer.
	sig, err := cl.SendTransactionWithOpts(ctx, buildWith(t, old.Value.Blockhash, from.PrivateKey, nil, ix), rpc.TransactionOpts{SkipPreflight: true})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * expirySlotTime)
	if st, err := cl.GetSignatureStatuses(ctx, true, sig); err != nil || st.Value[0] != nil {
		t.Errorf("status of a transaction with a dead blockhash: %+v, %v", st, err)
	}
	if got := balance(t, cl, from.PublicKey); got != TestAccountSOL*LamportsPerSOL {
		t.Errorf("the sender's balance moved: %d", got)
	}
}

// TestKitClient drives the chain with @solana/kit (kitclient.mjs): a v0 transfer signed and
// sent by kit, followed to confirmed, and the reads a web wallet makes.
func TestKitClient(t *testing.T) {
	t.Parallel()
	c, _ := startChain(t, testSlotTime)
	dir, err := PackageDir()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "kitclient.mjs", c.RPCURL, USDCMint.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KIT_SECRET="+TestAccounts()[9].PrivateKey.String())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ok ") {
		t.Fatalf("kitclient.mjs: %v\n%s", err, out)
	}
}

// The README lists the mint and the funded addresses so that configuration and wallets can name
// them: they must be the ones this package derives.
func TestREADMENamesTheKeys(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := append([]solana.PublicKey{USDCMint, SolverAddress(), DeployerAddress()}, TestAddresses()...)
	for _, a := range want {
		if !bytes.Contains(readme, []byte(a.String())) {
			t.Errorf("README.md does not name %s", a)
		}
	}
}

// SLIP-0010's first ed25519 test vector: seed 000102…0f, m/0'/1'.
func TestSLIP10(t *testing.T) {
	seed, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f")
	for _, tc := range []struct {
		path []uint32
		want string
	}{
		{nil, "2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7"},
		{[]uint32{0}, "68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3"},
		{[]uint32{0, 1}, "b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2"},
	} {
		if got := hex.EncodeToString(slip10Ed25519(seed, tc.path)); got != tc.want {
			t.Errorf("m/%v: %s, want %s", tc.path, got, tc.want)
		}
	}
}

func TestNotInstalled(t *testing.T) {
	_, err := Start(context.Background(), Options{Node: "no-such-node-binary"})
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "not on PATH") {
		t.Errorf("without node: %v", err)
	}
	_, err = Start(context.Background(), Options{Dir: t.TempDir()})
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "make solana-deps") {
		t.Errorf("without node_modules: %v", err)
	}
}

// TestNoTransactionLandsInAConfirmedSlot: "a transaction is processed in the slot it lands in,
// confirmed one slot later" holds from the chain's first slot. A transaction sent before the
// first slot passed landed in slot 0, which getSlot at confirmed already answered (it is never
// below 0): a scanner that read slots up to the confirmed head then moved past the deposit
// without seeing it (the Solana refund tests' first deposit, missed under load).
func TestNoTransactionLandsInAConfirmedSlot(t *testing.T) {
	t.Parallel()
	_, cl := startChain(t, time.Minute) // the chain stays in the slot it starts in
	ctx := t.Context()
	accts := TestAccounts()
	confirmed, err := cl.GetSlot(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	ix := system.NewTransferInstruction(LamportsPerSOL, accts[8].PublicKey, accts[9].PublicKey).Build()
	sig, err := cl.SendTransactionWithOpts(ctx, build(t, cl, accts[8].PrivateKey, nil, ix), rpc.TransactionOpts{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := cl.GetSignatureStatuses(ctx, false, sig)
	if err != nil || len(st.Value) != 1 || st.Value[0] == nil {
		t.Fatalf("status of the transfer: %+v, %v", st, err)
	}
	if st.Value[0].Slot <= confirmed {
		t.Errorf("the transfer landed in slot %d, which the confirmed head (%d) already named", st.Value[0].Slot, confirmed)
	}
	sigs, err := cl.GetSignaturesForAddressWithOpts(ctx, accts[8].PublicKey, &rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil || len(sigs) != 0 {
		t.Errorf("confirmed signatures of the sender in its first slot: %v, %v (want none yet)", sigs, err)
	}
}
