package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	solrpc "github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/testkit/e2e"
)

// solWallet pays a quote's Solana steps from one of the local chain's funded test keypairs:
// each item's instructions compiled into a transaction it pays for (a recent blockhash), signed
// and sent without waiting for it.
type solWallet struct{ w *e2e.SolanaWallet }

func (s *solWallet) address() string { return s.w.Address().String() }

func (s *solWallet) sendStep(ctx context.Context, d quote.TxData) (string, error) {
	if d.SVMTx == nil {
		return "", fmt.Errorf("the item carries no Solana transaction")
	}
	sig, err := s.w.Broadcast(ctx, d.SVMTx.Instructions)
	if err != nil {
		return "", err
	}
	return sig.String(), nil
}

// solWatcher follows the local Solana chain's slots: slot n is "seen" (its block, as the EVM
// watcher's) when the chain first answers a later slot, that is when n closed (a transaction
// is processed in the slot it lands in). The chain serves no block's list of signatures, so a
// transaction's slot is asked for after the run (resolve); it has no transaction pool either
// (pooled: never).
type solWatcher struct {
	rpc   *solrpc.Client
	mu    sync.Mutex
	slots map[uint64]time.Time
	sigs  map[string]uint64
	next  uint64
}

func (w *solWatcher) start(ctx context.Context) error {
	s, err := w.rpc.GetSlot(ctx, solrpc.CommitmentProcessed)
	if err != nil {
		return err
	}
	w.next = s
	go every(ctx, 20*time.Millisecond, func() {
		s, err := w.rpc.GetSlot(ctx, solrpc.CommitmentProcessed)
		if err != nil {
			return
		}
		now := time.Now()
		w.mu.Lock()
		for ; w.next < s; w.next++ {
			w.slots[w.next] = now
		}
		w.mu.Unlock()
	})
	return nil
}

// resolve asks the chain for the slot of each signature (getSignatureStatuses, 256 at a time).
func (w *solWatcher) resolve(ctx context.Context, ids []string) {
	for len(ids) > 0 {
		batch := ids[:min(len(ids), 256)]
		ids = ids[len(batch):]
		var sigs []solanago.Signature
		for _, id := range batch {
			if s, err := solanago.SignatureFromBase58(id); err == nil {
				sigs = append(sigs, s)
			}
		}
		st, err := w.rpc.GetSignatureStatuses(ctx, true, sigs...)
		if err != nil {
			fmt.Fprintf(os.Stderr, "intentload: getSignatureStatuses: %v\n", err)
			continue
		}
		w.mu.Lock()
		for i, v := range st.Value {
			if v != nil && i < len(sigs) {
				w.sigs[sigs[i].String()] = v.Slot
			}
		}
		w.mu.Unlock()
	}
}

func (w *solWatcher) mined(id string) (uint64, time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, ok := w.sigs[id]
	if !ok {
		return 0, time.Time{}, false
	}
	t, ok := w.slots[n]
	return n, t, ok
}

func (w *solWatcher) pooled(string) (time.Time, bool) { return time.Time{}, false }

func (w *solWatcher) seen(n uint64) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.slots[n]
	return t, ok
}
