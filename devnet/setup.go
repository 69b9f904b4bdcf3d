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

// setup deploys the contracts from the deployer at its nonces 0..2, mints the USDC balances
// and has the solver approve the OutputSettler, checking every receipt.
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
		{"Depository", DepositoryAddress, creation(bindings.DepositoryMetaData.Bin, bindings.NewDepository().PackConstructor(SolverAddress()))},
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
	return nil
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

// mineAndCheck seals a block and returns the receipts of txs, failing unless every one was
// included and succeeded.
func (c *Chain) mineAndCheck(ctx context.Context, txs []*types.Transaction) ([]*types.Receipt, error) {
	c.Mine()
	receipts := make([]*types.Receipt, len(txs))
	for i, tx := range txs {
		r, err := c.receipt(ctx, tx.Hash())
		if err != nil {
			return nil, fmt.Errorf("tx %s: %w", tx.Hash().Hex(), err)
		}
		if r.Status != types.ReceiptStatusSuccessful {
			return nil, fmt.Errorf("tx %s reverted", tx.Hash().Hex())
		}
		receipts[i] = r
	}
	return receipts, nil
}

// receipt fetches a receipt, waiting briefly: a just-sealed block's transactions may not be
// indexed yet.
func (c *Chain) receipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		r, err := c.Client().TransactionReceipt(ctx, hash)
		if err == nil {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return nil, errors.Join(err, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
