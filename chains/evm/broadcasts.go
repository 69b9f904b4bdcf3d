package evm

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/intentd/intentd/internal/groupcommit"
	"github.com/intentd/intentd/store"
)

// The first broadcasts of a sender's transactions go out in rounds, in nonce order. A group of
// signings (store.PrepareSolverTx) gives consecutive nonces of one solver address to up to 64
// transactions at once, and each caller then broadcast its own: sent concurrently, they reached
// the node in any order, and a node keeps a transaction whose nonce is not next only in a small
// queue per sender (go-ethereum's pool: 64), dropping the highest beyond it. Under a burst of 100
// fills a second most of a group arrived ahead of its predecessors, the node dropped some, every
// later nonce waited behind the gap until the inclusion wait sent the dropped ones again (every 5 s), and
// fills took up to a minute to be mined (BENCHMARKS.md). Now the broadcasts of one chain and
// sender are a group commit (groupcommit.Rounds, one round at a time): a broadcast that finds
// none under way goes out at once, alone; those that arrive meanwhile go out next, together,
// sorted by nonce, in one request (a JSON-RPC batch, TxBatchSender, which the node takes
// in order). A round also sends every transaction signed in its callers' signing groups that no
// round has sent yet (store.SolverTx.Group), so the first caller of a group back from the
// signing sends the whole group in order, and the rest find theirs sent. The inclusion watch's resends and
// the replacements (Replace) go out on their own, as before.
// Rounds are a process's: the workers of a fleet take turns on the nonce row one group each, so
// another worker's group (at most 64 nonces) may reach the node ahead of this one's, which stays
// within the node's queue.

// broadcastRoundTimeout bounds one round's request: it is no one caller's, so a caller that
// gives up does not cancel the others' broadcasts.
const broadcastRoundTimeout = 15 * time.Second

// maxBroadcastBatch bounds the transactions of one round.
const maxBroadcastBatch = 128

// broadcastAsk is one transaction to broadcast, answered when done is closed; group is every
// transaction signed with it (store.SolverTx.Group), sent in the same round when not sent yet.
type broadcastAsk struct {
	c     TxSender
	tx    *types.Transaction
	group []*store.SolverTx
	err   error
	done  chan struct{}
}

// firstBroadcast broadcasts the stored transaction in its chain and sender's rounds; a failure
// is retryable, as broadcast's.
func (p *Payout) firstBroadcast(ctx context.Context, c solverChain, stored *store.SolverTx) error {
	return broadcastStored(ctx, stored, func(tx *types.Transaction) error {
		ask := &broadcastAsk{c: c, tx: tx, group: stored.Group, done: make(chan struct{})}
		if err := p.broadcasts.Of(senderKey{c.Chain().ID, stored.From}, newBroadcastRounds).Ask(ctx, ask, ask.done); err != nil {
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

// newBroadcastRounds is the group commit of one chain and sender's first broadcasts, with what
// its rounds remember of the transactions they sent.
func newBroadcastRounds(senderKey) *groupcommit.Rounds[*broadcastAsk] {
	sent, _ := lru.New[common.Hash, struct{}](sentMemory) // only a size below 1 fails
	return &groupcommit.Rounds[*broadcastAsk]{MaxInFlight: 1, MaxBatch: maxBroadcastBatch,
		Run: func(batch []*broadcastAsk) { sendRound(batch, sent) }}
}

// sentMemory is how many of the transactions a sender's rounds sent they remember, by hash, so
// that a caller whose transaction went out with its group's first broadcast is answered without
// a send: several groups' worth.
const sentMemory = 1024

// sendRound broadcasts a round's transactions in nonce order, through the client of the round's
// first ask (all of one chain), and answers each caller: a node that has one already, or whose
// chain used its nonce, counts as sent (sendTx). With them go the transactions signed in their
// groups that no round has sent yet: a group's callers come back from the signing one by one,
// and on a busy machine some came so late that the node had more than its 64 of the sender's
// later nonces queued behind them and dropped the rest (TestABurstsBroadcastsReachTheNodeInNonceOrder
// failed in one run of three with two at once). A caller whose transaction went out so is
// answered without a send; one whose send failed sends again.
func sendRound(batch []*broadcastAsk, sent *lru.Cache[common.Hash, struct{}]) {
	c := batch[0].c
	ctx, cancel := context.WithTimeout(context.Background(), broadcastRoundTimeout)
	defer cancel()
	var txs []*types.Transaction
	var groups [][]*store.SolverTx
	grouped := map[*store.SolverTx]bool{} // by a group's first transaction: the callers of one group share it
	mine := map[common.Hash]bool{}
	for _, ask := range batch {
		h := ask.tx.Hash()
		if sent.Contains(h) {
			continue // sent with its group, by the round that sent the group's first
		}
		if len(ask.group) > 0 && !grouped[ask.group[0]] {
			grouped[ask.group[0]] = true
			groups = append(groups, ask.group)
		}
		if !mine[h] {
			mine[h] = true
			txs = append(txs, ask.tx)
		}
	}
	for _, group := range groups {
		for _, st := range group {
			h := common.HexToHash(st.Hash)
			if sent.Contains(h) || mine[h] {
				continue
			}
			var tx types.Transaction
			if tx.UnmarshalBinary(st.Raw) != nil {
				continue // its own caller reports it
			}
			mine[h] = true
			txs = append(txs, &tx)
		}
	}
	slices.SortFunc(txs, func(x, y *types.Transaction) int { return cmp.Compare(x.Nonce(), y.Nonce()) })
	errs := make(map[common.Hash]error, len(txs))
	if bs, ok := c.(TxBatchSender); ok && len(txs) > 1 {
		for i, err := range bs.SendTransactions(ctx, txs) {
			errs[txs[i].Hash()] = sentOrErr(err)
		}
	} else {
		for _, tx := range txs {
			errs[tx.Hash()] = sendTx(ctx, c, tx)
		}
	}
	for _, tx := range txs {
		if errs[tx.Hash()] == nil {
			sent.Add(tx.Hash(), struct{}{})
		}
	}
	for _, ask := range batch {
		ask.err = errs[ask.tx.Hash()] // nil when sent in an earlier round
		close(ask.done)
	}
}
