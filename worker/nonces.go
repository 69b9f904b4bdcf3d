package worker

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"log/slog"
	"math/big"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/deposits"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/store"
)

// Nonce gaps. The solver's transactions of a chain are mined in nonce order, so one nonce the
// node does not hold (a transaction it dropped, a pool lost in a node's restart, a nonce handed
// out and never used) holds up every later one: each request behind it is bumped, cancelled at
// its own nonce and left delayed, none of it mined. The worker looks for that: while the chain's
// pending nonce of the solver (what the node's pool holds ready, evm.PendingNonceReader) stays
// below the next nonce the engine hands out for NONCE_GAP_AFTER, without moving, the nonces from
// it up are filled: the stored transaction at a nonce is sent again (its latest attempt, the one
// its request waits for), and a nonce where nothing is stored, or whose request is done, gets a
// cancellation, a transfer of nothing from the solver to itself. That is decided under the lock
// of the nonce row (store.HealNonceGap), where no signing can take a nonce below the next one:
// a nonce with nothing stored is one nothing else will ever be signed at, so the cancellation
// competes with nothing that pays, and a nonce with a live transaction is never signed again
// here. One worker heals a chain and address at a time (store.TryHealLock); the check is two
// reads every quarter of NONCE_GAP_AFTER per chain, beside the fills, never in their way. The
// relayer's nonces (the relayed calls of gasless requests, RELAYER_PRIVATE_KEY) are a sequence
// of their own, healed the same way by a healer of the relayer's key.

// maxHealPerRound bounds the nonces one round fills (a node's queue per sender is 64 in
// go-ethereum's pool); a longer gap is filled round after round, without waiting again.
const maxHealPerRound = 64

// cancelGas is the gas of a transfer of nothing to an account without code.
const cancelGas = 21_000

// healChain is what the healer needs of a chain.
type healChain interface {
	chains.Client
	evm.TxSender
	evm.PendingNonceReader
}

// nonceHealer fills the gaps of the solver's nonces on every enabled chain.
type nonceHealer struct {
	chains *chains.Clients
	store  *store.Store
	key    *ecdsa.PrivateKey
	after  time.Duration
	logger *slog.Logger

	// gaps are the gaps seen, by chain: one goroutine reads and writes them.
	gaps map[uint64]*gapSeen
}

// gapSeen is a chain's pending nonce below the engine's next one, seen since since; healedTo,
// after a round that filled nonces up to it, lets the next round go on at once when the chain's
// pending nonce is there (its own cancellations moved it) and the gap goes on above.
type gapSeen struct {
	pending  uint64
	since    time.Time
	healedTo uint64
}

// run checks every chain every quarter of after until ctx ends.
func (h *nonceHealer) run(ctx context.Context) {
	h.gaps = map[uint64]*gapSeen{}
	t := time.NewTicker(max(h.after/4, 50*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, ch := range h.chains.Registry().Enabled() {
			c, err := chains.Capability[healChain](h.chains, ch.ID)
			if err != nil {
				continue
			}
			if err := h.check(ctx, c); err != nil && ctx.Err() == nil {
				h.logger.Debug("nonce gap check failed; looking again", "chainId", ch.ID, "error", err)
			}
		}
	}
}

// check looks at one chain and fills its gap once it has stayed for after.
func (h *nonceHealer) check(ctx context.Context, c healChain) error {
	chainID := c.Chain().ID
	from := crypto.PubkeyToAddress(h.key.PublicKey)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	next, ok, err := h.store.SolverNextNonce(ctx, chainID, from.Hex())
	if err != nil || !ok {
		return err
	}
	pending, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		return err
	}
	seen := h.gaps[chainID]
	if pending >= next {
		delete(h.gaps, chainID)
		return nil
	}
	now := time.Now()
	switch {
	case seen != nil && seen.healedTo == pending && seen.healedTo > 0:
		// The last round's own transactions moved the pending nonce here, and the gap goes on.
	case seen == nil || seen.pending != pending:
		h.gaps[chainID] = &gapSeen{pending: pending, since: now}
		return nil
	case now.Sub(seen.since) < h.after:
		return nil
	}
	release, ok, err := h.store.TryHealLock(ctx, chainID, from.Hex())
	if err != nil || !ok {
		return err
	}
	defer release()
	// Another worker may have filled it meanwhile: only a gap still there is filled.
	if again, err := c.PendingNonceAt(ctx, from); err != nil || again != pending {
		h.gaps[chainID] = &gapSeen{pending: again, since: now}
		return err
	}
	to, err := h.heal(ctx, c, from, pending)
	h.gaps[chainID] = &gapSeen{pending: pending, since: now, healedTo: to}
	return err
}

// heal fills the nonces from pending up (at most maxHealPerRound) under the nonce row's lock and
// returns the nonce after the last one it sent.
func (h *nonceHealer) heal(ctx context.Context, c healChain, from common.Address, pending uint64) (uint64, error) {
	chainID := c.Chain().ID
	var to uint64
	err := h.store.HealNonceGap(ctx, chainID, from.Hex(), pending, maxHealPerRound, func(gap store.NonceGap) error {
		if pending >= gap.Next {
			return nil
		}
		fees, err := c.SuggestFees(ctx)
		if err != nil {
			return err
		}
		end := min(gap.Next, pending+maxHealPerRound)
		signer := types.LatestSignerForChainID(new(big.Int).SetUint64(chainID))
		var txs []*types.Transaction
		var actions []string
		for n := pending; n < end; n++ {
			if st, ok := gap.Stored[n]; ok && !st.Final {
				var tx types.Transaction
				if err := tx.UnmarshalBinary(st.Raw); err != nil {
					return err
				}
				txs, actions = append(txs, &tx), append(actions, "rebroadcast")
				continue
			}
			tx, err := types.SignNewTx(h.key, signer, &types.DynamicFeeTx{ChainID: signer.ChainID(), Nonce: n,
				GasTipCap: fees.Tip, GasFeeCap: fees.FeeCap(fees.Tip), Gas: cancelGas, To: &from, Value: new(big.Int)})
			if err != nil {
				return err
			}
			txs, actions = append(txs, tx), append(actions, "cancel")
		}
		errs := send(ctx, c, txs)
		counts := map[string]int{}
		id := strconv.FormatUint(chainID, 10)
		for i, err := range errs {
			if err != nil && !errors.Is(err, chains.ErrAlreadyKnown) && !errors.Is(err, chains.ErrNonceTooLow) {
				// The request whose transaction it is replaces it in its own time (FILL_BUMP_AFTER).
				h.logger.Warn("nonce gap: the node refused a transaction", "chainId", chainID, "nonce", txs[i].Nonce(),
					"action", actions[i], "tx", txs[i].Hash().Hex(), "error", err)
				continue
			}
			counts[actions[i]]++
			metrics.NonceGapsHealed.WithLabelValues(id, actions[i]).Inc()
		}
		h.logger.Warn("nonce gap filled: the chain's pending nonce of the solver stayed below the engine's next one",
			"chainId", chainID, "solver", from.Hex(), "from", pending, "to", end-1, "next", gap.Next,
			"rebroadcast", counts["rebroadcast"], "cancelled", counts["cancel"])
		to = end
		return nil
	})
	return to, err
}

// send broadcasts txs in nonce order, in one request where the client takes batches.
func send(ctx context.Context, c evm.TxSender, txs []*types.Transaction) []error {
	if bs, ok := c.(evm.TxBatchSender); ok && len(txs) > 1 {
		return bs.SendTransactions(ctx, txs)
	}
	errs := make([]error, len(txs))
	for i, tx := range txs {
		errs[i] = c.SendTransaction(ctx, tx)
	}
	return errs
}

// resetChains compares every enabled chain's genesis with the one its cursor names before the
// worker takes work (deposits.ResetChain): a chain restarted with a new genesis while the engine
// was down is reset before any waiting fill could be sent to it again. A chain that cannot be
// read now is left to the scanner, which checks on each pass.
func resetChains(ctx context.Context, cs *chains.Clients, st *store.Store, logger *slog.Logger) {
	for _, ch := range cs.Registry().Enabled() {
		c, err := chains.Capability[chains.HeadReader](cs, ch.ID)
		if err != nil {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		genesis, err := c.BlockHash(rctx, 0)
		if err == nil {
			err = deposits.ResetChain(rctx, st, logger, ch.ID, genesis)
		}
		cancel()
		if err != nil {
			logger.Warn("genesis not checked at start; the scanner checks it on its next pass", "chainId", ch.ID, "error", err)
		}
	}
}
