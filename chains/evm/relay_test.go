package evm_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/chains/evm/eip7702"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 37, point 4: the EVM family relays gasless calls, signed by the relayer's key, kept
// before their broadcast and replaced like a fill.

const relayChain = 31338

// relayEnv is one devnet chain sealing blocks only when a test says so, the store on a fresh
// database, and the payout of the chain with the solver's and the relayer's keys.
type relayEnv struct {
	t      *testing.T
	chain  *devnet.Chain
	reg    *chains.Registry
	pool   *pgxpool.Pool
	payout *evm.Payout
	funder *sender
	seq    int
}

func newRelayEnv(t *testing.T) *relayEnv {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := devnet.Start(ctx, devnet.Options{Chains: []devnet.ChainOptions{{ID: relayChain}}, BlockTime: time.Hour,
		FeedHeartbeat: -1, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	reg, err := d.Registry()
	require.NoError(t, err)
	e := &relayEnv{t: t, chain: d.Chain(relayChain), reg: reg, pool: testenv.Pool(t)}
	e.payout = e.newPayout(reg)
	c, err := chains.Capability[*evm.Client](chains.NewClients(reg, evm.VM()), relayChain)
	require.NoError(t, err)
	e.funder = newSender(t, c, devnet.TestAccounts()[0].Key)
	return e
}

// newPayout is a worker's payout of the chain of reg: its own clients and store value over the
// shared database.
func (e *relayEnv) newPayout(reg *chains.Registry) *evm.Payout {
	cs := chains.NewClients(reg, evm.VM())
	return evm.NewPayout(cs, store.New(e.pool), devnet.SolverKey()).WithRelayer(devnet.RelayerKey())
}

// mineUntil seals blocks until ok.
func (e *relayEnv) mineUntil(what string, ok func() bool) {
	e.t.Helper()
	for range 200 {
		if ok() {
			return
		}
		e.chain.Mine()
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatalf("%s: not after 200 blocks", what)
}

// request stores a request row (solver transactions name one) and returns its id.
func (e *relayEnv) request(user common.Address) string {
	e.t.Helper()
	e.seq++
	id := crypto.Keccak256Hash([]byte(fmt.Sprintf("relay %s %d", e.t.Name(), e.seq))).Hex()
	_, err := e.pool.Exec(context.Background(), `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
		destination_chain_id, order_id, record) VALUES ($1, 'waiting', $2, $2, $3, 31337, $1, '{}')`,
		id, strings.ToLower(user.Hex()), relayChain)
	require.NoError(e.t, err)
	return id
}

// gaslessUser is a fresh account holding USDC and no ETH.
type gaslessUser struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

// users makes n fresh accounts and gives each 50 USDC, in one block.
func (e *relayEnv) users(n int) []gaslessUser {
	e.t.Helper()
	out := make([]gaslessUser, n)
	var txs []*types.Transaction
	for i := range out {
		k, err := crypto.GenerateKey()
		require.NoError(e.t, err)
		out[i] = gaslessUser{key: k, addr: crypto.PubkeyToAddress(k.PublicKey)}
		txs = append(txs, e.funder.payUSDC(out[i].addr, big.NewInt(50_000_000)))
	}
	e.mineUntil("the USDC transfers", func() bool {
		for _, tx := range txs {
			if r, err := e.chain.Client().TransactionReceipt(context.Background(), tx.Hash()); err != nil || r.Status != types.ReceiptStatusSuccessful {
				return false
			}
		}
		return true
	})
	return out
}

// depositCall is u's gasless call: an authorization delegating u to the BatchExecutor and the
// signed batch [approve, depositErc20(order, amount)], to u's own address.
func (e *relayEnv) depositCall(u gaslessUser, order common.Hash, amount *big.Int) intent.RelayCall {
	e.t.Helper()
	ctx := context.Background()
	cl := e.chain.Client()
	head, err := cl.HeaderByNumber(ctx, nil)
	require.NoError(e.t, err)
	nonce, err := cl.PendingNonceAt(ctx, u.addr)
	require.NoError(e.t, err)
	auth, err := eip7702.SignAuthorization(u.key, relayChain, devnet.BatchExecutorAddress(), nonce)
	require.NoError(e.t, err)
	batch := []eip7702.Call{
		{To: devnet.USDCAddress, Data: bindings.NewTestUSDC().PackApprove(devnet.DepositoryAddress, amount)},
		{To: devnet.DepositoryAddress, Data: bindings.NewDepository().PackDepositErc20(order, devnet.USDCAddress, amount)},
	}
	data, err := eip7702.SignedExecuteCalldata(u.key, relayChain, batch, big.NewInt(1), new(big.Int).SetUint64(head.Time+3600))
	require.NoError(e.t, err)
	return intent.RelayCall{ChainID: relayChain, To: strings.ToLower(u.addr.Hex()), Data: hexutil.Encode(data), Value: "0",
		AuthorizationList: []intent.Authorization{{ChainID: auth.ChainID.Uint64(), Address: strings.ToLower(auth.Address.Hex()),
			Nonce: auth.Nonce, YParity: auth.V, R: hexutil.Encode(auth.R.PaddedBytes(32)), S: hexutil.Encode(auth.S.PaddedBytes(32))}}}
}

// included watches the request's relay until an attempt is included, sealing blocks meanwhile.
func (e *relayEnv) included(p *evm.Payout, requestID, hash string) *chains.Included {
	e.t.Helper()
	w := p.Watch(chains.WatchPayment{RequestID: requestID, Kind: intent.TxKindRelay, ChainID: relayChain, TxHash: hash})
	var inc *chains.Included
	e.mineUntil("the relay's inclusion", func() bool {
		var err error
		inc, err = w.Check(context.Background())
		require.NoError(e.t, err)
		return inc != nil
	})
	return inc
}

// deposits are the Depository's Deposit events of the order in blocks [0, head].
func (e *relayEnv) deposits(order common.Hash) []*bindings.DepositoryDeposit {
	e.t.Helper()
	ctx := context.Background()
	logs, err := e.chain.Client().FilterLogs(ctx, filterDepository())
	require.NoError(e.t, err)
	var out []*bindings.DepositoryDeposit
	for _, l := range logs {
		ev, err := bindings.NewDepository().UnpackDepositEvent(&l)
		if err == nil && common.Hash(ev.OrderId) == order {
			out = append(out, ev)
		}
	}
	return out
}

// attempts are the kept attempts of the request's relay.
func (e *relayEnv) attempts(requestID string) []store.SolverTx {
	e.t.Helper()
	got, err := store.New(e.pool).SolverTxAttempts(context.Background(), requestID, intent.TxKindRelay)
	require.NoError(e.t, err)
	return got
}

// senderOf is who signed tx.
func senderOf(t *testing.T, tx *types.Transaction) common.Address {
	t.Helper()
	from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	require.NoError(t, err)
	return from
}

func decodeTx(t *testing.T, raw []byte) *types.Transaction {
	t.Helper()
	var tx types.Transaction
	require.NoError(t, tx.UnmarshalBinary(raw))
	return &tx
}

func TestTheRelayerSendsAGaslessUsersCall(t *testing.T) {
	e := newRelayEnv(t)
	ctx := context.Background()

	// Points 1 and 2: a user with no ETH delegates and deposits through the relayer; a retry
	// sends the same kept transaction.
	t.Run("a gasless deposit, relayed once", func(t *testing.T) {
		u := e.users(1)[0]
		bal, err := e.chain.Client().BalanceAt(ctx, u.addr, nil)
		require.NoError(t, err)
		require.Zero(t, bal.Sign(), "the user holds no ETH")
		order := crypto.Keccak256Hash([]byte("gasless order 1"))
		amount := big.NewInt(20_000_000)
		id := e.request(u.addr)
		var checked *big.Int
		sent, err := e.payout.Relay(ctx, chains.Relay{RequestID: id, Call: e.depositCall(u, order, amount),
			Check: func(_ context.Context, maxFee *big.Int) error { checked = maxFee; return nil }})
		require.NoError(t, err)
		require.NotNil(t, checked)
		require.Positive(t, checked.Sign(), "the check is given the most the relay may cost")

		again, err := e.payout.Relay(ctx, chains.Relay{RequestID: id, Call: e.depositCall(u, order, amount),
			Check: func(context.Context, *big.Int) error { return errors.New("checked again") }})
		require.NoError(t, err, "a retry is not checked again")
		require.Equal(t, sent.TxHash, again.TxHash, "a retry sends the kept transaction")
		require.Len(t, e.attempts(id), 1, "one transaction signed")

		inc := e.included(e.payout, id, sent.TxHash)
		require.True(t, inc.Success)
		require.Equal(t, sent.TxHash, inc.Hash)

		tx, _, err := e.chain.Client().TransactionByHash(ctx, common.HexToHash(sent.TxHash))
		require.NoError(t, err)
		require.Equal(t, uint8(types.SetCodeTxType), tx.Type())
		require.Equal(t, devnet.RelayerAddress(), senderOf(t, tx), "the relayer sends it")
		require.NotEqual(t, devnet.SolverAddress(), senderOf(t, tx))
		require.Equal(t, strings.ToLower(devnet.RelayerAddress().Hex()), strings.ToLower(e.attempts(id)[0].From))

		deps := e.deposits(order)
		require.Len(t, deps, 1)
		require.Equal(t, u.addr, deps[0].Depositor, "the user is the depositor")
		require.Equal(t, amount, deps[0].Amount)
		bal, err = e.chain.Client().BalanceAt(ctx, u.addr, nil)
		require.NoError(t, err)
		require.Zero(t, bal.Sign(), "the user paid no gas")

		// Mined, a retry still answers with the kept transaction (its estimate now reverts:
		// the batch's nonce is used) and signs nothing.
		again, err = e.payout.Relay(ctx, chains.Relay{RequestID: id, Call: e.depositCall(u, order, amount)})
		require.NoError(t, err)
		require.Equal(t, sent.TxHash, again.TxHash)
		require.Len(t, e.attempts(id), 1)
		require.Len(t, e.deposits(order), 1)

		addr, err := e.payout.RelayerAddress(relayChain)
		require.NoError(t, err)
		require.Equal(t, devnet.RelayerAddress().Hex(), addr)
	})

	t.Run("a call that would revert is refused and nothing is kept", func(t *testing.T) {
		u := e.users(1)[0]
		id := e.request(u.addr)
		call := e.depositCall(u, crypto.Keccak256Hash([]byte("zero")), big.NewInt(0)) // ZeroAmount
		_, err := e.payout.Relay(ctx, chains.Relay{RequestID: id, Call: call})
		var revert *chains.RevertError
		require.True(t, errors.As(err, &revert), "got %v", err)
		require.Empty(t, e.attempts(id))
	})

	t.Run("without a relayer key nothing is relayed", func(t *testing.T) {
		p := evm.NewPayout(chains.NewClients(e.reg, evm.VM()), store.New(e.pool), devnet.SolverKey())
		_, err := p.Relay(ctx, chains.Relay{RequestID: "0x01", Call: intent.RelayCall{ChainID: relayChain}})
		require.ErrorIs(t, err, chains.ErrUnsupported)
		_, err = p.RelayerAddress(relayChain)
		require.ErrorIs(t, err, chains.ErrUnsupported)
	})

	// Point 3: a worker killed between the signing and the broadcast.
	t.Run("a relay kept before a worker died is sent by the next", func(t *testing.T) {
		u := e.users(1)[0]
		order := crypto.Keccak256Hash([]byte("gasless order 3"))
		amount := big.NewInt(10_000_000)
		id := e.request(u.addr)
		ch, err := e.reg.Get(relayChain)
		require.NoError(t, err)
		dead := *ch
		dead.HTTPRPCURL = refusesBroadcasts(t, ch.HTTPRPCURL)
		deadReg, err := chains.NewRegistry([]chains.Chain{dead})
		require.NoError(t, err)
		_, err = e.newPayout(deadReg).Relay(ctx, chains.Relay{RequestID: id, Call: e.depositCall(u, order, amount)})
		require.ErrorIs(t, err, chains.ErrUnavailable, "the broadcast did not leave")
		kept := e.attempts(id)
		require.Len(t, kept, 1)
		_, _, err = e.chain.Client().TransactionByHash(ctx, common.HexToHash(kept[0].Hash))
		require.Error(t, err, "the chain has not seen it")

		restarted := e.newPayout(e.reg)
		sent, err := restarted.Relay(ctx, chains.Relay{RequestID: id, Call: e.depositCall(u, order, amount)})
		require.NoError(t, err)
		require.Equal(t, kept[0].Hash, sent.TxHash, "the kept bytes are sent")
		require.Len(t, e.attempts(id), 1, "nothing signed again")
		require.True(t, e.included(restarted, id, sent.TxHash).Success)
		require.Len(t, e.deposits(order), 1, "the deposit lands once")
	})

	// Point 4: two workers share the relayer's nonce sequence.
	t.Run("two workers relay at distinct nonces without gaps", func(t *testing.T) {
		users := e.users(6)
		workers := []*evm.Payout{e.newPayout(e.reg), e.newPayout(e.reg)}
		ids, hashes, errs := make([]string, 6), make([]string, 6), make([]error, 6)
		calls := make([]intent.RelayCall, 6)
		for i, u := range users {
			ids[i] = e.request(u.addr)
			calls[i] = e.depositCall(u, crypto.Keccak256Hash([]byte(fmt.Sprintf("gasless order 4.%d", i))), big.NewInt(1_000_000))
		}
		var wg sync.WaitGroup
		for i := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sent, err := workers[i%2].Relay(ctx, chains.Relay{RequestID: ids[i], Call: calls[i]})
				errs[i] = err
				if err == nil {
					hashes[i] = sent.TxHash
				}
			}()
		}
		wg.Wait()
		var nonces []uint64
		for i := range users {
			require.NoError(t, errs[i])
			kept := e.attempts(ids[i])
			require.Len(t, kept, 1)
			nonces = append(nonces, kept[0].Nonce)
		}
		slices.Sort(nonces)
		for i := 1; i < len(nonces); i++ {
			require.Equal(t, nonces[0]+uint64(i), nonces[i], "nonces %v: distinct, no gaps", nonces)
		}
		for i := range users {
			require.True(t, e.included(workers[i%2], ids[i], hashes[i]).Success)
			require.Len(t, e.deposits(crypto.Keccak256Hash([]byte(fmt.Sprintf("gasless order 4.%d", i)))), 1)
		}
		n, err := e.chain.Client().NonceAt(ctx, devnet.RelayerAddress(), nil)
		require.NoError(t, err)
		require.Equal(t, nonces[5]+1, n, "every nonce mined")
	})

	// Point 5: a replacement keeps the set-code shape and its authorizations; the cancellation
	// is a plain self-send of the relayer.
	t.Run("a replaced relay stays a set-code transaction, its cancellation a plain one", func(t *testing.T) {
		u := e.users(1)[0]
		order := crypto.Keccak256Hash([]byte("gasless order 5"))
		id := e.request(u.addr)
		sent, err := e.payout.Relay(ctx, chains.Relay{RequestID: id, Call: e.depositCall(u, order, big.NewInt(1_000_000))})
		require.NoError(t, err)
		first := decodeTx(t, e.attempts(id)[0].Raw)

		bumped, err := e.payout.Replace(ctx, chains.Replacement{RequestID: id, Kind: intent.TxKindRelay, ChainID: relayChain, After: 0, MaxBumps: 1})
		require.NoError(t, err)
		require.False(t, bumped.Final)
		require.NotEqual(t, sent.TxHash, bumped.TxHash)
		second := decodeTx(t, e.attempts(id)[1].Raw)
		require.Equal(t, uint8(types.SetCodeTxType), second.Type())
		require.Equal(t, first.SetCodeAuthorizations(), second.SetCodeAuthorizations())
		require.Equal(t, first.Nonce(), second.Nonce())
		require.Equal(t, first.Data(), second.Data())
		require.Equal(t, *first.To(), *second.To())
		require.Equal(t, 1, second.GasFeeCap().Cmp(first.GasFeeCap()))
		require.Equal(t, devnet.RelayerAddress(), senderOf(t, second))

		cancelled, err := e.payout.Replace(ctx, chains.Replacement{RequestID: id, Kind: intent.TxKindRelay, ChainID: relayChain, After: 1, MaxBumps: 1})
		require.NoError(t, err)
		require.True(t, cancelled.Final)
		third := decodeTx(t, e.attempts(id)[2].Raw)
		require.Equal(t, uint8(types.DynamicFeeTxType), third.Type())
		require.Empty(t, third.SetCodeAuthorizations())
		require.Empty(t, third.Data())
		require.Zero(t, third.Value().Sign())
		require.Equal(t, devnet.RelayerAddress(), *third.To())
		require.Equal(t, devnet.RelayerAddress(), senderOf(t, third), "the relayer cancels, not the solver")
		require.Equal(t, first.Nonce(), third.Nonce())

		inc := e.included(e.payout, id, cancelled.TxHash)
		require.True(t, inc.Cancel, "the cancellation took the nonce")
		require.Len(t, inc.Attempts, 3)
		require.Empty(t, e.deposits(order))
	})
}

// filterDepository asks for the Depository's logs from the genesis.
func filterDepository() (q ethereum.FilterQuery) {
	q.FromBlock = big.NewInt(0)
	q.Addresses = []common.Address{devnet.DepositoryAddress}
	return q
}

// refusesBroadcasts is a JSON-RPC proxy that passes every call but a broadcast, which it answers
// with a 503: a worker that dies right after it kept a transaction, before it left.
func refusesBroadcasts(t *testing.T, target string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || bytes.Contains(body, []byte("eth_sendRawTransaction")) {
			http.Error(w, "the worker died", http.StatusServiceUnavailable)
			return
		}
		resp, err := http.Post(target, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
