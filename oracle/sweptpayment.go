package oracle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// A sweep's deposit counted from its payment's block (docs/oracle.md, "A sweep's deposit";
// docs/deposit-addresses.md, "Confirmations of a sweep's deposit"). A plain transfer to a
// deposit address (the payment, block P) is moved into the depository by the solver's sweep
// (block S > P), whose Deposit is what the engine fills against. Only the factory's sweeper can
// sweep, an address's funds go into its own order only, and a sweep moves exactly one payment's
// amount: what the deposit rests on is the payment, so its confirmations are P's once the sweep
// itself is mined in a canonical block. A reorg of S alone leaves the payment at the address for
// the solver's kept sweep; a reorg of P reverts or removes the sweep with it.

var transferEventID = evm.ERC20ABI.GetABI().Events["Transfer"].ID

// sweptPayment checks, on the oracle's own reads, that payment carries every deposit of
// messages (read in tx, mined and canonical) to the depth need: each deposit is a sweep's (the
// chain's factory's Swept event at the next log index, for the same order, depositor, currency
// and amount: evm.ParseDeposits), payment succeeded in a canonical block with need
// confirmations and paid the swept address at least the swept amount of the swept currency
// (native: the transaction's to and value; ERC-20: a Transfer log of the token to the address).
// It returns why not ("" when it does), or an error when the chain cannot be read.
func (s *Server) sweptPayment(ctx context.Context, tx *txRead, payment common.Hash, messages []oracleapi.DepositData, need uint64) (string, *oracleapi.Error) {
	if tx.chain.DepositAddressFactory == "" {
		return "the chain has no deposit-address factory", nil
	}
	factory := common.HexToAddress(tx.chain.DepositAddressFactory)
	logs := make([]types.Log, 0, len(tx.receipt.Logs))
	for _, l := range tx.receipt.Logs {
		logs = append(logs, *l)
	}
	swept := map[uint]string{} // the deposit's log index → the swept address
	for _, d := range evm.ParseDeposits(tx.chain.ID, tx.contract, factory, logs) {
		if d.SweptFrom != "" {
			swept[d.LogIndex] = d.SweptFrom
		}
	}
	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	receipt, err := tx.reader.TransactionReceipt(ctx, payment)
	switch {
	case errors.Is(err, ethereum.NotFound) || isIndexing(err):
		return "the payment has no receipt", nil
	case err != nil:
		return "", tx.unavailable("the payment's receipt", err)
	case receipt.Status != types.ReceiptStatusSuccessful:
		return "the payment reverted", nil
	case receipt.BlockNumber == nil:
		return "", tx.unavailable("the payment's receipt", errors.New("receipt has no block number"))
	}
	block := receipt.BlockNumber.Uint64()
	if block > tx.block {
		return fmt.Sprintf("the payment is in block %d, after the sweep's %d", block, tx.block), nil
	}
	var ptx *types.Transaction
	for _, m := range messages {
		addr, ok := swept[uint(m.LogIndex)]
		if !ok {
			return fmt.Sprintf("the deposit at log %d is not a sweep of the chain's deposit-address factory", m.LogIndex), nil
		}
		to, amount := common.HexToAddress(addr), m.Amount.Int()
		var paid *big.Int
		if m.Currency == (common.Address{}) {
			if ptx == nil {
				t, _, err := tx.reader.TransactionByHash(ctx, payment)
				if err != nil {
					return "", tx.unavailable("the payment", err)
				}
				ptx = t
			}
			if ptx.To() != nil && *ptx.To() == to {
				paid = ptx.Value()
			}
		} else {
			paid = tokenPaid(receipt, m.Currency, to)
		}
		if paid == nil || paid.Cmp(amount) < 0 {
			return fmt.Sprintf("it did not pay the swept address %s %s of currency %s", to.Hex(), amount, m.Currency.Hex()), nil
		}
	}
	if _, e := tx.deepEnough(ctx, block, need, "payment "+payment.Hex()); e != nil {
		if e.Code == oracleapi.CodeNotConfirmed {
			return fmt.Sprintf("its block %d does not have %d confirmations", block, need), nil
		}
		return "", e
	}
	header, err := tx.reader.HeaderByNumber(ctx, new(big.Int).SetUint64(block))
	switch {
	case errors.Is(err, ethereum.NotFound):
		return fmt.Sprintf("its block %d is no longer canonical", block), nil
	case err != nil:
		return "", tx.unavailable("the payment's block header", err)
	case header.Hash() != receipt.BlockHash:
		tx.log.Warn("payment's block is not canonical", slog.Uint64("block", block), slog.String("blockHash", receipt.BlockHash.Hex()))
		return fmt.Sprintf("its block %d is no longer canonical", block), nil
	}
	return "", nil
}

// tokenPaid is what the receipt's Transfer logs of token paid to, in all; nil when none did.
func tokenPaid(receipt *types.Receipt, token, to common.Address) *big.Int {
	var paid *big.Int
	for _, l := range receipt.Logs {
		if l.Removed || l.Address != token || len(l.Topics) != 3 || l.Topics[0] != transferEventID ||
			common.BytesToAddress(l.Topics[2].Bytes()) != to || len(l.Data) != 32 {
			continue
		}
		if paid == nil {
			paid = new(big.Int)
		}
		paid.Add(paid, new(big.Int).SetBytes(l.Data))
	}
	return paid
}
