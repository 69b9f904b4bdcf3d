package integration

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/testkit/e2e"
)

// writeBlocklist replaces the screening blocklist at path (SCREENING_BLOCKLIST_FILE) with
// addresses, one a line, after a comment.
func writeBlocklist(t *testing.T, path string, addresses ...common.Address) {
	t.Helper()
	text := "# screening blocklist of the test\n"
	for _, a := range addresses {
		text += strings.ToLower(a.Hex()) + "\n" // the file's case does not matter
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// screeningHits is intentd_screening_hits_total of place in the test process (the stack's API
// and worker run in it).
func screeningHits(place string) float64 {
	return testutil.ToFloat64(metrics.ScreeningHits.WithLabelValues(place))
}

// Issue 33, point 6, "Screening": a configurable blocklist of addresses (a file, reloaded without
// a restart) checked at quote time (user, recipient, refundTo: 400 with a clear code), at deposit
// (depositor: the request ends failure with BLOCKED_WALLET, blockedAddresses on the record for
// the owning integrator, no automatic refund, an operator decides), and before a refund
// (REFUND_RECIPIENT_IS_BLOCKED); a recipient listed after the quote is not paid. On one stack:
// real Postgres, Temporal, the devnet chains, the oracles over HTTP.
func TestScreening(t *testing.T) {
	path := filepath.Join(t.TempDir(), "blocklist.txt")
	listed := devnet.TestAccounts()[3] // on the list from the start
	writeBlocklist(t, path, listed.Address)
	s := startStack(t, map[string]string{"SCREENING_BLOCKLIST_FILE": path, "SCREENING_RELOAD_INTERVAL": "100ms"})
	admin := s.Admin
	refundPath := func(id string) string { return "/admin/requests/" + id + "/refund" }
	keyed, _ := newKey(t, s, auth.Integrator{Name: "screened"})
	otherIntegrator, _ := newKey(t, s, auth.Integrator{Name: "someone else"})
	unlisted := devnet.TestAccounts()[1].Address
	bridge := func(user, recipient, refundTo common.Address) obj {
		b := quoteBody(obj{"user": user.Hex(), "recipient": recipient.Hex(), "destinationCurrency": nativeAddr,
			"amount": "100000000000000000", "includeProtocolData": true})
		if refundTo != (common.Address{}) {
			b["refundTo"] = refundTo.Hex()
		}
		return b
	}
	// waitQuote polls POST /price for user until it answers want (200, or 400 once the list
	// holds user): the list is checked every 100 ms.
	waitQuote := func(t *testing.T, user common.Address, want int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			code, out := post(t, s.API, "/price", bridge(user, unlisted, common.Address{}))
			if code == want && (want == http.StatusOK || out["errorCode"] == quote.CodeSanctionedWalletAddress) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("POST /price for %s still answers %d %v, want %d", user.Hex(), code, out, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// blockedAddresses is data.blockedAddresses of request id in GET /requests/v3 as c sees it
	// with query, and whether the field is there at all.
	blockedAddresses := func(t *testing.T, c *e2e.Client, id, query string) (any, bool) {
		t.Helper()
		var out struct{ Requests []obj }
		code, err := c.Do(context.Background(), http.MethodGet, "/requests/v3?id="+id+query, nil, &out)
		if err != nil || code != http.StatusOK || len(out.Requests) != 1 {
			t.Fatalf("GET /requests/v3?id=%s%s: %d %v %+v", id, query, code, err, out)
		}
		v, ok := out.Requests[0]["data"].(obj)["blockedAddresses"]
		return v, ok
	}
	requireFailure := func(t *testing.T, id string, reason intent.FailReason, refundReason intent.RefundFailReason) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		final, seen, err := s.API.WaitStatus(ctx, id, "success", "failure", "refund")
		if err != nil {
			t.Fatal(err)
		}
		if final.Status != "failure" || final.FailReason != string(reason) || final.RefundFailReason != string(refundReason) {
			t.Fatalf("request %s ended %+v (seen %v), want failure with %s and refundFailReason %s", id, final, seen, reason, refundReason)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	t.Run("a quote naming a listed user, recipient or refundTo is 400 SANCTIONED_WALLET_ADDRESS and stores nothing", func(t *testing.T) {
		var before, after int
		if err := s.Sys.Pool.QueryRow(ctx, `SELECT count(*) FROM quotes`).Scan(&before); err != nil {
			t.Fatal(err)
		}
		hits := screeningHits("quote")
		for _, path := range []string{"/quote/v2", "/quote", "/price"} {
			for field, body := range map[string]obj{"user": bridge(listed.Address, unlisted, common.Address{}),
				"recipient": bridge(unlisted, listed.Address, common.Address{}), "refundTo": bridge(unlisted, unlisted, listed.Address)} {
				code, out := post(t, s.API, path, body)
				if code != http.StatusBadRequest || out["errorCode"] != quote.CodeSanctionedWalletAddress || len(out) != 2 ||
					!strings.Contains(fmt.Sprint(out["message"]), field+" "+listed.Address.Hex()) {
					t.Errorf("%s with a listed %s: %d %v, want 400 {message naming it, errorCode SANCTIONED_WALLET_ADDRESS}", path, field, code, out)
				}
			}
		}
		if err := s.Sys.Pool.QueryRow(ctx, `SELECT count(*) FROM quotes`).Scan(&after); err != nil || after != before {
			t.Fatalf("%d quotes stored before the refused ones, %d after (%v)", before, after, err)
		}
		if got := screeningHits("quote"); got != hits+9 {
			t.Fatalf("intentd_screening_hits_total{place=quote} went from %v to %v, want 9 more", hits, got)
		}
		mustQuote(t, s.API, "/quote/v2", bridge(unlisted, unlisted, unlisted))
	})

	t.Run("an address added to the file while the engine runs is refused by the next quote; a bad file keeps the list", func(t *testing.T) {
		added := freshAddress(t)
		waitQuote(t, added, http.StatusOK)
		writeBlocklist(t, path, listed.Address, added)
		waitQuote(t, added, http.StatusBadRequest)

		if err := os.WriteFile(path, []byte("0xnot-an-address\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(20 * time.Second); testutil.ToFloat64(metrics.ScreeningReloadFailing) != 1; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the malformed file is not reported by intentd_screening_reload_failing")
			}
		}
		if code, out := post(t, s.API, "/price", bridge(added, unlisted, common.Address{})); code != http.StatusBadRequest {
			t.Fatalf("with a malformed file the last good list must stay in force: %d %v", code, out)
		}

		writeBlocklist(t, path, listed.Address)
		waitQuote(t, added, http.StatusOK)
	})

	t.Run("a deposit by a listed wallet fails with BLOCKED_WALLET, visible to the owner only, and is refunded only by an operator", func(t *testing.T) {
		hits := screeningHits("deposit")
		q, err := keyed.Quote(ctx, bridge(unlisted, devnet.TestAccounts()[8].Address, common.Address{}))
		if err != nil {
			t.Fatal(err)
		}
		d := depositStep(t, q)
		amount, _ := new(big.Int).SetString(d.Value, 10)
		if _, err := (&e2e.Wallet{Key: listed.Key, RPCs: s.RPCs}).SendTx(ctx, d); err != nil { // the listed wallet pays
			t.Fatal(err)
		}
		requireFailure(t, q.RequestID, intent.FailReasonBlockedWallet, intent.RefundFailReasonManualRefundRequired)
		if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 0 {
			t.Fatalf("a listed wallet's deposit was filled %d times", n)
		}
		if n := s.Refunds(t, 31337, q.RequestID); n != 0 {
			t.Fatalf("a listed wallet's deposit was refunded %d times without an operator", n)
		}
		if screeningHits("deposit") <= hits {
			t.Fatal("intentd_screening_hits_total{place=deposit} did not count the deposit")
		}

		// blockedAddresses is the owning integrator's, and only when it asks.
		if v, ok := blockedAddresses(t, keyed, q.RequestID, "&includeAuthenticatedData=true"); !ok ||
			!strings.EqualFold(fmt.Sprint(v), fmt.Sprint([]any{listed.Address.Hex()})) {
			t.Fatalf("the owner's data.blockedAddresses = %v (present %v), want [%s]", v, ok, listed.Address.Hex())
		}
		if v, ok := blockedAddresses(t, keyed, q.RequestID, ""); ok {
			t.Fatalf("data.blockedAddresses = %v without includeAuthenticatedData", v)
		}
		if v, ok := blockedAddresses(t, otherIntegrator, q.RequestID, "&includeAuthenticatedData=true"); ok {
			t.Fatalf("another integrator sees data.blockedAddresses = %v", v)
		}

		// The operator decides: the depositor (the default recipient) is listed, so that refund is
		// refused before anything is signed; one to another address is paid once.
		var body obj
		code, err := admin.Do(ctx, "POST", refundPath(q.RequestID), obj{"reason": "screening hit, case 1", "operator": "alice"}, &body)
		if err != nil || code != http.StatusBadGateway || body["errorCode"] != "REFUND_FAILED" ||
			!strings.Contains(fmt.Sprint(body["message"]), string(intent.RefundFailReasonRefundRecipientIsBlocked)) {
			t.Fatalf("an admin refund to the listed depositor: %d %v %v, want 502 REFUND_FAILED naming REFUND_RECIPIENT_IS_BLOCKED", code, body, err)
		}
		if n := s.Refunds(t, 31337, q.RequestID); n != 0 {
			t.Fatalf("the refused admin refund paid %d times", n)
		}
		to := freshAddress(t)
		if code, err := admin.Do(ctx, "POST", refundPath(q.RequestID), obj{"reason": "screening hit, case 1: cleared to the bank's address",
			"operator": "alice", "recipient": to.Hex()}, &body); err != nil || code != http.StatusOK {
			t.Fatalf("an admin refund to another address: %d %v %v", code, body, err)
		}
		if got := s.balance(t, 31337, common.Address{}, to); got.Cmp(amount) != 0 {
			t.Fatalf("the operator's recipient got %s, the deposit was %s", got, amount)
		}
		final, _, err := s.API.WaitStatus(ctx, q.RequestID, "refund")
		if err != nil || final.FailReason != string(intent.FailReasonManualAdminRefund) {
			t.Fatalf("after the admin refund: %+v %v", final, err)
		}
		if n := s.Refunds(t, 31337, q.RequestID); n != 1 {
			t.Fatalf("%d refunds on chain, want exactly 1", n)
		}
		s.recordHistory(t, q.RequestID, "blocked-wallet-then-admin-refund")
		if v, ok := blockedAddresses(t, keyed, q.RequestID, "&includeAuthenticatedData=true"); !ok || v != nil {
			t.Fatalf("data.blockedAddresses = %v once the failReason is MANUAL_ADMIN_REFUND, want null", v)
		}
	})

	t.Run("a deposit by a listed wallet for no known order is not refunded", func(t *testing.T) {
		r, err := (&e2e.Wallet{Key: listed.Key, RPCs: s.RPCs}).SendTx(ctx, quote.TxData{ChainID: 31337, To: devnet.DepositoryAddress.Hex(),
			Value: "30000000000000000", Data: hexutil.Encode(evm.DepositoryABI.PackDepositNative(common.HexToHash("0x5c4eeded")))})
		if err != nil {
			t.Fatal(err)
		}
		id := depositRefundID(t, 31337, r)
		requireFailure(t, id, intent.FailReasonBlockedWallet, intent.RefundFailReasonManualRefundRequired)
		if n := s.Refunds(t, 31337, id); n != 0 {
			t.Fatalf("the orphaned deposit of a listed wallet was refunded %d times", n)
		}
	})

	t.Run("listed after the quote: the fill to the recipient and the refund to refundTo are not sent", func(t *testing.T) {
		fillHits, refundHits := screeningHits("fill"), screeningHits("refund")
		payee, refundTo := freshAddress(t), freshAddress(t)
		fillUser, refundUser := devnet.TestAccounts()[5], devnet.TestAccounts()[6]
		qFill, err := s.API.Quote(ctx, bridge(fillUser.Address, payee, common.Address{}))
		if err != nil {
			t.Fatal(err)
		}
		qRefund, err := s.API.Quote(ctx, bridge(refundUser.Address, devnet.TestAccounts()[8].Address, refundTo))
		if err != nil {
			t.Fatal(err)
		}
		writeBlocklist(t, path, listed.Address, payee, refundTo)
		waitQuote(t, payee, http.StatusBadRequest)
		waitQuote(t, refundTo, http.StatusBadRequest)

		if _, err := (&e2e.Wallet{Key: fillUser.Key, RPCs: s.RPCs}).SendTx(ctx, depositStep(t, qFill)); err != nil {
			t.Fatal(err)
		}
		requireFailure(t, qFill.RequestID, intent.FailReasonBlockedWallet, intent.RefundFailReasonManualRefundRequired)
		if n := s.fills(t, 31338, common.HexToHash(qFill.Protocol.V2.OrderID)); n != 0 {
			t.Fatalf("the listed recipient was paid %d times", n)
		}
		if got := s.balance(t, 31338, common.Address{}, payee); got.Sign() != 0 {
			t.Fatalf("the listed recipient holds %s", got)
		}
		if n := s.Refunds(t, 31337, qFill.RequestID); n != 0 {
			t.Fatalf("refunded %d times without an operator", n)
		}
		rec, err := s.Sys.Store.Record(ctx, qFill.RequestID)
		if err != nil || len(rec.Data.BlockedAddresses) != 1 || !strings.EqualFold(rec.Data.BlockedAddresses[0], payee.Hex()) {
			t.Fatalf("the record's blockedAddresses %v (%v), want the recipient %s", rec.Data.BlockedAddresses, err, payee.Hex())
		}

		d := depositStep(t, qRefund)
		quoted, _ := new(big.Int).SetString(d.Value, 10)
		half := new(big.Int).Div(quoted, big.NewInt(2))
		d.Value = half.String()
		if _, err := (&e2e.Wallet{Key: refundUser.Key, RPCs: s.RPCs}).SendTx(ctx, d); err != nil {
			t.Fatal(err)
		}
		requireFailure(t, qRefund.RequestID, intent.FailReasonDepositedAmountTooLowToFill, intent.RefundFailReasonRefundRecipientIsBlocked)
		if n := s.Refunds(t, 31337, qRefund.RequestID); n != 0 {
			t.Fatalf("the refund to the listed refundTo was sent %d times", n)
		}
		// The operator refunds to the depositor, the default once the automatic refund failed.
		var body obj
		if code, err := admin.Do(ctx, "POST", refundPath(qRefund.RequestID), obj{"reason": "refundTo listed", "operator": "bob"}, &body); err != nil ||
			code != http.StatusOK || !strings.EqualFold(fmt.Sprint(body["recipient"]), refundUser.Address.Hex()) {
			t.Fatalf("the admin refund to the depositor: %d %v %v", code, body, err)
		}
		if got := s.balance(t, 31337, common.Address{}, refundTo); got.Sign() != 0 {
			t.Fatalf("the listed refundTo holds %s", got)
		}
		if screeningHits("fill") <= fillHits || screeningHits("refund") <= refundHits {
			t.Fatal("intentd_screening_hits_total does not count the fill and the refund refused")
		}
	})
}
