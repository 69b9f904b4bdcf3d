package activities

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/oracle/oracleapi"
)

var (
	seenHash   = common.HexToHash("0xb100")
	seenBlock  = Sighting{Number: 100, Hash: seenHash.Hex()}
	otherBlock = common.HexToHash("0xc100").Hex()
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
			Mined: &chains.Block{Number: 101, Hash: common.HexToHash("0xb101").Hex()}}, conf, false},
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

func depositMsg(block common.Hash, logIndex uint64, order common.Hash, amount int64) oracleapi.DepositMessage {
	return oracleapi.DepositMessage{Data: oracleapi.DepositData{ChainID: 31337, TransactionID: common.HexToHash("0x7a"),
		LogIndex: logIndex, BlockNumber: 100, BlockHash: block, OrderID: order, Depositor: depositor,
		Currency: common.Address{}, Amount: oracleapi.NewAmount(big.NewInt(amount))}}
}

func attestIn(block string) AttestInput {
	return AttestInput{Deposit: intent.Deposit{ChainID: 31337, TxHash: common.HexToHash("0x7a").Hex(), LogIndex: 3, OrderID: orderID.Hex(),
		Currency: common.Address{}.Hex(), Amount: "1000", Depositor: depositor.Hex(), BlockNumber: 100, BlockHash: block}}
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
		msgs    []oracleapi.DepositMessage
		in      AttestInput
		want    int  // index of the message picked, -1 for an error
		differs bool // the error is the non-retryable "differs"
	}{
		{"observed block: the log index", []oracleapi.DepositMessage{depositMsg(seenHash, 2, other, 5), depositMsg(seenHash, 3, orderID, 1000)},
			attestIn(seenBlock.Hash), 1, false},
		{"observed block: other facts at the log index", []oracleapi.DepositMessage{depositMsg(seenHash, 3, orderID, 999)},
			attestIn(seenBlock.Hash), -1, true},
		{"observed block: the facts at another log index are not taken", []oracleapi.DepositMessage{depositMsg(seenHash, 4, orderID, 1000)},
			attestIn(seenBlock.Hash), -1, false},
		{"included again elsewhere: found by its facts", []oracleapi.DepositMessage{depositMsg(moved, 0, other, 5), depositMsg(moved, 1, orderID, 1000)},
			attestIn(seenBlock.Hash), 1, false},
		{"included again elsewhere without the deposit", []oracleapi.DepositMessage{depositMsg(moved, 3, other, 5)},
			attestIn(seenBlock.Hash), -1, true},
		{"block not passed: the log index", []oracleapi.DepositMessage{depositMsg(moved, 3, orderID, 1000), depositMsg(moved, 4, orderID, 1000)},
			attestIn(""), 0, false},
		{"block not passed: found by its facts", []oracleapi.DepositMessage{depositMsg(moved, 3, other, 5), depositMsg(moved, 4, orderID, 1000)},
			attestIn(""), 1, false},
		{"block not passed: other facts at the log index", []oracleapi.DepositMessage{depositMsg(moved, 3, other, 5)},
			attestIn(""), -1, true},
		{"block not passed: no such deposit", []oracleapi.DepositMessage{depositMsg(moved, 7, other, 5)},
			attestIn(""), -1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			facts := oracleapi.EVMFundingFacts(tc.msgs)
			m, err := pickMessage(facts, tc.in, strings.EqualFold)
			if tc.want < 0 {
				require.Error(t, err)
				require.Equal(t, tc.differs, unknown(err), "error %v", err)
				return
			}
			require.NoError(t, err)
			require.Same(t, &facts[tc.want], m)
		})
	}
}

// fakeChain is a depositChain with fixed answers; its head moves on every WaitHead, as if a
// block came every few milliseconds.
type fakeChain struct {
	head      uint64
	hashes    map[uint64]string
	mined     *chains.Block
	known     bool
	confirms  uint64
	headError error
	config    *chains.Chain
}

func (f *fakeChain) Head(context.Context) (uint64, error) { return f.head, f.headError }
func (f *fakeChain) BlockHash(_ context.Context, n uint64) (string, error) {
	if h, ok := f.hashes[n]; ok {
		return h, nil
	}
	return "", chains.ErrNotFound
}
func (f *fakeChain) TxBlock(context.Context, string) (chains.Block, error) {
	if f.mined == nil {
		return chains.Block{}, chains.ErrNotFound
	}
	return *f.mined, nil
}
func (f *fakeChain) TxKnown(context.Context, string) (bool, error) {
	return f.known || f.mined != nil, nil
}
func (f *fakeChain) Confirmations() uint64 { return f.confirms }
func (f *fakeChain) Chain() *chains.Chain  { return f.config }
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
// last one repeated), each an error body when code is set, a gateway's page when only an error
// status is, else att. It counts the requests.
type stubAnswer struct {
	status int
	code   string
	att    *oracleapi.DepositAttestation
}

func oracleStubSeq(t *testing.T, calls *atomic.Int64, answers ...stubAnswer) *oracleapi.Client {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(calls.Add(1)) - 1
		a := answers[min(i, len(answers)-1)]
		switch {
		case a.code != "":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(a.status)
			_ = json.NewEncoder(w).Encode(map[string]string{"code": a.code, "message": "stub"})
		case a.status >= 400:
			// Not the oracle's body: a gateway's page in front of it.
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(a.status)
			_, _ = w.Write([]byte("<html>" + http.StatusText(a.status) + "</html>"))
		default:
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(a.att)
		}
	}))
	t.Cleanup(hs.Close)
	return oracleapi.NewClient(hs.URL, "", nil)
}

// oracleStub answers every attestation request with the given error body, or, when code is
// empty, with att.
func oracleStub(t *testing.T, status int, code string, att *oracleapi.DepositAttestation) *oracleapi.Client {
	t.Helper()
	return oracleStubSeq(t, new(atomic.Int64), stubAnswer{status, code, att})
}

func runAttest(t *testing.T, a *OracleActivities, in AttestInput, heartbeat *Sighting) (*AttestResult, []Sighting, error) {
	t.Helper()
	return runAttestLogged(t, a, in, heartbeat, nil)
}

// runAttestLogged is runAttest with the activity's logger, nil for the test suite's default.
func runAttestLogged(t *testing.T, a *OracleActivities, in AttestInput, heartbeat *Sighting, log *countingLogger) (*AttestResult, []Sighting, error) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	if log != nil {
		s.SetLogger(log)
	}
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
		return nil, beats, err
	}
	var res AttestResult
	require.NoError(t, val.Get(&res))
	return &res, beats, nil
}

// checkOnce makes one check of AttestDeposit's wait: one oracle request and, after a refusal,
// the reorg check. found is where an earlier attempt found the receipt.
func checkOnce(t *testing.T, a *OracleActivities, in AttestInput, found Sighting) (*AttestResult, string, *depositWait, error) {
	t.Helper()
	w := a.newDepositWait(context.Background(), in)
	w.found, w.asked = found, time.Time{}
	res, why, err := a.attestOnce(context.Background(), w)
	return res, why, w, err
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
	gone := &fakeChain{head: 102, hashes: map[uint64]string{100: otherBlock}, confirms: 2}
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
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracleapi.CodeTransactionNotFound, nil), chain: chainOf(gone)}
		_, _, err := runAttest(t, a, attestIn(seenBlock.Hash), nil)
		require.True(t, isReorged(err), "err %v", err)
	})
	t.Run("the oracle still counting confirmations: the wait ends", func(t *testing.T) {
		a := &OracleActivities{Client: oracleStub(t, http.StatusConflict, oracleapi.CodeNotConfirmed, nil), chain: chainOf(gone)}
		_, _, err := runAttest(t, a, attestIn(seenBlock.Hash), nil)
		require.True(t, isReorged(err), "err %v", err)
	})
	t.Run("not yet confirmations past the block: waits", func(t *testing.T) {
		c := &fakeChain{head: 101, hashes: map[uint64]string{100: otherBlock}, confirms: 2}
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracleapi.CodeTransactionNotFound, nil), chain: chainOf(c)}
		res, why, _, err := checkOnce(t, a, attestIn(seenBlock.Hash), Sighting{})
		waiting(t, res, why, err)
	})
	t.Run("slow node: waits", func(t *testing.T) {
		c := &fakeChain{head: 140, hashes: map[uint64]string{100: seenBlock.Hash}, confirms: 2}
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracleapi.CodeTransactionNotFound, nil), chain: chainOf(c)}
		res, why, _, err := checkOnce(t, a, attestIn(seenBlock.Hash), Sighting{})
		waiting(t, res, why, err)
	})
	t.Run("chain unreadable: unavailable, asked again", func(t *testing.T) {
		c := &fakeChain{headError: errors.New("connection refused")}
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracleapi.CodeTransactionNotFound, nil), chain: chainOf(c)}
		_, _, _, err := checkOnce(t, a, attestIn(seenBlock.Hash), Sighting{})
		require.True(t, isUnavailable(err), "err %v", err)
		require.False(t, isReorged(err), "err %v", err)
	})
	t.Run("the oracle unavailable: not a reason to look, asked again", func(t *testing.T) {
		a := &OracleActivities{Client: oracleStub(t, http.StatusServiceUnavailable, oracleapi.CodeChainUnavailable, nil), chain: chainOf(gone)}
		_, _, _, err := checkOnce(t, a, attestIn(seenBlock.Hash), Sighting{})
		require.True(t, isUnavailable(err), "err %v", err)
		require.False(t, isReorged(err), "err %v", err)
	})
	t.Run("another oracle answer ends the attempt", func(t *testing.T) {
		a := &OracleActivities{Client: oracleStub(t, http.StatusUnprocessableEntity, oracleapi.CodeTransactionReverted, nil), chain: chainOf(gone)}
		_, _, err := runAttest(t, a, attestIn(seenBlock.Hash), nil)
		require.Error(t, err)
		require.False(t, isReorged(err), "err %v", err)
		require.False(t, isUnavailable(err), "err %v", err)
	})
	t.Run("no chains configured: waits", func(t *testing.T) {
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracleapi.CodeTransactionNotFound, nil)}
		res, why, _, err := checkOnce(t, a, attestIn(seenBlock.Hash), Sighting{})
		waiting(t, res, why, err)
	})
	t.Run("block not passed: the sighting of an earlier attempt is the evidence", func(t *testing.T) {
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracleapi.CodeTransactionNotFound, nil), chain: chainOf(gone)}
		res, why, _, err := checkOnce(t, a, attestIn(""), Sighting{})
		waiting(t, res, why, err)
		seen := seenBlock
		_, _, err = runAttest(t, a, attestIn(""), &seen)
		require.True(t, isReorged(err), "err %v", err)
	})
	t.Run("the receipt found is remembered", func(t *testing.T) {
		c := &fakeChain{head: 101, hashes: map[uint64]string{100: seenBlock.Hash},
			mined: &chains.Block{Number: 100, Hash: seenBlock.Hash}, confirms: 2}
		a := &OracleActivities{Client: oracleStub(t, http.StatusConflict, oracleapi.CodeNotConfirmed, nil), chain: chainOf(c)}
		res, why, w, err := checkOnce(t, a, attestIn(""), Sighting{})
		waiting(t, res, why, err)
		require.Equal(t, seenBlock, w.found)
	})
}

// signedAttestation is an attestation of msg signed by a new key under the domain of an engine
// whose ENVIRONMENT is unset (the tests' OracleActivities), and that key's address.
func signedAttestation(t *testing.T, msg oracleapi.DepositMessage) (*oracleapi.DepositAttestation, common.Address) {
	t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	att := &oracleapi.DepositAttestation{Messages: []oracleapi.DepositMessage{msg},
		Domain: oracleapi.NewDomain("", msg.Data.ChainID, msg.Data.Depository)}
	return att, addSignature(t, att, key)
}

// addSignature signs every message of att with key and returns the key's address.
func addSignature(t *testing.T, att *oracleapi.DepositAttestation, key *ecdsa.PrivateKey) common.Address {
	t.Helper()
	signer := crypto.PubkeyToAddress(key.PublicKey)
	for i := range att.Messages {
		digest, err := oracleapi.Digest(att.Domain, att.Messages[i].Data)
		require.NoError(t, err)
		sig, err := crypto.Sign(digest.Bytes(), key)
		require.NoError(t, err)
		sig[64] += 27
		att.Messages[i].Signatures = append(att.Messages[i].Signatures, oracleapi.Signature{Signer: signer, Signature: sig})
	}
	return signer
}

// Spec rule 4, "Callers must verify the unique allowlisted signature count themselves": the
// engine relies on an attestation only once ORACLE_SIGNERS_THRESHOLD unique accepted signers
// signed it; with fewer it waits (an unavailable check, asked again), it never fills.
func TestAttestDepositNeedsTheEnginesQuorum(t *testing.T) {
	msg := depositMsg(seenHash, 3, orderID, 1000)
	att, first := signedAttestation(t, msg)
	k2, err := crypto.GenerateKey()
	require.NoError(t, err)
	second := addSignature(t, att, k2)
	stranger, err := crypto.GenerateKey()
	require.NoError(t, err)
	addSignature(t, att, stranger)                                                                 // not accepted: never counted
	att.Messages[0].Signatures = append(att.Messages[0].Signatures, att.Messages[0].Signatures[0]) // a duplicate counts once

	signers := []string{first.Hex(), second.Hex(), common.HexToAddress("0x0000000000000000000000000000000000000c3").Hex()}
	a := &OracleActivities{Client: oracleStub(t, 0, "", att), Signers: signers, Threshold: 3}
	res, _, _, err := checkOnce(t, a, attestIn(seenBlock.Hash), Sighting{})
	require.Nil(t, res)
	require.True(t, isUnavailable(err), "too few signatures is a wait: %v", err)
	require.ErrorContains(t, err, "2 of the 3")

	a.Threshold = 2
	res, _, _, err = checkOnce(t, a, attestIn(seenBlock.Hash), Sighting{})
	require.NoError(t, err)
	require.Len(t, res.Signatures, 2)
	require.Equal(t, first.Hex(), res.Signer)
	require.Equal(t, []string{first.Hex(), second.Hex()}, []string{res.Signatures[0].Signer, res.Signatures[1].Signer})
}

// Domain separation: an attestation signed for another deployment (environment), chain or
// depository is not relied on, however valid its signatures; the wait goes on for an operator.
func TestAttestDepositRefusesAnotherDeploymentsDomain(t *testing.T) {
	msg := depositMsg(seenHash, 3, orderID, 1000)
	for name, domain := range map[string]oracleapi.Domain{
		"another environment": oracleapi.NewDomain("production", msg.Data.ChainID, msg.Data.Depository),
		"another depository":  oracleapi.NewDomain("", msg.Data.ChainID, common.HexToAddress("0x01")),
		"version 1":           oracleapi.OracleDomainV1,
	} {
		t.Run(name, func(t *testing.T) {
			key, err := crypto.GenerateKey()
			require.NoError(t, err)
			att := &oracleapi.DepositAttestation{Messages: []oracleapi.DepositMessage{msg}, Domain: domain}
			signer := addSignature(t, att, key)
			a := &OracleActivities{Client: oracleStub(t, 0, "", att), Signers: []string{signer.Hex()}}
			res, _, _, err := checkOnce(t, a, attestIn(seenBlock.Hash), Sighting{})
			require.Nil(t, res)
			var ue unavailableError
			require.True(t, errors.As(err, &ue) && ue.operator, "waits for an operator: %v", err)
		})
	}
}

// A deposit included again in another block after a reorg is attested there, with its new log
// index.
func TestAttestDepositIncludedAgain(t *testing.T) {
	att, signer := signedAttestation(t, depositMsg(common.HexToHash("0xb105"), 0, orderID, 1000))
	a := &OracleActivities{Client: oracleStub(t, 0, "", att), Signers: []string{signer.Hex()}}
	res, _, err := runAttest(t, a, attestIn(seenBlock.Hash), nil)
	require.NoError(t, err)
	require.Equal(t, signer.Hex(), res.Signer)
}

// AttestDeposit is one wait: it asks the oracle again on every new block while the oracle
// refuses, and again after a backoff while the oracle is unavailable, and returns the
// attestation once it is given, without failing in between. Its heartbeats carry the block the
// deposit was found in.
func TestAttestDepositWaitsForConfirmations(t *testing.T) {
	att, signer := signedAttestation(t, depositMsg(seenHash, 3, orderID, 1000))
	var calls atomic.Int64
	client := oracleStubSeq(t, &calls,
		stubAnswer{http.StatusConflict, oracleapi.CodeNotConfirmed, nil},
		stubAnswer{http.StatusConflict, oracleapi.CodeNotConfirmed, nil},
		stubAnswer{http.StatusServiceUnavailable, oracleapi.CodeChainUnavailable, nil},
		stubAnswer{http.StatusConflict, oracleapi.CodeNotConfirmed, nil},
		stubAnswer{status: http.StatusOK, att: att})
	c := &fakeChain{head: 101, hashes: map[uint64]string{100: seenBlock.Hash},
		mined: &chains.Block{Number: 100, Hash: seenBlock.Hash}, confirms: 2}
	a := &OracleActivities{Client: client, Signers: []string{signer.Hex()},
		chain: func(uint64) (depositChain, error) { return c, nil }}
	res, beats, err := runAttest(t, a, attestIn(seenBlock.Hash), nil)
	require.NoError(t, err)
	require.Equal(t, signer.Hex(), res.Signer)
	require.Equal(t, int64(5), calls.Load())
	require.NotEmpty(t, beats)
	for _, b := range beats {
		require.Equal(t, seenBlock, b)
	}
}

// Every code of the oracle, and every code only the client produces, has its outcome here, and
// answers that carry no code of ours are classified by their status.
func TestClassifyOracleError(t *testing.T) {
	type want struct {
		outcome oracleOutcome
		reason  intent.FailReason
	}
	var (
		refused      = want{oracleRefused, ""}
		unavail      = want{oracleUnavailable, ""}
		operator     = want{oracleNeedsOperator, ""}
		reverted     = want{oracleFinal, intent.FailReasonTransactionReverted}
		finalUnknown = want{oracleFinal, intent.FailReasonUnknown}
	)
	byCode := map[string]want{
		oracleapi.CodeNotConfirmed:        refused,
		oracleapi.CodeTransactionNotFound: refused,
		oracleapi.CodeNetworkError:        unavail,
		oracleapi.CodeRateLimited:         unavail,
		oracleapi.CodeChainUnavailable:    unavail,
		oracleapi.CodeInternal:            unavail,
		oracleapi.CodeTransactionReverted: reverted,
		oracleapi.CodeNoDepositEvents:     finalUnknown,
		oracleapi.CodeInvalidRequest:      finalUnknown,
		oracleapi.CodeUnknownChain:        operator,
		oracleapi.CodeNotImplemented:      operator,
		// Codes of the other attestation endpoints: the deposit endpoint never answers them.
		oracleapi.CodeNoMatchingEvent:        operator,
		oracleapi.CodeExpectationMismatch:    operator,
		oracleapi.CodeUnauthorized:           operator,
		oracleapi.CodeAlreadyWithdrawn:       operator,
		oracleapi.CodeOrderAlreadyFilled:     operator,
		oracleapi.CodeWithdrawalNotInitiated: operator,
		oracleapi.CodeNotFound:               operator,
		oracleapi.CodeInvalidResponse:        operator,
		oracleapi.CodeClientMisconfigured:    operator,

		// Review M2: "Treat an oversized answer as final, not needsOperator."
		oracleapi.CodeTooManyEvents:    finalUnknown,
		oracleapi.CodeResponseTooLarge: finalUnknown,
	}
	for _, code := range append(oracleapi.ServerCodes(), oracleapi.ClientCodes()...) {
		require.Contains(t, byCode, code, "the oracle's code %s has no outcome in this test", code)
	}
	for code, w := range byCode {
		t.Run(code, func(t *testing.T) {
			e := oracleapi.Errorf(code, "from the oracle")
			if slices.Contains(oracleapi.ClientCodes(), code) {
				e.Status = 0
			}
			outcome, reason := classifyOracleError(fmt.Errorf("wrapped: %w", e))
			require.Equal(t, w, want{outcome, reason})
			// The protocol's Retryable agrees where the engine retries for the same reason.
			switch w.outcome {
			case oracleFinal:
				require.False(t, e.Retryable())
			case oracleUnavailable:
				require.True(t, e.Retryable())
			}
		})
	}
	// Answers without a code of ours: a proxy's or gateway's page.
	for _, tc := range []struct {
		status int
		want   want
	}{
		{http.StatusUnauthorized, operator},
		{http.StatusForbidden, operator},
		{http.StatusNotFound, operator},
		{http.StatusBadRequest, operator},
		{http.StatusTooManyRequests, unavail},
		{http.StatusBadGateway, unavail},
		{http.StatusServiceUnavailable, unavail},
		{http.StatusGatewayTimeout, unavail},
		{http.StatusNotImplemented, operator},
	} {
		t.Run(fmt.Sprintf("no code, status %d", tc.status), func(t *testing.T) {
			outcome, reason := classifyOracleError(&oracleapi.Error{Status: tc.status, Message: "<html>…</html>"})
			require.Equal(t, tc.want, want{outcome, reason})
		})
	}
	t.Run("a code this engine does not know", func(t *testing.T) {
		outcome, _ := classifyOracleError(&oracleapi.Error{Status: http.StatusUnprocessableEntity, Code: "SOMETHING_NEW"})
		require.Equal(t, oracleNeedsOperator, outcome)
	})
	t.Run("not an error of the oracle", func(t *testing.T) {
		outcome, _ := classifyOracleError(errors.New("boom"))
		require.Equal(t, oracleNeedsOperator, outcome)
	})
}

// An answer of the oracle that will not change ends the wait on the first answer, non-retryable,
// with the failReason the workflow records; it used to be retried until
// DEPOSIT_CONFIRMATION_TIMEOUT.
func TestAttestDepositEndsOnFinalOracleAnswers(t *testing.T) {
	for _, tc := range []struct {
		status int
		code   string
		reason intent.FailReason
	}{
		{http.StatusUnprocessableEntity, oracleapi.CodeTransactionReverted, intent.FailReasonTransactionReverted},
		{http.StatusNotFound, oracleapi.CodeNoDepositEvents, intent.FailReasonUnknown},
		{http.StatusBadRequest, oracleapi.CodeInvalidRequest, intent.FailReasonUnknown},
		{http.StatusUnprocessableEntity, oracleapi.CodeTooManyEvents, intent.FailReasonUnknown},
	} {
		t.Run(tc.code, func(t *testing.T) {
			var calls atomic.Int64
			c := &fakeChain{head: 140, hashes: map[uint64]string{100: seenBlock.Hash},
				mined: &chains.Block{Number: 100, Hash: seenBlock.Hash}, confirms: 2}
			a := &OracleActivities{Client: oracleStubSeq(t, &calls, stubAnswer{tc.status, tc.code, nil}),
				chain: func(uint64) (depositChain, error) { return c, nil }}
			start := time.Now()
			_, _, err := runAttest(t, a, attestIn(seenBlock.Hash), nil)
			var appErr *temporal.ApplicationError
			require.ErrorAs(t, err, &appErr)
			require.True(t, appErr.NonRetryable(), "err %v", err)
			require.Equal(t, string(tc.reason), appErr.Type())
			require.Contains(t, err.Error(), tc.code, "the failure names the oracle's answer")
			require.Equal(t, int64(1), calls.Load(), "the first answer ends the wait")
			require.Less(t, time.Since(start), waitBackoffMin, "without waiting")
		})
	}
}

// Review M2: "each deposit's workflow asks for the whole tx … Add logIndex (or orderId) to the
// deposit request and sign only that message … Treat an oversized answer as final." The engine
// names its deposit's order in the request, keeps that order's message only, and an answer
// larger than the client reads ends the wait at once (it was INVALID_RESPONSE, asked again on
// every block until DEPOSIT_CONFIRMATION_TIMEOUT).
func TestAttestDepositAsksForItsOwnDepositAndAnOversizedAnswerIsFinal(t *testing.T) {
	mine := depositMsg(seenHash, 3, orderID, 1000)
	att, signer := signedAttestation(t, mine)
	var bodies []oracleapi.DepositAttestationRequest
	var mu sync.Mutex
	var oversized atomic.Bool
	var calls atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req oracleapi.DepositAttestationRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		bodies = append(bodies, req)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if oversized.Load() {
			// Valid JSON, larger than the client reads: thousands of messages.
			huge := *att
			for len(huge.Messages) < 3000 {
				huge.Messages = append(huge.Messages, att.Messages[0])
			}
			_ = json.NewEncoder(w).Encode(huge)
			return
		}
		_ = json.NewEncoder(w).Encode(att)
	}))
	t.Cleanup(hs.Close)
	c := &fakeChain{head: 140, hashes: map[uint64]string{100: seenBlock.Hash},
		mined: &chains.Block{Number: 100, Hash: seenBlock.Hash}, confirms: 2}
	a := &OracleActivities{Client: oracleapi.NewClient(hs.URL, "", nil), Signers: []string{signer.Hex()},
		chain: func(uint64) (depositChain, error) { return c, nil }}

	res, _, err := runAttest(t, a, attestIn(seenBlock.Hash), nil)
	require.NoError(t, err)
	require.Equal(t, signer.Hex(), res.Signer)
	mu.Lock()
	require.Len(t, bodies, 1)
	asked := bodies[0]
	mu.Unlock()
	require.NotNil(t, asked.OrderID, "the request names the deposit's order")
	require.Equal(t, orderID, *asked.OrderID)
	require.Equal(t, common.HexToHash("0x7a"), asked.TransactionID)

	oversized.Store(true)
	calls.Store(0)
	_, _, err = runAttest(t, a, attestIn(seenBlock.Hash), nil)
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	require.True(t, appErr.NonRetryable(), "err %v", err)
	require.Equal(t, string(intent.FailReasonUnknown), appErr.Type())
	require.Contains(t, err.Error(), oracleapi.CodeResponseTooLarge)
	require.Equal(t, int64(1), calls.Load(), "the first answer ends the wait")
}

// An oracle that refuses the engine's configuration (a gateway's 403, a chain it does not serve)
// is asked again inside the wait, so the deposit is attested once an operator fixes it; the
// refusals are logged at ERROR, naming the code, at most once per waitWarnEvery.
func TestAttestDepositWaitsForAnOperator(t *testing.T) {
	att, signer := signedAttestation(t, depositMsg(seenHash, 3, orderID, 1000))
	var calls atomic.Int64
	client := oracleStubSeq(t, &calls,
		stubAnswer{http.StatusForbidden, "", nil},
		stubAnswer{http.StatusBadRequest, oracleapi.CodeUnknownChain, nil},
		stubAnswer{status: http.StatusOK, att: att})
	a := &OracleActivities{Client: client, Signers: []string{signer.Hex()}}
	log := &countingLogger{}
	res, _, err := runAttestLogged(t, a, attestIn(seenBlock.Hash), nil, log)
	require.NoError(t, err)
	require.Equal(t, signer.Hex(), res.Signer)
	require.Equal(t, int64(3), calls.Load())
	require.Equal(t, int64(1), log.error.Load(), "two refusals within %s: one error", waitWarnEvery)
	require.Zero(t, log.warn.Load())
	log.mu.Lock()
	defer log.mu.Unlock()
	require.Subset(t, log.lastError, []any{"code", "HTTP 403"})
}

// risingChain is a fakeChain whose watched head moves one block on every WaitHead.
type risingChain struct {
	fakeChain
	seen atomic.Uint64
}

func (r *risingChain) SeenHead() uint64 { return r.seen.Load() }
func (r *risingChain) WaitHead(ctx context.Context, _ uint64) (uint64, error) {
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(5 * time.Millisecond):
		return r.seen.Add(1), nil
	}
}

// The wait asks the oracle first on the block that gives the deposit the chain's confirmations
// as the engine's head watcher sees it (head - block + 1 >= confirmations): before, the oracle
// and its peers would only read the chain to refuse, and the engine read it again for a reorg.
// The deposit of block 100 needs 3 confirmations: the oracle is asked once, at head 102.
func TestAttestDepositAsksTheOracleOnceTheEnginesHeadGivesTheConfirmations(t *testing.T) {
	att, signer := signedAttestation(t, depositMsg(seenHash, 3, orderID, 1000))
	c := &risingChain{fakeChain: fakeChain{head: 100, hashes: map[uint64]string{100: seenBlock.Hash},
		mined: &chains.Block{Number: 100, Hash: seenBlock.Hash}, confirms: 3}}
	c.seen.Store(100)
	var heads []uint64
	var mu sync.Mutex
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		heads = append(heads, c.SeenHead())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(att)
	}))
	t.Cleanup(hs.Close)
	a := &OracleActivities{Client: oracleapi.NewClient(hs.URL, "", nil), Signers: []string{signer.Hex()},
		chain: func(uint64) (depositChain, error) { return c, nil }}
	res, _, err := runAttest(t, a, attestIn(seenBlock.Hash), nil)
	require.NoError(t, err)
	require.Equal(t, signer.Hex(), res.Signer)
	require.Equal(t, []uint64{102}, heads, "the engine's head at each request to the oracle")
}
