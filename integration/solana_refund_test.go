package integration

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/process"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/e2e"
)

// Issue 36, point 6 (refunds on Solana): a Solana-origin request whose fill cannot happen (the
// deposit arrives after the order's deadline: ORDER_EXPIRED, as TestDepositProblemsAreRefunded
// forces it on the EVM chains) ends in status refund, the depositor repaid on the local Solana
// chain out of the vault the whole deposit (workflows.refund pays back dep.Amount; the solver
// pays the refund's fee), once: one refund transaction, its base58 signature in the status and
// the record as written, the vault's balance back where it was before the deposit and the
// depositor's down by only the deposit's own fee.
func TestSolanaOriginRequestThatCannotBeFilledIsRefundedOnSolana(t *testing.T) {
	s := testkit.Start(t, testkit.Options{Solana: true})
	sol := rpc.New(s.Solana.RPCURL)
	vault := svm.VaultAddress()
	cases := []struct {
		name    string
		origin  string
		amount  string
		destCur common.Address
		// refundTo, when set, is the quote's refundTo: a base58 key of the origin chain other
		// than the depositor's, which the refund pays as written.
		refundTo bool
	}{
		{"SOL to ETH", solana.NativeAddress, "1000000000" /* 1 SOL */, common.Address{}, false},
		{"USDC on Solana to USDC", svm.USDCMint.String(), "30000000" /* 30 USDC */, devnet.USDCAddress, false},
		{"SOL to ETH, refunded to a refundTo of its own", solana.NativeAddress, "1000000000", common.Address{}, true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// 90 s, as the Solana → EVM bridge cases wait (solana_origin_test.go).
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			user := svm.TestAccounts()[1+i]
			recipient := common.BigToAddress(big.NewInt(int64(0xdead00 + i)))
			req := map[string]any{"user": user.PublicKey.String(), "recipient": recipient.Hex(),
				"originChainId": solana.ChainID, "destinationChainId": 31337, "originCurrency": tc.origin,
				"destinationCurrency": tc.destCur.Hex(), "amount": tc.amount, "tradeType": "EXACT_INPUT", "includeProtocolData": true}
			refundTo := user.PublicKey
			if tc.refundTo {
				refundTo = solanago.NewWallet().PublicKey() // mixed-case base58, never seen by the chain
				req["refundTo"] = refundTo.String()
			}
			q, err := s.API.Quote(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			// The deadline is moved into the past where the engine keeps it, as if the quote's
			// lifetime had run out before the user paid.
			if _, err := s.Sys.Pool.Exec(ctx, `UPDATE quotes SET quote = jsonb_set(quote, '{deadline}', to_jsonb($2::bigint))
				WHERE request_id = $1`, q.RequestID, time.Now().Add(-time.Minute).Unix()); err != nil {
				t.Fatal(err)
			}
			userBefore := solanaBalance(ctx, t, sol, tc.origin, user.PublicKey)
			vaultBefore := solanaBalance(ctx, t, sol, tc.origin, vault)
			destBefore := s.Balance(t, 31337, tc.destCur, recipient)

			w := &e2e.SolanaWallet{Key: user.PrivateKey, RPC: sol}
			dep, err := w.ExecuteSteps(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
			if err != nil {
				t.Fatal(err)
			}
			if final.Status != "refund" || final.FailReason != string(intent.FailReasonOrderExpired) || final.RefundFailReason != "N/A" {
				t.Fatalf("final status %+v (seen %v), want refund with ORDER_EXPIRED", final, seen)
			}
			if len(final.TxHashes) != 1 {
				t.Fatalf("status txHashes %v, want the one refund transaction", final.TxHashes)
			}
			refund := final.TxHashes[0]
			refundSig, err := solanago.SignatureFromBase58(refund)
			if err != nil {
				t.Fatalf("refund %q is not a Solana signature as written: %v", refund, err)
			}
			if len(final.InTxHashes) != 1 || final.InTxHashes[0] != dep.String() {
				t.Errorf("inTxHashes %v, want the deposit %s as written", final.InTxHashes, dep)
			}

			// Exactly the deposit back, out of the vault; the depositor's only cost is the
			// deposit transaction's fee.
			amount, _ := new(big.Int).SetString(tc.amount, 10)
			depositFee := solanaFee(ctx, t, sol, dep)
			wantUser := new(big.Int).Set(userBefore)
			if tc.origin == solana.NativeAddress {
				wantUser.Sub(wantUser, depositFee)
			}
			if tc.refundTo {
				// The deposit is paid back to refundTo, not to the depositor.
				wantUser.Sub(wantUser, amount)
				if got := solanaBalance(ctx, t, sol, tc.origin, refundTo); got.Cmp(amount) != 0 {
					t.Errorf("refundTo %s holds %s, want the deposited %s", refundTo, got, amount)
				}
			}
			if got := solanaBalance(ctx, t, sol, tc.origin, user.PublicKey); got.Cmp(wantUser) != 0 {
				t.Errorf("the depositor holds %s, want %s (%s before, the deposit of %s paid back, its fee %s lamports)", got, wantUser,
					userBefore, amount, depositFee)
			}
			if got := solanaBalance(ctx, t, sol, tc.origin, vault); got.Cmp(vaultBefore) != 0 {
				t.Errorf("the vault holds %s, want %s: the deposit in and the refund of it out, the fee paid by the solver", got, vaultBefore)
			}
			if tc.origin != solana.NativeAddress {
				// A token refund costs the depositor no SOL: it holds what the deposit left it (its
				// fee, and the rent of the vault's token account when the deposit created it).
				want := solanaPayerAfter(ctx, t, sol, dep)
				if got := solanaBalance(ctx, t, sol, solana.NativeAddress, user.PublicKey); got.Cmp(want) != 0 {
					t.Errorf("the depositor holds %s lamports, want %s, what the deposit left it", got, want)
				}
			}
			// Once: the depositor's account (its token account for USDC) has the deposit and one
			// refund since, the refund in the status.
			touched := refundTo
			if tc.origin != solana.NativeAddress {
				touched = svm.USDCAccount(refundTo)
			}
			opts := &rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentConfirmed}
			if !tc.refundTo {
				opts.Until = dep
			}
			sigs, err := sol.GetSignaturesForAddressWithOpts(ctx, touched, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(sigs) != 1 || sigs[0].Signature != refundSig {
				t.Fatalf("the refunded account has %d transactions since the deposit (%v), want the one refund %s", len(sigs), sigs, refund)
			}
			if got := s.Balance(t, 31337, tc.destCur, recipient); got.Cmp(destBefore) != 0 {
				t.Fatalf("the recipient of a refunded order received %s on 31337", new(big.Int).Sub(got, destBefore))
			}

			// The record and the status keep the refund's signature and the depositor as written.
			rec, err := s.Sys.Store.Record(ctx, q.RequestID)
			if err != nil {
				t.Fatal(err)
			}
			var status map[string]any
			if code, err := s.API.Do(ctx, http.MethodGet, "/intents/status/v3?requestId="+q.RequestID, nil, &status); err != nil || code != http.StatusOK {
				t.Fatalf("status: %d %v", code, err)
			}
			recJSON, _ := json.Marshal(rec)
			statusJSON, _ := json.Marshal(status)
			for _, want := range []string{refund, dep.String(), user.PublicKey.String(), refundTo.String()} {
				if !strings.Contains(string(recJSON), want) {
					t.Errorf("the record does not carry %s as written: %s", want, recJSON)
				}
			}
			if !strings.Contains(string(statusJSON), refund) {
				t.Errorf("the status does not carry the refund %s as written: %s", refund, statusJSON)
			}
		})
	}
}

// solanaFee is the fee in lamports the transaction sig paid.
func solanaFee(ctx context.Context, t *testing.T, cl *rpc.Client, sig solanago.Signature) *big.Int {
	t.Helper()
	return new(big.Int).SetUint64(solanaMeta(ctx, t, cl, sig).Fee)
}

// solanaPayerAfter is the lamports the fee payer of the transaction sig held after it.
func solanaPayerAfter(ctx context.Context, t *testing.T, cl *rpc.Client, sig solanago.Signature) *big.Int {
	t.Helper()
	return new(big.Int).SetUint64(solanaMeta(ctx, t, cl, sig).PostBalances[0])
}

// solanaMeta is the status meta of the confirmed transaction sig.
func solanaMeta(ctx context.Context, t *testing.T, cl *rpc.Client, sig solanago.Signature) *rpc.TransactionMeta {
	t.Helper()
	v := uint64(0)
	res, err := cl.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &v})
	if err != nil || res == nil || res.Meta == nil {
		t.Fatalf("transaction %s: %v", sig, err)
	}
	return res.Meta
}

// sendHold is a JSON-RPC proxy in front of the local Solana chain that, while held, answers
// every sendTransaction with 503 and counts it, as a node that never took the transaction: the
// engine signs and keeps its payment, and its broadcast does not reach the chain.
type sendHold struct {
	held    atomic.Bool
	refused atomic.Int64
	srv     *httptest.Server
}

func newSendHold(t *testing.T, target string) *sendHold {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	h := &sendHold{}
	rp := httputil.NewSingleHostReverseProxy(u)
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if h.held.Load() && bytes.Contains(body, []byte(`"sendTransaction"`)) {
			h.refused.Add(1)
			http.Error(w, "held", http.StatusServiceUnavailable)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// Issue 36, point 4 (a worker kill mid-fill of a Solana fill): an EVM → Solana request whose
// worker process is killed (SIGKILL) after the Solana fill was signed and kept
// (solana_payments) and before it was seen included (its broadcast never reached the chain) is
// finished by the restarted worker with exactly one fill: the kept attempt, broadcast again from
// its bytes and never signed anew; the recipient's account has that one transaction and holds
// exactly the quoted output.
func TestSolanaFillSurvivesAWorkerKillBetweenKeepingAndInclusion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds intentd and runs the worker as a process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin, err := process.BuildIntentd(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var hold *sendHold
	s := testkit.Start(t, testkit.Options{Solana: true, WorkerBinary: bin, RPC: func(chainID uint64, u string) string {
		if chainID != solana.ChainID {
			return u
		}
		if hold == nil {
			hold = newSendHold(t, u)
		}
		return hold.srv.URL
	}})
	hold.held.Store(true)
	sol := rpc.New(s.Solana.RPCURL)

	acct := devnet.TestAccounts()[5]
	recipient := solanago.NewWallet().PublicKey()
	q, err := s.API.Quote(ctx, map[string]any{"user": acct.Address.Hex(), "recipient": recipient.String(),
		"originChainId": 31337, "destinationChainId": solana.ChainID, "originCurrency": common.Address{}.Hex(),
		"destinationCurrency": solana.NativeAddress, "amount": "10000000000000000" /* 0.01 ETH */, "tradeType": "EXACT_INPUT"})
	if err != nil {
		t.Fatal(err)
	}
	want, ok := new(big.Int).SetString(q.Details.CurrencyOut.Amount, 10)
	if !ok || want.Sign() <= 0 {
		t.Fatalf("quoted output %q", q.Details.CurrencyOut.Amount)
	}
	if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}

	// The fill is signed and kept, and its broadcast refused: the worker dies now.
	var kept *store.SolanaPayment
	for kept == nil || hold.refused.Load() == 0 {
		if p, err := s.Sys.Store.SolanaPayment(ctx, q.RequestID, intent.TxKindFill); err == nil {
			kept = p
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no kept and refused Solana fill (kept %v, %d sends refused)", kept != nil, hold.refused.Load())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := s.WorkerProcess.Kill(); err != nil {
		t.Fatal(err)
	}
	keptSig := solanago.MustSignatureFromBase58(kept.Signature)
	if st, err := sol.GetSignatureStatuses(ctx, true, keptSig); err != nil || len(st.Value) != 1 || st.Value[0] != nil {
		t.Fatalf("the kept fill is on chain before the restart: %+v, %v", st, err)
	}
	if got := solanaBalance(ctx, t, sol, solana.NativeAddress, recipient); got.Sign() != 0 {
		t.Fatalf("the recipient holds %s before the restart", got)
	}
	st, err := s.Sys.Store.Status(ctx, q.RequestID)
	if err != nil || st.Status == intent.StatusSuccess {
		t.Fatalf("status at the kill %+v, %v: want the fill not yet seen", st, err)
	}

	hold.held.Store(false)
	if err := s.WorkerProcess.Start(); err != nil {
		t.Fatal(err)
	}
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "success" || len(final.TxHashes) != 1 || final.TxHashes[0] != kept.Signature {
		t.Fatalf("final status %+v (seen %v), want success with the kept fill %s", final, seen, kept.Signature)
	}
	if got := solanaBalance(ctx, t, sol, solana.NativeAddress, recipient); got.Cmp(want) != 0 {
		t.Fatalf("the recipient holds %s, quoted %s exactly", got, want)
	}
	sigs, err := sol.GetSignaturesForAddressWithOpts(ctx, recipient, &rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	if len(sigs) != 1 || sigs[0].Signature != keptSig {
		t.Fatalf("the recipient's account has %d transactions (%v), want the one kept fill %s", len(sigs), sigs, kept.Signature)
	}
	attempts, err := s.Sys.Store.SolanaPaymentAttempts(ctx, q.RequestID, intent.TxKindFill)
	if err != nil || len(attempts) != 1 {
		t.Fatalf("%d kept attempts of the fill (%v), want the one signed before the kill", len(attempts), err)
	}
	t.Logf("the fill %s: %d broadcasts refused before the kill, the recipient paid %s lamports once", kept.Signature,
		hold.refused.Load(), want)
}

// Issue 36, point 6 (a Solana deposit of an unknown order, ORPHANED_DEPOSIT_REFUND): SOL paid to
// the vault with a memo naming an order id no quote made is refunded to its depositor on Solana
// as EVM orphans are, as a request of its own (intent.DepositRefundRequestID of the base58
// signature and the transfer's instruction index): status refund, the whole deposit back out
// of the vault once, the refund's signature in the status as written.
func TestSolanaDepositOfAnUnknownOrderIsRefundedOnSolana(t *testing.T) {
	s := testkit.Start(t, testkit.Options{Solana: true})
	sol := rpc.New(s.Solana.RPCURL)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second) // as above
	defer cancel()
	user := svm.TestAccounts()[4]
	// A quote's deposit instructions, its memo rewritten to an order id nobody quoted.
	q, err := s.API.Quote(ctx, map[string]any{"user": user.PublicKey.String(), "recipient": common.BigToAddress(big.NewInt(0xfeed)).Hex(),
		"originChainId": solana.ChainID, "destinationChainId": 31337, "originCurrency": solana.NativeAddress,
		"destinationCurrency": common.Address{}.Hex(), "amount": "500000000" /* 0.5 SOL */, "tradeType": "EXACT_INPUT"})
	if err != nil {
		t.Fatal(err)
	}
	unknown := crypto.Keccak256Hash([]byte(t.Name())).Hex()
	var ixs []intent.SVMInstruction
	transfer := -1
	for _, st := range q.Steps {
		for _, it := range st.Items {
			for _, ix := range it.Data.SVMTx.Instructions {
				if ix.ProgramID == solanago.MemoProgramID.String() || ix.ProgramID == solana.MemoProgramV1.String() {
					ix.Data = hex.EncodeToString([]byte(unknown))
				} else if ix.ProgramID == solanago.SystemProgramID.String() {
					transfer = len(ixs)
				}
				ixs = append(ixs, ix)
			}
		}
	}
	if transfer < 0 {
		t.Fatalf("the quote's deposit has no system transfer: %+v", ixs)
	}
	userBefore := solanaBalance(ctx, t, sol, solana.NativeAddress, user.PublicKey)
	vaultBefore := solanaBalance(ctx, t, sol, solana.NativeAddress, svm.VaultAddress())
	dep, err := (&e2e.SolanaWallet{Key: user.PrivateKey, RPC: sol}).Send(ctx, ixs)
	if err != nil {
		t.Fatal(err)
	}
	id := intent.DepositRefundRequestID(solana.ChainID, dep.String(), uint(transfer))
	final, seen, err := s.API.WaitStatus(ctx, id, "refund", "failure", "success")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "refund" || final.FailReason != string(intent.FailReasonOrphanedDepositRefund) || len(final.TxHashes) != 1 {
		t.Fatalf("the orphaned deposit's request %s ended %+v (seen %v), want refund with ORPHANED_DEPOSIT_REFUND", id, final, seen)
	}
	refund := solanago.MustSignatureFromBase58(final.TxHashes[0])
	want := new(big.Int).Sub(userBefore, solanaFee(ctx, t, sol, dep))
	if got := solanaBalance(ctx, t, sol, solana.NativeAddress, user.PublicKey); got.Cmp(want) != 0 {
		t.Errorf("the depositor holds %s, want %s: the deposit back, only its fee spent", got, want)
	}
	if got := solanaBalance(ctx, t, sol, solana.NativeAddress, svm.VaultAddress()); got.Cmp(vaultBefore) != 0 {
		t.Errorf("the vault holds %s, want %s as before the deposit", got, vaultBefore)
	}
	sigs, err := sol.GetSignaturesForAddressWithOpts(ctx, user.PublicKey, &rpc.GetSignaturesForAddressOpts{Until: dep,
		Commitment: rpc.CommitmentConfirmed})
	if err != nil || len(sigs) != 1 || sigs[0].Signature != refund {
		t.Fatalf("the depositor's account has %d transactions since the deposit (%v, %v), want the one refund %s", len(sigs), sigs, err, refund)
	}
}
