package activities

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/oracle"
)

var (
	seenBlock  = Sighting{Number: 100, Hash: common.HexToHash("0xb100")}
	otherBlock = common.HexToHash("0xc100")
)

func TestDepositReorged(t *testing.T) {
	const conf = 2
	gone := ChainView{Head: 102, CanonicalHash: otherBlock}
	cases := []struct {
		name string
		seen Sighting
		v    ChainView
		conf uint64
		want bool
	}{
		{"gone: block replaced, no receipt, unknown tx, head confirmations past", seenBlock, gone, conf, true},
		{"gone, the chain far ahead", seenBlock, ChainView{Head: 5000, CanonicalHash: otherBlock}, conf, true},
		{"the chain not yet confirmations past the block", seenBlock, ChainView{Head: 101, CanonicalHash: otherBlock}, conf, false},
		{"included again in another block", seenBlock, ChainView{Head: 102, CanonicalHash: otherBlock,
			Receipt: &types.Receipt{BlockNumber: big.NewInt(101), BlockHash: common.HexToHash("0xb101")}}, conf, false},
		{"waiting in the pool to be included again", seenBlock, ChainView{Head: 102, CanonicalHash: otherBlock, Known: true}, conf, false},
		{"slow node: block still canonical, receipt not visible yet", seenBlock, ChainView{Head: 150, CanonicalHash: seenBlock.Hash}, conf, false},
		{"lagging node: no block at that number", seenBlock, ChainView{Head: 99}, conf, false},
		{"no block at that number although the head is past it", seenBlock, ChainView{Head: 120}, conf, false},
		{"block of the sighting unknown", Sighting{Number: 100}, gone, conf, false},
		{"zero confirmations count as one", seenBlock, ChainView{Head: 101, CanonicalHash: otherBlock}, 0, true},
		{"zero confirmations, head at the block", seenBlock, ChainView{Head: 100, CanonicalHash: otherBlock}, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, depositReorged(tc.seen, tc.v, tc.conf))
		})
	}
}

var (
	depositor = common.HexToAddress("0x00000000000000000000000000000000000000d1")
	orderID   = common.HexToHash("0x0d")
)

func depositMsg(block common.Hash, logIndex uint64, order common.Hash, amount int64) oracle.DepositMessage {
	return oracle.DepositMessage{Data: oracle.DepositData{ChainID: 31337, TransactionID: common.HexToHash("0x7a"),
		LogIndex: logIndex, BlockNumber: 100, BlockHash: block, OrderID: order, Depositor: depositor,
		Currency: common.Address{}, Amount: big.NewInt(amount)}}
}

func attestIn(block string) AttestInput {
	return AttestInput{ChainID: 31337, TxHash: common.HexToHash("0x7a").Hex(), LogIndex: 3, OrderID: orderID.Hex(),
		Currency: common.Address{}.Hex(), Amount: "1000", Depositor: depositor.Hex(), BlockNumber: 100, BlockHash: block}
}

func TestPickMessage(t *testing.T) {
	other := common.HexToHash("0x0e")
	moved := common.HexToHash("0xb101")
	unknown := func(err error) bool {
		var appErr *temporal.ApplicationError
		return errors.As(err, &appErr) && appErr.NonRetryable() && appErr.Type() == string(intent.FailReasonUnknown)
	}
	cases := []struct {
		name    string
		msgs    []oracle.DepositMessage
		in      AttestInput
		want    int  // index of the message picked, -1 for an error
		differs bool // the error is the non-retryable "differs"
	}{
		{"observed block: the log index", []oracle.DepositMessage{depositMsg(seenBlock.Hash, 2, other, 5), depositMsg(seenBlock.Hash, 3, orderID, 1000)},
			attestIn(seenBlock.Hash.Hex()), 1, false},
		{"observed block: other facts at the log index", []oracle.DepositMessage{depositMsg(seenBlock.Hash, 3, orderID, 999)},
			attestIn(seenBlock.Hash.Hex()), -1, true},
		{"observed block: the facts at another log index are not taken", []oracle.DepositMessage{depositMsg(seenBlock.Hash, 4, orderID, 1000)},
			attestIn(seenBlock.Hash.Hex()), -1, false},
		{"included again elsewhere: found by its facts", []oracle.DepositMessage{depositMsg(moved, 0, other, 5), depositMsg(moved, 1, orderID, 1000)},
			attestIn(seenBlock.Hash.Hex()), 1, false},
		{"included again elsewhere without the deposit", []oracle.DepositMessage{depositMsg(moved, 3, other, 5)},
			attestIn(seenBlock.Hash.Hex()), -1, true},
		{"block not passed: the log index", []oracle.DepositMessage{depositMsg(moved, 3, orderID, 1000), depositMsg(moved, 4, orderID, 1000)},
			attestIn(""), 0, false},
		{"block not passed: found by its facts", []oracle.DepositMessage{depositMsg(moved, 3, other, 5), depositMsg(moved, 4, orderID, 1000)},
			attestIn(""), 1, false},
		{"block not passed: other facts at the log index", []oracle.DepositMessage{depositMsg(moved, 3, other, 5)},
			attestIn(""), -1, true},
		{"block not passed: no such deposit", []oracle.DepositMessage{depositMsg(moved, 7, other, 5)},
			attestIn(""), -1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := pickMessage(tc.msgs, tc.in)
			if tc.want < 0 {
				require.Error(t, err)
				require.Equal(t, tc.differs, unknown(err), "error %v", err)
				return
			}
			require.NoError(t, err)
			require.Same(t, &tc.msgs[tc.want], m)
		})
	}
}

// fakeChain is a depositChain with fixed answers; its head moves on every WaitHead, as if a
// block came every few milliseconds.
type fakeChain struct {
	head      uint64
	hashes    map[uint64]common.Hash
	receipt   *types.Receipt
	known     bool
	confirms  uint64
	headError error
}

func (f *fakeChain) Head(context.Context) (uint64, error) { return f.head, f.headError }
func (f *fakeChain) BlockHash(_ context.Context, n uint64) (common.Hash, error) {
	if h, ok := f.hashes[n]; ok {
		return h, nil
	}
	return common.Hash{}, ethereum.NotFound
}
func (f *fakeChain) Receipt(context.Context, common.Hash) (*types.Receipt, error) {
	if f.receipt == nil {
		return nil, ethereum.NotFound
	}
	return f.receipt, nil
}
func (f *fakeChain) Known(context.Context, common.Hash) (bool, error) {
	return f.known || f.receipt != nil, nil
}
func (f *fakeChain) Confirmations() uint64 { return f.confirms }
func (f *fakeChain) SeenHead() uint64      { return f.head }
func (f *fakeChain) WaitHead(ctx context.Context, after uint64) (uint64, error) {
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(5 * time.Millisecond):
		return after + 1, nil
	}
}

// oracleStub answers attestation requests: the i-th request (from 0) with answers[i] (the
// last one repeated), each an error body when code is set, else att. It counts the requests.
type stubAnswer struct {
	status int
	code   string
	att    *oracle.DepositAttestation
}

func oracleStubSeq(t *testing.T, calls *atomic.Int64, answers ...stubAnswer) *oracle.Client {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(calls.Add(1)) - 1
		a := answers[min(i, len(answers)-1)]
		w.Header().Set("Content-Type", "application/json")
		if a.code != "" {
			w.WriteHeader(a.status)
			_ = json.NewEncoder(w).Encode(map[string]string{"code": a.code, "message": "stub"})
			return
		}
		_ = json.NewEncoder(w).Encode(a.att)
	}))
	t.Cleanup(hs.Close)
	return oracle.NewClient(hs.URL, "", nil)
}

// oracleStub answers every attestation request with the given error body, or, when code is
// empty, with att.
func oracleStub(t *testing.T, status int, code string, att *oracle.DepositAttestation) *oracle.Client {
	t.Helper()
	return oracleStubSeq(t, new(atomic.Int64), stubAnswer{status, code, att})
}

func runAttest(t *testing.T, a *OracleActivities, in AttestInput, heartbeat *Sighting) (*AttestResult, error, []Sighting) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	if heartbeat != nil {
		env.SetHeartbeatDetails(*heartbeat)
	}
	var beats []Sighting
	var mu sync.Mutex
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var s Sighting
		if details.HasValues() && details.Get(&s) == nil {
			mu.Lock()
			beats = append(beats, s)
			mu.Unlock()
		}
	})
	val, err := env.ExecuteActivity(a.AttestDeposit, in)
	if err != nil {
		return nil, err, beats
	}
	var res AttestResult
	require.NoError(t, val.Get(&res))
	return &res, nil, beats
}

// checkOnce makes one check of AttestDeposit's wait: one oracle request and, after a refusal,
// the reorg check. found is where an earlier attempt found the receipt.
func checkOnce(t *testing.T, a *OracleActivities, in AttestInput, found Sighting) (*AttestResult, string, error, *depositWait) {
	t.Helper()
	w := &depositWait{in: in, found: found}
	if ch, err := a.depositChain(in.ChainID); err == nil && ch != nil {
		w.chain = ch
	}
	res, why, err := a.attestOnce(context.Background(), w)
	return res, why, err, w
}

func isReorged(err error) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && appErr.NonRetryable() && appErr.Type() == string(intent.FailReasonDepositReorged)
}

func isUnavailable(err error) bool {
	var ue unavailableError
	return errors.As(err, &ue)
}

func TestAttestDepositReorged(t *testing.T) {
	gone := &fakeChain{head: 102, hashes: map[uint64]common.Hash{100: otherBlock}, confirms: 2}
	chainOf := func(c *fakeChain) func(uint64) (depositChain, error) {
		return func(uint64) (depositChain, error) { return c, nil }
	}
	waiting := func(t *testing.T, res *AttestResult, why string, err error) {
		t.Helper()
		require.NoError(t, err)
		require.Nil(t, res)
		require.NotEmpty(t, why, "the oracle's refusal is the reason to wait")
	}

	t.Run("gone for good: the wait ends", func(t *testing.T) {
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracle.CodeTransactionNotFound, nil), chain: chainOf(gone)}
		_, err, _ := runAttest(t, a, attestIn(seenBlock.Hash.Hex()), nil)
		require.True(t, isReorged(err), "err %v", err)
	})
	t.Run("the oracle still counting confirmations: the wait ends", func(t *testing.T) {
		a := &OracleActivities{Client: oracleStub(t, http.StatusConflict, oracle.CodeNotConfirmed, nil), chain: chainOf(gone)}
		_, err, _ := runAttest(t, a, attestIn(seenBlock.Hash.Hex()), nil)
		require.True(t, isReorged(err), "err %v", err)
	})
	t.Run("not yet confirmations past the block: waits", func(t *testing.T) {
		c := &fakeChain{head: 101, hashes: map[uint64]common.Hash{100: otherBlock}, confirms: 2}
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracle.CodeTransactionNotFound, nil), chain: chainOf(c)}
		res, why, err, _ := checkOnce(t, a, attestIn(seenBlock.Hash.Hex()), Sighting{})
		waiting(t, res, why, err)
	})
	t.Run("slow node: waits", func(t *testing.T) {
		c := &fakeChain{head: 140, hashes: map[uint64]common.Hash{100: seenBlock.Hash}, confirms: 2}
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracle.CodeTransactionNotFound, nil), chain: chainOf(c)}
		res, why, err, _ := checkOnce(t, a, attestIn(seenBlock.Hash.Hex()), Sighting{})
		waiting(t, res, why, err)
	})
	t.Run("chain unreadable: unavailable, asked again", func(t *testing.T) {
		c := &fakeChain{headError: errors.New("connection refused")}
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracle.CodeTransactionNotFound, nil), chain: chainOf(c)}
		_, _, err, _ := checkOnce(t, a, attestIn(seenBlock.Hash.Hex()), Sighting{})
		require.True(t, isUnavailable(err), "err %v", err)
		require.False(t, isReorged(err), "err %v", err)
	})
	t.Run("the oracle unavailable: not a reason to look, asked again", func(t *testing.T) {
		a := &OracleActivities{Client: oracleStub(t, http.StatusServiceUnavailable, oracle.CodeChainUnavailable, nil), chain: chainOf(gone)}
		_, _, err, _ := checkOnce(t, a, attestIn(seenBlock.Hash.Hex()), Sighting{})
		require.True(t, isUnavailable(err), "err %v", err)
		require.False(t, isReorged(err), "err %v", err)
	})
	t.Run("another oracle answer ends the attempt", func(t *testing.T) {
		a := &OracleActivities{Client: oracleStub(t, http.StatusUnprocessableEntity, oracle.CodeTransactionReverted, nil), chain: chainOf(gone)}
		_, err, _ := runAttest(t, a, attestIn(seenBlock.Hash.Hex()), nil)
		require.Error(t, err)
		require.False(t, isReorged(err), "err %v", err)
		require.False(t, isUnavailable(err), "err %v", err)
	})
	t.Run("no chains configured: waits", func(t *testing.T) {
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracle.CodeTransactionNotFound, nil)}
		res, why, err, _ := checkOnce(t, a, attestIn(seenBlock.Hash.Hex()), Sighting{})
		waiting(t, res, why, err)
	})
	t.Run("block not passed: the sighting of an earlier attempt is the evidence", func(t *testing.T) {
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracle.CodeTransactionNotFound, nil), chain: chainOf(gone)}
		res, why, err, _ := checkOnce(t, a, attestIn(""), Sighting{})
		waiting(t, res, why, err)
		seen := seenBlock
		_, err, _ = runAttest(t, a, attestIn(""), &seen)
		require.True(t, isReorged(err), "err %v", err)
	})
	t.Run("the receipt found is remembered", func(t *testing.T) {
		c := &fakeChain{head: 101, hashes: map[uint64]common.Hash{100: seenBlock.Hash},
			receipt: &types.Receipt{BlockNumber: big.NewInt(100), BlockHash: seenBlock.Hash}, confirms: 2}
		a := &OracleActivities{Client: oracleStub(t, http.StatusConflict, oracle.CodeNotConfirmed, nil), chain: chainOf(c)}
		res, why, err, w := checkOnce(t, a, attestIn(""), Sighting{})
		waiting(t, res, why, err)
		require.Equal(t, seenBlock, w.found)
	})
}

// signedAttestation is an attestation of msg signed by a new key, and that key's address.
func signedAttestation(t *testing.T, msg oracle.DepositMessage) (*oracle.DepositAttestation, common.Address) {
	t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	digest, err := oracle.DepositDigest(msg.Data)
	require.NoError(t, err)
	sig, err := crypto.Sign(digest.Bytes(), key)
	require.NoError(t, err)
	sig[64] += 27
	msg.Signatures = []oracle.Signature{{Signer: signer, Signature: sig}}
	return &oracle.DepositAttestation{Messages: []oracle.DepositMessage{msg}, Domain: oracle.OracleDomain}, signer
}

// A deposit included again in another block after a reorg is attested there, with its new log
// index.
func TestAttestDepositIncludedAgain(t *testing.T) {
	att, signer := signedAttestation(t, depositMsg(common.HexToHash("0xb105"), 0, orderID, 1000))
	a := &OracleActivities{Client: oracleStub(t, 0, "", att), Signers: []common.Address{signer}}
	res, err, _ := runAttest(t, a, attestIn(seenBlock.Hash.Hex()), nil)
	require.NoError(t, err)
	require.Equal(t, signer.Hex(), res.Signer)
}

// AttestDeposit is one wait: it asks the oracle again on every new block while the oracle
// refuses, and again after a backoff while the oracle is unavailable, and returns the
// attestation once it is given, without failing in between. Its heartbeats carry the block the
// deposit was found in.
func TestAttestDepositWaitsForConfirmations(t *testing.T) {
	att, signer := signedAttestation(t, depositMsg(seenBlock.Hash, 3, orderID, 1000))
	var calls atomic.Int64
	client := oracleStubSeq(t, &calls,
		stubAnswer{http.StatusConflict, oracle.CodeNotConfirmed, nil},
		stubAnswer{http.StatusConflict, oracle.CodeNotConfirmed, nil},
		stubAnswer{http.StatusServiceUnavailable, oracle.CodeChainUnavailable, nil},
		stubAnswer{http.StatusConflict, oracle.CodeNotConfirmed, nil},
		stubAnswer{status: http.StatusOK, att: att})
	c := &fakeChain{head: 101, hashes: map[uint64]common.Hash{100: seenBlock.Hash},
		receipt: &types.Receipt{BlockNumber: big.NewInt(100), BlockHash: seenBlock.Hash}, confirms: 2}
	a := &OracleActivities{Client: client, Signers: []common.Address{signer},
		chain: func(uint64) (depositChain, error) { return c, nil }}
	res, err, beats := runAttest(t, a, attestIn(seenBlock.Hash.Hex()), nil)
	require.NoError(t, err)
	require.Equal(t, signer.Hex(), res.Signer)
	require.Equal(t, int64(5), calls.Load())
	require.NotEmpty(t, beats)
	for _, b := range beats {
		require.Equal(t, seenBlock, b)
	}
}
