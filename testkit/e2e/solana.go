package e2e

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
)

// SolanaWallet is a Solana keypair that executes a quote's Solana steps as a wallet does: it
// compiles each item's instructions into one transaction with itself as the fee payer and a
// recent blockhash, signs it and sends it, waiting for it to be confirmed.
type SolanaWallet struct {
	Key solanago.PrivateKey
	RPC *rpc.Client
}

// Address is the wallet's public key.
func (w *SolanaWallet) Address() solanago.PublicKey { return w.Key.PublicKey() }

// ExecuteSteps sends every transaction step of a quote in order and returns the last
// transaction's signature (the deposit's).
func (w *SolanaWallet) ExecuteSteps(ctx context.Context, q *quote.Response) (solanago.Signature, error) {
	var last solanago.Signature
	for _, s := range q.Steps {
		if s.Kind != "transaction" {
			return last, fmt.Errorf("step %s of kind %s is not supported here", s.ID, s.Kind)
		}
		for _, it := range s.Items {
			if it.Data.SVMTx == nil {
				return last, fmt.Errorf("step %s: the item carries no Solana transaction", s.ID)
			}
			sig, err := w.Send(ctx, it.Data.SVMTx.Instructions)
			if err != nil {
				return last, fmt.Errorf("step %s: %w", s.ID, err)
			}
			last = sig
		}
	}
	return last, nil
}

// Send compiles instructions into a transaction paid by the wallet, signs, sends and waits
// until it is confirmed; a transaction that fails on chain is an error.
func (w *SolanaWallet) Send(ctx context.Context, ixs []intent.SVMInstruction) (solanago.Signature, error) {
	sig, err := w.Broadcast(ctx, ixs)
	if err != nil {
		return sig, err
	}
	return sig, w.WaitConfirmed(ctx, sig)
}

// Broadcast compiles instructions into a transaction paid by the wallet (a recent blockhash),
// signs and sends it, without waiting for it to be confirmed: a load tool keeps many in flight.
func (w *SolanaWallet) Broadcast(ctx context.Context, ixs []intent.SVMInstruction) (solanago.Signature, error) {
	var out []solanago.Instruction
	for _, ix := range ixs {
		prog, err := solanago.PublicKeyFromBase58(ix.ProgramID)
		if err != nil {
			return solanago.Signature{}, fmt.Errorf("program %q: %w", ix.ProgramID, err)
		}
		data, err := hex.DecodeString(ix.Data)
		if err != nil {
			return solanago.Signature{}, fmt.Errorf("instruction data %q: %w", ix.Data, err)
		}
		var metas solanago.AccountMetaSlice
		for _, k := range ix.Keys {
			pk, err := solanago.PublicKeyFromBase58(k.Pubkey)
			if err != nil {
				return solanago.Signature{}, fmt.Errorf("account %q: %w", k.Pubkey, err)
			}
			metas = append(metas, &solanago.AccountMeta{PublicKey: pk, IsSigner: k.IsSigner, IsWritable: k.IsWritable})
		}
		out = append(out, solanago.NewInstruction(prog, metas, data))
	}
	bh, err := w.RPC.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return solanago.Signature{}, err
	}
	tx, err := solanago.NewTransaction(out, bh.Value.Blockhash, solanago.TransactionPayer(w.Address()))
	if err != nil {
		return solanago.Signature{}, err
	}
	if _, err := tx.Sign(func(k solanago.PublicKey) *solanago.PrivateKey {
		if k.Equals(w.Address()) {
			return &w.Key
		}
		return nil
	}); err != nil {
		return solanago.Signature{}, err
	}
	return w.RPC.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
}

// WaitConfirmed waits until sig is confirmed; a transaction that failed on chain is an error.
func (w *SolanaWallet) WaitConfirmed(ctx context.Context, sig solanago.Signature) error {
	for {
		st, err := w.RPC.GetSignatureStatuses(ctx, false, sig)
		if err == nil && len(st.Value) == 1 && st.Value[0] != nil &&
			(st.Value[0].ConfirmationStatus == rpc.ConfirmationStatusConfirmed || st.Value[0].ConfirmationStatus == rpc.ConfirmationStatusFinalized) {
			if st.Value[0].Err != nil {
				return fmt.Errorf("transaction %s failed: %v", sig, st.Value[0].Err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("transaction %s not confirmed: %w", sig, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
