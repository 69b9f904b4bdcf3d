package solana

import (
	"context"
	"fmt"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/store"
)

// The wait for a Solana payment's inclusion (Watch) and its replacement (Replace): the rule that
// stands in for the EVM nonce is the blockhash's expiry. A kept attempt is replaced only once it
// can never land: the chain's finalized block height is past the attempt's lastValidBlockHeight
// (no block to come may include it) and the chain has not seen its signature (no block did). So
// of a payment's attempts at most one ever lands.

// rebroadcastEvery is how often a watch sends the latest attempt again while none has landed
// (an RPC node forwards a transaction to a few leaders and may drop it). The first resend comes
// rebroadcastEvery after the watch starts: every caller waits on an attempt it has just sent.
const rebroadcastEvery = 2 * time.Second

// Watch returns the watch of a request's payment: its Check reads the statuses of every kept
// attempt and returns the one that landed at confirmed commitment or beyond; while none has, it
// sends the latest attempt again every rebroadcastEvery.
func (p *Payout) Watch(w chains.WatchPayment) chains.InclusionWatch {
	return &inclusionWatch{p: p, w: w, sent: time.Now()}
}

// inclusionWatch is the state of one wait for a payment's inclusion.
type inclusionWatch struct {
	p    *Payout
	w    chains.WatchPayment
	sent time.Time // the latest attempt was last sent then
}

// Check looks once whether an attempt of the payment has landed.
func (iw *inclusionWatch) Check(ctx context.Context) (*chains.Included, error) {
	_, cl, err := iw.p.rpcOf(iw.w.ChainID)
	if err != nil {
		return nil, err
	}
	attempts, err := iw.p.store.SolanaPaymentAttempts(ctx, iw.w.RequestID, iw.w.Kind)
	if err != nil {
		return nil, fmt.Errorf("kept attempts: %w", err)
	}
	if len(attempts) == 0 {
		attempts = []store.SolanaPayment{{RequestID: iw.w.RequestID, Kind: iw.w.Kind, Signature: iw.w.TxHash}}
	}
	inc, err := landedAttempt(ctx, cl, iw.w.ChainID, attempts)
	if err != nil || inc != nil {
		return inc, err
	}
	if latest := attempts[len(attempts)-1]; latest.Raw != nil && time.Since(iw.sent) >= rebroadcastEvery {
		iw.sent = time.Now()
		if err := broadcast(ctx, cl, iw.w.ChainID, &latest); err != nil {
			chains.LoggerFrom(ctx).Debug("re-broadcast failed", "requestId", iw.w.RequestID, "kind", iw.w.Kind,
				"chainId", iw.w.ChainID, "tx", latest.Signature, "attempt", latest.Attempt, "error", err)
		}
	}
	return nil, nil
}

// landedAttempt returns the attempt that landed at confirmed commitment or beyond, nil when
// none has: its slot, whether it succeeded, its fee (getTransaction) and its block's time.
func landedAttempt(ctx context.Context, cl *rpc.Client, chainID uint64, attempts []store.SolanaPayment) (*chains.Included, error) {
	sigs := make([]solanago.Signature, len(attempts))
	for i, a := range attempts {
		s, err := solanago.SignatureFromBase58(a.Signature)
		if err != nil {
			return nil, fmt.Errorf("%w: attempt %d's signature %q: %v", chains.ErrStoredCorrupt, a.Attempt, a.Signature, err)
		}
		sigs[i] = s
	}
	st, err := cl.GetSignatureStatuses(ctx, true, sigs...)
	if err != nil {
		return nil, unavailable(chainID, "signature statuses", err)
	}
	for i, s := range st.Value {
		if i >= len(attempts) || s == nil || !atLeastConfirmed(s.ConfirmationStatus) {
			continue
		}
		out := &chains.Included{Block: s.Slot, Success: s.Err == nil, Hash: attempts[i].Signature}
		for _, a := range attempts {
			out.Attempts = append(out.Attempts, a.Signature)
		}
		v := uint64(0)
		tx, err := cl.GetTransaction(ctx, sigs[i], &rpc.GetTransactionOpts{Encoding: solanago.EncodingBase64,
			Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &v})
		if err != nil {
			return nil, unavailable(chainID, "transaction", err)
		}
		if tx.Meta != nil {
			out.Fee = fmt.Sprint(tx.Meta.Fee)
		}
		if tx.BlockTime != nil {
			out.Timestamp = int64(*tx.BlockTime)
		}
		return out, nil
	}
	return nil, nil
}

func atLeastConfirmed(s rpc.ConfirmationStatusType) bool {
	return s == rpc.ConfirmationStatusConfirmed || s == rpc.ConfirmationStatusFinalized
}

// Replace replaces attempt r.After of a payment by Solana's rule: only once that attempt can
// never land (the chain's finalized block height is past its lastValidBlockHeight and its
// signature is not found) is the same transaction signed again with a new blockhash, kept as
// attempt r.After+1 and broadcast. While the attempt could still land, or when it has landed,
// nothing is signed: the answer is the attempt itself (Replaced.Attempt == r.After), sent
// again, and the wait goes on. A retry finds the replacement kept and sends it again. No
// replacement is Final, and MaxBumps does not apply: every attempt pays the same fee (the
// payout sets no priority fee), and at most one of them lands whatever their number.
func (p *Payout) Replace(ctx context.Context, r chains.Replacement) (*chains.Replaced, error) {
	ch, cl, err := p.rpcOf(r.ChainID)
	if err != nil {
		return nil, err
	}
	latest, err := p.store.SolanaPayment(ctx, r.RequestID, r.Kind)
	if err != nil {
		return nil, err
	}
	if latest.Attempt < r.After {
		return nil, fmt.Errorf("replace attempt %d of %s %s: the latest kept attempt is %d", r.After, r.Kind, r.RequestID, latest.Attempt)
	}
	if latest.Attempt == r.After {
		dead, err := neverLands(ctx, cl, ch.ID, latest)
		if err != nil {
			return nil, err
		}
		if !dead {
			chains.LoggerFrom(ctx).Info("not replaced: the attempt can still land", "requestId", r.RequestID, "kind", r.Kind,
				"attempt", latest.Attempt, "tx", latest.Signature, "lastValidBlockHeight", latest.LastValidBlockHeight)
			if err := broadcast(ctx, cl, ch.ID, latest); err != nil {
				return nil, err
			}
			return &chains.Replaced{TxHash: latest.Signature, Attempt: latest.Attempt}, nil
		}
		if latest, err = p.resign(ctx, cl, ch.ID, latest); err != nil {
			return nil, err
		}
	}
	if err := broadcast(ctx, cl, ch.ID, latest); err != nil {
		return nil, err
	}
	return &chains.Replaced{TxHash: latest.Signature, Attempt: latest.Attempt}, nil
}

// neverLands reports whether a kept attempt can never land. The height is read first: once the
// finalized chain is past lastValidBlockHeight no block to come, on any fork, may include the
// attempt, and every block that could have is finalized; a status not found after that is
// final. The other order could miss an attempt landing between the two reads.
func neverLands(ctx context.Context, cl *rpc.Client, chainID uint64, a *store.SolanaPayment) (bool, error) {
	height, err := cl.GetBlockHeight(ctx, rpc.CommitmentFinalized)
	if err != nil {
		return false, unavailable(chainID, "block height", err)
	}
	if height <= a.LastValidBlockHeight {
		return false, nil
	}
	sig, err := solanago.SignatureFromBase58(a.Signature)
	if err != nil {
		return false, fmt.Errorf("%w: attempt %d's signature %q: %v", chains.ErrStoredCorrupt, a.Attempt, a.Signature, err)
	}
	st, err := cl.GetSignatureStatuses(ctx, true, sig)
	if err != nil {
		return false, unavailable(chainID, "signature statuses", err)
	}
	return len(st.Value) > 0 && st.Value[0] == nil, nil
}

// resign signs prev's transaction again with a fresh blockhash and keeps it as the next
// attempt; the kept one is returned (another worker's, when it kept one first).
func (p *Payout) resign(ctx context.Context, cl *rpc.Client, chainID uint64, prev *store.SolanaPayment) (*store.SolanaPayment, error) {
	tx, err := solanago.TransactionFromBytes(prev.Raw)
	if err != nil {
		return nil, fmt.Errorf("%w: attempt %d of %s %s: %v", chains.ErrStoredCorrupt, prev.Attempt, prev.Kind, prev.RequestID, err)
	}
	bh, err := cl.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return nil, unavailable(chainID, "latest blockhash", err)
	}
	tx.Message.RecentBlockhash = bh.Value.Blockhash
	if err := p.sign(tx); err != nil {
		return nil, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("%w: encode the transaction: %v", chains.ErrPayoutRefused, err)
	}
	next, fresh, err := p.store.KeepSolanaPayment(ctx, store.SolanaPayment{RequestID: prev.RequestID, Kind: prev.Kind,
		Attempt: prev.Attempt + 1, ChainID: chainID, Signature: tx.Signatures[0].String(), Raw: raw,
		Blockhash: bh.Value.Blockhash.String(), LastValidBlockHeight: bh.Value.LastValidBlockHeight})
	if err != nil {
		return nil, err
	}
	if fresh {
		chains.LoggerFrom(ctx).Info("payment replaced: the previous attempt can never land", "requestId", prev.RequestID,
			"kind", prev.Kind, "attempt", next.Attempt, "tx", next.Signature, "replaces", prev.Signature,
			"lastValidBlockHeight", next.LastValidBlockHeight)
	}
	return next, nil
}
