package activities

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/groupcommit"
)

// The first broadcasts of a sender's transactions go out in rounds, in nonce order. A group of
// signings (store.PrepareSolverTx) gives consecutive nonces of one solver address to up to 64
// transactions at once, and each caller then broadcast its own: sent concurrently, they reached
// the node in any order, and a node keeps a transaction whose nonce is not next only in a small
// queue per sender (go-ethereum's pool: 64), dropping the highest beyond it. Under a burst of 100
// fills a second most of a group arrived ahead of its predecessors, the node dropped some, every
// later nonce waited behind the gap until AwaitTx sent the dropped ones again (every 5 s), and
// fills took up to a minute to be mined (BENCHMARKS.md). Now the broadcasts of one chain and
// sender are a group commit (groupcommit.Rounds, one round at a time): a broadcast that finds
// none under way goes out at once, alone; those that arrive meanwhile go out next, together,
// sorted by nonce, in one request (a JSON-RPC batch, chains.TxBatchSender, which the node takes
// in order). AwaitTx's resends and the replacements (ReplaceTx) go out on their own, as before.
// Rounds are a process's: the workers of a fleet take turns on the nonce row one group each, so
// another worker's group (at most 64 nonces) may reach the node ahead of this one's, which stays
// within the node's queue.

// broadcastRoundTimeout bounds one round's request: it is no one caller's, so a caller that
// gives up does not cancel the others' broadcasts.
const broadcastRoundTimeout = 15 * time.Second

// maxBroadcastBatch bounds the transactions of one round.
const maxBroadcastBatch = 128

// broadcastAsk is one transaction to broadcast, answered when done is closed.
type broadcastAsk struct {
	c    chains.TxSender
	tx   *types.Transaction
	err  error
	done chan struct{}
}

// firstBroadcast broadcasts the stored transaction in its chain and sender's rounds; a failure
// is retryable, as broadcast's.
func (a *ChainActivities) firstBroadcast(ctx context.Context, c solverChain, stored *intent.SolverTx) error {
	return broadcastStored(ctx, stored, func(tx *types.Transaction) error {
		ask := &broadcastAsk{c: c, tx: tx, done: make(chan struct{})}
		if err := a.broadcasts.Of(senderKey{c.Chain().ID, stored.From}, newBroadcastRounds).Ask(ctx, ask, ask.done); err != nil {
			return err
		}
		return ask.err
	})
}

// senderKey names the broadcast rounds of one chain and sender.
type senderKey struct {
	chainID uint64
	from    string
}

// newBroadcastRounds is the group commit of one chain and sender's first broadcasts.
func newBroadcastRounds(senderKey) *groupcommit.Rounds[*broadcastAsk] {
	return &groupcommit.Rounds[*broadcastAsk]{MaxInFlight: 1, MaxBatch: maxBroadcastBatch, Run: sendRound}
}

// sendRound broadcasts a round's transactions in nonce order, through the client of the round's
// first ask (all of one chain), and answers each caller: a node that has one already, or whose
// chain used its nonce, counts as sent (sendTx).
func sendRound(batch []*broadcastAsk) {
	c := batch[0].c
	ctx, cancel := context.WithTimeout(context.Background(), broadcastRoundTimeout)
	defer cancel()
	slices.SortFunc(batch, func(x, y *broadcastAsk) int { return cmp.Compare(x.tx.Nonce(), y.tx.Nonce()) })
	bs, ok := c.(chains.TxBatchSender)
	if len(batch) == 1 || !ok {
		for _, ask := range batch {
			ask.err = sendTx(ctx, c, ask.tx)
			close(ask.done)
		}
		return
	}
	txs := make([]*types.Transaction, len(batch))
	for i, ask := range batch {
		txs[i] = ask.tx
	}
	for i, err := range bs.SendTransactions(ctx, txs) {
		batch[i].err = sentOrErr(err)
		close(batch[i].done)
	}
}
