package perps

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// PaymentStore keeps the family's payments (store.Store, table perps_payments).
type PaymentStore interface {
	PerpsPayment(ctx context.Context, requestID string, kind intent.TxKind) (*store.PerpsPayment, error)
	NextPerpsNonce(ctx context.Context, signer string, now time.Time) (uint64, error)
	KeepPerpsPayment(ctx context.Context, p store.PerpsPayment) (*store.PerpsPayment, bool, error)
}

// SignatureChainID is the chain id the solver's actions are signed for: the exchange accepts a
// signature made for any EVM chain that names it (signatureChainId); Ethereum's, as the spec's
// default for the nonce mapping.
const SignatureChainID = 1

// Payout is the perps family's chains.Payout: a fill is a sendAsset action out of the solver's
// exchange account (the solver's EVM address) to the recipient's, signed with the solver's key
// under a nonce of its own, kept (store.KeepPerpsPayment) before it is posted, and posted again
// as kept by a retry. The exchange applies an action once per signer and nonce and at once: so
// the kept action is the payment, paid at most once; a post that fails is posted again, never
// signed anew. A refund (of a withdrawal) is the same out of the depository account, signed with
// its key (WithDepository).
type Payout struct {
	clients    *chains.Clients
	store      PaymentStore
	solver     *ecdsa.PrivateKey
	depository *ecdsa.PrivateKey // the depository account's key: refunds; nil refuses them
	now        func() time.Time
}

var _ chains.Payout = (*Payout)(nil)

// NewPayout returns the payout of the perps chains of cs, signing fills with solver's key and
// keeping them in store.
func NewPayout(cs *chains.Clients, store PaymentStore, solver *ecdsa.PrivateKey) *Payout {
	return &Payout{clients: cs, store: store, solver: solver, now: time.Now}
}

// WithDepository makes p pay refunds out of the depository account whose key is key (the chain
// file's depository); nil refuses them, for an operator.
func (p *Payout) WithDepository(key *ecdsa.PrivateKey) *Payout {
	p.depository = key
	return p
}

func (p *Payout) client(chainID uint64) (*Client, error) {
	return chains.Capability[*Client](p.clients, chainID)
}

// exchangeOf is how the chain's exchange names itself (the chain file's exchange word).
func exchangeOf(ch *chains.Chain) Exchange { return Exchange{Word: ch.Exchange} }

// Pay signs the fill once, keeps it and posts it; a retry posts the kept action again. Before
// the signing, Check is given the activation fee the recipient's first credit costs the solver
// (zero for an account that exists), and the solver's balance must cover the amount and that
// fee (chains.ErrInsufficientFunds otherwise): nothing is kept then.
func (p *Payout) Pay(ctx context.Context, pay chains.Payment) (*chains.PayoutSent, error) {
	c, err := p.client(pay.ChainID)
	if err != nil {
		return nil, err
	}
	kept, err := p.store.PerpsPayment(ctx, pay.RequestID, pay.Kind)
	if errors.Is(err, intent.ErrNotFound) && pay.Kind != intent.TxKindFill {
		// The depository has no once-only payout id: a refund after the request's other refund
		// (automatic, then manual, or the other way round) is for an operator to decide.
		other := intent.TxKindManualRefund
		if pay.Kind == intent.TxKindManualRefund {
			other = intent.TxKindRefund
		}
		if _, oerr := p.store.PerpsPayment(ctx, pay.RequestID, other); oerr == nil {
			return nil, fmt.Errorf("%w: the request's %s on the exchange is kept already", chains.ErrPayoutRefused, other)
		} else if !errors.Is(oerr, intent.ErrNotFound) {
			return nil, oerr
		}
	}
	if errors.Is(err, intent.ErrNotFound) {
		kept, err = p.signAndKeep(ctx, c, pay)
		if err != nil {
			// A refusal counts only while nothing is kept.
			if prev, lerr := p.store.PerpsPayment(ctx, pay.RequestID, pay.Kind); lerr == nil {
				kept, err = prev, nil
			} else if !errors.Is(lerr, intent.ErrNotFound) {
				return nil, lerr
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if err := c.postAction(ctx, kept); err != nil {
		return nil, err
	}
	return &chains.PayoutSent{TxHash: kept.TxHash}, nil
}

// signAndKeep checks the fill, signs it at a fresh nonce and keeps it.
func (p *Payout) signAndKeep(ctx context.Context, c *Client, pay chains.Payment) (*store.PerpsPayment, error) {
	ch := c.chain
	cur, ok := ch.FindCurrency(pay.Currency)
	if !ok {
		return nil, &chains.RevertError{Reason: fmt.Sprintf("currency %s is not listed on chain %d", pay.Currency, ch.ID)}
	}
	token, dex, err := tokenOf(ch, cur)
	if err != nil {
		return nil, err
	}
	fee := new(big.Int)
	fresh, err := c.IsNewAccount(ctx, pay.Recipient)
	if err != nil {
		return nil, err
	}
	if fresh {
		fee.Set(ActivationFee)
	}
	if pay.Check != nil {
		if err := pay.Check(ctx, fee); err != nil {
			return nil, err
		}
	}
	key := p.solver
	if pay.Kind != intent.TxKindFill {
		if key = p.depository; key == nil {
			return nil, fmt.Errorf("%w: no key of the depository account on chain %d (PERPS_DEPOSITORY_KEY)", chains.ErrPayoutRefused, ch.ID)
		}
		if !strings.EqualFold(crypto.PubkeyToAddress(key.PublicKey).Hex(), ch.Depository) {
			return nil, fmt.Errorf("%w: PERPS_DEPOSITORY_KEY is not the key of chain %d's depository %s", chains.ErrPayoutRefused, ch.ID, ch.Depository)
		}
	}
	solver := crypto.PubkeyToAddress(key.PublicKey).Hex() // the sender: the solver, or the depository for a refund
	held, err := c.BalanceNow(ctx, cur.Address, solver)
	if err != nil {
		return nil, err
	}
	need := new(big.Int).Set(pay.Amount)
	if strings.EqualFold(cur.Address, PerpsUSDCAddress) {
		need.Add(need, fee)
	}
	if held.Cmp(need) < 0 {
		return nil, fmt.Errorf("%w: %s holds %s of %s on the exchange, the %s needs %s", chains.ErrInsufficientFunds, solver, held, cur.Symbol, pay.Kind, need)
	}
	for try := 0; ; try++ {
		nonce, err := p.store.NextPerpsNonce(ctx, solver, p.now())
		if err != nil {
			return nil, err
		}
		act, err := signSendAsset(key, exchangeOf(ch), SignatureChainID, SendAsset{
			Destination: strings.ToLower(pay.Recipient), SourceDex: dex, DestinationDex: dex,
			Token: token, Amount: FormatAmount(pay.Amount, cur.Decimals), Nonce: nonce,
		})
		if err != nil {
			return nil, err
		}
		kept, _, err := p.store.KeepPerpsPayment(ctx, store.PerpsPayment{RequestID: pay.RequestID, Kind: pay.Kind, ChainID: ch.ID,
			Signer: solver, Nonce: nonce, Action: act.Body, Signature: act.Sig, TxHash: act.Digest})
		if errors.Is(err, store.ErrPerpsNonceTaken) && try < 5 {
			continue
		}
		return kept, err
	}
}

// tokenOf is the exchange's token string of a listed currency ("USDC:0x<token id>") and the
// balance it moves between ("" the perps balance, "spot" the spot one, a HIP-3 DEX's name for
// that DEX's). The perps USDC is moved as USDC's spot token id out of the perps balance; a DEX's
// token is named by its 16-byte token id, as the exchange names it, its DEX in the dex fields.
func tokenOf(ch *chains.Chain, cur chains.Currency) (token, dex string, err error) {
	if !strings.EqualFold(cur.Address, PerpsUSDCAddress) {
		id, dex, err := SplitCurrency(cur.Address)
		if err != nil {
			return "", "", fmt.Errorf("%w: chain %d lists %v", chains.ErrPayoutRefused, ch.ID, err)
		}
		if dex == "" {
			dex = SpotDex
		}
		return cur.Symbol + ":" + id, dex, nil
	}
	for _, c := range ch.ERC20 {
		if id, dex, err := SplitCurrency(c.Address); err == nil && dex == "" && c.Symbol == "USDC" && !strings.EqualFold(c.Address, PerpsUSDCAddress) {
			return "USDC:" + id, "", nil
		}
	}
	return "", "", fmt.Errorf("%w: chain %d lists no spot USDC, whose token id names the perps USDC in a sendAsset", chains.ErrPayoutRefused, ch.ID)
}

// postAction posts a kept action to /exchange. An action the exchange has applied already (its
// nonce used) is posted: the watch finds it in the ledger. Any other refusal is unavailable for
// now: the kept action is posted again later, never signed anew.
func (c *Client) postAction(ctx context.Context, kept *store.PerpsPayment) error {
	var body map[string]any
	if err := json.Unmarshal(kept.Action, &body); err != nil {
		return fmt.Errorf("%w: %v", chains.ErrStoredCorrupt, err)
	}
	var out struct {
		Status   string          `json:"status"`
		Response json.RawMessage `json:"response"`
	}
	if err := c.post(ctx, "/exchange", body, &out); err != nil {
		return err
	}
	if out.Status == "ok" {
		return nil
	}
	msg := strings.Trim(string(out.Response), `"`)
	if strings.Contains(strings.ToLower(msg), "nonce") {
		return nil // applied before (or never will be): the ledger says which
	}
	return &chains.Error{Kind: chains.ErrUnavailable, ChainID: c.chain.ID, Op: "sendAsset", Err: fmt.Errorf("the exchange refused the action: %s", msg)}
}

// Stored returns the request's kept payment.
func (p *Payout) Stored(ctx context.Context, requestID string, kind intent.TxKind) (*chains.PayoutSent, error) {
	kept, err := p.store.PerpsPayment(ctx, requestID, kind)
	if err != nil {
		return nil, err
	}
	return &chains.PayoutSent{TxHash: kept.TxHash}, nil
}

// Replace posts the kept action again: the exchange applies it once or never, so there is
// nothing to replace it with (the answer is the same attempt, never final).
func (p *Payout) Replace(ctx context.Context, r chains.Replacement) (*chains.Replaced, error) {
	c, err := p.client(r.ChainID)
	if err != nil {
		return nil, err
	}
	kept, err := p.store.PerpsPayment(ctx, r.RequestID, r.Kind)
	if err != nil {
		return nil, err
	}
	if err := c.postAction(ctx, kept); err != nil {
		return nil, err
	}
	return &chains.Replaced{TxHash: kept.TxHash, Attempt: r.After}, nil
}

// Watch watches the ledger of the kept action's signer for the transfer its nonce made.
func (p *Payout) Watch(w chains.WatchPayment) chains.InclusionWatch {
	return &watch{p: p, w: w}
}

type watch struct {
	p        *Payout
	w        chains.WatchPayment
	kept     *store.PerpsPayment // read once: a kept action never changes
	lastPost time.Time
}

// Check reads the signer's transfers since the action was kept and answers the one with its
// nonce; while there is none it posts the action again every two seconds.
func (w *watch) Check(ctx context.Context) (*chains.Included, error) {
	c, err := w.p.client(w.w.ChainID)
	if err != nil {
		return nil, err
	}
	if w.kept == nil {
		if w.kept, err = w.p.store.PerpsPayment(ctx, w.w.RequestID, w.w.Kind); err != nil {
			return nil, err
		}
	}
	kept := w.kept
	ledger, err := c.Ledger(ctx, kept.Signer, kept.CreatedAt.Add(-time.Minute))
	if err != nil {
		return nil, err
	}
	for _, e := range ledger {
		if e.Type == "send" && e.Nonce == kept.Nonce && strings.EqualFold(e.User, kept.Signer) {
			sec := e.Time.Unix()
			return &chains.Included{Block: uint64(sec), Timestamp: sec, Success: true, Fee: feeOf(e).String(),
				Hash: kept.TxHash, Attempts: []string{kept.TxHash}}, nil
		}
	}
	if time.Since(w.lastPost) > 2*time.Second {
		w.lastPost = time.Now()
		_ = c.postAction(ctx, kept)
	}
	return nil, nil
}
