package devnet

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/intentd/intentd/chains/evm/bindings"
)

// setupTip is the priority fee of the setup transactions; it clears the simulated miner's
// minimum tip with room to spare.
var setupTip = big.NewInt(params.GWei)

// setup deploys the contracts from the deployer at its nonces 0..2, mints the USDC balances,
// has the solver approve the OutputSettler, then deploys the price feeds at the deployer's next
// nonces (feedNonce, feedNonce+1), the deposit address factory after them
// (depositAddressFactoryNonce), the SOL/USD feed and the BatchExecutor (batchExecutorNonce),
// checking every receipt.
func (c *Chain) setup(ctx context.Context) error {
	cl := c.Client()
	deployer := DeployerKey()
	nonce, err := cl.PendingNonceAt(ctx, DeployerAddress())
	if err != nil {
		return err
	}
	if nonce != 0 {
		return fmt.Errorf("deployer nonce is %d, not 0: contract addresses would differ", nonce)
	}

	usdc := bindings.NewTestUSDC()
	deploys := []struct {
		name string
		want common.Address
		code []byte
	}{
		{"Depository", DepositoryAddress, creation(bindings.DepositoryMetaData.Bin, bindings.NewDepository().PackConstructor(SolverAddress(), DepositAddressFactoryAddress))},
		{"OutputSettler", OutputSettlerAddress, creation(bindings.OutputSettlerMetaData.Bin, nil)},
		{"TestUSDC", USDCAddress, creation(bindings.TestUSDCMetaData.Bin, usdc.PackConstructor(DeployerAddress()))},
	}
	var txs []*types.Transaction
	for i, dep := range deploys {
		tx, err := c.send(ctx, deployer, uint64(i), nil, dep.code)
		if err != nil {
			return fmt.Errorf("deploy %s: %w", dep.name, err)
		}
		txs = append(txs, tx)
	}
	receipts, err := c.mineAndCheck(ctx, txs)
	if err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	for i, dep := range deploys {
		if got := receipts[i].ContractAddress; got != dep.want {
			return fmt.Errorf("deploy %s: landed at %s, want %s", dep.name, got.Hex(), dep.want.Hex())
		}
	}

	// Funding: the deployer (TestUSDC's owner) mints, the solver approves.
	txs = txs[:0]
	nonce = uint64(len(deploys))
	mint := func(to common.Address, amount int64) error {
		tx, err := c.send(ctx, deployer, nonce, &USDCAddress, usdc.PackMint(to, big.NewInt(amount)))
		if err != nil {
			return fmt.Errorf("mint to %s: %w", to.Hex(), err)
		}
		nonce++
		txs = append(txs, tx)
		return nil
	}
	if err := mint(SolverAddress(), SolverUSDC); err != nil {
		return err
	}
	for _, a := range TestAddresses() {
		if err := mint(a, TestAccountUSDC); err != nil {
			return err
		}
	}
	solverNonce, err := cl.PendingNonceAt(ctx, SolverAddress())
	if err != nil {
		return err
	}
	approve, err := c.send(ctx, SolverKey(), solverNonce, &USDCAddress, usdc.PackApprove(OutputSettlerAddress, math.MaxBig256))
	if err != nil {
		return fmt.Errorf("approve OutputSettler: %w", err)
	}
	txs = append(txs, approve)
	if _, err := c.mineAndCheck(ctx, txs); err != nil {
		return fmt.Errorf("fund: %w", err)
	}
	if nonce != feedNonce {
		return fmt.Errorf("price feeds would deploy at nonce %d, not %d: their addresses would differ", nonce, feedNonce)
	}
	if err := c.deployFeeds(ctx, nonce); err != nil {
		return err
	}
	return c.deployDepositAddressFactory(ctx)
}

// deployFeeds deploys the ETH/USD and USDC/USD feeds from the deployer at nonce and nonce+1.
func (c *Chain) deployFeeds(ctx context.Context, nonce uint64) error {
	feed := bindings.NewPriceFeed()
	deploys := []struct {
		name   string
		want   common.Address
		answer int64
	}{
		{"ETH / USD", ETHUSDFeedAddress, ETHUSDAnswer},
		{"USDC / USD", USDCUSDFeedAddress, USDCUSDAnswer},
	}
	var txs []*types.Transaction
	for i, dep := range deploys {
		code := creation(bindings.PriceFeedMetaData.Bin, feed.PackConstructor(DeployerAddress(), FeedDecimals, dep.name, big.NewInt(dep.answer)))
		tx, err := c.send(ctx, DeployerKey(), nonce+uint64(i), nil, code)
		if err != nil {
			return fmt.Errorf("deploy %s feed: %w", dep.name, err)
		}
		txs = append(txs, tx)
	}
	receipts, err := c.mineAndCheck(ctx, txs)
	if err != nil {
		return fmt.Errorf("deploy feeds: %w", err)
	}
	for i, dep := range deploys {
		if got := receipts[i].ContractAddress; got != dep.want {
			return fmt.Errorf("deploy %s feed: landed at %s, want %s", dep.name, got.Hex(), dep.want.Hex())
		}
	}
	return nil
}

// deployDepositAddressFactory deploys the DepositAddressFactory (for the Depository) from the
// deployer at depositAddressFactoryNonce, read back from the chain rather than counted, and
// checks that it and the implementation its constructor deploys are where the package says.
func (c *Chain) deployDepositAddressFactory(ctx context.Context) error {
	nonce, err := c.Client().PendingNonceAt(ctx, DeployerAddress())
	if err != nil {
		return err
	}
	if nonce != depositAddressFactoryNonce {
		return fmt.Errorf("deposit address factory would deploy at nonce %d, not %d: its address would differ", nonce, depositAddressFactoryNonce)
	}
	f := bindings.NewDepositAddressFactory()
	tx, err := c.send(ctx, DeployerKey(), nonce, nil, creation(bindings.DepositAddressFactoryMetaData.Bin, f.PackConstructor(DepositoryAddress, SolverAddress())))
	if err != nil {
		return fmt.Errorf("deploy DepositAddressFactory: %w", err)
	}
	receipts, err := c.mineAndCheck(ctx, []*types.Transaction{tx})
	if err != nil {
		return fmt.Errorf("deploy DepositAddressFactory: %w", err)
	}
	if got := receipts[0].ContractAddress; got != DepositAddressFactoryAddress {
		return fmt.Errorf("deploy DepositAddressFactory: landed at %s, want %s", got.Hex(), DepositAddressFactoryAddress.Hex())
	}
	out, err := c.Client().CallContract(ctx, ethereum.CallMsg{To: &DepositAddressFactoryAddress, Data: f.PackImplementation()}, nil)
	if err != nil {
		return fmt.Errorf("deposit address implementation: %w", err)
	}
	impl, err := f.UnpackImplementation(out)
	if err != nil {
		return fmt.Errorf("deposit address implementation: %w", err)
	}
	if impl != DepositAddressImplementationAddress {
		return fmt.Errorf("deposit address implementation: at %s, want %s", impl.Hex(), DepositAddressImplementationAddress.Hex())
	}
	return c.deploySOLFeed(ctx)
}

// deploySOLFeed deploys the SOL/USD feed from the deployer at solFeedNonce, after the factory.
func (c *Chain) deploySOLFeed(ctx context.Context) error {
	nonce, err := c.Client().PendingNonceAt(ctx, DeployerAddress())
	if err != nil {
		return err
	}
	if nonce != solFeedNonce {
		return fmt.Errorf("SOL / USD feed would deploy at nonce %d, not %d: its address would differ", nonce, solFeedNonce)
	}
	code := creation(bindings.PriceFeedMetaData.Bin, bindings.NewPriceFeed().PackConstructor(DeployerAddress(), FeedDecimals, "SOL / USD", big.NewInt(SOLUSDAnswer)))
	tx, err := c.send(ctx, DeployerKey(), nonce, nil, code)
	if err != nil {
		return fmt.Errorf("deploy SOL / USD feed: %w", err)
	}
	receipts, err := c.mineAndCheck(ctx, []*types.Transaction{tx})
	if err != nil {
		return fmt.Errorf("deploy SOL / USD feed: %w", err)
	}
	if got := receipts[0].ContractAddress; got != SOLUSDFeedAddress {
		return fmt.Errorf("deploy SOL / USD feed: landed at %s, want %s", got.Hex(), SOLUSDFeedAddress.Hex())
	}
	return c.deployBatchExecutor(ctx)
}

// deployBatchExecutor deploys the EIP-7702 BatchExecutor from the deployer at
// batchExecutorNonce, after the SOL/USD feed, and checks it landed at BatchExecutorAddress.
func (c *Chain) deployBatchExecutor(ctx context.Context) error {
	nonce, err := c.Client().PendingNonceAt(ctx, DeployerAddress())
	if err != nil {
		return err
	}
	if nonce != batchExecutorNonce {
		return fmt.Errorf("BatchExecutor would deploy at nonce %d, not %d: its address would differ", nonce, batchExecutorNonce)
	}
	tx, err := c.send(ctx, DeployerKey(), nonce, nil, creation(bindings.BatchExecutorMetaData.Bin, nil))
	if err != nil {
		return fmt.Errorf("deploy BatchExecutor: %w", err)
	}
	receipts, err := c.mineAndCheck(ctx, []*types.Transaction{tx})
	if err != nil {
		return fmt.Errorf("deploy BatchExecutor: %w", err)
	}
	if got := receipts[0].ContractAddress; got != BatchExecutorAddress() {
		return fmt.Errorf("deploy BatchExecutor: landed at %s, want %s", got.Hex(), BatchExecutorAddress().Hex())
	}
	return nil
}

// SetPrice posts answer (in feed units, scaled by the feed's decimals) to one of the chain's
// price feeds as a new round, sent by the deployer (the feeds' owner), and seals a block with
// it. A zero updatedAt (time.Time{}) stamps the round with the block's timestamp, as a real
// update would; any other value is the round's updatedAt, so a test can make a feed stale
// (a time in the past) or report updatedAt 0 (time.Unix(0, 0)). Turn the heartbeat off
// (a negative Options.FeedHeartbeat) for a stale round to stay in place.
func (c *Chain) SetPrice(ctx context.Context, feed common.Address, answer *big.Int, updatedAt time.Time) error {
	pf := bindings.NewPriceFeed()
	var data []byte
	if updatedAt.IsZero() {
		data = pf.PackSetAnswer(answer)
	} else {
		if updatedAt.Unix() < 0 {
			return fmt.Errorf("devnet: set price: updatedAt %s is before 1970", updatedAt)
		}
		data = pf.PackSetRound(answer, big.NewInt(updatedAt.Unix()))
	}
	c.deployerMu.Lock()
	defer c.deployerMu.Unlock()
	if err := c.sendAsDeployer(ctx, feed, data, true); err != nil {
		return fmt.Errorf("devnet: chain %d: set price of feed %s: %w", c.ID, feed.Hex(), err)
	}
	return nil
}

// beat re-posts each feed's current answer as a new round stamped with the block's timestamp.
// The transactions are left to the chain's own block production.
func (c *Chain) beat(ctx context.Context) error {
	pf := bindings.NewPriceFeed()
	c.deployerMu.Lock()
	defer c.deployerMu.Unlock()
	var errs []error
	for _, feed := range []common.Address{ETHUSDFeedAddress, USDCUSDFeedAddress, SOLUSDFeedAddress} {
		// Pending state: a re-post still waiting for its block is the answer to repeat.
		out, err := c.Client().PendingCallContract(ctx, ethereum.CallMsg{To: &feed, Data: pf.PackLatestAnswer()})
		if err == nil {
			var answer *big.Int
			if answer, err = pf.UnpackLatestAnswer(out); err == nil {
				err = c.sendAsDeployer(ctx, feed, pf.PackSetAnswer(answer), false)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("feed %s: %w", feed.Hex(), err))
		}
	}
	return errors.Join(errs...)
}

// sendAsDeployer sends a call to `to` from the deployer at its pending nonce; with mine set it
// seals a block and checks the receipt. The caller holds c.deployerMu.
func (c *Chain) sendAsDeployer(ctx context.Context, to common.Address, data []byte, mine bool) error {
	nonce, err := c.Client().PendingNonceAt(ctx, DeployerAddress())
	if err != nil {
		return err
	}
	tx, err := c.send(ctx, DeployerKey(), nonce, &to, data)
	if err != nil {
		return err
	}
	if mine {
		_, err = c.mineAndCheck(ctx, []*types.Transaction{tx})
	}
	return err
}

// creation is a contract's creation code: its bytecode followed by the ABI-encoded
// constructor arguments (abigen v2's PackConstructor returns the arguments only).
func creation(bin string, args []byte) []byte {
	return append(common.FromHex(bin), args...)
}

// send signs a dynamic-fee transaction from key with the given nonce, gas estimated against
// the latest block, and submits it to the chain's pool.
func (c *Chain) send(ctx context.Context, key *ecdsa.PrivateKey, nonce uint64, to *common.Address, data []byte) (*types.Transaction, error) {
	cl := c.Client()
	from := crypto.PubkeyToAddress(key.PublicKey)
	gas, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: from, To: to, Data: data})
	if err != nil {
		return nil, fmt.Errorf("estimate gas: %w", err)
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), setupTip)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(new(big.Int).SetUint64(c.ID)), &types.DynamicFeeTx{
		ChainID:   new(big.Int).SetUint64(c.ID),
		Nonce:     nonce,
		GasTipCap: setupTip,
		GasFeeCap: feeCap,
		Gas:       gas + gas/5, // margin: estimates are against the latest block, not the pending one
		To:        to,
		Data:      data,
	})
	if err != nil {
		return nil, err
	}
	if err := cl.SendTransaction(ctx, tx); err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	return tx, nil
}

// mineAndCheck seals blocks until every one of txs is included and returns their receipts,
// failing if one reverted. The node adds a sent transaction to its pending set asynchronously, so
// a block sealed right after sending can miss it (more often on a busy machine); sealing again
// until the receipts appear makes setup independent of that timing.
func (c *Chain) mineAndCheck(ctx context.Context, txs []*types.Transaction) ([]*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	receipts := make([]*types.Receipt, len(txs))
	for {
		c.Mine()
		missing := 0
		for i, tx := range txs {
			if receipts[i] != nil {
				continue
			}
			r, err := c.Client().TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				missing++
				continue
			}
			if r.Status != types.ReceiptStatusSuccessful {
				return nil, fmt.Errorf("tx %s reverted", tx.Hash().Hex())
			}
			receipts[i] = r
		}
		if missing == 0 {
			return receipts, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%d of %d transactions not mined: %w", missing, len(txs), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
