package evm

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/groupcommit"
	"github.com/intentd/intentd/internal/sharedread"
	"github.com/intentd/intentd/oracle/oracleapi"
	"github.com/intentd/intentd/store"
)

// The EVM family's payout (chains.Payout): fills are calls of the chain's output settler paid
// out of the solver's own balance, refunds calls of the depository's withdraw under the
// request's once-only payout id. Each is signed with the solver's key at a nonce allocated in
// Postgres (NonceStore), kept before its broadcast (payout_sign.go), broadcast in rounds of one
// chain and sender in nonce order (broadcasts.go), and, while it is not mined, replaced with the
// same nonce and higher fees, then cancelled (replace.go).

// NonceStore keeps the solver's signed transactions (store.Store): each is signed once with a
// nonce allocated in the database and stored before it is broadcast, so a retry sends the same
// bytes again. Lookups of a request's transaction that does not exist return intent.ErrNotFound.
// Each transaction is stored with what it commits of the solver's balances until it is mined;
// given the solver's holdings, PrepareSolverTx refuses one they do not cover once the
// transactions not yet mined are counted (*intent.InventoryShortfall), atomically with the
// nonce allocation.
type NonceStore interface {
	SolverTx(ctx context.Context, requestID string, kind intent.TxKind) (*store.SolverTx, error)
	SolverTxAttempts(ctx context.Context, requestID string, kind intent.TxKind) ([]store.SolverTx, error)
	PrepareSolverTx(ctx context.Context, requestID string, kind intent.TxKind, chainID uint64, from string,
		chainNonce uint64, pays intent.Commitment, held *intent.Holdings,
		sign func(nonce uint64) (hash string, raw []byte, err error)) (*store.SolverTx, error)
	ReplaceSolverTx(ctx context.Context, requestID string, kind intent.TxKind, after int, cancel bool,
		sign func(prev store.SolverTx) (hash string, raw []byte, maxGasCost *big.Int, err error)) (*store.SolverTx, error)
}

// Payout pays on the EVM chains of a set of clients with the solver's key.
type Payout struct {
	clients *chains.Clients
	store   NonceStore
	key     *ecdsa.PrivateKey
	// relayer signs the relayed calls of gasless requests (kind relay, relay.go); nil when this
	// process relays nothing.
	relayer *ecdsa.PrivateKey

	// reads are the reads the signings share (solverreads.go).
	reads sharedread.Group
	// broadcasts sends the first broadcasts of each chain and sender in rounds, in nonce order
	// (broadcasts.go).
	broadcasts groupcommit.Keyed[senderKey, *broadcastAsk]
}

var _ chains.Payout = (*Payout)(nil)

// NewPayout returns the payout of the EVM chains of cs, signing with key and keeping what it
// signs in store.
func NewPayout(cs *chains.Clients, store NonceStore, key *ecdsa.PrivateKey) *Payout {
	return &Payout{clients: cs, store: store, key: key}
}

// solverChain is what the solver's transactions need of a chain's client.
type solverChain interface {
	chains.Client
	TxSender
	TxReader
	chains.BalanceReader
	chains.HeadWatcher
}

// chain returns the client of a chain the solver sends transactions on.
func (p *Payout) chain(chainID uint64) (solverChain, error) {
	return chains.Capability[solverChain](p.clients, chainID)
}

// solverAddress is the address fills are paid from.
func (p *Payout) solverAddress() common.Address {
	return crypto.PubkeyToAddress(p.key.PublicKey)
}

// Pay signs the payment once (stored in Postgres with a nonce allocated there) and broadcasts
// it. A retry finds the stored transaction and broadcasts the same bytes again, so the solver
// can never pay a request twice; the output settler also refuses a second fill, the depository
// a second withdrawal under one payout id. A fill is checked against the solver's inventory on
// the chain, counting as spent what its fills and refunds signed but not yet mined commit, so a
// burst larger than the inventory signs only the fills it can pay and refuses the rest without
// allocating them a nonce. A refund is signed with its Ceiling as gas.
func (p *Payout) Pay(ctx context.Context, pay chains.Payment) (*chains.PayoutSent, error) {
	c, err := p.chain(pay.ChainID)
	if err != nil {
		return nil, err
	}
	call, err := p.callOf(ctx, c, pay)
	if err != nil {
		return nil, err
	}
	stored, err := p.send(ctx, c, call)
	if err != nil {
		return nil, err
	}
	return &chains.PayoutSent{TxHash: stored.Hash}, nil
}

// callOf is the transaction that makes pay: a fill of the output settler, or a withdraw of the
// depository under the request's payout id.
func (p *Payout) callOf(ctx context.Context, c solverChain, pay chains.Payment) (solverCall, error) {
	ch := c.Chain()
	currency, recipient := common.HexToAddress(pay.Currency), common.HexToAddress(pay.Recipient)
	call := solverCall{requestID: pay.RequestID, kind: pay.Kind, check: pay.Check}
	if pay.Kind == intent.TxKindFill {
		call.data, call.value = FillCalldata(common.HexToHash(pay.OrderID), currency, recipient, pay.Amount)
		call.to = common.HexToAddress(ch.OutputSettler)
		// A fill pays out of the solver's own balance: with the gas it is the transaction's
		// commitment, checked against the solver's inventory.
		call.payCurrency, call.payAmount, call.inventory = currency, pay.Amount, true
		return call, nil
	}
	id, err := p.payoutID(ctx, ch, pay)
	if err != nil {
		return solverCall{}, err
	}
	// The depository pays the refund: it commits the solver's gas only (payAmount nil), which
	// fills signed after it count as in flight until it is mined.
	call.data, call.value = DepositoryABI.PackWithdraw(id, currency, recipient, pay.Amount), new(big.Int)
	call.to, call.gasLimit = common.HexToAddress(ch.Depository), pay.Ceiling
	return call, nil
}

// payoutID is the once-only id the request's refund pays under. A request pays under one id:
// once a refund of either kind is stored, every other pays under the id it was signed with,
// whatever the run asks for (a manual refund after an automatic one signed before an upgrade).
// Otherwise it is the withdrawal id of the deposit the payment names (a refund that names none
// is refused). Before the first signing the request's own RefundID, which the oracle also
// accepts for a refund, is read on chain: a deposit already refunded under it is refused, never
// paid again.
func (p *Payout) payoutID(ctx context.Context, ch *chains.Chain, pay chains.Payment) (common.Hash, error) {
	for _, kind := range []intent.TxKind{intent.TxKindRefund, intent.TxKindManualRefund} {
		prev, err := p.store.SolverTx(ctx, pay.RequestID, kind)
		if errors.Is(err, intent.ErrNotFound) {
			continue
		}
		if err != nil {
			return common.Hash{}, err // unknown whether one is stored: retried, never guessed
		}
		id, err := storedPayoutID(prev)
		if err != nil {
			return common.Hash{}, fmt.Errorf("%w: the request's stored refund does not decode: %v", chains.ErrPayoutRefused, err)
		}
		return id, nil
	}
	d := pay.Deposit
	if d == nil {
		return common.Hash{}, fmt.Errorf("%w: a refund names the deposit it returns", chains.ErrPayoutRefused)
	}
	id := oracleapi.WithdrawalIDOf(ch.ID, common.HexToAddress(ch.Depository), common.HexToHash(d.Tx), d.LogIndex)
	other := intent.RefundID(pay.RequestID)
	caller, err := chains.Capability[ContractCaller](p.clients, ch.ID)
	if err != nil {
		return common.Hash{}, err
	}
	depository := common.HexToAddress(ch.Depository)
	out, err := retryRead(ctx, func(ctx context.Context) ([]byte, error) {
		return caller.CallContract(ctx, ethereum.CallMsg{To: &depository, Data: DepositoryABI.PackWithdrawn(other)})
	})
	if err != nil {
		return common.Hash{}, err
	}
	spent, err := DepositoryABI.UnpackWithdrawn(out)
	if err != nil {
		return common.Hash{}, fmt.Errorf("%w: the depository's withdrawn answer does not decode: %v", chains.ErrUnavailable, err)
	}
	if spent {
		return common.Hash{}, fmt.Errorf("%w: the deposit was already refunded under the request's former payout id %s",
			chains.ErrPayoutRefused, other.Hex())
	}
	return id, nil
}

// storedPayoutID is the payout id a stored refund transaction pays under (the first argument of
// its Depository.withdraw call).
func storedPayoutID(stored *store.SolverTx) (common.Hash, error) {
	var tx types.Transaction
	if err := tx.UnmarshalBinary(stored.Raw); err != nil {
		return common.Hash{}, err
	}
	data := tx.Data()
	method := DepositoryABI.GetABI().Methods["withdraw"]
	if len(data) < 4 || !bytes.Equal(data[:4], method.ID) {
		return common.Hash{}, errors.New("not a Depository.withdraw call")
	}
	args, err := method.Inputs.Unpack(data[4:])
	if err != nil {
		return common.Hash{}, err
	}
	id, ok := args[0].([32]byte)
	if !ok {
		return common.Hash{}, errors.New("withdraw's id is not bytes32")
	}
	return common.Hash(id), nil
}

// Stored returns the request's stored transaction of kind, its latest attempt.
func (p *Payout) Stored(ctx context.Context, requestID string, kind intent.TxKind) (*chains.PayoutSent, error) {
	t, err := p.store.SolverTx(ctx, requestID, kind)
	if err != nil {
		return nil, err
	}
	return &chains.PayoutSent{TxHash: t.Hash}, nil
}

// rebroadcastEvery is how often a watch sends the latest attempt again while none is mined (a
// node may have dropped it from its pool). The first resend comes rebroadcastEvery after the
// watch starts: every caller waits on an attempt it has just broadcast.
const rebroadcastEvery = 5 * time.Second

// Watch returns the watch of a request's transaction: all its attempts share a nonce, so at
// most one can be mined. Its Check reads the attempts' receipts and, while none is mined, sends
// the latest attempt again every rebroadcastEvery (never a voided one).
func (p *Payout) Watch(w chains.WatchPayment) chains.InclusionWatch {
	return &inclusionWatch{p: p, w: w, sent: time.Now()}
}

// inclusionWatch is the state of one wait for a transaction's inclusion.
type inclusionWatch struct {
	p        *Payout
	w        chains.WatchPayment
	attempts []store.SolverTx
	sent     time.Time // the caller has just broadcast the latest attempt
}

// Check looks for the attempts' receipts once.
func (iw *inclusionWatch) Check(ctx context.Context) (*chains.Included, error) {
	c, err := iw.p.chain(iw.w.ChainID)
	if err != nil {
		return nil, err
	}
	resend := time.Since(iw.sent) >= rebroadcastEvery
	if iw.attempts == nil || resend {
		got, err := iw.p.store.SolverTxAttempts(ctx, iw.w.RequestID, iw.w.Kind)
		if err != nil {
			return nil, fmt.Errorf("stored attempts: %w", err)
		}
		if len(got) == 0 {
			got = []store.SolverTx{{Hash: iw.w.TxHash}}
		}
		iw.attempts = got
	}
	attempts := iw.attempts
	inc, err := minedAttempt(ctx, c, attempts)
	if err != nil || inc != nil {
		return inc, err
	}
	if allVoided(attempts) {
		// Looked at once per resend period, when the attempts are read again: rare, and never
		// on a chain that was not reset.
		known, err := anyKnown(ctx, c, attempts)
		if err != nil {
			return nil, err
		}
		if !known {
			out := &chains.Included{Voided: true}
			for _, a := range attempts {
				out.Attempts = append(out.Attempts, a.Hash)
			}
			return out, nil
		}
	}
	if resend {
		iw.sent = time.Now()
		if latest := attempts[len(attempts)-1]; latest.Raw != nil && !latest.Voided {
			var tx types.Transaction
			if tx.UnmarshalBinary(latest.Raw) == nil {
				if err := sendTx(ctx, c, &tx); err != nil {
					chains.LoggerFrom(ctx).Debug("re-broadcast failed", "requestId", iw.w.RequestID, "kind", iw.w.Kind,
						"chainId", iw.w.ChainID, "tx", iw.w.TxHash, "attempt", latest.Attempt, "error", err)
				}
			}
		}
	}
	return nil, nil
}

// allVoided reports whether every attempt was voided by its chain's reset (store.SolverTx.Voided).
func allVoided(attempts []store.SolverTx) bool {
	for _, a := range attempts {
		if !a.Voided {
			return false
		}
	}
	return len(attempts) > 0
}

// anyKnown reports whether the node knows one of the attempts, pending in its pool or mined: a
// voided transaction it still holds may yet be mined, so its request keeps waiting for it.
func anyKnown(ctx context.Context, c TxReader, attempts []store.SolverTx) (bool, error) {
	for _, a := range attempts {
		known, err := c.TransactionKnown(ctx, common.HexToHash(a.Hash))
		if err != nil || known {
			return known, err
		}
	}
	return false, nil
}

// minedAttempt returns the attempt that is mined, nil when none is.
func minedAttempt(ctx context.Context, c TxReader, attempts []store.SolverTx) (*chains.Included, error) {
	for _, at := range attempts {
		r, err := c.Receipt(ctx, common.HexToHash(at.Hash))
		if errors.Is(err, chains.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out := &chains.Included{Block: r.BlockNumber.Uint64(), Success: r.Status == types.ReceiptStatusSuccessful,
			Hash: at.Hash, Cancel: at.Cancel}
		for _, a := range attempts {
			out.Attempts = append(out.Attempts, a.Hash)
		}
		if !out.Success {
			out.Call = callOf(at)
		}
		if r.EffectiveGasPrice != nil {
			out.Fee = new(big.Int).Mul(r.EffectiveGasPrice, new(big.Int).SetUint64(r.GasUsed)).String()
		}
		if h, err := c.HeaderByHash(ctx, r.BlockHash); err == nil {
			out.Timestamp = int64(h.Time)
		}
		return out, nil
	}
	return nil, nil
}

// callOf decodes what a stored transaction calls; nil when its bytes are not kept.
func callOf(at store.SolverTx) *intent.CallData {
	var tx types.Transaction
	if at.Raw == nil || tx.UnmarshalBinary(at.Raw) != nil {
		return nil
	}
	c := &intent.CallData{From: at.From, Data: hexutil.Encode(tx.Data()), Value: tx.Value().String()}
	if tx.To() != nil {
		c.To = tx.To().Hex()
	}
	if from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), &tx); err == nil {
		c.From = from.Hex()
	}
	return c
}
