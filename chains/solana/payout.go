package solana

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// The Solana family's payout (chains.Payout): a fill pays SOL by a System Program transfer out
// of the solver's keypair, or an SPL token (USDC) by a transferChecked out of the solver's
// associated token account into the recipient's, which the same transaction creates when it
// does not exist (CreateIdempotent, its rent paid by the solver); a Memo instruction carries the
// order id. A refund pays the same way out of the vault, a keypair the solver holds on the local
// chain (NewPayout); the solver pays its fee.
//
// Solana has no nonce to make a payment once: what does it is the blockhash. A transaction
// lands only while its recent blockhash is among the last 150 blocks, that is while the chain's
// block height is at most the lastValidBlockHeight given with the blockhash. So each attempt of
// a payment is signed once, kept in Postgres with its blockhash and lastValidBlockHeight before
// it is broadcast (PaymentStore), and sent again from what was kept; a new attempt is signed
// only once the previous one can never land (Replace). Two attempts can never both land.

// PaymentStore keeps the family's signed payments (store.Store): each attempt is kept before
// it is broadcast, once per request, kind and attempt; keeping an attempt already kept returns
// the kept one. Lookups of a payment not kept return intent.ErrNotFound.
type PaymentStore interface {
	SolanaPayment(ctx context.Context, requestID string, kind intent.TxKind) (*store.SolanaPayment, error)
	SolanaPaymentAttempts(ctx context.Context, requestID string, kind intent.TxKind) ([]store.SolanaPayment, error)
	KeepSolanaPayment(ctx context.Context, p store.SolanaPayment) (*store.SolanaPayment, bool, error)
}

// Solana's account sizes and fees the payout counts with.
const (
	// TokenAccountSize is the size of an SPL Token account: its rent-exempt minimum
	// (getMinimumBalanceForRentExemption(165)) is what the solver pays when a fill creates the
	// recipient's associated token account.
	// TokenAccountSize is 165; the base fee per signature is LamportsPerSignature (client.go).
	// The payout sets no priority fee.
	TokenAccountSize = 165
)

// Payout pays on the Solana chains of a set of clients with the solver's keypair, and refunds
// out of the vault's.
type Payout struct {
	clients *chains.Clients
	store   PaymentStore
	solver  solanago.PrivateKey
	// vault is the keypair refunds pay out of; nil refuses refunds.
	vault solanago.PrivateKey
}

var _ chains.Payout = (*Payout)(nil)

// NewPayout returns the payout of the Solana chains of cs, signing fills with solver, refunds
// with vault (the solver's fee paid by solver; nil refuses refunds), and keeping what it signs
// in store. On the local chain the vault is a keypair the solver holds: Solana's depository
// program is not written yet, and until it is a refund is a transfer out of that keypair.
func NewPayout(cs *chains.Clients, store PaymentStore, solver, vault solanago.PrivateKey) *Payout {
	return &Payout{clients: cs, store: store, solver: solver, vault: vault}
}

// rpcOf returns a Solana chain of the clients' registry and the RPC client of its family's
// Client (chains.Capability: the clients must have the family's VM, solana.VM()).
func (p *Payout) rpcOf(chainID uint64) (*chains.Chain, *rpc.Client, error) {
	c, err := chains.Capability[*Client](p.clients, chainID)
	if err != nil {
		return nil, nil, err
	}
	return c.chain, c.rpc, nil
}

// unavailable classifies a failed RPC call: the same call may work when asked again.
func unavailable(chainID uint64, op string, err error) error {
	return &chains.Error{Kind: chains.ErrUnavailable, ChainID: chainID, Op: op, Err: err}
}

// Pay signs the payment once, keeps it (store.KeepSolanaPayment) and broadcasts it. A retry, or
// another worker, finds the kept attempt and broadcasts its bytes again, the latest attempt
// when it was replaced; so the engine never pays a request twice. Before the first signing the
// transaction is simulated: a payment the solver (or the vault) cannot make is refused with
// chains.ErrInsufficientFunds, one that fails otherwise with a *chains.RevertError, and nothing
// is kept; a transaction over Solana's wire limit (MaxTransactionSize, measured signed) is
// refused with a *chains.TxTooLargeError before it is simulated or kept. Check, when set, gets the most the payment costs in lamports: the fee and, when the
// recipient's token account is created, its rent.
func (p *Payout) Pay(ctx context.Context, pay chains.Payment) (*chains.PayoutSent, error) {
	ch, cl, err := p.rpcOf(pay.ChainID)
	if err != nil {
		return nil, err
	}
	kept, err := p.keptOrRefused(ctx, pay)
	if err != nil {
		return nil, err
	}
	if kept == nil {
		kept, err = p.signAndKeep(ctx, ch, cl, pay)
		if err != nil {
			// A refusal counts only while nothing is kept: a worker that kept the payment in the
			// meantime made it, and it is broadcast instead.
			prev, lerr := p.store.SolanaPayment(ctx, pay.RequestID, pay.Kind)
			switch {
			case lerr == nil:
				kept = prev
			case errors.Is(lerr, intent.ErrNotFound):
				return nil, err
			default:
				return nil, lerr
			}
		}
	}
	if err := broadcast(ctx, cl, ch.ID, kept); err != nil {
		return nil, err
	}
	return &chains.PayoutSent{TxHash: kept.Signature}, nil
}

// keptOrRefused returns the payment's kept latest attempt, nil when none is kept. A refund is
// refused (chains.ErrPayoutRefused) while the request's refund of the other kind is kept: the
// vault has no once-only payout id, so a manual refund after an automatic one (or the other way
// round) is for an operator to decide.
func (p *Payout) keptOrRefused(ctx context.Context, pay chains.Payment) (*store.SolanaPayment, error) {
	kept, err := p.store.SolanaPayment(ctx, pay.RequestID, pay.Kind)
	if err == nil {
		return kept, nil
	}
	if !errors.Is(err, intent.ErrNotFound) {
		return nil, err // unknown whether it is kept: retried, never signed again
	}
	other := map[intent.TxKind]intent.TxKind{intent.TxKindRefund: intent.TxKindManualRefund, intent.TxKindManualRefund: intent.TxKindRefund}
	if o, ok := other[pay.Kind]; ok {
		prev, err := p.store.SolanaPayment(ctx, pay.RequestID, o)
		if err == nil {
			return nil, fmt.Errorf("%w: the request's %s is kept already (%s)", chains.ErrPayoutRefused, o, prev.Signature)
		}
		if !errors.Is(err, intent.ErrNotFound) {
			return nil, err
		}
	}
	return nil, nil
}

// signAndKeep builds the payment's transaction with a recent blockhash, checks it (Check, the
// Ceiling, a simulation), signs it and keeps it as attempt 0; the kept attempt is returned,
// another worker's when it kept one first.
func (p *Payout) signAndKeep(ctx context.Context, ch *chains.Chain, cl *rpc.Client, pay chains.Payment) (*store.SolanaPayment, error) {
	ixs, rent, err := p.instructions(ctx, ch, cl, pay)
	if err != nil {
		return nil, err
	}
	bh, err := cl.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return nil, unavailable(ch.ID, "latest blockhash", err)
	}
	tx, err := solanago.NewTransaction(ixs, bh.Value.Blockhash, solanago.TransactionPayer(p.solver.PublicKey()))
	if err != nil {
		return nil, fmt.Errorf("%w: build the transaction: %v", chains.ErrPayoutRefused, err)
	}
	if pay.Check != nil {
		maxFee := new(big.Int).SetUint64(uint64(tx.Message.Header.NumRequiredSignatures)*LamportsPerSignature + rent)
		if err := pay.Check(ctx, maxFee); err != nil {
			return nil, err
		}
	}
	if err := p.sign(tx); err != nil {
		return nil, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("%w: encode the transaction: %v", chains.ErrPayoutRefused, err)
	}
	// Measured as sent, signatures included: a transaction over one packet never lands, so it
	// is refused before anything is kept (issue 36 point 4: TRANSACTION_TOO_LARGE).
	if len(raw) > MaxTransactionSize {
		return nil, &chains.TxTooLargeError{Size: len(raw), Limit: MaxTransactionSize}
	}
	if err := simulate(ctx, cl, ch.ID, tx, pay.Ceiling); err != nil {
		return nil, err
	}
	kept, fresh, err := p.store.KeepSolanaPayment(ctx, store.SolanaPayment{RequestID: pay.RequestID, Kind: pay.Kind, Attempt: 0,
		ChainID: ch.ID, Signature: tx.Signatures[0].String(), Raw: raw, Blockhash: bh.Value.Blockhash.String(),
		LastValidBlockHeight: bh.Value.LastValidBlockHeight})
	if err != nil {
		return nil, err
	}
	if fresh {
		chains.LoggerFrom(ctx).Info("payment signed", "requestId", pay.RequestID, "kind", pay.Kind, "chainId", ch.ID,
			"tx", kept.Signature, "lastValidBlockHeight", kept.LastValidBlockHeight)
	}
	return kept, nil
}

// instructions are what pay's transaction does, and the rent it may spend on the recipient's
// token account (0 for SOL, or when the account exists).
func (p *Payout) instructions(ctx context.Context, ch *chains.Chain, cl *rpc.Client, pay chains.Payment) ([]solanago.Instruction, uint64, error) {
	from := p.solver
	var note string
	switch pay.Kind {
	case intent.TxKindFill:
		note = pay.OrderID
	case intent.TxKindRefund, intent.TxKindManualRefund:
		if p.vault == nil {
			return nil, 0, fmt.Errorf("%w: no vault keypair to refund from on chain %d", chains.ErrPayoutRefused, ch.ID)
		}
		from, note = p.vault, string(pay.Kind)+" "+pay.RequestID
	default:
		return nil, 0, fmt.Errorf("%w: the Solana family pays no %q", chains.ErrPayoutRefused, pay.Kind)
	}
	recipient, err := solanago.PublicKeyFromBase58(pay.Recipient)
	if err != nil || recipient.IsZero() {
		return nil, 0, fmt.Errorf("%w: recipient %q is not a Solana wallet", chains.ErrPayoutRefused, pay.Recipient)
	}
	if pay.Amount == nil || pay.Amount.Sign() <= 0 || !pay.Amount.IsUint64() {
		return nil, 0, fmt.Errorf("%w: amount %v is not a positive 64-bit integer", chains.ErrPayoutRefused, pay.Amount)
	}
	amount := pay.Amount.Uint64()
	payer := p.solver.PublicKey()
	var ixs []solanago.Instruction
	var rent uint64
	if pay.Currency == NativeAddress {
		ixs = append(ixs, system.NewTransferInstruction(amount, from.PublicKey(), recipient).Build())
	} else {
		cur, ok := ch.FindCurrency(pay.Currency)
		if !ok {
			return nil, 0, fmt.Errorf("%w: currency %s is not one of chain %d", chains.ErrPayoutRefused, pay.Currency, ch.ID)
		}
		mint, err := solanago.PublicKeyFromBase58(cur.Address)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: mint %q: %v", chains.ErrPayoutRefused, cur.Address, err)
		}
		source, _, err := solanago.FindAssociatedTokenAddress(from.PublicKey(), mint)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: the payer's token account: %v", chains.ErrPayoutRefused, err)
		}
		dest, _, err := solanago.FindAssociatedTokenAddress(recipient, mint)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: the recipient's token account: %v", chains.ErrPayoutRefused, err)
		}
		if rent, err = tokenAccountRent(ctx, cl, ch.ID, dest); err != nil {
			return nil, 0, err
		}
		// Created idempotently whether it exists or not: the transaction stays valid if the
		// account is created between this read and its landing.
		ixs = append(ixs,
			CreateATAIdempotent(payer, recipient, mint), // its account is dest
			token.NewTransferCheckedInstruction(amount, cur.Decimals, source, mint, dest, from.PublicKey(), nil).Build())
	}
	// The memo is the note itself, signed by the payer: the oracle's fill attestation reads it
	// as written (solana-go's memo builder would prefix the text with its length).
	ixs = append(ixs, solanago.NewInstruction(solanago.MemoProgramID, solanago.AccountMetaSlice{solanago.Meta(payer).SIGNER()}, []byte(note)))
	return ixs, rent, nil
}

// tokenAccountRent is what creating the token account acct costs its payer: nothing when it
// exists, else the rent-exempt minimum of TokenAccountSize bytes.
func tokenAccountRent(ctx context.Context, cl *rpc.Client, chainID uint64, acct solanago.PublicKey) (uint64, error) {
	_, err := cl.GetAccountInfoWithOpts(ctx, acct, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
	if err == nil {
		return 0, nil
	}
	if !errors.Is(err, rpc.ErrNotFound) {
		return 0, unavailable(chainID, "token account", err)
	}
	return TokenAccountRent(ctx, cl, chainID)
}

// TokenAccountRent is the rent-exempt minimum of a token account on the chain
// (getMinimumBalanceForRentExemption(165)): what a fill to a recipient without a token account
// of the currency costs the solver beside the fee.
func TokenAccountRent(ctx context.Context, cl *rpc.Client, chainID uint64) (uint64, error) {
	rent, err := cl.GetMinimumBalanceForRentExemption(ctx, TokenAccountSize, rpc.CommitmentConfirmed)
	if err != nil {
		return 0, unavailable(chainID, "rent exemption", err)
	}
	return rent, nil
}

// sign signs tx with the keys it needs of the solver's and the vault's.
func (p *Payout) sign(tx *solanago.Transaction) error {
	tx.Signatures = nil
	_, err := tx.Sign(func(pub solanago.PublicKey) *solanago.PrivateKey {
		for _, k := range []solanago.PrivateKey{p.solver, p.vault} {
			if k != nil && k.PublicKey().Equals(pub) {
				return &k
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: sign: %v", chains.ErrPayoutRefused, err)
	}
	return nil
}

// simulate runs tx on the chain's state without landing it and classifies a failure: a payer
// that cannot pay is chains.ErrInsufficientFunds, any other failure a *chains.RevertError; a
// transaction that needs more compute units than ceiling (when set) a *chains.OverCeilingError.
func simulate(ctx context.Context, cl *rpc.Client, chainID uint64, tx *solanago.Transaction, ceiling uint64) error {
	out, err := cl.SimulateTransactionWithOpts(ctx, tx, &rpc.SimulateTransactionOpts{SigVerify: true, Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		return unavailable(chainID, "simulate", err)
	}
	if out == nil || out.Value == nil {
		return unavailable(chainID, "simulate", errors.New("no result"))
	}
	if e := out.Value.Err; e != nil {
		return txFailure(chainID, tx, e)
	}
	if ceiling > 0 && out.Value.UnitsConsumed != nil && *out.Value.UnitsConsumed > ceiling {
		return &chains.OverCeilingError{Estimate: *out.Value.UnitsConsumed, Ceiling: ceiling}
	}
	return nil
}

// txFailure classifies a transaction's error as the RPC writes it ("InsufficientFundsForFee",
// {"InstructionError": [1, {"Custom": 1}]}, ...).
func txFailure(chainID uint64, tx *solanago.Transaction, e any) error {
	text, _ := json.Marshal(e)
	insufficient := func() error {
		return &chains.Error{Kind: chains.ErrInsufficientFunds, ChainID: chainID, Op: "simulate", Err: errors.New(string(text))}
	}
	switch v := e.(type) {
	case string:
		if v == "InsufficientFundsForFee" || v == "AccountNotFound" {
			return insufficient()
		}
		return &chains.RevertError{Name: v, Reason: v}
	case map[string]any:
		if ie, ok := v["InstructionError"].([]any); ok && len(ie) == 2 {
			// Custom error 1 of the System Program (ResultWithNegativeLamports) and of SPL Token
			// (InsufficientFunds) is a payer short of what it transfers.
			if c, ok := ie[1].(map[string]any); ok && fmt.Sprint(c["Custom"]) == "1" {
				if idx, ok := ie[0].(float64); ok && int(idx) < len(tx.Message.Instructions) {
					prog, err := tx.Message.Program(tx.Message.Instructions[int(idx)].ProgramIDIndex)
					if err == nil && (prog.Equals(solanago.SystemProgramID) || prog.Equals(solanago.TokenProgramID)) {
						return insufficient()
					}
				}
			}
			return &chains.RevertError{Name: "InstructionError", Reason: string(text)}
		}
		for name := range v {
			return &chains.RevertError{Name: name, Reason: string(text)}
		}
	}
	return &chains.RevertError{Reason: string(text)}
}

// broadcast sends a kept attempt's bytes without preflight: the node takes it (or drops it when
// it has it already, or when its blockhash is no longer valid) and answers with its signature,
// so only a transport failure is an error (chains.ErrUnavailable, retried with the same bytes).
// Whether the attempt lands is for Watch to see, and an attempt that can no longer land for
// Replace to replace.
func broadcast(ctx context.Context, cl *rpc.Client, chainID uint64, kept *store.SolanaPayment) error {
	if _, err := cl.SendRawTransactionWithOpts(ctx, kept.Raw, rpc.TransactionOpts{SkipPreflight: true}); err != nil {
		chains.LoggerFrom(ctx).Warn("broadcast failed; will retry", "requestId", kept.RequestID, "kind", kept.Kind,
			"attempt", kept.Attempt, "tx", kept.Signature, "error", err)
		return unavailable(chainID, "broadcast", err)
	}
	return nil
}

// Stored returns the signature of the request's kept payment of kind, its latest attempt.
func (p *Payout) Stored(ctx context.Context, requestID string, kind intent.TxKind) (*chains.PayoutSent, error) {
	kept, err := p.store.SolanaPayment(ctx, requestID, kind)
	if err != nil {
		return nil, err
	}
	return &chains.PayoutSent{TxHash: kept.Signature}, nil
}
