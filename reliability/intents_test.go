package reliability

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/deposits"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/testkit/e2e"
)

// intentCase is one intent of a scenario: what the client asks for and pays, and what happened.
type intentCase struct {
	Index   int
	Account int
	// Kind is eth, usdc, eth-underpaid, eth-da (a strict deposit address paid by a plain
	// transfer), sol-dest, sol-origin, gasless (USDC from a fresh key without ETH, relayed by
	// the engine through POST /execute; gasless_test.go), perps-deposit or perps-withdrawal (to
	// or from the local perps exchange; perps_test.go).
	Kind string
	// USDC is, for sol-dest and sol-origin, USDC → USDC rather than the chains' native coins
	// (ETH → SOL, SOL → ETH).
	USDC      bool
	Amount    *big.Int // quoted input
	Recipient common.Address
	RefundTo  common.Address
	Hint      bool
	// DepositAddress is, for eth-da, the strict address the quote named and the plain transfer paid.
	DepositAddress common.Address
	// Excess, for some eth-da intents, is paid beyond the quote: the quote is filled and the
	// excess refunded to refundTo as a leg of its own (INCORRECT_PAYMENT, ExcessLegID).
	Excess *big.Int
	// SolRecipient (sol-dest) and SolRefundTo (sol-origin) are fresh Solana wallets derived from
	// the seed: their balances after the run are exactly what the engine paid them.
	SolRecipient, SolRefundTo solanago.PublicKey
	// GaslessUser is, for gasless, the fresh key's address (gaslessKey): it holds no ETH ever.
	GaslessUser common.Address
	// RelayUSD is, for gasless, what its mined relay's gas is worth (set by the checks).
	RelayUSD decimal.Decimal
	// PerpsKnown is, for some perps-deposit intents, the perps USDC credited to the recipient on
	// the exchange before the quote, so that the exchange knows it (no activation fee); nil for a
	// recipient that has never held anything.
	PerpsKnown *big.Int
	// PerpsDeposit is, for perps-withdrawal, the hash of the user's sendAsset on the exchange.
	PerpsDeposit string

	RequestID   string
	OrderID     common.Hash
	CurrencyOut common.Address
	AmountOut   *big.Int
	Deposited   *big.Int
	DepositTx   common.Hash
	SolDeposit  string // sol-origin: the deposit's Solana signature, base58
	DepositedAt time.Time
	EndedAt     time.Time
	// Closed is set when the workflow closed while the read model still showed the request in
	// flight: it will never end.
	Closed string
	Err    error
}

// ExcessLegID is the refund request of the intent's excess (deposits.ExcessTxHash of its plain
// transfer), "" when it paid none.
func (c *intentCase) ExcessLegID() string {
	if c.Excess == nil {
		return ""
	}
	return intent.DepositRefundRequestID(31337, deposits.ExcessTxHash(31337, c.DepositTx.Hex(), intent.NativeTransferLogIndex), 0)
}

// solana says whether the intent crosses to or from the local Solana chain.
func (c *intentCase) solana() bool { return c.Kind == "sol-dest" || c.Kind == "sol-origin" }

// deposit names the intent's deposit transaction: the EVM hash, or the Solana signature.
func (c *intentCase) deposit() string {
	if c.SolDeposit != "" {
		return c.SolDeposit
	}
	if c.PerpsDeposit != "" {
		return c.PerpsDeposit
	}
	return c.DepositTx.Hex()
}

// solCurrency is the intent's currency on the Solana chain (sol-dest, sol-origin): SOL's System
// Program id or the local USDC mint, base58.
func (c *intentCase) solCurrency() string {
	if c.USDC {
		return svm.USDCMint.String()
	}
	return solana.NativeAddress
}

// currency is the intent's currency on its EVM chain (31337 and 31338; for the Solana kinds,
// 31337's side).
func (c *intentCase) currency() common.Address {
	if c.Kind == "usdc" || c.Kind == "gasless" || c.perps() || (c.solana() && c.USDC) {
		return devnet.USDCAddress
	}
	return common.Address{}
}

// wantStatus is how the intent must end.
func (c *intentCase) wantStatus() string {
	if c.Kind == "eth-underpaid" {
		return "refund"
	}
	return "success"
}

// freshAddress is an address no one uses, derived from the seed: its balance after the run is
// exactly what the engine paid it.
func freshAddress(seed int64, i int, role string) common.Address {
	return common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("reliability/%d/%d/%s", seed, i, role)))[12:])
}

// freshSolana is a Solana wallet no one uses, derived from the seed (an ed25519 key from a hash
// of seed, index and role): its balance after the run is exactly what the engine paid it.
func freshSolana(seed int64, i int, role string) solanago.PublicKey {
	k := sha256.Sum256([]byte(fmt.Sprintf("reliability/solana/%d/%d/%s", seed, i, role)))
	return solanago.PrivateKey(ed25519.NewKeyFromSeed(k[:])).PublicKey()
}

// planIntents draws the scenario's intents from its seed.
func planIntents(sc scenario) []*intentCase {
	r := rand.New(rand.NewPCG(uint64(sc.Seed), 0x1a7e27))
	g := rand.New(rand.NewPCG(uint64(sc.Seed), 0x9a51e55)) // the gasless draws
	p := rand.New(rand.NewPCG(uint64(sc.Seed), 0x9e295))   // the perps draws
	nPerps := 0
	bad := map[int]bool{}
	for _, i := range r.Perm(sc.Intents)[:sc.Bad] {
		bad[i] = true
	}
	out := make([]*intentCase, sc.Intents)
	for i := range out {
		c := &intentCase{Index: i, Account: i % sc.Accounts, Recipient: freshAddress(sc.Seed, i, "recipient"),
			RefundTo: freshAddress(sc.Seed, i, "refundTo"), Hint: r.Float64() < sc.HintShare}
		switch {
		case bad[i]:
			c.Kind = "eth-underpaid"
			c.Amount = new(big.Int).Mul(big.NewInt(50+r.Int64N(450)), big.NewInt(1e15)) // 0.05-0.5 ETH
		case sc.DepositAddressShare > 0 && r.Float64() < sc.DepositAddressShare:
			// Drawn only when the scenario has deposit addresses, so that the plans of the
			// others are what they were.
			c.Kind, c.Hint = "eth-da", false // the plain transfer is the scanner's to find
			c.Amount = new(big.Int).Mul(big.NewInt(50+r.Int64N(450)), big.NewInt(1e15))
			if r.IntN(3) == 0 { // a third pay more than quoted: 0.005-0.05 ETH, worth its leg
				c.Excess = new(big.Int).Mul(big.NewInt(5+r.Int64N(46)), big.NewInt(1e15))
			}
		case sc.SolanaShare > 0 && r.Float64() < sc.SolanaShare:
			// Issue 36, "Done when": Solana intents in the reliability suite. Drawn only when the
			// scenario has them, as deposit addresses are.
			c.Kind, c.USDC = "sol-dest", r.IntN(2) == 0
			if r.IntN(2) == 0 {
				c.Kind, c.Hint = "sol-origin", false // the scanner finds it by the vault's signatures
			}
			c.SolRecipient, c.SolRefundTo = freshSolana(sc.Seed, i, "recipient"), freshSolana(sc.Seed, i, "refundTo")
			switch {
			case c.USDC:
				c.Amount = new(big.Int).Mul(big.NewInt(20+r.Int64N(280)), big.NewInt(1e6)) // 20-300 USDC
			case c.Kind == "sol-dest":
				c.Amount = new(big.Int).Mul(big.NewInt(50+r.Int64N(450)), big.NewInt(1e15)) // 0.05-0.5 ETH
			default:
				c.Amount = new(big.Int).Mul(big.NewInt(50+r.Int64N(450)), big.NewInt(1e7)) // 0.5-5 SOL
			}
		case r.IntN(2) == 0:
			c.Kind = "eth"
			c.Amount = new(big.Int).Mul(big.NewInt(50+r.Int64N(450)), big.NewInt(1e15))
		default:
			c.Kind = "usdc"
			c.Amount = new(big.Int).Mul(big.NewInt(20+r.Int64N(280)), big.NewInt(1e6)) // 20-300 USDC
		}
		if (c.Kind == "eth" || c.Kind == "usdc") && sc.GaslessShare > 0 && g.Float64() < sc.GaslessShare {
			// Issue 37, "Done when": gasless intents in the reliability suite. A share of the
			// plain eth and usdc intents, drawn from a generator of their own so that the other
			// intents of the plan are what they were. No hint: the relayed transaction is the
			// engine's own.
			c.Kind, c.Hint = "gasless", false
			c.Amount = new(big.Int).Mul(big.NewInt(20+g.Int64N(280)), big.NewInt(1e6)) // 20-300 USDC
		}
		if (c.Kind == "eth" || c.Kind == "usdc") && sc.PerpsShare > 0 && p.Float64() < sc.PerpsShare {
			// Issue 38, "Done when": perps intents in the reliability suite. A share of the plain
			// intents left, drawn from a generator of their own as the gasless ones are.
			// Deposits and withdrawals alternate: half of each.
			if nPerps++; nPerps%2 == 1 {
				c.Kind = "perps-deposit"
				c.Amount = new(big.Int).Mul(big.NewInt(20+p.Int64N(280)), big.NewInt(1e6)) // 20-300 USDC
				if p.IntN(2) == 0 {
					// A recipient the exchange knows: 0.01-1 perps USDC credited before the quote.
					c.PerpsKnown = big.NewInt(1_000_000 + p.Int64N(99_000_000))
				}
			} else {
				c.Kind, c.Hint = "perps-withdrawal", false                                 // its deposit is a transfer on the exchange
				c.Amount = new(big.Int).Mul(big.NewInt(20+p.Int64N(280)), big.NewInt(1e8)) // 20-300 perps USDC
			}
		}
		out[i] = c
	}
	return out
}

// quoteWithRetry asks for a quote until it is given: Postgres may be down for a while.
func (r *rig) quoteWithRetry(ctx context.Context, body map[string]any) (*quote.Response, error) {
	deadline := time.Now().Add(90 * time.Second)
	for {
		q, err := r.API.Quote(ctx, body)
		if err == nil {
			return q, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, err
		}
		sleep(ctx, 500*time.Millisecond)
	}
}

// deposit quotes one intent and pays for it from its account: the quote's steps, or half the
// quoted ETH for an underpaid one.
func (r *rig) deposit(ctx context.Context, c *intentCase) error {
	if c.solana() {
		return r.depositSolana(ctx, c)
	}
	if c.Kind == "gasless" {
		return r.depositGasless(ctx, c)
	}
	if c.perps() {
		return r.depositPerps(ctx, c)
	}
	acct := devnet.TestAccounts()[c.Account]
	cur := c.currency()
	body := map[string]any{"user": acct.Address.Hex(), "recipient": c.Recipient.Hex(),
		"refundTo": c.RefundTo.Hex(), "originChainId": 31337, "destinationChainId": 31338, "originCurrency": cur.Hex(),
		"destinationCurrency": cur.Hex(), "amount": c.Amount.String(), "tradeType": "EXACT_INPUT", "includeProtocolData": true}
	if c.Kind == "eth-da" {
		body["useDepositAddress"], body["strict"] = true, true
	}
	q, err := r.quoteWithRetry(ctx, body)
	if err != nil {
		return fmt.Errorf("quote: %w", err)
	}
	c.RequestID = q.RequestID
	if err := r.stream.follow(ctx, c.RequestID); err != nil {
		return fmt.Errorf("websocket subscribe: %w", err)
	}
	c.OrderID = common.HexToHash(q.Protocol.V2.OrderID)
	c.CurrencyOut = cur
	c.AmountOut, _ = new(big.Int).SetString(q.Details.CurrencyOut.Amount, 10)
	wallet := &e2e.Wallet{Key: acct.Key, RPCs: r.RPCs}
	if c.Kind == "eth-da" {
		// The step's one item is the plain transfer to the address: no calldata.
		if len(q.Steps) != 1 || q.Steps[0].DepositAddress == "" || len(q.Steps[0].Items) != 1 || q.Steps[0].Items[0].Data.Data != "0x" {
			return errors.New("the deposit-address quote is not one plain transfer to an address")
		}
		c.DepositAddress = common.HexToAddress(q.Steps[0].DepositAddress)
		pay := q.Steps[0].Items[0].Data
		if c.Excess != nil {
			v, _ := new(big.Int).SetString(pay.Value, 10)
			pay.Value = v.Add(v, c.Excess).String()
		}
		rc, err := wallet.SendTx(ctx, pay)
		if err != nil {
			return fmt.Errorf("plain transfer to the deposit address: %w", err)
		}
		c.Deposited = new(big.Int).Set(c.Amount)
		c.DepositTx = rc.TxHash
	} else if c.Kind == "eth-underpaid" {
		var d *quote.TxData
		for _, s := range q.Steps {
			if s.ID == "deposit" {
				d = &s.Items[0].Data
			}
		}
		if d == nil {
			return errors.New("the quote has no deposit step")
		}
		v, _ := new(big.Int).SetString(d.Value, 10)
		c.Deposited = new(big.Int).Div(v, big.NewInt(2))
		d.Value = c.Deposited.String()
		rc, err := wallet.SendTx(ctx, *d)
		if err != nil {
			return fmt.Errorf("underpaid deposit: %w", err)
		}
		c.DepositTx = rc.TxHash
	} else {
		rc, err := wallet.ExecuteSteps(ctx, q)
		if err != nil {
			return fmt.Errorf("steps: %w", err)
		}
		c.Deposited = new(big.Int).Set(c.Amount)
		c.DepositTx = rc.TxHash
	}
	c.DepositedAt = time.Now()
	if c.Hint {
		// The API's router signals the workflow too; it may fail while Postgres is down, and the
		// scanner finds the deposit anyway.
		_, _ = r.API.Do(ctx, http.MethodPost, "/transactions/index", map[string]any{"chainId": 31337, "txHash": c.DepositTx.Hex()}, nil)
	}
	return nil
}

// depositSolana quotes a sol-dest or sol-origin intent and pays it as a wallet does: sol-dest
// from the EVM test account (the quote's steps on 31337), sol-origin from the Solana test
// account of the same index (the quote's Solana steps, e2e.SolanaWallet). Each account pays its
// intents one after another.
func (r *rig) depositSolana(ctx context.Context, c *intentCase) error {
	var body map[string]any
	if c.Kind == "sol-dest" {
		body = map[string]any{"user": devnet.TestAccounts()[c.Account].Address.Hex(), "recipient": c.SolRecipient.String(),
			"refundTo": c.RefundTo.Hex(), "originChainId": 31337, "destinationChainId": solana.ChainID,
			"originCurrency": c.currency().Hex(), "destinationCurrency": c.solCurrency()}
	} else {
		body = map[string]any{"user": svm.TestAccounts()[c.Account].PublicKey.String(), "recipient": c.Recipient.Hex(),
			"refundTo": c.SolRefundTo.String(), "originChainId": solana.ChainID, "destinationChainId": 31337,
			"originCurrency": c.solCurrency(), "destinationCurrency": c.currency().Hex()}
	}
	body["amount"], body["tradeType"], body["includeProtocolData"] = c.Amount.String(), "EXACT_INPUT", true
	q, err := r.quoteWithRetry(ctx, body)
	if err != nil {
		return fmt.Errorf("quote: %w", err)
	}
	c.RequestID = q.RequestID
	if err := r.stream.follow(ctx, c.RequestID); err != nil {
		return fmt.Errorf("websocket subscribe: %w", err)
	}
	c.OrderID = common.HexToHash(q.Protocol.V2.OrderID)
	c.CurrencyOut = c.currency()
	c.AmountOut, _ = new(big.Int).SetString(q.Details.CurrencyOut.Amount, 10)
	if c.Kind == "sol-dest" {
		wallet := &e2e.Wallet{Key: devnet.TestAccounts()[c.Account].Key, RPCs: r.RPCs}
		rc, err := wallet.ExecuteSteps(ctx, q)
		if err != nil {
			return fmt.Errorf("steps: %w", err)
		}
		c.DepositTx = rc.TxHash
	} else {
		wallet := &e2e.SolanaWallet{Key: svm.TestAccounts()[c.Account].PrivateKey, RPC: rpc.New(r.Solana.RPCURL)}
		sig, err := wallet.ExecuteSteps(ctx, q)
		if err != nil {
			return fmt.Errorf("Solana steps: %w", err)
		}
		c.SolDeposit = sig.String()
	}
	c.Deposited = new(big.Int).Set(c.Amount)
	c.DepositedAt = time.Now()
	if c.Hint {
		_, _ = r.API.Do(ctx, http.MethodPost, "/transactions/index", map[string]any{"chainId": 31337, "txHash": c.DepositTx.Hex()}, nil)
	}
	return nil
}
