package reliability

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/testkit"
)

// readRow is a request's row in the read model.
type readRow struct {
	Status, FailReason, RefundFailReason string
	OutTxs                               []string
	// UpdatedAt is the engine's time of the request's last transition: for a request that has
	// ended, when it ended.
	UpdatedAt time.Time
}

func (r *rig) readModel(ctx context.Context, ids []string) (map[string]readRow, error) {
	rows, err := r.pool.Query(ctx, `SELECT id, status, fail_reason, refund_fail_reason, out_tx_hashes, updated_at FROM requests WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]readRow{}
	for rows.Next() {
		var id string
		var row readRow
		if err := rows.Scan(&id, &row.Status, &row.FailReason, &row.RefundFailReason, &row.OutTxs, &row.UpdatedAt); err != nil {
			return nil, err
		}
		out[id] = row
	}
	return out, rows.Err()
}

// awaitExcessLegs waits (at most two minutes) for the refund leg of every excess paid to a
// deposit address to end, and returns the legs' rows: a leg is a request of its own, which
// the run's wait for the intents does not cover.
func (r *rig) awaitExcessLegs(ctx context.Context, cases []*intentCase) map[string]readRow {
	var ids []string
	for _, c := range cases {
		if id := c.ExcessLegID(); id != "" {
			ids = append(ids, id)
		}
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		rows, err := r.readModel(ctx, ids)
		if err != nil {
			r.t.Fatalf("read model: %v", err)
		}
		ended := 0
		for _, id := range ids {
			if st := rows[id].Status; st == "refund" || st == "failure" || st == "success" {
				ended++
			}
		}
		if ended == len(ids) || time.Now().After(deadline) || ctx.Err() != nil {
			return rows
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// check verifies the invariants after the run and counts what it found.
func (r *rig) check(ctx context.Context, cases []*intentCase) figures {
	t := r.t
	var f figures
	var live []*intentCase
	var ids []string
	for _, c := range cases {
		if c.Err == nil {
			live = append(live, c)
			ids = append(ids, c.RequestID)
		}
	}
	legs := r.awaitExcessLegs(ctx, live)
	rows, err := r.readModel(ctx, ids)
	if err != nil {
		t.Fatalf("read model: %v", err)
	}

	// On chain: every Fill of the output settler on 31338 and every Withdrawal (refund) of the
	// depository on 31337, by id.
	fills := r.Events(t, 31338, devnet.OutputSettlerAddress, evm.OutputSettlerABI.GetABI().Events["Fill"].ID)
	refunds := r.Events(t, 31337, devnet.DepositoryAddress, evm.DepositoryABI.GetABI().Events["Withdrawal"].ID)
	// A sol-origin intent is filled on 31337 (the EVM intents fill on 31338 only).
	originFills := r.Events(t, 31337, devnet.OutputSettlerAddress, evm.OutputSettlerABI.GetABI().Events["Fill"].ID)
	for _, n := range fills {
		f.DoubleFills += max(0, n-1)
	}
	for _, n := range originFills {
		f.DoubleFills += max(0, n-1)
	}
	solPays := r.solanaPayments(ctx)
	for _, n := range refunds {
		f.DoubleRefunds += max(0, n-1)
	}
	// The factory's Swept events on 31337 by order id: a strict address is its order's (issue
	// 35, point 6: "a sweep happens once whatever crashes"), so each must be swept exactly once.
	sweeps := r.Events(t, 31337, devnet.DepositAddressFactoryAddress, evm.DepositAddressFactoryABI.GetABI().Events["Swept"].ID)
	// Solver transactions: what each request had signed. A fill that is not included is
	// replaced by further attempts of the same kind at the same nonce (purpose pay or cancel),
	// so a request and kind may have several rows, but only one nonce.
	type stored struct {
		attempts int
		nonces   map[int64]bool
	}
	solverTxs := map[string]map[string]*stored{} // request -> kind -> attempts
	txRows, err := r.pool.Query(ctx, `SELECT request_id, kind, chain_id, nonce FROM solver_transactions`)
	if err != nil {
		t.Fatalf("solver transactions: %v", err)
	}
	for txRows.Next() {
		var req, kind string
		var chain, nonce int64
		if err := txRows.Scan(&req, &kind, &chain, &nonce); err != nil {
			t.Fatal(err)
		}
		if solverTxs[req] == nil {
			solverTxs[req] = map[string]*stored{}
		}
		st := solverTxs[req][kind]
		if st == nil {
			st = &stored{nonces: map[int64]bool{}}
			solverTxs[req][kind] = st
		}
		st.attempts++
		st.nonces[chain<<32|nonce] = true
		f.SolverTxs++
	}
	txRows.Close()
	kindsOf := func(req string) string {
		var ks []string
		for k, st := range solverTxs[req] {
			ks = append(ks, fmt.Sprintf("%s×%d", k, st.attempts))
		}
		sort.Strings(ks)
		return "[" + strings.Join(ks, " ") + "]"
	}
	for req, kinds := range solverTxs {
		for kind, st := range kinds {
			f.Replacements += st.attempts - 1
			if len(st.nonces) != 1 {
				f.NonceReuse++
				t.Errorf("request %s: its %s attempts were signed at %d different nonces", req, kind, len(st.nonces))
			}
		}
	}
	reuse, gaps := r.checkNonces(ctx)
	f.NonceReuse += reuse
	f.NonceGaps = gaps

	type bad struct {
		c   *intentCase
		why string
	}
	var problems []bad
	// The gasless intents' relays are looked up on 31337 directly; the integrator must have paid
	// exactly their gas, summed in charged.
	var chain31337 *ethclient.Client
	charged := decimal.Zero
	for _, c := range live {
		if c.Kind == "gasless" && chain31337 == nil {
			if chain31337, err = r.Devnet.Chain(31337).Dial(ctx); err != nil {
				t.Fatal(err)
			}
			defer chain31337.Close()
		}
	}
	for _, c := range live {
		row, ok := rows[c.RequestID]
		if !ok {
			problems = append(problems, bad{c, "no read-model row"})
			continue
		}
		switch row.Status {
		case "success":
			f.Success++
		case "refund":
			f.Refund++
		case "failure":
			f.Failure++
		default:
			f.Stuck++
		}
		// A correctly paid intent is filled; the engine may also refund it when its fill could
		// not be sent or included (then it says so), never for another reason. An underpaid
		// one is refunded for what it is.
		ids, err := testkit.RefundIDs(ctx, r.pool, c.RequestID)
		if err != nil {
			problems = append(problems, bad{c, "payout ids: " + err.Error()})
			continue
		}
		if c.Kind == "eth-da" {
			// Nothing swept twice or lost: one Swept of the address's order (two with an excess:
			// the quote's amount and the excess's leg), the address empty.
			f.DepositAddresses++
			wantSweeps := 1
			if c.Excess != nil {
				wantSweeps = 2
				f.ExcessLegs++
				legIDs, err := testkit.RefundIDs(ctx, r.pool, c.ExcessLegID())
				nLeg := 0
				for _, id := range legIDs {
					nLeg += refunds[id]
				}
				leg := legs[c.ExcessLegID()]
				if err != nil || leg.Status != "refund" || leg.FailReason != string(intent.FailReasonIncorrectPayment) || nLeg != 1 {
					f.WrongOutcomes++
					problems = append(problems, bad{c, fmt.Sprintf("the excess's leg %s: %s/%s, %d refunds on chain (%v), want refund/INCORRECT_PAYMENT and 1",
						c.ExcessLegID(), leg.Status, leg.FailReason, nLeg, err)})
				}
				if st := solverTxs[c.ExcessLegID()]; st["sweep"] == nil || st["refund"] == nil || len(st) != 2 {
					problems = append(problems, bad{c, "the excess's leg's stored solver transactions " + kindsOf(c.ExcessLegID()) + ", want a sweep and a refund"})
				}
			}
			if n := sweeps[c.OrderID]; n != wantSweeps {
				f.Unswept++
				problems = append(problems, bad{c, fmt.Sprintf("deposit address %s swept %d times, want %d", c.DepositAddress, n, wantSweeps)})
			}
			if got := r.Balance(t, 31337, common.Address{}, c.DepositAddress); got.Sign() != 0 {
				f.WrongBalances++
				problems = append(problems, bad{c, fmt.Sprintf("deposit address %s still holds %s", c.DepositAddress, got)})
			}
			if st := solverTxs[c.RequestID]["sweep"]; st == nil || len(st.nonces) != 1 {
				problems = append(problems, bad{c, "stored solver transactions " + kindsOf(c.RequestID) + ", want one sweep"})
			}
		}
		if c.Kind == "gasless" {
			f.Gasless++
			whys, usd := r.checkGasless(ctx, chain31337, c, row.Status)
			for _, why := range whys {
				f.WrongGasless++
				problems = append(problems, bad{c, why})
			}
			charged = charged.Add(usd)
		}
		nFill, nRefund := fills[c.OrderID], 0
		for _, id := range ids {
			nRefund += refunds[id]
		}
		if c.Kind == "sol-origin" || c.Kind == "perps-withdrawal" {
			nFill = originFills[c.OrderID]
		}
		switch {
		case row.Status == c.wantStatus():
			if row.Status == "refund" && row.FailReason != string(intent.FailReasonDepositedAmountTooLowToFill) {
				f.WrongOutcomes++
				problems = append(problems, bad{c, "refunded with failReason " + row.FailReason})
			}
		case row.Status == "refund" && c.Kind != "eth-underpaid" && (row.FailReason == string(intent.FailReasonTransactionNotIncluded) ||
			row.FailReason == string(intent.FailReasonTransactionSubmissionFailed)):
			f.RefundedFillable++
			t.Logf("intent %d (%s, request %s) was refunded: %s", c.Index, c.Kind, c.RequestID, row.FailReason)
		default:
			f.WrongOutcomes++
			problems = append(problems, bad{c, fmt.Sprintf("status %s (%s/%s), want %s", row.Status, row.FailReason, row.RefundFailReason, c.wantStatus())})
		}
		if c.solana() {
			f.Solana++
			for _, why := range r.checkSolana(ctx, c, row, &f, nFill, nRefund, solPays[c.RequestID]) {
				problems = append(problems, bad{c, why})
			}
			// What the EVM family signed for it (solver_transactions): a sol-origin's fill on
			// 31337 or a sol-dest's refund on 31337, nothing else; its Solana payments are kept
			// in solana_payments (checked above).
			evmKind := ""
			switch {
			case c.Kind == "sol-origin" && row.Status == "success":
				evmKind = "fill"
			case c.Kind == "sol-dest" && row.Status == "refund":
				evmKind = "refund"
			}
			if got := solverTxs[c.RequestID]; (evmKind == "" && len(got) != 0) || (evmKind != "" && (got[evmKind] == nil || len(got) != 1)) {
				problems = append(problems, bad{c, fmt.Sprintf("stored EVM solver transactions %s, want %q only", kindsOf(c.RequestID), evmKind)})
			}
		}
		if c.perps() {
			f.Perps++
			for _, why := range r.checkPerps(ctx, c, row.Status, nFill, nRefund, kindsOf(c.RequestID), len(solverTxs[c.RequestID])) {
				f.WrongPerps++
				problems = append(problems, bad{c, why})
			}
		}
		switch {
		case c.solana(), c.perps():
			// checked above
		case row.Status == "success":
			if nFill != 1 || nRefund != 0 {
				problems = append(problems, bad{c, fmt.Sprintf("%d fills and %d refunds on chain, want 1 fill and no refund", nFill, nRefund)})
			}
			f.StrayRefunds += nRefund
			if c.Excess != nil {
				// The excess's leg refunds it less the leg's own fee (its sweep and refund gas).
				want, err := r.excessRefund(ctx, c)
				if got := r.Balance(t, 31337, common.Address{}, c.RefundTo); err != nil || got.Cmp(want) != 0 {
					f.WrongBalances++
					problems = append(problems, bad{c, fmt.Sprintf("refundTo holds %s, want the excess paid %s less the leg's fee: %s (%v)", got, c.Excess, want, err)})
				}
			}
			if got := r.Balance(t, 31338, c.CurrencyOut, c.Recipient); got.Cmp(c.AmountOut) != 0 {
				f.WrongBalances++
				problems = append(problems, bad{c, fmt.Sprintf("recipient holds %s, quoted output %s", got, c.AmountOut)})
			}
			want := 1 // the fill; a deposit address's request also its sweep (checked above), a gasless one its relay
			if c.Kind == "eth-da" || c.Kind == "gasless" {
				want = 2
			}
			if _, ok := solverTxs[c.RequestID]["fill"]; !ok || len(solverTxs[c.RequestID]) != want {
				problems = append(problems, bad{c, "stored solver transactions " + kindsOf(c.RequestID) + ", want its fill only (and its sweep or relay)"})
			}
			if _, ok := solverTxs[c.RequestID]["relay"]; c.Kind == "gasless" && !ok {
				problems = append(problems, bad{c, "stored solver transactions " + kindsOf(c.RequestID) + ", want its relay"})
			}
		case row.Status == "refund":
			if nFill != 0 || nRefund != 1 {
				problems = append(problems, bad{c, fmt.Sprintf("%d fills and %d refunds on chain, want no fill and 1 refund", nFill, nRefund)})
			}
			f.StrayFills += nFill
			paidBack := new(big.Int).Set(c.Deposited)
			if c.Excess != nil {
				leg, err := r.excessRefund(ctx, c) // the excess's leg too
				if err != nil {
					problems = append(problems, bad{c, err.Error()})
				}
				paidBack.Add(paidBack, leg)
			}
			if got := r.Balance(t, 31337, c.currency(), c.RefundTo); got.Cmp(paidBack) != 0 {
				f.WrongBalances++
				problems = append(problems, bad{c, fmt.Sprintf("refundTo holds %s, want %s back", got, paidBack)})
			}
			if got := r.Balance(t, 31338, c.currency(), c.Recipient); got.Sign() != 0 {
				f.WrongBalances++
				problems = append(problems, bad{c, fmt.Sprintf("the recipient of a refunded intent holds %s", got)})
			}
			if _, ok := solverTxs[c.RequestID]["refund"]; !ok {
				problems = append(problems, bad{c, "stored solver transactions " + kindsOf(c.RequestID) + ", want a refund"})
			}
		default:
			// failure or in flight: the status problem is reported above; show the money.
			problems = append(problems, bad{c, fmt.Sprintf("%d fills and %d refunds on chain, stored solver transactions %s",
				nFill, nRefund, kindsOf(c.RequestID))})
		}
		// The workflow's own state: its state query and, once completed, its result must equal
		// the read model; and it must have completed.
		status, why := r.compareWorkflow(ctx, c, row)
		if why != "" {
			f.ReadModelMismatches++
			problems = append(problems, bad{c, why})
		}
		switch status {
		case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
			f.OpenWorkflows++
			problems = append(problems, bad{c, "the workflow is still running"})
		default:
			f.FailedWorkflows++
			problems = append(problems, bad{c, "the workflow closed as " + status.String()})
		}
	}
	if r.sponsorID != "" {
		for _, why := range r.checkSponsor(ctx, charged) {
			f.WrongGasless++
			t.Errorf("sponsorship: %s", why)
		}
	}
	for _, why := range r.checkVault(ctx, live, rows) {
		f.WrongBalances++
		t.Errorf("Solana vault: %s", why)
	}
	if f.DoubleFills != 0 || f.DoubleRefunds != 0 {
		t.Errorf("double payouts on chain: %d fills, %d refunds", f.DoubleFills, f.DoubleRefunds)
	}
	if f.Unswept != 0 {
		t.Errorf("%d of %d deposit addresses were not swept exactly once", f.Unswept, f.DepositAddresses)
	}
	if f.NonceReuse != 0 {
		t.Errorf("%d solver nonces were used for more than one transaction", f.NonceReuse)
	}
	if f.NonceGaps != 0 {
		t.Errorf("%d problems with the solver's nonce sequence", f.NonceGaps)
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].c.Index < problems[j].c.Index })
	reported := map[string]bool{}
	for _, p := range problems {
		t.Errorf("intent %d (%s, account %d, request %s, order %s, deposit %s): %s", p.c.Index, p.c.Kind, p.c.Account,
			p.c.RequestID, p.c.OrderID.Hex(), p.c.deposit(), p.why)
		if !reported[p.c.RequestID] {
			reported[p.c.RequestID] = true
			r.explain(ctx, p.c)
		}
	}
	return f
}

// checkNonces counts solver nonces signed for more than one request's transaction (attempts of
// one transaction share its nonce on purpose), and per chain the gaps in the stored nonces plus
// a chain nonce that differs from the next stored one (a signed transaction that never landed,
// or one the engine did not record).
func (r *rig) checkNonces(ctx context.Context) (reuse, gaps int) {
	t := r.t
	rows, err := r.pool.Query(ctx, `SELECT chain_id, nonce, count(DISTINCT request_id || '/' || kind),
		string_agg(DISTINCT request_id || '/' || kind, ' ')
		FROM solver_transactions GROUP BY chain_id, from_address, nonce HAVING count(DISTINCT request_id || '/' || kind) > 1`)
	if err != nil {
		t.Fatalf("nonces: %v", err)
	}
	for rows.Next() {
		var chain, nonce, n int64
		var who string
		if err := rows.Scan(&chain, &nonce, &n, &who); err != nil {
			t.Fatal(err)
		}
		reuse++
		t.Errorf("solver nonce %d on chain %d was signed for %d transactions: %s", nonce, chain, n, who)
	}
	rows.Close()
	rows, err = r.pool.Query(ctx, `SELECT chain_id, from_address, min(nonce), max(nonce), count(DISTINCT nonce)
		FROM solver_transactions GROUP BY chain_id, from_address`)
	if err != nil {
		t.Fatalf("nonces: %v", err)
	}
	type span struct {
		chain     uint64
		from      string
		lo, hi, n int64
	}
	var spans []span
	for rows.Next() {
		var s span
		var chain int64
		if err := rows.Scan(&chain, &s.from, &s.lo, &s.hi, &s.n); err != nil {
			t.Fatal(err)
		}
		s.chain = uint64(chain)
		spans = append(spans, s)
	}
	rows.Close()
	for _, s := range spans {
		if s.hi-s.lo+1 != s.n {
			gaps++
			t.Errorf("chain %d: stored solver nonces %d..%d have %d values: a gap", s.chain, s.lo, s.hi, s.n)
		}
		c, err := r.Devnet.Chain(s.chain).Dial(ctx)
		if err != nil {
			t.Fatal(err)
		}
		onChain, err := c.NonceAt(ctx, common.HexToAddress(s.from), nil)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if int64(onChain) != s.hi+1 {
			gaps++
			t.Errorf("chain %d: the solver's nonce on chain is %d, the last stored transaction has %d", s.chain, onChain, s.hi)
		}
	}
	return reuse, gaps
}

// excessRefund is what the leg of c's excess refunds: the excess less the leg's fee
// (testkit.LegFee), the excess itself for a leg without one.
func (r *rig) excessRefund(ctx context.Context, c *intentCase) (*big.Int, error) {
	fee, err := testkit.LegFee(ctx, r.Sys.Temporal, c.ExcessLegID())
	if err != nil || fee == nil {
		return new(big.Int).Set(c.Excess), err
	}
	return new(big.Int).Sub(c.Excess, fee), nil
}
