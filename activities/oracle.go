package activities

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.temporal.io/sdk/activity"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/oracle/oracleapi"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/screening"
)

// OracleActivities ask the attestation oracle to sign on-chain facts and check its answers.
type OracleActivities struct {
	Client *oracleapi.Client
	// NonceMappings finds the nonce mapping that ties a perps exchange deposit to its order
	// (store.Store), which the oracle checks itself and the engine hands it with the transfer;
	// nil attests no such deposit.
	NonceMappings func(ctx context.Context, orderID string) (*oracleapi.PerpsMapping, error)
	// (An orphan transfer, naming the zero order id, is asked about without one: its refund pays
	// its sender back.)
	// Signers are the oracle addresses whose signatures the engine accepts (ORACLE_SIGNERS),
	// 0x-hex.
	Signers []string
	// Threshold is how many unique Signers must have signed the attested deposit before the
	// engine relies on it (ORACLE_SIGNERS_THRESHOLD; 0 counts as 1). The oracle's success says
	// nothing about quorum (the spec's aggregation rule 4): the count is checked here.
	Threshold int
	// Environment is the engine's ENVIRONMENT. An attestation must be signed under the oracle
	// domain of this deployment (oracleapi.NewDomain: its salt, the deposit's chain and
	// depository); one signed for another deployment or contract is not trusted.
	Environment string
	// Chains reads the deposit's chain (its family's funding, chains.Funding) while the oracle
	// refuses to attest, to tell a deposit a reorg removed (DEPOSIT_REORGED) from one still
	// waiting for its confirmations. Nil turns
	// that check off: a removed deposit then waits until the attestation times out.
	Chains *chains.Clients
	// Prices values a deposit for its chain's confirmation tiers (prices.DepositDepth), and
	// Exposure holds what is filled against deposits not yet final under each chain's cap
	// (exposure.go; ExposureCap is the cap of a chain whose file sets none, EXPOSURE_CAP_USD).
	// Without a ledger no deposit is relied on before it is final.
	Prices      prices.Source
	Exposure    ExposureLedger
	ExposureCap decimal.Decimal

	// Screening is the blocklist an attested deposit's depositor is checked against
	// (AttestResult.Blocked); nil screens nothing.
	Screening *screening.List

	// chain replaces Chains in tests.
	chain func(chainID uint64) (depositChain, error)
}

// AttestInput names the deposit to attest and what the workflow expects it to be. Its
// BlockNumber and BlockHash are the block the deposit was observed in; a workflow that does not
// pass them (one started before they existed) leaves them zero, and the activity then knows the
// block only from its own earlier attempts (see AttestDeposit).
type AttestInput struct {
	intent.Deposit
	// Tiered is set by every run (the workflows' baseline) for the deposit their fill relies on: the
	// deposit may be relied on at its value's tier (chains.Chain.DepositConfirmations) instead of
	// its chain's full confirmations, and, when that is before it is final, it holds its share
	// of the chain's exposure under RequestID (AttestResult.Exposure). Without it the engine
	// relies on the deposit only at the chain's full confirmations.
	Tiered    bool   `json:",omitempty"`
	RequestID string `json:",omitempty"`
	// SweptPayment is, for the deposit a deposit address's sweep made (the workflows' version
	// sweptPaymentDepth on), the plain transfer that sweep moved: the deposit's depth is counted
	// from the payment's block once the sweep itself is mined (docs/deposit-addresses.md,
	// "Confirmations of a sweep's deposit"), and the oracle is asked to count it so too
	// (sweptPaymentTransactionId). Nil for every other deposit.
	SweptPayment *SweptPayment `json:",omitempty"`
}

// SweptPayment is the payment a sweep's deposit moved: its transaction and the block it was
// seen in (the scanner's).
type SweptPayment struct {
	TxHash      string
	BlockNumber uint64
	BlockHash   string `json:",omitempty"`
}

// AttestResult is the oracle's signed statement about the deposit.
type AttestResult struct {
	// Signer and Signature are the first accepted signature; Signatures all of them (at least
	// Threshold), empty in results recorded before quorum was checked.
	Signer     string
	Signature  string
	Signatures []OracleSignature `json:",omitempty"`
	// ChainID and Depository name the chain and contract whose Deposit event was attested
	// (protocol.deposit.attestation's oracleChainId and oracleContract); zero in results
	// recorded before they were returned.
	ChainID    uint64
	Depository string
	// Blocked is the depositor when the screening blocklist holds it as the deposit is
	// attested: the run then ends the request in failure with BLOCKED_WALLET and
	// fills and refunds nothing on its own (screening.go).
	Blocked []string `json:",omitempty"`
	// Exposure is the deposit's hold on its chain's exposure when it was relied on before it
	// was final (Tiered inputs only; nil otherwise). Not Reserved, the chain's cap is full: the
	// fill waits (AwaitExposure).
	Exposure *ExposureResult `json:",omitempty"`
}

// AttestDeposit returns once the oracle has attested the deposit. The oracle refuses until the
// deposit has the chain's confirmations in a canonical block, so this activity is also the wait
// for confirmation: it asks the oracle again on every new block of the deposit's chain (see
// await), heartbeating between, and logs the refusals at DEBUG only. The attested facts must
// equal what the scanner saw and the signature must come from an accepted signer; anything else
// is not trusted, and ends the attempt with an error as before. Every other answer of the oracle
// is classified once, by its code, in classifyOracleError: an oracle that cannot be reached is
// asked again inside the wait (WARN at most every waitWarnEvery), one that refuses the engine's
// configuration too (ERROR at most every waitWarnEvery), and a fact about the transaction that
// will not change (it reverted, it holds no deposit) ends the request at once.
//
// While the oracle refuses (not confirmed, transaction not found), the activity reads the chain
// itself and ends the wait with the non-retryable DEPOSIT_REORGED once the deposit has
// disappeared in a reorg: see depositReorged for the evidence it requires, so that a slow node
// is never taken for a reorg. The block it was seen in is the one the workflow passed, or, more
// recent, the block this activity last found its receipt in, kept in the heartbeat details
// across attempts. A deposit included again in another block is attested there.
//
// The engine relies on the attestation only once the deposit also has the confirmations its own
// rule asks (depositWait.need, by the engine's prices for a Tiered input, else the chain's full
// confirmations), whatever depth the oracle signed it at; a Tiered deposit relied on before it is
// final then takes its share of its chain's exposure (reserveExposure).
func (a *OracleActivities) AttestDeposit(ctx context.Context, in AttestInput) (*AttestResult, error) {
	w := a.newDepositWait(ctx, in)
	if activity.IsActivity(ctx) && activity.HasHeartbeatDetails(ctx) {
		var last Sighting
		if activity.GetHeartbeatDetails(ctx, &last) == nil && last.Hash != "" {
			w.found = last
		}
	}
	spec := waitSpec{what: "attestation", heartbeat: func() { w.heartbeat(ctx) },
		attrs: []any{"chainId", in.ChainID, "tx", in.TxHash, "logIndex", in.LogIndex}}
	if w.chain != nil {
		spec.chain = w.chain
	}
	started := time.Now()
	var res *AttestResult
	var refused string
	checks, err := await(ctx, spec, func(ctx context.Context) (bool, error) {
		r, why, err := a.attestOnce(ctx, w)
		if why != "" && why != refused {
			logger(ctx).Debug("deposit not attested yet", with(spec.attrs, "why", why)...)
			refused = why
		}
		res = r
		return r != nil, err
	})
	if err != nil {
		return nil, err
	}
	logger(ctx).Info("deposit attested", with(spec.attrs, "checks", checks, "waited", time.Since(started).Round(time.Millisecond))...)
	res.Blocked = a.screenDepositor(in.Deposit)
	return res, nil
}

// attestOnce asks the oracle once. It returns the attestation; or nil and the oracle's reason
// while the oracle refuses and the deposit may still be confirmed; or an error: unavailable
// (see await) when the oracle or, for the reorg check, the chain cannot be reached, or the
// oracle refuses the engine's configuration (needsOperator), otherwise the failure that ends the
// attempt (DEPOSIT_REORGED, TRANSACTION_REVERTED and the oracle's other final answers, attested
// facts that differ, no accepted signature).
func (a *OracleActivities) attestOnce(ctx context.Context, w *depositWait) (*AttestResult, string, error) {
	in := w.in
	if w.early() {
		return nil, "not deep enough at the engine's head", nil
	}
	w.asked = time.Now()
	// The oracle is asked about this deposit's order only, not every deposit of the
	// transaction: one transaction may hold hundreds of deposits, each with a workflow asking.
	family := a.familyOf(in.Deposit)
	var payment string
	if in.SweptPayment != nil {
		payment = in.SweptPayment.TxHash
	}
	att, err := a.attestFunding(ctx, family, in, payment)
	if err != nil {
		switch outcome, reason := classifyOracleError(err); outcome {
		case oracleRefused:
			if rerr := w.checkReorged(ctx); rerr != nil {
				return nil, "", rerr
			}
			return nil, err.Error(), nil // not confirmed yet, or not seen yet
		case oracleUnavailable:
			return nil, "", unavailable(err)
		case oracleFinal:
			return nil, "", failure(reason, fmt.Sprintf("the oracle will never attest deposit %s (log %d)", in.TxHash, in.LogIndex), err)
		default:
			return nil, "", needsOperator(err, "code", oracleCode(err))
		}
	}
	same := a.sameAddress(in.ChainID)
	m, err := pickMessage(att.Facts, in, same)
	if err != nil {
		return nil, "", err
	}
	if err := a.checkDomain(family, att.Domain, *m, same); err != nil {
		return nil, "", needsOperator(err, "code", "WRONG_DOMAIN")
	}
	head, deep, err := w.deepEnough(ctx, m.BlockNumber)
	if err != nil {
		return nil, "", err
	}
	if !deep {
		return nil, "attested, but not deep enough by the engine's own rule", nil
	}
	res := &AttestResult{ChainID: m.ChainID, Depository: m.Depository}
	// The client has checked that every signature recovers to the signer it names
	// (oracleapi.Attest): what is left is to keep the accepted signers, once each.
	seen := map[string]bool{}
	for _, sig := range m.Signatures {
		signer := sig.Signer.Hex()
		if !a.accepted(signer) || seen[signer] {
			continue
		}
		seen[signer] = true
		res.Signatures = append(res.Signatures, OracleSignature{Signer: signer, Signature: "0x" + hex.EncodeToString(sig.Signature)})
	}
	if need := max(a.Threshold, 1); len(res.Signatures) < need {
		// Too few: the other oracles may be down or slow. The wait goes on (WARN at most every
		// waitWarnEvery); the deposit is never relied on with fewer.
		return nil, "", unavailable(fmt.Errorf("attestation of %s has %d of the %d accepted oracle signatures required",
			in.TxHash, len(res.Signatures), need))
	}
	res.Signer, res.Signature = res.Signatures[0].Signer, res.Signatures[0].Signature
	if res.Exposure, err = a.reserveExposure(ctx, w, w.countFrom(m.BlockNumber), head); err != nil {
		return nil, "", err
	}
	return res, "", nil
}

// OracleSignature is one accepted oracle signature of an attestation.
type OracleSignature struct {
	Signer    string
	Signature string
}

// checkDomain checks that the attestation is signed under this deployment's domain for the
// deposit's chain and depository: the salt of the engine's ENVIRONMENT, the chain, and the
// depository of the engine's chain registry (when it has one) which the message must name too
// (oracleapi.FundingDomain: an EVM domain names it as its verifying contract, a Solana domain
// none).
func (a *OracleActivities) checkDomain(family string, d oracleapi.Domain, m oracleapi.FundingFact, same func(a, b string) bool) error {
	depository, ours := m.Depository, true
	if a.Chains != nil {
		if ch, err := a.Chains.Registry().Get(m.ChainID); err == nil && ch.Depository != "" {
			depository, ours = ch.Depository, same(m.Depository, ch.Depository)
		}
	}
	// The message names the registry's depository (ours), so the domain is the message's.
	want := oracleapi.FundingDomain(family, a.Environment, m.ChainID, m.Depository)
	if !ours || !d.Equal(want) {
		return fmt.Errorf("attestation signed under domain %+v for depository %s; this deployment expects version %s, chain %d, depository %s and the salt of environment %q",
			d, m.Depository, want.Version, m.ChainID, depository, a.Environment)
	}
	return nil
}

// familyOf is the family of the deposit's chain: the one its funding port stamped, else the
// registry's, else EVM (a deposit recorded before deposits named their family).
func (a *OracleActivities) familyOf(d intent.Deposit) string {
	if d.Family != "" {
		return d.Family
	}
	if a.Chains != nil {
		if ch, err := a.Chains.Registry().Get(d.ChainID); err == nil && ch.VMType != "" {
			return string(ch.VMType)
		}
	}
	return string(chains.VMTypeEVM)
}

// attestFunding asks the oracle about the deposit by its family's route: a perps exchange
// deposit with the nonce mapping that ties it to its order, any other through AttestFunding.
func (a *OracleActivities) attestFunding(ctx context.Context, family string, in AttestInput, payment string) (*oracleapi.FundingAttestation, error) {
	if !oracleapi.IsPerpsFamily(family) {
		return a.Client.AttestFunding(ctx, family, in.ChainID, in.TxHash, in.OrderID, payment)
	}
	if intent.IsZeroOrderID(in.OrderID) {
		return a.Client.AttestPerpsFunding(ctx, in.ChainID, in.TxHash, in.OrderID, nil)
	}
	if a.NonceMappings == nil {
		return nil, &oracleapi.Error{Code: oracleapi.CodeClientMisconfigured, Message: "the engine reads no nonce mappings: perps deposits cannot be attested"}
	}
	m, err := a.NonceMappings(ctx, in.OrderID)
	if err != nil {
		return nil, &oracleapi.Error{Code: oracleapi.CodeNetworkError, Message: "the order's nonce mapping could not be read: " + err.Error()}
	}
	return a.Client.AttestPerpsFunding(ctx, in.ChainID, in.TxHash, in.OrderID, m)
}

// sameAddress compares two addresses (or transaction ids) of chainID as its family does: EVM's
// hex whatever its case, Solana's base58 exactly. Without a registry the strings are compared
// as EVM's are.
func (a *OracleActivities) sameAddress(chainID uint64) func(x, y string) bool {
	if a.Chains != nil {
		if ch, err := a.Chains.Registry().Get(chainID); err == nil {
			if n := ch.Notation(); n != nil {
				return n.SameAddress
			}
		}
	}
	return strings.EqualFold
}

// oracleOutcome is what AttestDeposit does with an error of the oracle (classifyOracleError).
type oracleOutcome int

const (
	// oracleRefused: the deposit is not (or no longer) deep enough, or not on the chain: the
	// wait goes on, and looks for a reorg that removed the deposit.
	oracleRefused oracleOutcome = iota + 1
	// oracleUnavailable: no answer this time; asked again inside the wait (WARN).
	oracleUnavailable
	// oracleNeedsOperator: the oracle refuses the engine itself, for a reason an operator must
	// fix; asked again inside the wait, so the intents in flight continue once it is fixed
	// (ERROR, naming the code).
	oracleNeedsOperator
	// oracleFinal: a fact about the transaction that will not change; the request fails at once
	// with the failReason returned.
	oracleFinal
)

// classifyOracleError is the one place that decides, by the oracle's code, what an error of the
// oracle means for a deposit waiting for its attestation, so that a permanent answer ends the
// request at once instead of after DEPOSIT_CONFIRMATION_TIMEOUT, and a mistake in our own
// configuration never fails a deposit for good:
//   - TRANSACTION_NOT_CONFIRMED, TRANSACTION_NOT_FOUND: refused (a deposit waiting for its
//     confirmations gets them, and so does a reorged one);
//   - NETWORK_ERROR, RATE_LIMITED, CHAIN_UNAVAILABLE, INTERNAL_ERROR, and an answer without a
//     code of ours with status 429 or 5xx (a proxy's page): unavailable;
//   - TRANSACTION_REVERTED: final, failReason TRANSACTION_REVERTED; NO_DEPOSIT_EVENTS,
//     INVALID_REQUEST (about a request the engine built), TOO_MANY_EVENTS (more deposits for
//     the order in the transaction than an answer carries) and RESPONSE_TOO_LARGE (an answer
//     beyond what the client reads): final, failReason UNKNOWN; asked again, the same
//     transaction gives the same answer, which was read again on every block until
//     DEPOSIT_CONFIRMATION_TIMEOUT. Nothing was attested, so nothing is refunded;
//   - everything else needs an operator: UNKNOWN_CHAIN, NOT_IMPLEMENTED, NOT_FOUND (a wrong
//     ORACLE_URL path), 401 and 403 (a gateway refusing ORACLE_API_KEY), CLIENT_MISCONFIGURED
//     (a malformed ORACLE_URL), INVALID_RESPONSE (an answer that cannot be read or whose
//     signatures do not recover: not an oracle to trust), and any code this engine does not know.
//
// The reason is empty unless the outcome is oracleFinal.
func classifyOracleError(err error) (oracleOutcome, intent.FailReason) {
	e, ok := oracleapi.AsError(err)
	if !ok {
		return oracleNeedsOperator, "" // the Client returns *oracleapi.Error only: a bug
	}
	switch e.Code {
	case oracleapi.CodeNotConfirmed, oracleapi.CodeTransactionNotFound:
		return oracleRefused, ""
	case oracleapi.CodeNetworkError, oracleapi.CodeRateLimited, oracleapi.CodeChainUnavailable, oracleapi.CodeInternal:
		return oracleUnavailable, ""
	case oracleapi.CodeTransactionReverted:
		return oracleFinal, intent.FailReasonTransactionReverted
	case oracleapi.CodeNoDepositEvents, oracleapi.CodeInvalidRequest, oracleapi.CodeTooManyEvents, oracleapi.CodeResponseTooLarge:
		return oracleFinal, intent.FailReasonUnknown
	case "":
		// No code of ours (a proxy's page): the client's classification by status, 429 and
		// 5xx but 501 retryable.
		if e.Retryable() {
			return oracleUnavailable, ""
		}
	}
	return oracleNeedsOperator, ""
}

// oracleCode names an oracle error in logs: its code, else its HTTP status ("HTTP 403").
func oracleCode(err error) string {
	e, ok := oracleapi.AsError(err)
	switch {
	case !ok:
		return "none"
	case e.Code != "":
		return e.Code
	default:
		return fmt.Sprintf("HTTP %d", e.Status)
	}
}

// pickMessage finds the attested message about the observed deposit and checks that its facts
// are the observed ones. In the block the deposit was observed in, the message is the one at
// its log index. A deposit included again in another block after a reorg has another log index
// there: its message is the one with the observed facts (the oracle signs the log index, so the
// signature is about where the deposit is now). When the workflow did not pass the observed
// block (or the family names no block hash: Solana), the message at the index is taken if its
// facts match, else the one with the facts. same compares addresses as the chain's family does.
func pickMessage(msgs []oracleapi.FundingFact, in AttestInput, same func(a, b string) bool) (*oracleapi.FundingFact, error) {
	differs := failure(intent.FailReasonUnknown, "attested deposit differs from the observed deposit", nil)
	noLog := fmt.Errorf("oracle attestation of %s has no deposit at log %d", in.TxHash, in.LogIndex)
	observed := in.BlockHash != ""
	if len(msgs) == 0 {
		return nil, noLog
	}
	facts := func(d oracleapi.FundingFact) bool { return sameFacts(d, in, same) }
	// The messages are about one transaction, so they are all in one block.
	if observed && strings.EqualFold(msgs[0].BlockHash, in.BlockHash) {
		for i := range msgs {
			if msgs[i].Index == uint64(in.LogIndex) {
				if !facts(msgs[i]) {
					return nil, differs
				}
				return &msgs[i], nil
			}
		}
		return nil, noLog
	}
	for i := range msgs {
		if msgs[i].Index == uint64(in.LogIndex) && facts(msgs[i]) {
			return &msgs[i], nil
		}
	}
	for i := range msgs {
		if facts(msgs[i]) {
			return &msgs[i], nil
		}
	}
	if observed {
		// Included again in another block, the transaction no longer makes the observed deposit.
		return nil, differs
	}
	for i := range msgs {
		if msgs[i].Index == uint64(in.LogIndex) {
			return nil, differs
		}
	}
	return nil, noLog
}

func sameFacts(d oracleapi.FundingFact, in AttestInput, same func(a, b string) bool) bool {
	return oracleapi.SameHash(d.OrderID, in.OrderID) && same(d.Currency, in.Currency) &&
		d.Amount != nil && d.Amount.String() == in.Amount && same(d.Depositor, in.Depositor)
}

func (a *OracleActivities) accepted(s string) bool {
	for _, x := range a.Signers {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// Sighting is a block a deposit's transaction was seen in; the activity's heartbeat details
// (the hash as the chain writes it: 0x-hex on EVM chains).
type Sighting struct {
	Number uint64
	Hash   string
}

// ChainView is what the deposit's chain showed about it, read in this order (so that a
// transaction moving from the pool into a block between two reads is still seen somewhere).
type ChainView struct {
	// Head is the latest block number.
	Head uint64
	// CanonicalHash is the canonical hash at the sighting's number; empty when the node has no
	// block there (it is behind, or the chain got shorter).
	CanonicalHash string
	// Mined is the block the transaction is included in, nil when the node has none.
	Mined *chains.Block
	// Known says the node still knows the transaction: in its pool, or mined.
	Known bool
}

// depositReorged decides, from where the deposit was seen and what the chain shows now,
// whether the deposit disappeared in a reorg. All of this must hold, so that a slow or lagging
// node (no receipt yet, block not yet there) is never taken for a reorg:
//   - the transaction has no receipt, and the node does not know it at all (not waiting in the
//     pool to be included again);
//   - the block it was seen in is no longer canonical: the node has a block at that number, with
//     another hash;
//   - the chain has moved at least confirmations blocks past that number, so the deposit would
//     have been confirmed by now had it stayed.
func depositReorged(seen Sighting, v ChainView, confirmations uint64) bool {
	if seen.Hash == "" || v.Mined != nil || v.Known {
		return false
	}
	if v.CanonicalHash == "" || strings.EqualFold(v.CanonicalHash, seen.Hash) {
		return false
	}
	return v.Head >= seen.Number+max(confirmations, 1)
}

// depositWait is the state of one AttestDeposit attempt.
type depositWait struct {
	in AttestInput
	// chain is the deposit's chain, nil when the reorg check is off.
	chain depositChain
	// found is where this activity (this attempt or, from the heartbeat details, an earlier one)
	// last found the deposit's receipt; zero when it has not.
	found Sighting
	// asked is when the oracle was last asked (the wait's start before the first time).
	asked time.Time
	// need is the confirmations the engine's own rule asks of the deposit before it relies on
	// it: the chain's, or (Tiered inputs) its value's tier, depth. 0 when the chain cannot be
	// read (no Chains): the oracle's depth is then the only one.
	need  uint64
	depth prices.Depth
}

// newDepositWait starts the wait for in: its chain, and the depth the engine's rule asks of the
// deposit.
func (a *OracleActivities) newDepositWait(ctx context.Context, in AttestInput) *depositWait {
	w := &depositWait{in: in, asked: time.Now()}
	ch, err := a.depositChain(in.ChainID)
	if err != nil || ch == nil {
		return w
	}
	w.chain = ch
	w.need = max(ch.Confirmations(), 1)
	if in.Tiered && a.Exposure != nil && ch.Chain() != nil {
		w.depth = a.depositDepth(ctx, ch.Chain(), in.Deposit)
		w.need = max(w.depth.Confirmations, 1)
	}
	return w
}

// deepEnough reports whether the deposit, attested in block, has the confirmations the
// engine's rule asks (need) at the engine's head: the head the chain's watcher last read, or, when
// that is not deep enough, the chain's head read now (a watcher a block behind the oracle's node
// must not hold an attestation back for a block). It returns the head it judged by (0 without a
// chain).
func (w *depositWait) deepEnough(ctx context.Context, block uint64) (uint64, bool, error) {
	if w.chain == nil || w.need == 0 {
		return 0, true, nil
	}
	deep := func(head uint64) bool { return head >= block && head+1 >= w.countFrom(block)+w.need }
	head := w.chain.SeenHead()
	if !deep(head) {
		h, err := w.chain.Head(ctx)
		if err != nil {
			return 0, false, unavailable(fmt.Errorf("deposit's chain not readable for the engine's depth: %w", err))
		}
		head = max(head, h)
	}
	return head, deep(head), nil
}

// countFrom is the block the deposit's confirmations are counted from, the deposit being in
// block: its swept payment's block for a sweep's deposit whose payment was seen before it
// (SweptPayment; the sweep's own block must still be mined, which the callers check), else
// block.
func (w *depositWait) countFrom(block uint64) uint64 {
	if p := w.in.SweptPayment; p != nil && p.BlockNumber != 0 && p.BlockNumber < block {
		return p.BlockNumber
	}
	return block
}

// early reports whether the deposit cannot be deep enough yet by the engine's own view of its
// chain: the head the chain client's watcher last read gives the block the deposit was seen in
// fewer than the confirmations the engine's rule asks (need: the registry's, or the deposit's
// tier; head - block + 1, as the oracle counts them). The
// oracle would refuse, after reading the chain three times over (itself and its peers), and the
// refusal would send the engine to read the chain for a reorg that cannot be decided before that
// depth either: so the wait asks the oracle first on the block that gives the confirmations.
// Should the watcher fall behind, the oracle is asked anyway once waitRecheck has passed since
// it was last asked; an oracle that counts more confirmations than the registry still refuses.
func (w *depositWait) early() bool {
	if w.chain == nil || w.in.BlockNumber == 0 || time.Since(w.asked) >= waitRecheck {
		return false
	}
	head := w.chain.SeenHead()
	return head != 0 && (head < w.in.BlockNumber || head+1 < w.countFrom(w.in.BlockNumber)+max(w.need, 1))
}

// seen is the block the deposit was last seen in: found, else the workflow's.
func (w *depositWait) seen() Sighting {
	if w.found.Hash != "" {
		return w.found
	}
	return Sighting{Number: w.in.BlockNumber, Hash: w.in.BlockHash}
}

// heartbeat records the activity's heartbeat, with where the receipt was found as details.
func (w *depositWait) heartbeat(ctx context.Context) {
	if w.found == (Sighting{}) {
		heartbeat(ctx, nil)
		return
	}
	heartbeat(ctx, w.found)
}

// checkReorged reads the deposit's chain and returns the DEPOSIT_REORGED failure if the deposit
// disappeared in a reorg, nil otherwise, and an unavailable error when the chain cannot be read
// (the oracle's refusal is then asked again). Where the receipt is found is kept in found, which
// the heartbeats carry to later attempts.
func (w *depositWait) checkReorged(ctx context.Context) error {
	if w.chain == nil {
		return nil
	}
	in, seen := w.in, w.seen()
	v, err := readChainView(ctx, w.chain, in.TxHash, seen.Number)
	if err != nil {
		return unavailable(fmt.Errorf("deposit's chain not readable for the reorg check: %w", err))
	}
	if v.Mined != nil {
		w.found = Sighting{Number: v.Mined.Number, Hash: v.Mined.Hash}
		return w.checkPaymentReorged(ctx)
	}
	if !depositReorged(seen, v, w.chain.Confirmations()) {
		return w.checkPaymentReorged(ctx)
	}
	return failure(intent.FailReasonDepositReorged, fmt.Sprintf(
		"deposit %s (log %d) disappeared in a reorg: block %d is now %s instead of %s, the head is %d and the transaction is unknown",
		in.TxHash, in.LogIndex, seen.Number, v.CanonicalHash, seen.Hash, v.Head), nil)
}

// checkPaymentReorged is checkReorged for a sweep's deposit's payment (SweptPayment): the
// deposit's depth is counted from the payment's block, so a payment a reorg removed (by
// depositReorged's evidence) is the deposit's reorg, whatever became of the sweep (reverted,
// gone, or still mined by other funds at the address): DEPOSIT_REORGED.
func (w *depositWait) checkPaymentReorged(ctx context.Context) error {
	p := w.in.SweptPayment
	if p == nil || p.BlockHash == "" {
		return nil
	}
	seen := Sighting{Number: p.BlockNumber, Hash: p.BlockHash}
	v, err := readChainView(ctx, w.chain, p.TxHash, seen.Number)
	if err != nil {
		return unavailable(fmt.Errorf("deposit's chain not readable for the payment's reorg check: %w", err))
	}
	if !depositReorged(seen, v, w.chain.Confirmations()) {
		return nil
	}
	return failure(intent.FailReasonDepositReorged, fmt.Sprintf(
		"the payment %s that sweep %s moved disappeared in a reorg: block %d is now %s instead of %s, the head is %d and the transaction is unknown",
		p.TxHash, w.in.TxHash, seen.Number, v.CanonicalHash, seen.Hash, v.Head), nil)
}

// readChainView reads, in ChainView's order, what the chain shows about tx and block number.
func readChainView(ctx context.Context, ch depositChain, tx string, number uint64) (ChainView, error) {
	var v ChainView
	var err error
	if v.Head, err = ch.Head(ctx); err != nil {
		return v, err
	}
	if number <= v.Head {
		v.CanonicalHash, err = ch.BlockHash(ctx, number)
		if errors.Is(err, chains.ErrNotFound) {
			v.CanonicalHash, err = "", nil
		}
		if err != nil {
			return v, err
		}
	}
	b, err := ch.TxBlock(ctx, tx)
	switch {
	case errors.Is(err, chains.ErrNotFound):
	case err != nil:
		return v, err
	default:
		v.Mined = &b
	}
	v.Known, err = ch.TxKnown(ctx, tx)
	return v, err
}

// depositChain is what the reorg check reads on the deposit's chain: its family's funding.
type depositChain interface {
	// Head, BlockHash (chains.ErrNotFound when the node has no block there), TxBlock
	// (chains.ErrNotFound while the transaction is in none) and TxKnown: chains.Funding's.
	Head(ctx context.Context) (uint64, error)
	BlockHash(ctx context.Context, number uint64) (string, error)
	TxBlock(ctx context.Context, tx string) (chains.Block, error)
	TxKnown(ctx context.Context, tx string) (bool, error)
	// Confirmations is the chain registry's confirmation depth for deposits.
	Confirmations() uint64
	// Chain is the chain's entry of the registry (its tiers and exposure cap); nil when there is
	// none to read.
	Chain() *chains.Chain
	// The chain's head watcher wakes the wait on new blocks.
	headWaiter
}

func (a *OracleActivities) depositChain(chainID uint64) (depositChain, error) {
	if a.chain != nil {
		return a.chain(chainID)
	}
	if a.Chains == nil {
		return nil, nil
	}
	c, err := chains.Capability[fundingClient](a.Chains, chainID)
	if err != nil {
		return nil, err
	}
	return fundingChain{c}, nil
}

// fundingClient is what the reorg check asks of the deposit's chain client.
type fundingClient interface {
	chains.Client
	chains.Funding
	chains.HeadWatcher
}

// fundingChain reads a deposit's chain through its family's funding.
type fundingChain struct{ fundingClient }

func (f fundingChain) Confirmations() uint64 { return f.Chain().Confirmations }
