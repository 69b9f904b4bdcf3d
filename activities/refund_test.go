package activities

import (
	"context"
	"math/big"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/oracle/oracleapi"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/e2e"
)

// refundRig is the solver's activities on a devnet chain 31338 with a depositor's wallet.
type refundRig struct {
	a      *ChainActivities
	chain  *devnet.Chain
	pool   *pgxpool.Pool
	wallet *e2e.Wallet
	n      int
}

func newRefundRig(t *testing.T) *refundRig {
	a, chain, pool := solverOnDevnet(t, 100*time.Millisecond)
	return &refundRig{a: a, chain: chain, pool: pool,
		wallet: &e2e.Wallet{Key: devnet.TestAccounts()[1].Key, RPCs: map[uint64]string{31338: chain.RPCURL}}}
}

// deposit makes one deposit into the depository (value of the native currency, or amount of an
// ERC-20 the wallet approves first) and returns the refund a request of it would make, with a
// request stored for it and a recipient nobody has paid yet.
func (r *refundRig) deposit(t *testing.T, currency common.Address, amount *big.Int) RefundInput {
	t.Helper()
	ctx := context.Background()
	r.n++
	orderID := crypto.Keccak256Hash([]byte(t.Name()), big.NewInt(int64(r.n)).Bytes())
	step := quote.TxData{ChainID: 31338, To: devnet.DepositoryAddress.Hex(), Value: amount.String(),
		Data: hexutil.Encode(evm.DepositoryABI.PackDepositNative(orderID))}
	if currency != (common.Address{}) {
		if currency == devnet.USDCAddress {
			_, err := r.wallet.SendTx(ctx, quote.TxData{ChainID: 31338, To: currency.Hex(), Value: "0",
				Data: hexutil.Encode(evm.ERC20ABI.PackApprove(devnet.DepositoryAddress, amount))})
			require.NoError(t, err)
		}
		step.Value, step.Data = "0", hexutil.Encode(evm.DepositoryABI.PackDepositErc20(orderID, currency, amount))
	}
	receipt, err := r.wallet.SendTx(ctx, step)
	require.NoError(t, err)
	var logIndex uint
	for _, l := range receipt.Logs {
		if l.Address == devnet.DepositoryAddress {
			logIndex = l.Index
		}
	}
	requestID := intent.DepositRefundRequestID(31338, receipt.TxHash.Hex(), logIndex)
	_, err = r.pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id,
		order_id, record) VALUES ($1, 'waiting', '0xu', '0xr', 31338, 31338, $1, '{}')`, requestID)
	require.NoError(t, err)
	return RefundInput{RequestID: requestID, Kind: intent.TxKindRefund, ChainID: 31338, Currency: currency.Hex(),
		Recipient: freshRecipient(t).Hex(), Amount: amount.String(), DepositTx: receipt.TxHash.Hex(),
		DepositLogIndex: logIndex}
}

func freshRecipient(t *testing.T) common.Address {
	k, err := crypto.GenerateKey()
	require.NoError(t, err)
	return crypto.PubkeyToAddress(k.PublicKey)
}

// refund runs SubmitRefund as the worker would, in an activity environment of its own.
func (r *refundRig) refund(in RefundInput) (*RefundSubmitted, error) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(r.a)
	val, err := env.ExecuteActivity(r.a.SubmitRefund, in)
	if err != nil {
		return nil, err
	}
	var out RefundSubmitted
	return &out, val.Get(&out)
}

// mined waits for a transaction's receipt.
func (r *refundRig) mined(t *testing.T, hash string) *types.Receipt {
	t.Helper()
	c, err := r.chain.Dial(context.Background())
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		rc, err := c.TransactionReceipt(ctx, common.HexToHash(hash))
		if err == nil {
			return rc
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s not mined: %v", hash, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// balance is an account's native or ERC-20 balance.
func (r *refundRig) balance(t *testing.T, currency, account common.Address) *big.Int {
	t.Helper()
	c, err := r.chain.Dial(context.Background())
	require.NoError(t, err)
	defer c.Close()
	if currency == (common.Address{}) {
		b, err := c.BalanceAt(context.Background(), account, nil)
		require.NoError(t, err)
		return b
	}
	out, err := c.CallContract(context.Background(), ethereum.CallMsg{To: &currency, Data: evm.ERC20ABI.PackBalanceOf(account)}, nil)
	require.NoError(t, err)
	b, err := evm.ERC20ABI.UnpackBalanceOf(out)
	require.NoError(t, err)
	return b
}

// solverNonce is the solver's nonce on the chain.
func (r *refundRig) solverNonce(t *testing.T) uint64 {
	c, err := r.chain.Dial(context.Background())
	require.NoError(t, err)
	defer c.Close()
	n, err := c.PendingNonceAt(context.Background(), devnet.SolverAddress())
	require.NoError(t, err)
	return n
}

// requireRefused checks that err is the non-retryable refundFailReason want and that the
// request has no stored refund: nothing was signed.
func (r *refundRig) requireRefused(t *testing.T, in RefundInput, err error, want intent.RefundFailReason) *temporal.ApplicationError {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	require.Equal(t, string(want), appErr.Type(), "%v", err)
	require.True(t, appErr.NonRetryable())
	_, lerr := store.New(r.pool).SolverTx(context.Background(), in.RequestID, in.Kind)
	require.ErrorIs(t, lerr, intent.ErrNotFound, "nothing was signed")
	return appErr
}

// Issue 33, point 1: "refund gas has a fixed ceiling per listed currency (configuration, with
// documented defaults: native and ERC-20), never 'estimate × 1.2' of a contract's choice; the
// worth check uses the ceiling". A refund is signed with its currency's ceiling (the devnet's
// chain file sets one for ETH and USDC), and a token whose transfer asks for more gas than the
// ceiling is not refunded at all, so the solver pays nothing for it.
func TestARefundIsSignedWithItsCurrencysGasCeilingNeverTheEstimate(t *testing.T) {
	r := newRefundRig(t)
	// The devnet's chain file gives ETH and USDC ceilings of their own (refundGas); an unlisted
	// token takes the ERC-20 one.
	r.a.RefundGas = RefundGas{Native: 100_000, ERC20: 150_000}
	r.a.Prices = prices.Table{"ETH": decimal.NewFromInt(3000), "USDC": decimal.NewFromInt(1)}
	ctx := context.Background()

	for _, tc := range []struct {
		currency common.Address
		amount   *big.Int
		gas      uint64
	}{
		{common.Address{}, big.NewInt(5e17), devnet.RefundGasETH},
		{devnet.USDCAddress, big.NewInt(5_000_000), devnet.RefundGasUSDC},
	} {
		in := r.deposit(t, tc.currency, tc.amount)
		sub, err := r.refund(in)
		require.NoError(t, err)
		stored, err := store.New(r.pool).SolverTx(ctx, in.RequestID, intent.TxKindRefund)
		require.NoError(t, err)
		var tx types.Transaction
		require.NoError(t, tx.UnmarshalBinary(stored.Raw))
		require.Equal(t, tc.gas, tx.Gas(), "the refund of %s is signed with its ceiling", tc.currency)
		require.Equal(t, uint64(1), r.mined(t, sub.TxHash).Status)
		require.Equal(t, tc.amount, r.balance(t, tc.currency, common.HexToAddress(in.Recipient)))
	}

	// A worthless token whose transfer burns two million gas: the estimate is over any ceiling,
	// so even an operator's refund (which is not priced) is refused before anything is signed.
	burner, err := r.wallet.Deploy(ctx, 31338, &bindings.GasBurnerTokenMetaData, bindings.NewGasBurnerToken().PackConstructor(big.NewInt(2_000_000)))
	require.NoError(t, err)
	in := r.deposit(t, burner, big.NewInt(1))
	in.Kind = intent.TxKindManualRefund
	nonce := r.solverNonce(t)
	_, err = r.refund(in)
	appErr := r.requireRefused(t, in, err, intent.RefundFailReasonManualRefundRequired)
	require.Contains(t, appErr.Error(), "more than its ceiling of 150000")
	require.Equal(t, nonce, r.solverNonce(t), "the solver sent nothing")
}

// Issue 33, point 1: "a refund is sent only when its value, priced, exceeds its gas cost;
// otherwise the request ends with refundFailReason AMOUNT_TOO_LOW_TO_REFUND and nothing is sent.
// 'No price' means not worth it". The failure says the refund could not be priced
// (RefundUnpriced), so the workflow keeps the request for an operator.
func TestARefundThatCannotBeValuedIsAmountTooLowAndNothingIsSent(t *testing.T) {
	r := newRefundRig(t)
	in := r.deposit(t, devnet.USDCAddress, big.NewInt(5_000_000))
	nonce := r.solverNonce(t)
	for name, src := range map[string]prices.Source{"no price source": nil, "no USDC price": prices.Table{"ETH": decimal.NewFromInt(3000)}} {
		r.a.Prices = src
		_, err := r.refund(in)
		appErr := r.requireRefused(t, in, err, intent.RefundFailReasonAmountTooLowToRefund)
		var detail string
		require.NoError(t, appErr.Details(&detail), name)
		require.Equal(t, RefundUnpriced, detail, name)
	}
	require.Equal(t, nonce, r.solverNonce(t), "the solver sent nothing")

	// Priced, the same refund is worth more than its gas, and is made.
	r.a.Prices = prices.Table{"ETH": decimal.NewFromInt(3000), "USDC": decimal.NewFromInt(1)}
	sub, err := r.refund(in)
	require.NoError(t, err)
	require.Equal(t, uint64(1), r.mined(t, sub.TxHash).Status)
}

// Issue 33: a deposit refunded under the request's own RefundID (which the oracle accepts for a
// refund) is never paid again under its withdrawal id: with nothing stored for the request, the
// chain's record of the other id refuses the refund before anything is signed. The deposit is
// paid back once.
func TestARefundOfADepositAlreadyRefundedUnderTheRequestsOwnIDIsRefused(t *testing.T) {
	r := newRefundRig(t)
	ctx := context.Background()
	in := r.deposit(t, common.Address{}, big.NewInt(4e17))
	recipient := common.HexToAddress(in.Recipient)
	amount, _ := new(big.Int).SetString(in.Amount, 10)
	solver := &e2e.Wallet{Key: devnet.SolverKey(), RPCs: r.wallet.RPCs}
	receipt, err := solver.SendTx(ctx, quote.TxData{ChainID: 31338, To: devnet.DepositoryAddress.Hex(), Value: "0",
		Data: hexutil.Encode(evm.DepositoryABI.PackWithdraw(intent.RefundID(in.RequestID), common.Address{}, recipient, amount))})
	require.NoError(t, err)
	require.Equal(t, uint64(1), receipt.Status)
	require.Equal(t, in.Amount, r.balance(t, common.Address{}, recipient).String())

	for _, kind := range []intent.TxKind{intent.TxKindRefund, intent.TxKindManualRefund} {
		again := in
		again.Kind = kind
		_, err = r.refund(again)
		appErr := r.requireRefused(t, again, err, intent.RefundFailReasonManualRefundRequired)
		require.Contains(t, appErr.Error(), "already refunded under the request's former payout id")
	}
	require.Equal(t, in.Amount, r.balance(t, common.Address{}, recipient).String(), "paid once")
	depositID := oracleapi.WithdrawalIDOf(31338, devnet.DepositoryAddress, common.HexToHash(in.DepositTx), uint64(in.DepositLogIndex))
	require.Equal(t, 0, r.withdrawals(t, depositID))

	// A refund that names no deposit is refused before anything is signed.
	bare := in
	bare.DepositTx, bare.DepositLogIndex = "", 0
	_, err = r.refund(bare)
	_ = r.requireRefused(t, bare, err, intent.RefundFailReasonManualRefundRequired)

	// A refund to the zero address (a deposit address's payer unknown, a zero depositor) is
	// refused before anything is signed: never burned.
	zero := r.deposit(t, common.Address{}, big.NewInt(1e17))
	zero.Recipient = "0x0000000000000000000000000000000000000000"
	_, err = r.refund(zero)
	_ = r.requireRefused(t, zero, err, intent.RefundFailReasonManualRefundRequired)
}

// A refund pays under the deposit's withdrawal id, and once: a manual refund after it finds the
// stored refund and the depository refuses a second payment under the same id.
func TestARefundPaysUnderTheDepositsWithdrawalIDOnce(t *testing.T) {
	r := newRefundRig(t)
	next := r.deposit(t, common.Address{}, big.NewInt(3e17))
	sub, err := r.refund(next)
	require.NoError(t, err)
	require.Equal(t, uint64(1), r.mined(t, sub.TxHash).Status)
	again := next
	again.Kind = intent.TxKindManualRefund
	_, err = r.refund(again)
	_ = r.requireRefused(t, again, err, intent.RefundFailReasonManualRefundRequired)
	nextID := oracleapi.WithdrawalIDOf(31338, devnet.DepositoryAddress, common.HexToHash(next.DepositTx), uint64(next.DepositLogIndex))
	require.Equal(t, 1, r.withdrawals(t, nextID))
	require.Equal(t, 0, r.withdrawals(t, intent.RefundID(next.RequestID)))
}

// withdrawals counts the depository's Withdrawal events under a payout id.
func (r *refundRig) withdrawals(t *testing.T, id common.Hash) int {
	t.Helper()
	c, err := r.chain.Dial(context.Background())
	require.NoError(t, err)
	defer c.Close()
	logs, err := c.FilterLogs(context.Background(), ethereum.FilterQuery{FromBlock: big.NewInt(0),
		Addresses: []common.Address{devnet.DepositoryAddress},
		Topics:    [][]common.Hash{{evm.DepositoryABI.GetABI().Events["Withdrawal"].ID}, {id}}})
	require.NoError(t, err)
	return len(logs)
}
