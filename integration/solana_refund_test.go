package integration

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/intent"
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
	}{
		{"SOL to ETH", solana.NativeAddress, "1000000000" /* 1 SOL */, common.Address{}},
		{"USDC on Solana to USDC", svm.USDCMint.String(), "30000000" /* 30 USDC */, devnet.USDCAddress},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			user := svm.TestAccounts()[1+i]
			recipient := common.BigToAddress(big.NewInt(int64(0xdead00 + i)))
			q, err := s.API.Quote(ctx, map[string]any{"user": user.PublicKey.String(), "recipient": recipient.Hex(),
				"originChainId": solana.ChainID, "destinationChainId": 31337, "originCurrency": tc.origin,
				"destinationCurrency": tc.destCur.Hex(), "amount": tc.amount, "tradeType": "EXACT_INPUT", "includeProtocolData": true})
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
			touched := user.PublicKey
			if tc.origin != solana.NativeAddress {
				touched = svm.USDCAccount(user.PublicKey)
			}
			sigs, err := sol.GetSignaturesForAddressWithOpts(ctx, touched, &rpc.GetSignaturesForAddressOpts{Until: dep,
				Commitment: rpc.CommitmentConfirmed})
			if err != nil {
				t.Fatal(err)
			}
			if len(sigs) != 1 || sigs[0].Signature != refundSig {
				t.Fatalf("the depositor's account has %d transactions since the deposit (%v), want the one refund %s", len(sigs), sigs, refund)
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
			for _, want := range []string{refund, dep.String(), user.PublicKey.String()} {
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
