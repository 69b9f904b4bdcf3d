// Package worker is the worker's composition root: it registers the workflows and their
// activities on the intents task queue and runs the deposit scanner beside them (which watches
// the issued deposit addresses too), with the solver's nonce healer (nonces.go).
package worker

import (
	"context"
	"crypto/ecdsa"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/deposits"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/oracle/oracleapi"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/screening"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/workflows"
)

// Deps are what the worker needs.
type Deps struct {
	Temporal client.Client
	Store    *store.Store
	Chains   *chains.Clients
	// Families are the chains' families with the payout of each (app: the EVM family's, with
	// the solver's key); nil pays nothing.
	Families      *chains.Families
	Oracle        *oracleapi.Client
	OracleSigners []common.Address
	// OracleThreshold is how many unique OracleSigners must sign an attestation before the
	// worker relies on it (ORACLE_SIGNERS_THRESHOLD).
	OracleThreshold int
	// Environment is the engine's ENVIRONMENT: the deployment the oracles' signing domain must
	// name.
	Environment string
	SolverKey   *ecdsa.PrivateKey
	// RelayerKey is the relayer's key (RELAYER_PRIVATE_KEY; nil: none), whose relayed calls
	// have a nonce sequence of their own: its gaps are filled like the solver's (nonces.go).
	RelayerKey *ecdsa.PrivateKey
	// Solvers are the solver's addresses on the chain families where it has one of another kind
	// than SolverKey's (svm: its Solana public key), by family: the inventory gauges read its
	// balances there.
	Solvers map[chains.VMType]string
	Prices  prices.Source              // values ERC-20 refunds against their gas; optional
	MaxFill map[string]decimal.Decimal // the solver's capacity per fill (SOLVER_MAX_FILL)
	// InventoryFloor is the balance per symbol below which the solver needs topping up
	// (SOLVER_INVENTORY_FLOOR), exported beside its balances for the alert.
	InventoryFloor map[string]decimal.Decimal
	// Screening is the blocklist the fills, refunds and attested deposits are checked against
	// (SCREENING_BLOCKLIST_FILE); nil screens nothing.
	Screening *screening.List
	// NonceGapAfter is how long a gap in the solver's nonces on a chain may stay before the
	// worker fills it (NONCE_GAP_AFTER; nonces.go); 0 means 10 s.
	NonceGapAfter time.Duration
	// ExposureCap is the exposure cap of chains whose file sets none (EXPOSURE_CAP_USD).
	ExposureCap decimal.Decimal
	// RefundGas is the gas ceiling of refunds per currency (REFUND_GAS_LIMITS).
	RefundGas activities.RefundGas
	// RefundBudget is each depositor's budget of automatic refunds of deposits no order can take
	// on a chain (ORPHAN_REFUND_BUDGET).
	RefundBudget intent.RefundBudget
	ScanInterval time.Duration
	// Intents is the door the deposit scanner delivers deposits through (app.System.Intents).
	Intents deposits.Deliverer
	// Requotes quotes again the payments at open deposit addresses that are not their quote's
	// (app: the quote engine); nil routes only each address's first payment.
	Requotes deposits.Requoter
	Logger   *slog.Logger
}

// Register puts the workflows and activities on a registry (a worker or a replayer).
func Register(r worker.Registry, d Deps) {
	r.RegisterWorkflow(workflows.Intent)
	r.RegisterWorkflow(workflows.DepositRefund)
	r.RegisterActivity(&activities.StoreActivities{Store: d.Store, Chains: d.Chains, Prices: d.Prices, RefundBudget: d.RefundBudget})
	var relays activities.RelaySponsorships
	if d.Store != nil {
		relays = d.Store
	}
	r.RegisterActivity(&activities.ChainActivities{Families: d.Families, Prices: d.Prices,
		MaxFill: d.MaxFill, Screening: d.Screening, RefundGas: d.RefundGas, Relays: relays})
	// The exposure ledger is the store; without one (a replayer) no deposit is relied on before
	// it is final.
	var ledger activities.ExposureLedger
	if d.Store != nil {
		ledger = d.Store
	}
	signers := make([]string, len(d.OracleSigners))
	for i, s := range d.OracleSigners {
		signers[i] = s.Hex()
	}
	r.RegisterActivity(&activities.OracleActivities{Client: d.Oracle, Signers: signers, Threshold: d.OracleThreshold,
		Environment: d.Environment, Chains: d.Chains, Prices: d.Prices, Exposure: ledger, ExposureCap: d.ExposureCap,
		Screening: d.Screening, NonceMappings: nonceMappings(d.Store)})
	r.RegisterActivity(&activities.SponsorshipActivities{Store: d.Store})
}

// Pollers per task type: the SDK adds pollers while polls come back with tasks and the server
// reports a backlog, and removes them when polls come back empty.
const (
	minPollers     = 2
	initialPollers = 4
	maxPollers     = 16
)

func pollerBehavior() worker.PollerBehavior {
	return worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{
		InitialNumberOfPollers: initialPollers, MinimumNumberOfPollers: minPollers, MaximumNumberOfPollers: maxPollers})
}

// stopTimeout is how long a stopping worker waits for its running activities.
const stopTimeout = 10 * time.Second

// Run runs the worker and the deposit scanner until ctx ends.
func Run(ctx context.Context, d Deps) error {
	// Activities are dispatched through the task queue, never handed back eagerly with the
	// workflow task: under load, a fill replacement scheduled while an AwaitTx attempt was still
	// running waited forever for an eager slot (1 run in 6-8 of the not-included test).
	//
	// A stopping worker gives its running activities up to stopTimeout to finish: the waits
	// (AttestDeposit, AwaitTx) return at once with a benign error that Temporal retries on another
	// worker, instead of being cancelled under way (an ERROR or WARN log per waiting intent on
	// every deploy).
	//
	// Pollers scale with the backlog (pollerBehavior): with the SDK's default of two workflow
	// task pollers, one for the sticky queue and one for the normal one, the first task of every
	// new workflow waited 4.1 s on average (17 s at the median intent) in a burst of 50 intents a
	// second, while the worker's slots stood empty (BENCHMARKS.md, "Intents under load").
	w := worker.New(d.Temporal, workflows.TaskQueue, worker.Options{DisableEagerActivities: true, WorkerStopTimeout: stopTimeout,
		WorkflowTaskPollerBehavior: pollerBehavior(), ActivityTaskPollerBehavior: pollerBehavior()})
	Register(w, d)
	// A chain restarted with a new genesis while the worker was down is reset before a waiting
	// fill could be sent to it again (nonces.go).
	resetChains(ctx, d.Chains, d.Store, d.Logger)
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()
	if d.SolverKey != nil {
		go watchInventory(ctx, d.Chains, crypto.PubkeyToAddress(d.SolverKey.PublicKey), d.Solvers, d.InventoryFloor, d.Logger)
		after := d.NonceGapAfter
		if after <= 0 {
			after = 10 * time.Second
		}
		healer := &nonceHealer{chains: d.Chains, store: d.Store, key: d.SolverKey, after: after, logger: d.Logger}
		go healer.run(ctx)
		if d.RelayerKey != nil {
			relayer := &nonceHealer{chains: d.Chains, store: d.Store, key: d.RelayerKey, after: after, logger: d.Logger.With("account", "relayer")}
			go relayer.run(ctx)
		}
	}
	go watchExposure(ctx, d.Chains, d.Store, d.ExposureCap, d.Logger)
	scanner := &deposits.Scanner{Chains: d.Chains, Store: d.Store, Router: d.Intents, Interval: d.ScanInterval,
		Addresses: deposits.NewAddressWatch(d.Store), Requotes: d.Requotes, Logger: d.Logger,
		RefundGas: func(chainID uint64, currency string) uint64 {
			return d.RefundGas.Of(d.Chains.Registry(), chainID, currency)
		}}
	scanner.Run(ctx)
	return nil
}

// nonceMappings reads an order's nonce mapping (POST /authorize) for the oracle activities, in
// the oracle client's terms.
func nonceMappings(st *store.Store) func(ctx context.Context, orderID string) (*oracleapi.PerpsMapping, error) {
	return func(ctx context.Context, orderID string) (*oracleapi.PerpsMapping, error) {
		m, err := st.PerpsNonceMappingOfOrder(ctx, orderID)
		if err != nil {
			return nil, err
		}
		return &oracleapi.PerpsMapping{Wallet: m.Wallet, Depositor: m.Depositor, Signature: m.Signature, Nonce: m.Nonce,
			SignatureChainID: m.SignatureChainID}, nil
	}
}
