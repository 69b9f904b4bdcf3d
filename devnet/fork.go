package devnet

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

// Reorgs.
//
// The simulated backend's Fork(parent) makes parent the head at once (it calls the
// blockchain's SetCanonical, which rewrites the canonical numbers, drops the orphaned blocks'
// transaction lookups and emits a chain head event), and every Commit after it seals a block on
// the new branch: a side chain does not need to outgrow the old one to become canonical, as
// the package documentation of Fork still says. The transaction pool reacts to the head event
// as a node does to a reorg: it puts the transactions of the orphaned blocks back into the
// pool, so the next Commit includes them again, in a block with another hash (and perhaps
// another number and log indexes). A transaction only truly disappears when something else
// takes its nonce on the new branch; Reorg does that for the transactions it is told to drop.

// ReorgOptions describes a reorg made by Chain.Reorg.
type ReorgOptions struct {
	// Depth is how many blocks at the head are orphaned; at least 1 and at most the head's
	// number (the genesis block stays).
	Depth int
	// Length is how many blocks the new branch has; 0 means Depth+1, so the chain grows by one
	// block as the longer branch of a real reorg would. Reorg seals more blocks if some of the
	// transactions it puts on the branch are not yet in the first ones.
	Length int
	// Drop lists transactions of the orphaned blocks that must disappear for good. Each is
	// replaced, in the new branch's first block, by a transfer of nothing from its sender to
	// itself with the same nonce, so it can never be included again. Their senders must be
	// devnet accounts (DeployerKey, SolverKey, OracleKey or a test account), whose keys sign
	// the replacements.
	Drop []common.Hash
}

// Reorged reports a reorg made by Chain.Reorg.
type Reorged struct {
	// Ancestor is the last block both branches share: the new branch's parent.
	Ancestor *types.Header
	// Orphaned are the hashes of the blocks that left the canonical chain, oldest first.
	Orphaned []common.Hash
	// Head is the new head, the last block of the new branch.
	Head *types.Header
	// Replacements maps each dropped transaction to the transaction that took its nonce.
	Replacements map[common.Hash]common.Hash
}

// Reorg replaces the chain's last o.Depth blocks with a new branch of o.Length blocks, so that
// the canonical chain changes under every client, HTTP ones included: the orphaned blocks'
// numbers get other hashes, and receipts and transaction lookups of their transactions are
// gone until those are included again. The transactions of the orphaned blocks are included
// again on the new branch, as a node's pool re-includes them after a real reorg, except those
// in o.Drop (see ReorgOptions); transactions waiting in the pool are carried over too.
//
// Reorg holds the chain's block production for its duration, so no automatic block or Mine
// lands in between; JSON-RPC clients may see the head at the ancestor for that short while,
// as during a rewind. A transaction sent to the chain in the instant between Reorg reading the
// pool and clearing it can be lost; tests reorg a chain they control.
func (c *Chain) Reorg(ctx context.Context, o ReorgOptions) (*Reorged, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("devnet: reorg: the devnet is closed")
	}
	r, err := c.reorgLocked(ctx, func(uint64) (ReorgOptions, error) { return o, nil })
	if err != nil {
		return nil, fmt.Errorf("devnet: chain %d: reorg: %w", c.ID, err)
	}
	return r, nil
}

// DropTx reorgs out the block that holds tx and every block after it, and drops tx for good
// (Reorg with Drop: tx, Depth: the blocks from tx's block to the head, Length: Depth+1). A
// test uses it to make a mined transaction disappear as in a reorg. tx's sender must be a
// devnet account.
func (c *Chain) DropTx(ctx context.Context, tx common.Hash) (*Reorged, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("devnet: drop tx: the devnet is closed")
	}
	r, err := c.reorgLocked(ctx, func(head uint64) (ReorgOptions, error) {
		rc, err := c.backend.Client().TransactionReceipt(ctx, tx)
		if err != nil {
			return ReorgOptions{}, fmt.Errorf("receipt of %s: %w", tx.Hex(), err)
		}
		n := rc.BlockNumber.Uint64()
		if n == 0 || n > head {
			return ReorgOptions{}, fmt.Errorf("transaction %s is in block %d, head is %d", tx.Hex(), n, head)
		}
		return ReorgOptions{Depth: int(head - n + 1), Drop: []common.Hash{tx}}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("devnet: chain %d: drop tx: %w", c.ID, err)
	}
	return r, nil
}

// reorgLocked does Reorg with the options plan returns for the current head number; the caller
// holds c.mu.
func (c *Chain) reorgLocked(ctx context.Context, plan func(head uint64) (ReorgOptions, error)) (*Reorged, error) {
	cl := c.backend.Client()
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	o, err := plan(head.Number.Uint64())
	if err != nil {
		return nil, err
	}
	if o.Depth < 1 || uint64(o.Depth) > head.Number.Uint64() {
		return nil, fmt.Errorf("depth %d: must be between 1 and the head's number %d", o.Depth, head.Number)
	}
	if o.Length == 0 {
		o.Length = o.Depth + 1
	}
	if o.Length < 1 {
		return nil, fmt.Errorf("length %d: the new branch needs at least one block", o.Length)
	}
	signer := types.LatestSignerForChainID(new(big.Int).SetUint64(c.ID))
	ancestorNum := head.Number.Uint64() - uint64(o.Depth)
	ancestor, err := cl.HeaderByNumber(ctx, new(big.Int).SetUint64(ancestorNum))
	if err != nil {
		return nil, fmt.Errorf("block %d: %w", ancestorNum, err)
	}

	// The orphaned blocks' transactions, block by block, and the replacements of those to drop.
	res := &Reorged{Ancestor: ancestor, Replacements: map[common.Hash]common.Hash{}}
	var orphanedBlocks []types.Transactions
	for n := ancestorNum + 1; n <= head.Number.Uint64(); n++ {
		b, err := cl.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", n, err)
		}
		res.Orphaned = append(res.Orphaned, b.Hash())
		orphanedBlocks = append(orphanedBlocks, b.Transactions())
	}
	orphaned := slices.Concat(orphanedBlocks...)
	drop := make(map[common.Hash]bool, len(o.Drop))
	for _, h := range o.Drop {
		drop[h] = true
	}
	type dropped struct {
		tx   *types.Transaction
		from common.Address
		key  *ecdsa.PrivateKey
	}
	var drops []dropped
	for _, tx := range orphaned {
		if !drop[tx.Hash()] {
			continue
		}
		delete(drop, tx.Hash())
		from, err := types.Sender(signer, tx)
		if err != nil {
			return nil, fmt.Errorf("sender of %s: %w", tx.Hash().Hex(), err)
		}
		key := devnetKey(from)
		if key == nil {
			return nil, fmt.Errorf("transaction %s is from %s, which is not a devnet account: no key to replace it with", tx.Hash().Hex(), from.Hex())
		}
		drops = append(drops, dropped{tx: tx, from: from, key: key})
	}
	for h := range drop {
		return nil, fmt.Errorf("transaction %s to drop is not in the %d orphaned blocks", h.Hex(), o.Depth)
	}

	// The simulated backend forks only with an empty pool: what waits there is taken out and
	// sent again on the new branch. A transaction arriving between the read and the clearing
	// would make Fork fail; it is then read again.
	var waiting []*types.Transaction
	seen := map[common.Hash]bool{}
	for attempt := 0; ; attempt++ {
		txs, err := c.poolContent(ctx)
		if err != nil {
			return nil, err
		}
		for _, tx := range txs {
			if !seen[tx.Hash()] {
				seen[tx.Hash()] = true
				waiting = append(waiting, tx)
			}
		}
		c.backend.Rollback()
		err = c.backend.Fork(ancestor.Hash())
		if err == nil {
			break
		}
		if attempt == 4 {
			return nil, fmt.Errorf("fork at block %d: %w", ancestorNum, err)
		}
	}
	// The pool's reset after the fork has put the orphaned transactions back; Rollback waits
	// for that reset and empties the pool, so that exactly the transactions chosen below are
	// on the new branch.
	c.backend.Rollback()

	// The new branch is sealed in rounds, one per block: the first sends the replacements, so
	// they take the dropped transactions' nonces; round i re-sends the orphaned block i's other
	// transactions (the last round those of every later orphaned block, when the branch is
	// shorter), so a transaction that needs an earlier one's effect (funds, a nonce) finds it
	// in the state the pool checks it against; the last round also re-sends what waited in the
	// pool.
	tip := setupTip
	feeCap := new(big.Int).Add(new(big.Int).Mul(ancestor.BaseFee, big.NewInt(2)), tip)
	rounds := make([][]*types.Transaction, o.Length)
	for _, d := range drops {
		rep, err := types.SignNewTx(d.key, signer, &types.DynamicFeeTx{
			ChainID: new(big.Int).SetUint64(c.ID), Nonce: d.tx.Nonce(), GasTipCap: tip, GasFeeCap: feeCap,
			Gas: 21_000, To: &d.from, Value: new(big.Int),
		})
		if err != nil {
			return nil, fmt.Errorf("sign replacement of %s: %w", d.tx.Hash().Hex(), err)
		}
		res.Replacements[d.tx.Hash()] = rep.Hash()
		rounds[0] = append(rounds[0], rep)
	}
	for j, txs := range orphanedBlocks {
		i := min(j, o.Length-1)
		for _, tx := range txs {
			if _, gone := res.Replacements[tx.Hash()]; !gone {
				rounds[i] = append(rounds[i], tx)
			}
		}
	}
	rounds[o.Length-1] = append(rounds[o.Length-1], waiting...)

	replacement := make(map[common.Hash]bool, len(drops))
	for _, h := range res.Replacements {
		replacement[h] = true
	}
	carried := make(map[common.Hash]bool, len(waiting))
	for _, tx := range waiting {
		carried[tx.Hash()] = true
	}
	for _, txs := range rounds {
		// must are the transactions of the round that have to be mined before the next one;
		// what waited in the pool may wait on (a queued transaction waits for its nonce gap).
		var sent, must []common.Hash
		for _, tx := range txs {
			if err := sendToPool(ctx, cl, tx); err != nil {
				if replacement[tx.Hash()] {
					return nil, fmt.Errorf("send replacement %s: %w", tx.Hash().Hex(), err)
				}
				// As on a node, an orphaned transaction the new branch makes invalid is lost.
				c.log.Warn("devnet: reorg: transaction not re-sent", "chain", c.ID, "tx", tx.Hash().Hex(), "err", err)
				continue
			}
			sent = append(sent, tx.Hash())
			if !carried[tx.Hash()] {
				must = append(must, tx.Hash())
			}
		}
		// The pool adds sent transactions asynchronously: the block waits until it holds them,
		// and the branch grows until they are mined (at most a few blocks more), so that the
		// next round is checked against their effects and a replacement is surely in place.
		if err := c.awaitPool(ctx, sent); err != nil {
			return nil, err
		}
		for extra := 0; ; extra++ {
			c.backend.Commit()
			missing := 0
			for _, h := range must {
				if _, err := cl.TransactionReceipt(ctx, h); err != nil {
					missing++
				}
			}
			if missing == 0 {
				break
			}
			if extra == 10 {
				return nil, fmt.Errorf("%d transaction(s) sent to the new branch not mined", missing)
			}
		}
	}
	if res.Head, err = cl.HeaderByNumber(ctx, nil); err != nil {
		return nil, fmt.Errorf("new head: %w", err)
	}
	c.head = res.Head.Hash()
	for _, d := range drops {
		if _, err := cl.TransactionReceipt(ctx, d.tx.Hash()); err == nil {
			return nil, fmt.Errorf("dropped transaction %s is still on the chain", d.tx.Hash().Hex())
		}
	}
	c.log.Info("devnet: reorg", "chain", c.ID, "ancestor", ancestorNum, "orphaned", len(res.Orphaned),
		"head", res.Head.Number, "dropped", len(drops))
	return res, nil
}

// rawRPC is the in-process RPC client behind the backend's client, which serves every API of
// the node (the HTTP endpoint serves eth, net, web3 and debug only).
func (c *Chain) rawRPC() (*rpc.Client, error) {
	return c.backend.rpc(), nil
}

// poolContent returns every transaction in the pool, pending and queued, ordered by sender and
// nonce.
func (c *Chain) poolContent(ctx context.Context) ([]*types.Transaction, error) {
	raw, err := c.rawRPC()
	if err != nil {
		return nil, err
	}
	var content map[string]map[common.Address]map[string]*types.Transaction
	if err := raw.CallContext(ctx, &content, "txpool_content"); err != nil {
		return nil, fmt.Errorf("txpool_content: %w", err)
	}
	var out []*types.Transaction
	for _, kind := range []string{"pending", "queued"} {
		for _, byNonce := range content[kind] {
			for _, tx := range byNonce {
				out = append(out, tx)
			}
		}
	}
	signer := types.LatestSignerForChainID(new(big.Int).SetUint64(c.ID))
	slices.SortFunc(out, func(a, b *types.Transaction) int {
		fa, _ := types.Sender(signer, a)
		fb, _ := types.Sender(signer, b)
		if d := fa.Cmp(fb); d != 0 {
			return d
		}
		return cmp.Compare(a.Nonce(), b.Nonce())
	})
	return out, nil
}

// sendToPool sends tx, and sends it again while the pool refuses it for insufficient funds:
// the pool checks a transaction against its own view of the head, which it moves to a new
// block asynchronously, so right after the block that funded an account it may still see the
// account empty. A transaction still refused after two seconds is refused for good.
func sendToPool(ctx context.Context, cl interface {
	SendTransaction(context.Context, *types.Transaction) error
}, tx *types.Transaction) error {
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := cl.SendTransaction(ctx, tx)
		if err == nil || !strings.Contains(err.Error(), "insufficient funds") || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// awaitPool waits until the pool holds every one of txs (pending or queued).
func (c *Chain) awaitPool(ctx context.Context, txs []common.Hash) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cl := c.backend.Client()
	for _, h := range txs {
		for {
			_, pending, err := cl.TransactionByHash(ctx, h)
			if err == nil && pending {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("transaction %s sent to the new branch is not in the pool: %w", h.Hex(), ctx.Err())
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	return nil
}

// devnetKey returns the key of a devnet account, or nil for any other address.
func devnetKey(a common.Address) *ecdsa.PrivateKey {
	for _, k := range []*ecdsa.PrivateKey{DeployerKey(), SolverKey(), OracleKey()} {
		if crypto.PubkeyToAddress(k.PublicKey) == a {
			return k
		}
	}
	for _, acct := range TestAccounts() {
		if acct.Address == a {
			return acct.Key
		}
	}
	return nil
}
