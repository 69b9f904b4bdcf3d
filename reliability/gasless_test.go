package reliability

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/chains/evm/eip7702"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/e2e"
)

// Gasless intents (issue 37, "Done when … the reliability suite includes gasless intents"): a
// USDC bridge 31337 → 31338 from a fresh key that holds the USDC and no ETH, relayed by the
// engine through POST /execute (an EIP-7702 authorization for the devnet's BatchExecutor, the
// quote's approve + deposit signed as one batch, executionOptions.subsidizeFees true). The
// rig's integrator (the one of its webhook key) has a sponsorship wallet and sponsorBalance USD:
// it pays exactly the relayed gas of each, and nothing else (no other intent is sponsored).

// sponsorBalance is the USD the rig's integrator starts with: far more than the run's relays cost.
var sponsorBalance = decimal.NewFromInt(1_000_000)

// reliabilityActor makes the rig's audited changes.
var reliabilityActor = store.Actor{Name: "reliability", Via: store.ViaCLI, Reason: "reliability suite setup"}

// gaslessKey is the fresh key of a gasless intent, derived from the seed: it holds no ETH ever,
// and its nonce is 0 until the relayed call's authorization uses it.
func gaslessKey(seed int64, i int) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("reliability/%d/%d/gasless-user", seed, i))))
	if err != nil {
		panic(err) // a keccak hash is a valid secp256k1 key but with negligible probability
	}
	return k
}

// setupSponsor gives the integrator of the rig's key (named "reliability", testkit.WebhookKey)
// a sponsorship wallet on 31337 and sponsorBalance USD.
func (r *rig) setupSponsor() {
	t := r.t
	ctx := context.Background()
	all, err := r.Sys.Store.Integrators(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range all {
		if in.Name == "reliability" {
			r.sponsorID = in.ID
		}
	}
	if r.sponsorID == "" {
		t.Fatal("no integrator named reliability")
	}
	wallet, chain := devnet.TestAccounts()[7].Address.Hex(), uint64(31337)
	if _, err := r.Sys.Store.UpdateIntegrator(ctx, r.sponsorID, store.IntegratorUpdate{SponsorWallet: &wallet, SponsorChainID: &chain},
		reliabilityActor); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Sys.Store.AdjustSponsorBalance(ctx, r.sponsorID, sponsorBalance, reliabilityActor); err != nil {
		t.Fatal(err)
	}
}

// depositGasless funds the intent's fresh key with its USDC from its account, quotes the bridge
// for that key and executes the quote's steps through POST /execute: the relayer sends them.
// An answer lost to a fault (a 5xx or no answer while Postgres is down) is asked again; a 409
// after such an attempt means the attempt took.
func (r *rig) depositGasless(ctx context.Context, c *intentCase) error {
	user := gaslessKey(r.sc.Seed, c.Index)
	c.GaslessUser = crypto.PubkeyToAddress(user.PublicKey)
	funder := &e2e.Wallet{Key: devnet.TestAccounts()[c.Account].Key, RPCs: r.RPCs}
	if _, err := funder.SendTx(ctx, quote.TxData{ChainID: 31337, To: devnet.USDCAddress.Hex(),
		Data: hexutil.Encode(evm.ERC20ABI.PackTransfer(c.GaslessUser, c.Amount)), Value: "0"}); err != nil {
		return fmt.Errorf("USDC to the gasless key: %w", err)
	}
	q, err := r.quoteWithRetry(ctx, map[string]any{"user": c.GaslessUser.Hex(), "recipient": c.Recipient.Hex(),
		"refundTo": c.RefundTo.Hex(), "originChainId": 31337, "destinationChainId": 31338, "originCurrency": devnet.USDCAddress.Hex(),
		"destinationCurrency": devnet.USDCAddress.Hex(), "amount": c.Amount.String(), "tradeType": "EXACT_INPUT", "includeProtocolData": true})
	if err != nil {
		return fmt.Errorf("quote: %w", err)
	}
	c.RequestID = q.RequestID
	if err := r.stream.follow(ctx, c.RequestID); err != nil {
		return fmt.Errorf("websocket subscribe: %w", err)
	}
	c.OrderID = common.HexToHash(q.Protocol.V2.OrderID)
	c.CurrencyOut = devnet.USDCAddress
	c.AmountOut, _ = new(big.Int).SetString(q.Details.CurrencyOut.Amount, 10)

	var calls []eip7702.Call
	for _, st := range q.Steps {
		for _, it := range st.Items {
			v, _ := new(big.Int).SetString(it.Data.Value, 10)
			calls = append(calls, eip7702.Call{To: common.HexToAddress(it.Data.To), Value: v, Data: common.FromHex(it.Data.Data)})
		}
	}
	auth, err := eip7702.SignAuthorization(user, 31337, devnet.BatchExecutorAddress(), 0)
	if err != nil {
		return err
	}
	data, err := eip7702.SignedExecuteCalldata(user, 31337, calls, big.NewInt(1), big.NewInt(time.Now().Add(time.Hour).Unix()))
	if err != nil {
		return err
	}
	body := map[string]any{"executionKind": "rawCalls", "requestId": q.RequestID,
		"data": map[string]any{"chainId": 31337, "to": c.GaslessUser.Hex(), "data": hexutil.Encode(data), "value": "0",
			"authorizationList": []map[string]any{{"chainId": auth.ChainID.Uint64(), "address": auth.Address.Hex(), "nonce": auth.Nonce,
				"yParity": auth.V, "r": hexutil.EncodeBig(auth.R.ToBig()), "s": hexutil.EncodeBig(auth.S.ToBig())}}},
		"executionOptions": map[string]any{"subsidizeFees": true}}
	deadline := time.Now().Add(90 * time.Second)
	tried := false
	for {
		var out map[string]any
		code, err := r.API.Do(ctx, http.MethodPost, "/execute", body, &out)
		switch {
		case err == nil && code == http.StatusOK:
		case err == nil && code == http.StatusConflict && tried:
			// An earlier attempt started the workflow and its answer was lost.
		case err == nil && code < 500:
			return fmt.Errorf("POST /execute: %d %v", code, out)
		default:
			tried = true
			if time.Now().After(deadline) || ctx.Err() != nil {
				return fmt.Errorf("POST /execute: %d %v %v", code, out, err)
			}
			sleep(ctx, 500*time.Millisecond)
			continue
		}
		break
	}
	c.Deposited = new(big.Int).Set(c.Amount)
	c.DepositedAt = time.Now()
	return nil
}

// relayOf is what the engine stored and mined for a gasless request's relayed call.
type relayOf struct {
	Attempts int
	Mined    []*types.Receipt // the receipts found among the attempts' hashes on 31337
	From     []string         // the attempts' senders
}

// readRelay reads the request's relay attempts (solver_transactions kind relay) and looks each
// up on 31337, directly (never through the fault proxy).
func (r *rig) readRelay(ctx context.Context, client *ethclient.Client, requestID string) (relayOf, error) {
	var out relayOf
	rows, err := r.pool.Query(ctx, `SELECT tx_hash, from_address FROM solver_transactions WHERE request_id = $1 AND kind = 'relay' ORDER BY attempt`, requestID)
	if err != nil {
		return out, err
	}
	var hashes []string
	for rows.Next() {
		var h, from string
		if err := rows.Scan(&h, &from); err != nil {
			rows.Close()
			return out, err
		}
		hashes = append(hashes, h)
		out.From = append(out.From, from)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, err
	}
	out.Attempts = len(hashes)
	for _, h := range hashes {
		rc, err := client.TransactionReceipt(ctx, common.HexToHash(h))
		if errors.Is(err, ethereum.NotFound) {
			continue
		}
		if err != nil {
			return out, err
		}
		out.Mined = append(out.Mined, rc)
	}
	return out, nil
}

// checkGasless checks one gasless intent beyond what every intent is checked for: the user still
// holds no ETH, and exactly one relayed transaction, sent by the relayer, was mined for it. It
// returns the problems and the USD the relay's gas is worth (gasUsed × effective price at the
// devnet's ETH price, rounded up to the micro-dollar), which the integrator must have paid.
func (r *rig) checkGasless(ctx context.Context, client *ethclient.Client, c *intentCase, status string) (problems []string, usd decimal.Decimal) {
	if eth := r.Balance(r.t, 31337, common.Address{}, c.GaslessUser); eth.Sign() != 0 {
		problems = append(problems, fmt.Sprintf("the gasless user %s holds %s wei", c.GaslessUser, eth))
	}
	rel, err := r.readRelay(ctx, client, c.RequestID)
	if err != nil {
		return append(problems, "relay: "+err.Error()), usd
	}
	for _, from := range rel.From {
		if !strings.EqualFold(from, devnet.RelayerAddress().Hex()) {
			problems = append(problems, fmt.Sprintf("a relay attempt was signed by %s, not the relayer", from))
		}
	}
	if len(rel.Mined) != 1 {
		return append(problems, fmt.Sprintf("%d relay attempts stored, %d of them mined: want exactly one mined", rel.Attempts, len(rel.Mined))), usd
	}
	rc := rel.Mined[0]
	c.DepositTx = rc.TxHash
	if rc.Status != types.ReceiptStatusSuccessful && status == "success" {
		problems = append(problems, fmt.Sprintf("the relayed transaction %s reverted", rc.TxHash))
	}
	gas := new(big.Int).Mul(new(big.Int).SetUint64(rc.GasUsed), rc.EffectiveGasPrice)
	usd = decimal.NewFromBigInt(gas, -18).Mul(decimal.NewFromInt(devnet.ETHUSDPrice)).RoundCeil(6)
	c.RelayUSD = usd
	// The ledger of the request: reserved once, charged once.
	kinds, err := r.ledgerKinds(ctx, c.RequestID)
	if err != nil {
		problems = append(problems, "ledger: "+err.Error())
	} else if strings.Join(kinds, ",") != "relay_reserve,relay_charge" {
		problems = append(problems, fmt.Sprintf("sponsorship ledger %v, want relay_reserve, relay_charge", kinds))
	}
	return problems, usd
}

// ledgerKinds are the request's sponsorship ledger rows' kinds, in order.
func (r *rig) ledgerKinds(ctx context.Context, requestID string) ([]string, error) {
	rows, err := r.pool.Query(ctx, `SELECT kind FROM sponsorship_ledger WHERE request_id = $1 ORDER BY id`, requestID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// checkSponsor compares the integrator's balance with what the run's relays cost (charged, the
// sum over the gasless intents of each one's relay gas in USD): it must have fallen by exactly
// that, and its ledger must sum to it.
func (r *rig) checkSponsor(ctx context.Context, charged decimal.Decimal) []string {
	a, err := r.Sys.Store.SponsorAccount(ctx, r.sponsorID)
	if err != nil {
		return []string{"sponsor account: " + err.Error()}
	}
	var problems []string
	if spent := sponsorBalance.Sub(a.BalanceUSD); !spent.Equal(charged) {
		problems = append(problems, fmt.Sprintf("the integrator's balance fell by USD %s, the relays' gas is worth USD %s", spent, charged))
	}
	var sum decimal.Decimal
	if err := r.pool.QueryRow(ctx, `SELECT COALESCE(sum(delta_usd), 0)::text FROM sponsorship_ledger WHERE integrator_id = $1`,
		r.sponsorID).Scan(&sum); err != nil {
		return append(problems, "ledger: "+err.Error())
	}
	if !sum.Equal(a.BalanceUSD) {
		problems = append(problems, fmt.Sprintf("the integrator's ledger sums to USD %s, its balance is USD %s", sum, a.BalanceUSD))
	}
	r.t.Logf("sponsorship: the integrator paid USD %s for the relays (balance USD %s, ledger USD %s)", sponsorBalance.Sub(a.BalanceUSD), a.BalanceUSD, sum)
	return problems
}

// relayedUnfilled counts the requests in flight whose relayed call is stored (signed, maybe
// broadcast or mined) and whose fill is not yet: a worker killed now dies with a relay in flight.
func (r *rig) relayedUnfilled(ctx context.Context) int {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var n int
	if err := r.pool.QueryRow(qctx, `SELECT count(DISTINCT s.request_id) FROM solver_transactions s
		JOIN requests q ON q.id = s.request_id AND q.status NOT IN ('success', 'refund', 'failure')
		WHERE s.kind = 'relay' AND NOT EXISTS (SELECT 1 FROM solver_transactions f WHERE f.request_id = s.request_id AND f.kind = 'fill')`).Scan(&n); err != nil {
		return 0
	}
	return n
}

// gaslessPending says whether a gasless intent may yet be relayed: one not yet executed (nor
// failed to be), or executed and not yet ended in the read model.
func (r *rig) gaslessPending(ctx context.Context, cases []*intentCase, mu *sync.Mutex) bool {
	mu.Lock()
	for _, c := range cases {
		if c.Kind == "gasless" && c.DepositedAt.IsZero() && c.Err == nil {
			mu.Unlock()
			return true
		}
	}
	mu.Unlock()
	_, _, n, _ := r.inFlightOf(ctx, cases, mu)
	return n != 0
}
