// Package metrics is the engine's Prometheus metrics and its operations port: every process
// (api, worker, dispatcher, oracle, intentd-dev dev) serves /metrics, /livez and /readyz on an
// address of its own (METRICS_ADDR), apart from the traffic it serves, so an operator reaches
// them on a private network while the API faces clients. docs/operations.md lists every
// metric, the alerts in deploy/prometheus and the dashboard in deploy/grafana.
//
// Amounts here are observations for dashboards and alerts (Prometheus samples are floats): a
// balance is exported in whole units, never used to decide anything.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Registry holds every metric of the process: the ones below, Go's runtime and the process's,
// the Temporal SDK's (TemporalHandler) and the collectors a role registers (DB gauges).
var Registry = prometheus.NewRegistry()

var f = promauto.With(Registry)

func init() {
	Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// latencyBuckets are the HTTP and webhook latency buckets, in seconds: 1 ms to 10 s.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// The HTTP metrics of the API and the oracle: service is "api" or "oracle", route the
// router's pattern (never the raw path: ids would explode the series), error_code the answer's
// errorCode ("" on success).
var (
	HTTPRequests = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "http_requests_total",
		Help: "HTTP requests answered, by service, route, method, status and error code."},
		[]string{"service", "route", "method", "status", "error_code"})
	HTTPDuration = f.NewHistogramVec(prometheus.HistogramOpts{Namespace: "intentd", Name: "http_request_duration_seconds",
		Help: "Time to answer an HTTP request, by service, route and method.", Buckets: latencyBuckets},
		[]string{"service", "route", "method"})
)

// TransactionHints counts the transaction hints (POST /transactions/index and /single) that
// found their transaction mined: "routed" (every deposit of it), "capped" (HINT_MAX_DEPOSITS of
// them; the scanner routes the rest) and "remembered" (routed before: answered from memory,
// without the chain, the database or Temporal).
var TransactionHints = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "transaction_hints_total",
	Help: "Transaction hints that found their transaction mined, by outcome (routed, capped, remembered)."}, []string{"outcome"})

// Quotes counts the quote endpoints' answers: outcome "ok" or the errorCode.
var Quotes = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "quotes_total",
	Help: "Answers of POST /quote/v2, /quote and /price, by endpoint and outcome (ok or the errorCode)."},
	[]string{"endpoint", "outcome"})

// The lifecycle of intents, counted where the workflow writes its transitions.
var (
	Transitions = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "intent_transitions_total",
		Help: "Status changes written by the intent workflows, by status and failReason (N/A outside failure and refund)."},
		[]string{"status", "fail_reason"})
	Refunds = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "refunds_total",
		Help: "Requests that reached status refund, by failReason."}, []string{"fail_reason"})
	RefundFailures = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "refund_failures_total",
		Help: "Refunds that failed, by refundFailReason (MANUAL_REFUND_REQUIRED and REFUND_RECIPIENT_IS_BLOCKED wait for an operator)."},
		[]string{"refund_fail_reason"})
	// RefundsHeld counts the refunds of deposits no order can take that were held for an
	// operator instead of made, by chain and reason (intent.RefundHold), once each.
	RefundsHeld = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "refunds_held_total",
		Help: "Refunds of deposits no order can take held for an operator's manual refund, by chain and reason (UNLISTED_CURRENCY, REFUND_BUDGET_EXCEEDED)."},
		[]string{"chain_id", "reason"})
	// FillLatency is the time from the engine's first write of the deposit to the fill's
	// broadcast (phase "broadcast", the submitted transition) and to the fill seen mined (phase
	// "mined", the success transition), in the engine's clock.
	FillLatency = f.NewHistogramVec(prometheus.HistogramOpts{Namespace: "intentd", Name: "fill_latency_seconds",
		Help:    "From the deposit seen to the fill broadcast (phase=broadcast) and to the fill seen mined (phase=mined).",
		Buckets: []float64{.5, 1, 2, 3, 5, 8, 13, 21, 34, 60, 120, 300, 600}}, []string{"phase"})
)

// SolverSigning is the time of each phase of a solver transaction's sending (a fill, a refund,
// a cancellation): "reads" (the gas estimate, the fees and the holdings or nonce, read at once),
// "prepare" (the nonce allocated, the transaction signed and stored: the group commit, its wait
// for the round before included) and "broadcast" (the node's answer). A block's burst of fills
// shows here where its signings wait.
var SolverSigning = f.NewHistogramVec(prometheus.HistogramOpts{Namespace: "intentd", Name: "solver_signing_seconds",
	Help:    "Time of each phase of sending a solver transaction: reads, prepare (nonce, signing, storing) and broadcast.",
	Buckets: []float64{.001, .0025, .005, .01, .02, .03, .05, .075, .1, .15, .2, .3, .5, 1, 2.5, 5}}, []string{"phase"})

// ChainRPCRequests counts the JSON-RPC requests the engine sends to each chain's node, by
// method ("batch" for a batch), whether or not they succeed.
var ChainRPCRequests = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "chain_rpc_requests_total",
	Help: "JSON-RPC requests sent to a chain's node, by chain and method."}, []string{"chain_id", "method"})

// Solver inventory, read by the worker: balance and the configured floor per chain and symbol,
// in whole units.
var (
	SolverBalance = f.NewGaugeVec(prometheus.GaugeOpts{Namespace: "intentd", Name: "solver_balance",
		Help: "The solver's balance on a chain, in whole units of the currency."}, []string{"chain_id", "symbol"})
	SolverBalanceFloor = f.NewGaugeVec(prometheus.GaugeOpts{Namespace: "intentd", Name: "solver_balance_floor",
		Help: "The balance below which the solver needs topping up (SOLVER_INVENTORY_FLOOR), in whole units."},
		[]string{"chain_id", "symbol"})
)

// The solver's nonces: chains found with a new genesis (their solver transactions voided and
// nonces forgotten, docs/operations.md "Restarting"), and the nonces of gaps the worker filled,
// by action: "rebroadcast" (the stored transaction sent again) or "cancel" (a transfer of nothing
// to the solver itself, where nothing was stored).
var (
	ChainResets = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "chain_resets_total",
		Help: "Chains seen with a new genesis: their solver transactions voided and solver nonces reset."}, []string{"chain_id"})
	NonceGapsHealed = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "nonce_gap_nonces_total",
		Help: "Nonces of a gap in the solver's transactions filled by the worker, by chain and action (rebroadcast, cancel)."},
		[]string{"chain_id", "action"})
)

// LogLinesDropped counts the log lines a process dropped because its output was slower than the
// process (internal/logging): by level, never ERROR.
var LogLinesDropped = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "log_lines_dropped_total",
	Help: "Log lines dropped because the process's log output was slower than the process, by level (ERROR lines are never dropped)."},
	[]string{"level"})

// The exposure cap (docs/operations.md, "Confirmations by value and the exposure cap"), read by
// the workers from Postgres: the USD filled against a chain's deposits not yet final, the chain's
// cap, and the fills that had to wait for room under it.
var (
	DepositExposure = f.NewGaugeVec(prometheus.GaugeOpts{Namespace: "intentd", Name: "deposit_exposure_usd",
		Help: "USD filled against the chain's deposits that are not yet final (relied on at their value's tier)."}, []string{"chain_id"})
	DepositExposureCap = f.NewGaugeVec(prometheus.GaugeOpts{Namespace: "intentd", Name: "deposit_exposure_cap_usd",
		Help: "The chain's exposure cap in USD (exposureCapUsd, else EXPOSURE_CAP_USD)."}, []string{"chain_id"})
	ExposureWaits = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "deposit_exposure_waits_total",
		Help: "Fills that waited, pending, for room under their origin chain's exposure cap."}, []string{"chain_id"})
)

// The oracle's attestations and its peers' answers.
var (
	OracleAttestations = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "oracle_attestations_total",
		Help: "Attestation requests the oracle answered, by endpoint and outcome (ok or the error code)."},
		[]string{"endpoint", "outcome"})
	OraclePeers = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "oracle_peer_requests_total",
		Help: "Peer oracle calls, by outcome (ok, timeout, error, invalid, mismatch)."}, []string{"outcome"})
	// OracleSignatures counts the messages the oracle signed with its own key (one signature,
	// in aws-kms mode one KMS Sign call, each): the work attestations cost it, by endpoint.
	OracleSignatures = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "oracle_signatures_total",
		Help: "Messages the oracle signed with its own key (one signature, or KMS Sign call, each), by endpoint."},
		[]string{"endpoint"})
)

// Webhook delivery, counted by the dispatcher.
var (
	WebhookAttempts = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "webhook_attempts_total",
		Help: "Webhook delivery attempts, by outcome (delivered, failed, dead)."}, []string{"outcome"})
	WebhookLatency = f.NewHistogram(prometheus.HistogramOpts{Namespace: "intentd", Name: "webhook_attempt_duration_seconds",
		Help: "Time a webhook receiver took to answer an attempt.", Buckets: latencyBuckets})
)

// Screening (package screening): the blocklist's hits by place (quote, deposit, fill, refund),
// the addresses it holds, and its reloads; reload_failing is 1 while the file as it stands could
// not be read or parsed, the last good list staying in force.
var (
	ScreeningHits = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "screening_hits_total",
		Help: "Listed addresses met, by place: quote (400), deposit and fill (BLOCKED_WALLET), refund (REFUND_RECIPIENT_IS_BLOCKED)."},
		[]string{"place"})
	ScreeningAddresses = f.NewGauge(prometheus.GaugeOpts{Namespace: "intentd", Name: "screening_addresses",
		Help: "Addresses on the screening blocklist in force (SCREENING_BLOCKLIST_FILE)."})
	ScreeningReloads = f.NewCounterVec(prometheus.CounterOpts{Namespace: "intentd", Name: "screening_reloads_total",
		Help: "Reads of a changed screening blocklist file, by result (ok, error: the last good list stays in force)."},
		[]string{"result"})
	ScreeningReloadFailing = f.NewGauge(prometheus.GaugeOpts{Namespace: "intentd", Name: "screening_reload_failing",
		Help: "1 while the screening blocklist file cannot be read or parsed (the last good list stays in force), else 0."})
)
