package evm

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/store"
)

// solverCall is one transaction the solver sends for a request: a fill or a refund.
type solverCall struct {
	requestID string
	kind      intent.TxKind // fill, refund or manual_refund: one stored transaction per request and kind
	to        common.Address
	data      []byte
	value     *big.Int
	// gasLimit, when set, is the gas the transaction is signed with, whatever the estimate
	// (which must not exceed it: one that does is a *chains.OverCeilingError); unset, the
	// estimate with a margin of a fifth.
	gasLimit uint64
	// check runs once, before the first signing, with the most the transaction can cost in gas
	// (gas × fee cap, wei); an error stops the call before anything is signed.
	check func(ctx context.Context, maxFee *big.Int) error
	// payCurrency and payAmount are what the call pays out of the solver's own balance (a
	// fill's output; nothing for a refund, which the depository pays). With the gas they are
	// the transaction's commitment, stored with it and counted against the solver's inventory
	// on the chain until it is mined.
	payCurrency common.Address
	payAmount   *big.Int
	// inventory has the call signed only when the solver's balances, less what its
	// transactions not yet mined commit, cover its commitment (checked in the store, atomically
	// with the nonce allocation; *intent.InventoryShortfall otherwise).
	inventory bool
	// signer, when set, signs the call instead of the solver (the relayer's key: kind relay),
	// from its own address and nonce sequence.
	signer *ecdsa.PrivateKey
	// auths, when any, are the EIP-7702 authorizations the call carries: it is signed as a
	// set-code (type-4) transaction, and estimated with them applied.
	auths []types.SetCodeAuthorization
}

// keyOf is the key that signs call: its own signer, else the solver's.
func (p *Payout) keyOf(call solverCall) *ecdsa.PrivateKey {
	if call.signer != nil {
		return call.signer
	}
	return p.key
}

// send returns the request's stored transaction of that kind, or estimates, signs and stores
// a new one (its nonce allocated in Postgres), and broadcasts it. A retry finds the stored
// transaction and broadcasts the same bytes again, so a call is never made twice.
//
// What a signing reads (the gas estimate, the fees, the solver's holdings or nonce) is read all
// at once rather than one after the other: on a busy machine each read waits its turn for a
// CPU, and a fill's reads in a row were most of its time before the signing. Whether the
// transaction is stored already is not asked beside them: the group that signs reads that under
// the nonce row's lock anyway and answers with the stored transaction (store.PrepareSolverTx),
// and at 50 fills a second that lookup, waiting for a pooled connection, was the slowest of the
// reads (62 ms at the median, 168 ms at p99, against 17 and 48 ms for the gas estimate,
// BENCHMARKS.md). Only a refusal made before the group (a read that failed, a revert, the
// capacity) asks the store first: what the reads say, a revert of an order already filled for
// one, means something only when nothing is stored, and a retry of a signing that went through
// broadcasts its transaction instead.
func (p *Payout) send(ctx context.Context, c solverChain, call solverCall) (*store.SolverTx, error) {
	start := time.Now()
	reads := p.readForSigning(ctx, patientReads{c}, call)
	read := time.Now()
	observeReads.Observe(read.Sub(start).Seconds())
	stored, err := p.sign(ctx, c, call, reads)
	if err == nil {
		observePrepare.Observe(time.Since(read).Seconds())
	} else {
		prev, lerr := p.store.SolverTx(ctx, call.requestID, call.kind)
		switch {
		case lerr == nil:
			stored = prev
		case errors.Is(lerr, intent.ErrNotFound):
			return nil, err
		default:
			return nil, lerr // unknown whether it is stored: retried, never refused
		}
	}
	sent := time.Now()
	err = p.firstBroadcast(ctx, c, stored)
	observeBroadcast.Observe(time.Since(sent).Seconds())
	return stored, err
}

// The phases of intentd_solver_signing_seconds, resolved once.
var (
	observeReads     = metrics.SolverSigning.WithLabelValues("reads")
	observePrepare   = metrics.SolverSigning.WithLabelValues("prepare")
	observeBroadcast = metrics.SolverSigning.WithLabelValues("broadcast")
)

// signingReads are the chain reads a signing starts from, read at the same time.
type signingReads struct {
	gas                       uint64
	gasErr, feesErr, nonceErr error
	fees                      Fees
	chainNonce                uint64
	held                      *intent.Holdings
}

// readForSigning makes call's reads on c at once and returns when all have answered (each ends
// with ctx): the gas estimate, the fees and, for a call checked against the solver's inventory,
// the holdings with the nonce they were read at (otherwise the nonce alone).
func (p *Payout) readForSigning(ctx context.Context, c patientReads, call solverCall) *signingReads {
	r := &signingReads{}
	from := crypto.PubkeyToAddress(p.keyOf(call).PublicKey)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		r.gas, r.gasErr = c.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &call.to, Data: call.data, Value: call.value,
			AuthorizationList: call.auths})
	}()
	go func() {
		defer wg.Done()
		r.fees, r.feesErr = p.fees(ctx, c)
	}()
	go func() {
		defer wg.Done()
		if call.inventory {
			r.chainNonce, r.held, r.nonceErr = p.holdings(ctx, c, call.payCurrency)
		} else {
			r.chainNonce, r.nonceErr = c.NonceAt(ctx, from)
		}
	}()
	wg.Wait()
	return r
}

// broadcast sends a stored transaction's bytes; a failure is retryable (the same bytes go out
// again on the next attempt).
func broadcast(ctx context.Context, c TxSender, stored *store.SolverTx) error {
	return broadcastStored(ctx, stored, func(tx *types.Transaction) error { return sendTx(ctx, c, tx) })
}

// broadcastStored decodes stored and sends it with send; a failure to send is logged and
// retryable. A voided transaction is not sent.
func broadcastStored(ctx context.Context, stored *store.SolverTx, send func(*types.Transaction) error) error {
	if stored.Voided {
		// Signed for a chain since reset: never sent again (its nonce is the new chain's). The
		// wait for inclusion decides what becomes of its request (Watch).
		return nil
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(stored.Raw); err != nil {
		return fmt.Errorf("%w: %v", chains.ErrStoredCorrupt, err)
	}
	if err := send(&tx); err != nil {
		chains.LoggerFrom(ctx).Warn("broadcast failed; will retry", "requestId", stored.RequestID, "kind", stored.Kind,
			"attempt", stored.Attempt, "tx", stored.Hash, "error", err)
		return fmt.Errorf("%w: broadcast: %v", chains.ErrUnavailable, err)
	}
	return nil
}

// sendTx broadcasts tx. A node that already has it, or whose chain has used its nonce already
// (this transaction or another attempt of it was mined), counts as sent: the wait for
// inclusion finds out which attempt was mined.
func sendTx(ctx context.Context, c TxSender, tx *types.Transaction) error {
	return sentOrErr(c.SendTransaction(ctx, tx))
}

// sentOrErr is a broadcast's error, nil when it means the transaction is out.
func sentOrErr(err error) error {
	if errors.Is(err, chains.ErrAlreadyKnown) || errors.Is(err, chains.ErrNonceTooLow) {
		return nil
	}
	return err
}

func (p *Payout) sign(ctx context.Context, chain solverChain, call solverCall, r *signingReads) (*store.SolverTx, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := p.keyOf(call)
	from := crypto.PubkeyToAddress(key.PublicKey)
	gas, err := r.gas, r.gasErr
	if err != nil {
		return nil, err // a revert or a shortfall for the caller to map; anything else retried
	}
	if r.feesErr != nil {
		return nil, r.feesErr
	}
	fees := r.fees
	tip, feeCap := fees.Tip, fees.FeeCap(fees.Tip)
	if call.gasLimit > 0 {
		if gas > call.gasLimit {
			return nil, &chains.OverCeilingError{Estimate: gas, Ceiling: call.gasLimit}
		}
		gas = call.gasLimit
	} else {
		gas = gas * 12 / 10
	}
	if call.check != nil {
		if err := call.check(ctx, maxGasCost(gas, feeCap)); err != nil {
			return nil, err
		}
	}
	pays := intent.Commitment{Currency: strings.ToLower(call.payCurrency.Hex()), Amount: call.payAmount,
		MaxGasCost: maxGasCost(gas, feeCap)}
	// The chain's nonce of the solver is a floor for the one allocated, in case the key was used
	// outside the engine; with the inventory check it is the nonce the holdings were read at.
	if r.nonceErr != nil {
		return nil, r.nonceErr
	}
	chainNonce, held := r.chainNonce, r.held
	chainID := new(big.Int).SetUint64(chain.Chain().ID)
	signer := types.LatestSignerForChainID(chainID)
	stored, err := p.store.PrepareSolverTx(ctx, call.requestID, call.kind, chain.Chain().ID, from.Hex(), chainNonce, pays, held,
		func(nonce uint64) (string, []byte, error) {
			var inner types.TxData = &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce,
				GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &call.to, Value: call.value, Data: call.data}
			if len(call.auths) > 0 {
				inner = &types.SetCodeTx{ChainID: uint256.MustFromBig(chainID), Nonce: nonce, GasTipCap: uint256.MustFromBig(tip),
					GasFeeCap: uint256.MustFromBig(feeCap), Gas: gas, To: call.to, Value: uint256.MustFromBig(call.value),
					Data: call.data, AuthList: call.auths}
			}
			tx, err := types.SignNewTx(key, signer, inner)
			if err != nil {
				return "", nil, err
			}
			raw, err := tx.MarshalBinary()
			return tx.Hash().Hex(), raw, err
		})
	return stored, err
}

// readTries bounds how often retryRead asks; with one answer in five failing, as in the
// reliability suite's RPC faults, four tries leave one read in 625 failed.
const readTries = 4

// retryRead runs read, and again after a short backoff (100 ms, growing) while it fails with
// chains.ErrUnavailable (a node's 503, a rate limit, a dropped connection), up to readTries
// times within ctx. The reads before a signing are idempotent, and an attempt makes half a dozen
// of them: without this, one flaky answer spent a whole attempt of the activity's bounded
// retries, and a run of them refunded a fillable intent with TRANSACTION_SUBMISSION_FAILED.
// Any other error (a revert, a shortfall) is returned at once.
func retryRead[T any](ctx context.Context, read func(context.Context) (T, error)) (T, error) {
	b := backoff.NewExponentialBackOff(backoff.WithInitialInterval(100*time.Millisecond), backoff.WithMaxElapsedTime(0))
	return backoff.RetryWithData(func() (T, error) {
		v, err := read(ctx)
		if err != nil && !errors.Is(err, chains.ErrUnavailable) {
			return v, backoff.Permanent(err)
		}
		return v, err
	}, backoff.WithContext(backoff.WithMaxRetries(b, readTries-1), ctx))
}

// patientReads is a solver chain whose reads before a signing (the nonce, the gas estimate, the
// fees, the balances) ask again while the chain is unavailable (retryRead).
type patientReads struct{ solverChain }

func (c patientReads) NonceAt(ctx context.Context, account common.Address) (uint64, error) {
	return retryRead(ctx, func(ctx context.Context) (uint64, error) { return c.solverChain.NonceAt(ctx, account) })
}

func (c patientReads) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	return retryRead(ctx, func(ctx context.Context) (uint64, error) { return c.solverChain.EstimateGas(ctx, msg) })
}

func (c patientReads) SuggestFees(ctx context.Context) (Fees, error) {
	return retryRead(ctx, c.solverChain.SuggestFees)
}

func (c patientReads) BalanceNow(ctx context.Context, currency, account string) (*big.Int, error) {
	return retryRead(ctx, func(ctx context.Context) (*big.Int, error) { return c.solverChain.BalanceNow(ctx, currency, account) })
}

// maxGasCost is the most a transaction of gas at feeCap can cost, in wei.
func maxGasCost(gas uint64, feeCap *big.Int) *big.Int {
	return new(big.Int).Mul(new(big.Int).SetUint64(gas), feeCap)
}
