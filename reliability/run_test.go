package reliability

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/faultproxy"
)

// eventRecord is a fault as it happened.
type eventRecord struct {
	Event
	At       time.Duration // since the first deposit
	InFlight int           // deposited intents not yet ended when it struck (-1: unknown)
	// SweptUnfilled is, for a worker kill, the deposit-address requests whose sweep was stored
	// and whose fill was not when it struck (the kill between sweep and fill of issue 35).
	SweptUnfilled int
	// SolanaInFlight is the sol-dest and sol-origin intents deposited and not yet ended when it
	// struck (issue 36: a worker kill then strikes their deposits' attestation or fills).
	SolanaInFlight int
	// GaslessInFlight is the gasless intents executed and not yet ended when it struck, and
	// RelayedUnfilled (a worker kill) the requests whose relay was stored and fill was not.
	GaslessInFlight, RelayedUnfilled int
	// PerpsInFlight is the perps intents deposited and not yet ended when it struck (issue 38).
	PerpsInFlight int
	Err           error
}

// sweptUnfilled counts the requests in flight whose sweep is stored (signed, maybe broadcast or
// mined) and whose fill is not yet: a worker killed now dies between a sweep and its fill.
func (r *rig) sweptUnfilled(ctx context.Context) int {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var n int
	if err := r.pool.QueryRow(qctx, `SELECT count(DISTINCT s.request_id) FROM solver_transactions s
		JOIN requests q ON q.id = s.request_id AND q.status NOT IN ('success', 'refund', 'failure')
		WHERE s.kind = 'sweep' AND NOT EXISTS (SELECT 1 FROM solver_transactions f WHERE f.request_id = s.request_id AND f.kind = 'fill')`).Scan(&n); err != nil {
		return 0
	}
	return n
}

// terminal statuses of the read model.
var terminal = map[string]bool{"success": true, "refund": true, "failure": true}

// inFlight counts deposited intents whose read-model status is not terminal.
func (r *rig) inFlight(ctx context.Context, cases []*intentCase, mu *sync.Mutex) int {
	n, _, _, _ := r.inFlightOf(ctx, cases, mu)
	return n
}

// inFlightOf counts deposited intents whose read-model status is not terminal, and of them the
// Solana ones (sol-dest, sol-origin), the gasless ones and the perps ones; -1 when Postgres does
// not answer.
func (r *rig) inFlightOf(ctx context.Context, cases []*intentCase, mu *sync.Mutex) (all, sol, gasless, perps int) {
	mu.Lock()
	var ids []string
	isSol, isGasless, isPerps := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range cases {
		if !c.DepositedAt.IsZero() {
			ids = append(ids, c.RequestID)
			isSol[c.RequestID] = c.solana()
			isGasless[c.RequestID] = c.Kind == "gasless"
			isPerps[c.RequestID] = c.perps()
		}
	}
	mu.Unlock()
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	rows, err := r.pool.Query(qctx, `SELECT id FROM requests WHERE id = ANY($1) AND status NOT IN ('success','refund','failure')`, ids)
	if err != nil {
		return -1, -1, -1, -1
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return -1, -1, -1, -1
		}
		all++
		if isSol[id] {
			sol++
		}
		if isGasless[id] {
			gasless++
		}
		if isPerps[id] {
			perps++
		}
	}
	if rows.Err() != nil {
		return -1, -1, -1, -1
	}
	return all, sol, gasless, perps
}

// runChaos plays the plan once the first deposit is made.
func (r *rig) runChaos(ctx context.Context, plan []Event, began time.Time, cases []*intentCase, mu *sync.Mutex) []eventRecord {
	var out []eventRecord
	kills := 0
	for _, e := range plan {
		sleep(ctx, e.After)
		// A fault is meant to strike intents in flight: give the clients up to 15 s to have one.
		inFlight := r.inFlight(ctx, cases, mu)
		for wait := time.Now().Add(15 * time.Second); inFlight == 0 && time.Now().Before(wait) && ctx.Err() == nil; {
			sleep(ctx, 200*time.Millisecond)
			inFlight = r.inFlight(ctx, cases, mu)
		}
		if ctx.Err() != nil {
			break
		}
		if e.Kind == KillWorker {
			// With both deposit addresses and gasless intents, the even kills aim at a sweep and
			// the odd ones at a relay.
			aimSweep := r.sc.DepositAddressShare > 0 && (r.sc.GaslessShare == 0 || kills%2 == 0)
			aimRelay := r.sc.GaslessShare > 0 && !aimSweep
			kills++
			if aimSweep {
				// Issue 35, point 6: "a sweep happens once whatever crashes (kill the worker between
				// sweep and fill in the reliability suite)". Wait up to 15 s for a request swept and
				// not yet filled, and kill then.
				for wait := time.Now().Add(15 * time.Second); r.sweptUnfilled(ctx) == 0 && time.Now().Before(wait) && ctx.Err() == nil; {
					sleep(ctx, 50*time.Millisecond)
				}
			}
			if aimRelay {
				// Issue 37: a kill while a relay is in flight must not relay twice. Wait up to 15 s
				// for a request whose relay is stored and fill is not, and kill then; not at all
				// once every gasless intent has ended (or failed to start).
				for wait := time.Now().Add(15 * time.Second); r.relayedUnfilled(ctx) == 0 && r.gaslessPending(ctx, cases, mu) &&
					time.Now().Before(wait) && ctx.Err() == nil; {
					sleep(ctx, 50*time.Millisecond)
				}
			}
		}
		rec := eventRecord{Event: e, At: time.Since(began), InFlight: inFlight}
		_, rec.SolanaInFlight, rec.GaslessInFlight, rec.PerpsInFlight = r.inFlightOf(ctx, cases, mu)
		switch e.Kind {
		case KillWorker:
			rec.SweptUnfilled = r.sweptUnfilled(ctx)
			rec.RelayedUnfilled = r.relayedUnfilled(ctx)
			if rec.Err = r.WorkerProcess.Kill(); rec.Err == nil {
				sleep(ctx, e.Down)
				rec.Err = r.WorkerProcess.Start()
			}
		case RestartPostgres:
			rec.Err = r.RestartPostgres(ctx, e.Shutdown, e.Down)
		case KillDispatcher:
			if rec.Err = r.dispatcher.Kill(); rec.Err == nil {
				sleep(ctx, e.Down)
				rec.Err = r.dispatcher.Start()
			}
		}
		r.t.Logf("fault at +%v: %s, %d intents in flight (%d Solana, %d gasless, %d perps), %d swept and not filled, %d relayed and not filled, err=%v",
			rec.At.Round(time.Millisecond), e, rec.InFlight, rec.SolanaInFlight, rec.GaslessInFlight, rec.PerpsInFlight, rec.SweptUnfilled, rec.RelayedUnfilled, rec.Err)
		out = append(out, rec)
	}
	return out
}

// figures are the measured outcome of a run, logged in one stable line.
type figures struct {
	Scenario                     string
	Seed                         int64
	Intents, Success, Refund     int
	Failure, Stuck, DepositErrs  int
	Kills, Unexpected, PGRestart int
	Proxy                        faultproxy.Stats
	DoubleFills, StrayFills      int
	DoubleRefunds, StrayRefunds  int
	DepositAddresses, Unswept    int // eth-da intents, of which not swept as many times as paid
	ExcessLegs                   int // eth-da intents paid more than quoted: filled, the excess refunded as a leg
	Solana                       int // sol-dest and sol-origin intents (issue 36), checked as the others are
	KillsBetweenSweepAndFill     int // worker kills that struck with a request swept and not filled
	KillsSolanaInFlight          int // worker kills that struck with a Solana intent in flight
	KillsPerpsInFlight           int // worker kills that struck with a perps intent in flight
	Gasless                      int // gasless intents (issue 37), relayed through POST /execute
	WrongGasless                 int // gasless problems: a user holding ETH, not exactly one relay mined, the sponsorship not exactly the gas
	KillsRelayUnfilled           int // worker kills that struck with a request relayed and not filled
	Perps                        int // perps-deposit and perps-withdrawal intents (issue 38)
	WrongPerps                   int // perps problems: not exactly one transfer or fill of the quoted output, a balance off
	NonceReuse, NonceGaps        int
	SolverTxs, Replacements      int // stored solver transactions, of which replacements
	RefundedFillable             int // correctly paid intents refunded because their fill was not sent or included
	ReadModelMismatches          int
	OpenWorkflows                int // still running at the end (e.g. awaiting an operator)
	FailedWorkflows              int // closed other than completed (failed, terminated, timed out)
	WrongOutcomes, WrongBalances int
	DispatcherKills              int
	Webhooks                     testkit.WebhookCheck
	LatencyP50, LatencyMax       time.Duration
	Drain                        time.Duration // from the last deposit and fault to the last intent's end
	Duration                     time.Duration
}

func (f figures) String() string {
	return fmt.Sprintf("RELIABILITY scenario=%s commit=%s seed=%d intents=%d success=%d refund=%d failure=%d stuck=%d deposit_errors=%d "+
		"worker_kills=%d worker_unexpected_exits=%d postgres_restarts=%d rpc_requests=%d rpc_faults=%d rpc_failed=%d rpc_failed_503=%d "+
		"rpc_failed_jsonrpc=%d rpc_lost_responses=%d rpc_delayed=%d double_fills=%d stray_fills=%d double_refunds=%d stray_refunds=%d deposit_addresses=%d excess_legs=%d solana=%d gasless=%d wrong_gasless=%d perps=%d wrong_perps=%d unswept=%d kills_between_sweep_and_fill=%d kills_solana_in_flight=%d kills_relay_unfilled=%d kills_perps_in_flight=%d "+
		"solver_txs=%d replacements=%d refunded_fillable=%d nonce_reuse=%d nonce_gaps=%d readmodel_mismatches=%d open_workflows=%d failed_workflows=%d wrong_outcomes=%d wrong_balances=%d "+
		"dispatcher_kills=%d %s latency_p50=%.1fs latency_max=%.1fs drain=%.1fs duration=%.1fs",
		f.Scenario, builtFrom, f.Seed, f.Intents, f.Success, f.Refund, f.Failure, f.Stuck, f.DepositErrs,
		f.Kills, f.Unexpected, f.PGRestart, f.Proxy.Requests, f.Proxy.Faults(), f.Proxy.Failed(), f.Proxy.Failed503,
		f.Proxy.FailedRPC, f.Proxy.LostResponses, f.Proxy.Delayed, f.DoubleFills, f.StrayFills, f.DoubleRefunds, f.StrayRefunds, f.DepositAddresses, f.ExcessLegs, f.Solana, f.Gasless, f.WrongGasless, f.Perps, f.WrongPerps, f.Unswept, f.KillsBetweenSweepAndFill, f.KillsSolanaInFlight, f.KillsRelayUnfilled, f.KillsPerpsInFlight,
		f.SolverTxs, f.Replacements, f.RefundedFillable, f.NonceReuse, f.NonceGaps, f.ReadModelMismatches, f.OpenWorkflows, f.FailedWorkflows, f.WrongOutcomes, f.WrongBalances,
		f.DispatcherKills, f.Webhooks, f.LatencyP50.Seconds(), f.LatencyMax.Seconds(), f.Drain.Seconds(), f.Duration.Seconds())
}

// runScenario runs sc end to end and checks every invariant; it returns the figures.
func runScenario(t *testing.T, sc scenario) figures {
	began := time.Now()
	r := startRig(t, sc)
	cases := planIntents(sc)
	plan := NewPlan(sc.Seed, PlanOptions{Kills: sc.Kills, PostgresRestarts: sc.PostgresRestarts, DispatcherKills: sc.DispatcherKills, Gap: sc.Gap,
		WorkerDown: sc.WorkerDown, PostgresDown: sc.PostgresDown})
	kinds := map[string]int{}
	for _, c := range cases {
		kinds[c.Kind]++
	}
	t.Logf("scenario %s seed=%d: %d intents %v from %d accounts; fault proxy fail=%.2f delay=%.2f; plan %s",
		sc.Name, sc.Seed, sc.Intents, kinds, sc.Accounts, sc.FailRate, sc.DelayRate, FormatPlan(plan))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	var mu sync.Mutex // guards the cases' run fields
	firstDeposit := make(chan struct{})
	var firstOnce sync.Once
	var wg sync.WaitGroup
	paceRand := rand.New(rand.NewPCG(uint64(sc.Seed), 0xace))
	pauses := make([]time.Duration, len(cases))
	for i := range pauses {
		pauses[i] = sc.Pace[0]
		if sc.Pace[1] > sc.Pace[0] {
			pauses[i] += time.Duration(paceRand.Int64N(int64(sc.Pace[1] - sc.Pace[0])))
		}
	}
	byAccount := make([][]*intentCase, sc.Accounts)
	for _, c := range cases {
		byAccount[c.Account] = append(byAccount[c.Account], c)
	}
	for _, mine := range byAccount {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range mine {
				sleep(ctx, pauses[c.Index])
				shadow := *c
				err := r.deposit(ctx, &shadow)
				mu.Lock()
				*c = shadow
				c.Err = err
				mu.Unlock()
				if err != nil {
					t.Errorf("intent %d (%s, account %d): %v", c.Index, c.Kind, c.Account, err)
					continue
				}
				firstOnce.Do(func() { close(firstDeposit) })
			}
		}()
	}
	// The faults start with the first deposit, so that they strike intents in flight.
	chaosDone := make(chan []eventRecord, 1)
	go func() {
		select {
		case <-firstDeposit:
		case <-ctx.Done():
			chaosDone <- nil
			return
		}
		chaosDone <- r.runChaos(ctx, plan, time.Now(), cases, &mu)
	}()
	wg.Wait()
	firstOnce.Do(func() { close(firstDeposit) })
	events := <-chaosDone
	quietSince := time.Now()
	t.Logf("all deposits made and faults played %.1fs after the start of the run", time.Since(began).Seconds())

	// Wait for every deposited intent to end in the read model.
	var ids []string
	for _, c := range cases {
		if c.Err == nil {
			ids = append(ids, c.RequestID)
		}
	}
	deadline := time.Now().Add(sc.Drain)
	lastEnd := time.Time{}
	lastProbe := time.Now()
	for {
		rows, err := r.readModel(ctx, ids)
		open := 0
		probe := time.Since(lastProbe) > 5*time.Second
		if probe {
			lastProbe = time.Now()
		}
		if err == nil {
			now := time.Now()
			for _, c := range cases {
				if c.Err != nil || c.Closed != "" {
					continue
				}
				if row, ok := rows[c.RequestID]; ok && terminal[row.Status] {
					if c.EndedAt.IsZero() {
						// When the engine wrote the end, not when this loop saw it: the loop
						// starts once every fault has been played, long after most intents ended.
						c.EndedAt = now
						if !row.UpdatedAt.IsZero() && row.UpdatedAt.Before(now) {
							c.EndedAt = row.UpdatedAt
						}
						if c.EndedAt.After(lastEnd) {
							lastEnd = c.EndedAt
						}
					}
					continue
				}
				// A request whose workflow has closed while the read model shows it in flight
				// will never end: no need to wait for it.
				if probe {
					if st := r.workflowStatus(ctx, c.RequestID); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING &&
						st != enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED {
						c.Closed = st.String()
						t.Logf("intent %d (request %s): workflow %s while the read model shows %q", c.Index, c.RequestID, st, rows[c.RequestID].Status)
						continue
					}
				}
				open++
			}
		}
		if err == nil && open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("%d intents have not ended %v after the last deposit and fault", open, sc.Drain)
			break
		}
		sleep(ctx, 250*time.Millisecond)
	}

	f := r.check(ctx, cases)
	r.stream.check(ctx, t, r.pool, ids)
	f.Scenario, f.Seed, f.Intents = sc.Name, sc.Seed, sc.Intents
	// Every status change of every intent reached the key's webhook, in order, through the
	// dispatcher's kills (issue 15, "Done when").
	if err := r.WaitWebhooksDrained(ctx, 3*time.Minute); err != nil {
		t.Error(err)
	}
	var err error
	if f.Webhooks, err = r.CheckWebhooks(ctx, r.receiver, ids); err != nil {
		t.Errorf("webhook check: %v", err)
	} else if !f.Webhooks.OK() {
		t.Errorf("webhooks: %s; %v", f.Webhooks, f.Webhooks.Problems)
	}
	for _, e := range events {
		if e.Kind == KillDispatcher && e.Err == nil {
			f.DispatcherKills++
		}
		if e.Kind == KillWorker && e.Err == nil && e.SweptUnfilled > 0 {
			f.KillsBetweenSweepAndFill++
		}
		if e.Kind == KillWorker && e.Err == nil && e.SolanaInFlight > 0 {
			f.KillsSolanaInFlight++
		}
		if e.Kind == KillWorker && e.Err == nil && e.PerpsInFlight > 0 {
			f.KillsPerpsInFlight++
		}
		if e.Kind == KillWorker && e.Err == nil && e.RelayedUnfilled > 0 {
			f.KillsRelayUnfilled++
		}
	}
	if sc.Kills > 0 && sc.DepositAddressShare > 0 && f.KillsBetweenSweepAndFill == 0 {
		t.Errorf("no worker kill struck between a sweep and its fill (issue 35, point 6)")
	}
	ws := r.WorkerProcess.Stats()
	f.Kills, f.Unexpected = ws.Kills, len(ws.Unexpected)
	for _, e := range events {
		if e.Kind == RestartPostgres && e.Err == nil {
			f.PGRestart++
		}
		if e.Err != nil {
			t.Errorf("fault %s was not injected: %v", e.Event, e.Err)
		}
	}
	if len(events) != len(plan) {
		t.Errorf("%d of %d planned faults were played", len(events), len(plan))
	}
	for _, p := range r.Proxies {
		f.Proxy = f.Proxy.Add(p.Stats())
	}
	var lat []time.Duration
	for _, c := range cases {
		if c.Err != nil {
			f.DepositErrs++
		} else if !c.EndedAt.IsZero() {
			lat = append(lat, c.EndedAt.Sub(c.DepositedAt))
		}
	}
	if len(lat) > 0 {
		slices.Sort(lat)
		f.LatencyP50, f.LatencyMax = lat[len(lat)/2], lat[len(lat)-1]
	}
	if !lastEnd.IsZero() {
		f.Drain = max(0, lastEnd.Sub(quietSince))
	}
	f.Duration = time.Since(began)
	if sc.FailRate+sc.DelayRate > 0 {
		t.Logf("fault proxy: %s", f.Proxy)
	}
	for _, u := range ws.Unexpected {
		t.Errorf("the worker exited on its own: %s", u)
	}
	t.Logf("worker logs: %s", strings.Join(ws.Logs, " "))
	t.Log(f.String())
	return f
}
