package deposits

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// Reindexing a deposit address (POST /transactions/deposit-address/reindex; public-api-notes
// §5.3; docs/deposit-addresses.md, "Reindexing"). The watch sees a payment by its transaction's
// `to` and value or by a listed token's Transfer log; native value a contract moves to an
// address inside its own execution (an exchange's batch withdrawal, a multisig, a
// smart-contract wallet) is in neither, so the watch never sees it. A reindex reads the
// address's balance of each listed currency (or the one asked for) on the target chain, and for
// each balance that the payments recorded at the address and not swept yet do not account for,
// records a payment of the difference and routes it as the watch routes a payment it saw: the
// address's first funds its quote-time request, a strict address's later one is refunded
// (DOUBLE_SPEND), an open address's later one is recorded.
//
// The payment a reindex records is synthetic: its log index is ReindexLogIndex (-2: no log and
// not a native transaction's -1) and its transaction hash is ReindexTxHash (no transaction's:
// sha256 of a domain string, the chain, the address, the currency and the head block it was
// read at), so the same balance found again in the same block is the same payment, and funds
// that arrive later make a new one. Its sender is unknown: the address's depositor stands for
// it (a refund to the zero-address refundTo, "the depositor", pays the depositor).

// ReindexLogIndex is the log index of a payment a reindex recorded (no log, no transaction).
const ReindexLogIndex = -2

// DefaultReindexCooldown is how soon one address may be reindexed again on one chain (429
// within it): every reindex reads a balance per listed currency.
const DefaultReindexCooldown = 60 * time.Second

// ErrReindexTooRecent and ErrReindexInvalid are intent's (the API reads them without this
// package).
var (
	ErrReindexTooRecent = intent.ErrReindexTooRecent
	ErrReindexInvalid   = intent.ErrReindexInvalid
)

// Reindexer reindexes deposit addresses, routing through Scanner's routing (its Chains, Store,
// Router and Logger; it need not run).
type Reindexer struct {
	Scanner *Scanner
	// Cooldown is DefaultReindexCooldown when zero. It is kept in Postgres
	// (store.AdmitDepositAddressReindex): one reindex of an address per chain within it, across
	// every API process.
	Cooldown time.Duration
	Now      func() time.Time
}

// Reindex reads the address's balances on the target chain and routes what no recorded payment
// accounts for. store.ErrNotFound (wrapped) when no address of r.ChainID is r.Address or it is
// disabled; ErrReindexInvalid, ErrReindexTooRecent; any other error is transient.
func (x *Reindexer) Reindex(ctx context.Context, r intent.DepositAddressReindex) (*intent.DepositAddressReindexed, error) {
	s := x.Scanner
	a, err := s.Store.DepositAddressByAddress(ctx, r.Address)
	if err != nil {
		return nil, err
	}
	if r.ChainID != 0 && a.ChainID != r.ChainID || a.DisabledAt != nil {
		return nil, fmt.Errorf("%w: no deposit address %s on chain %d", store.ErrNotFound, r.Address, r.ChainID)
	}
	issued, err := s.Chains.Registry().Get(a.ChainID)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReindexInvalid, err)
	}
	target := r.TargetChainID
	if target == 0 {
		target = a.ChainID
	}
	ch, err := s.Chains.Registry().Get(target)
	if err != nil || ch.Disabled || ch.VMType != issued.VMType || ch.DepositAddressFactory == "" {
		return nil, fmt.Errorf("%w: chain %d cannot hold deposit address %s", ErrReindexInvalid, target, a.Address)
	}
	currencies := ch.Currencies()
	if r.Currency != "" {
		cur, ok := ch.FindCurrency(r.Currency)
		if !ok {
			return nil, fmt.Errorf("%w: currency %s is not listed on chain %d", ErrReindexInvalid, r.Currency, target)
		}
		currencies = []chains.Currency{cur}
	}
	if ok, err := x.admit(ctx, a.ID, target); err != nil || !ok {
		return nil, cmp.Or(err, ErrReindexTooRecent)
	}
	balances, err := chains.Capability[chains.BalanceReader](s.Chains, target)
	if err != nil {
		return nil, err
	}
	heads, err := chains.Capability[chains.HeadReader](s.Chains, target)
	if err != nil {
		return nil, err
	}
	head, err := heads.Head(ctx)
	if err != nil {
		return nil, err
	}
	unswept, err := s.Store.UnsweptDepositAddressAmounts(ctx, a.ID, target)
	if err != nil {
		return nil, err
	}
	out := &intent.DepositAddressReindexed{Triggered: []intent.ReindexedCurrency{}, Checked: []string{}, Failed: []string{}}
	var payments []intent.DepositAddressTransfer
	var triggered []intent.ReindexedCurrency
	for _, cur := range currencies {
		bal, err := balances.BalanceNow(ctx, cur.Address, a.Address)
		if err != nil {
			s.Logger.Warn("reindex: balance not read", "chainId", target, "address", a.Address, "currency", cur.Address, "error", err)
			out.Failed = append(out.Failed, cur.Address)
			continue
		}
		out.Checked = append(out.Checked, cur.Address)
		extra := new(big.Int).Set(bal)
		if acc, ok := unswept[strings.ToLower(cur.Address)]; ok {
			extra.Sub(extra, acc)
		}
		if extra.Sign() <= 0 {
			continue
		}
		payments = append(payments, intent.DepositAddressTransfer{ChainID: target, TxHash: ReindexTxHash(target, a.Address, cur.Address, head),
			LogIndex: ReindexLogIndex, AddressID: a.ID, BlockNumber: head, Sender: a.Depositor, Currency: cur.Address,
			Amount: extra.String(), SeenAt: time.Now()})
		triggered = append(triggered, intent.ReindexedCurrency{Currency: cur.Address, Symbol: cur.Symbol, Balance: bal.String()})
	}
	for i, p := range payments {
		if _, err := s.routeArrivals(ctx, target, string(ch.VMType), []intent.DepositAddressTransfer{p},
			func(string) (intent.DepositAddress, bool) { return *a, true }); err != nil {
			s.Logger.Warn("reindex: payment not routed", "chainId", target, "address", a.Address, "currency", p.Currency, "error", err)
			out.Failed = append(out.Failed, p.Currency)
			continue
		}
		s.Logger.Info("reindex: a payment the watch did not see", "chainId", target, "address", a.Address, "currency", p.Currency,
			"amount", p.Amount, "tx", p.TxHash)
		out.Triggered = append(out.Triggered, triggered[i])
	}
	return out, nil
}

// admit reports whether the address may be reindexed on the chain now, and if so starts its
// cooldown.
func (x *Reindexer) admit(ctx context.Context, addressID string, chainID uint64) (bool, error) {
	now := time.Now()
	if x.Now != nil {
		now = x.Now()
	}
	cooldown := x.Cooldown
	if cooldown <= 0 {
		cooldown = DefaultReindexCooldown
	}
	return x.Scanner.Store.AdmitDepositAddressReindex(ctx, addressID, chainID, now, cooldown)
}

// ReindexTxHash is the transaction hash of the payment a reindex records at block head:
// sha256("intentd:deposit-address-reindex:<chain>:<address>:<currency>:<head>"), lower-case
// addresses, 0x-hex: 32 bytes like a transaction hash, and no transaction's (an EVM
// transaction's hash is a keccak256 of its encoding; this one is another function's, of text).
func ReindexTxHash(chainID uint64, address, currency string, head uint64) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "intentd:deposit-address-reindex:%d:%s:%s:%d", chainID, strings.ToLower(address),
		strings.ToLower(currency), head))
	return fmt.Sprintf("0x%x", sum)
}
