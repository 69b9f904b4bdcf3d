package solana

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/httpclient"
	"github.com/intentd/intentd/internal/redact"
	"github.com/intentd/intentd/internal/refresh"
)

// The Solana family's client: the engine's reads of a Solana chain over its JSON-RPC (solana-go's
// rpc client, which never leaves the package), in the engine's terms (package chains).
//
// What a "block" is. The engine counts blocks (HeadReader.Head, Deposit.BlockNumber, a chain's
// confirmations); on Solana the client counts slots. A slot is what every answer of the RPC
// names a transaction by (getSignaturesForAddress, getTransaction, getSignatureStatuses), so a
// deposit's BlockNumber and the head are on one scale without a second read; block height (the
// count of slots that produced a block) skips the empty ones, is reported by none of those
// answers, and would need a getBlock per deposit to be known. Slots pass at a fixed pace (400 ms;
// a skipped slot is a slot with no block, never a reorg of the ones before), so confirmations
// counted in slots are a time, as they are in blocks on an EVM chain. Everything is read at
// commitment "confirmed" (a supermajority voted on it; the RPC's transaction history starts
// there), so Head is the newest slot Deposits can see.

// commitment is the commitment every read is made at (see above).
const commitment = rpc.CommitmentConfirmed

// rpcTimeout bounds one JSON-RPC request, whatever the caller's context allows.
const rpcTimeout = 30 * time.Second

// Client talks to one Solana chain.
type Client struct {
	chain *chains.Chain
	rpc   *rpc.Client

	fees     *refresh.Cache[struct{}, *big.Int]
	balances *refresh.Cache[balanceKey, *big.Int]
	fillSims *refresh.Cache[fillSimKey, error]
	seenHead atomic.Uint64 // the last head Head read (heads.go)
}

// The capabilities *Client has; callers ask chains.Capability for them.
var _ interface {
	chains.Client
	chains.HeadReader
	chains.HeadWatcher
	chains.BalanceReader
	chains.GasPricer
	chains.Steps
	chains.Funding
	chains.TxFactsReader
} = (*Client)(nil)

// Dial returns a client for the chain's HTTP JSON-RPC endpoint (no request is made yet).
func Dial(ch *chains.Chain) (*Client, error) {
	if ch.HTTPRPCURL == "" {
		return nil, &chains.Error{Kind: chains.ErrUnavailable, ChainID: ch.ID, Op: "dial", Err: errors.New("the chain has no httpRpcUrl")}
	}
	c := &Client{chain: ch, rpc: rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(ch.HTTPRPCURL, &jsonrpc.RPCClientOpts{
		HTTPClient: httpclient.New(rpcTimeout),
	}))}
	c.fees = refresh.New(c.loadFee, refresh.Options{Fresh: feeFresh, MaxAge: feeMaxAge, ErrorTTL: time.Second})
	c.balances = refresh.New(c.loadBalance, refresh.Options{Fresh: 5 * time.Second, MaxAge: 30 * time.Second, ErrorTTL: time.Second})
	c.fillSims = refresh.New(c.simulateFill, refresh.Options{Fresh: fillSimFresh, MaxAge: fillSimMaxAge, ErrorTTL: time.Second})
	return c, nil
}

// Chain is the registry entry the client was opened for.
func (c *Client) Chain() *chains.Chain { return c.chain }

// Close releases the client's connections.
func (c *Client) Close() error { return c.rpc.Close() }

// Head returns the newest slot at commitment confirmed: the engine's block number on Solana (see
// the top of this file).
func (c *Client) Head(ctx context.Context) (uint64, error) {
	s, err := c.rpc.GetSlot(ctx, commitment)
	if err == nil {
		c.seenHead.Store(s)
	}
	return s, c.classify("get slot", err)
}

// BlockHash returns the blockhash of the block produced in a slot (getBlock), base58; for slot
// 0, the genesis hash (getGenesisHash), which names the chain itself: a local chain's is new at
// every start, so a cursor kept against another run is seen as such. chains.ErrNotFound when the
// slot was skipped or is not available; a *chains.Error of kind chains.ErrUnsupported when the
// node serves no getBlock (the devnet's local chain, devnet/svm, serves it with
// transactionDetails "none").
func (c *Client) BlockHash(ctx context.Context, number uint64) (string, error) {
	if number == 0 {
		h, err := c.rpc.GetGenesisHash(ctx)
		if err != nil {
			return "", c.classify("get genesis hash", err)
		}
		return h.String(), nil
	}
	none, no := rpc.TransactionDetailsNone, false
	b, err := c.rpc.GetBlockWithOpts(ctx, number, &rpc.GetBlockOpts{TransactionDetails: none, Rewards: &no, Commitment: commitment})
	if err != nil {
		return "", c.classify("get block", err)
	}
	if b == nil {
		return "", &chains.Error{Kind: chains.ErrNotFound, ChainID: c.chain.ID, Op: "get block", Err: fmt.Errorf("no block in slot %d", number)}
	}
	return b.Blockhash.String(), nil
}

// balanceKey names an account's balance of one currency (NativeAddress: SOL).
type balanceKey struct{ currency, account string }

// Balance returns an account's balance of a currency (NativeAddress: lamports; an SPL mint: base
// units over all the owner's token accounts of the mint), cached for a few seconds: for display,
// never to decide anything.
func (c *Client) Balance(ctx context.Context, currency, account string) (*big.Int, error) {
	return c.balances.Get(ctx, balanceKey{currency, account})
}

func (c *Client) loadBalance(ctx context.Context, k balanceKey) (*big.Int, error) {
	return c.BalanceNow(ctx, k.currency, k.account)
}

// BalanceNow reads an account's balance from the chain, uncached: SOL in lamports (NativeAddress),
// or an SPL token's in base units, summed over every token account of the mint the owner has
// (getTokenAccountsByOwner; an owner may hold more than its associated one), 0 when it has none.
func (c *Client) BalanceNow(ctx context.Context, currency, account string) (*big.Int, error) {
	owner, err := solanago.PublicKeyFromBase58(account)
	if err != nil {
		return nil, fmt.Errorf("account %q: %w", account, errNotAddress)
	}
	if currency == NativeAddress {
		b, err := c.rpc.GetBalance(ctx, owner, commitment)
		if err != nil {
			return nil, c.classify("get balance", err)
		}
		return new(big.Int).SetUint64(b.Value), nil
	}
	mint, err := solanago.PublicKeyFromBase58(currency)
	if err != nil {
		return nil, fmt.Errorf("currency %q: %w", currency, errNotAddress)
	}
	out, err := c.rpc.GetTokenAccountsByOwner(ctx, owner, &rpc.GetTokenAccountsConfig{Mint: &mint},
		&rpc.GetTokenAccountsOpts{Commitment: commitment, Encoding: solanago.EncodingBase64})
	if err != nil {
		return nil, c.classify("get token accounts by owner", err)
	}
	sum := new(big.Int)
	for _, a := range out.Value {
		if a == nil || a.Account.Data == nil {
			continue
		}
		amount, ok := tokenAccountAmount(a.Account.Data.GetBinary())
		if !ok {
			return nil, &chains.Error{Kind: chains.ErrUnavailable, ChainID: c.chain.ID, Op: "get token accounts by owner",
				Err: fmt.Errorf("token account %s: not an SPL token account", a.Pubkey)}
		}
		sum.Add(sum, new(big.Int).SetUint64(amount))
	}
	return sum, nil
}

// tokenAccountAmount reads the amount of an SPL token account (mint 32, owner 32, amount u64 LE).
func tokenAccountAmount(data []byte) (uint64, bool) {
	if len(data) < 72 {
		return 0, false
	}
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(data[64+i])
	}
	return v, true
}

// The fee of a transaction on Solana is LamportsPerSignature for each signature it carries plus
// its priority fee: the compute-unit price it offers (micro-lamports per compute unit) times the
// compute units it asks for. There is no gas price to bid beyond that: the base fee is fixed by
// the protocol, the priority fee is what makes a transaction go first when the leader is busy.
const (
	// LamportsPerSignature is the protocol's base fee per signature.
	LamportsPerSignature = 5_000
	// FillComputeUnits are the compute units a fill is priced with (its compute-unit limit): an
	// SPL transferChecked with an idempotent create of the recipient's associated token account
	// and a memo uses about 30,000 (a SOL transfer far less); this leaves room.
	FillComputeUnits = 60_000
)

// The fee is served refresh-ahead, as the EVM family's gas price is (see evm.gasPriceFresh).
const (
	feeFresh  = 3 * time.Second
	feeMaxAge = 30 * time.Second
)

// GasPrice (chains.GasPricer) is, on Solana, the fee of a transaction of one signature at the
// chain's current priority fee: LamportsPerSignature plus the median compute-unit price of the
// recent slots' landed transactions (getRecentPrioritizationFees) times FillComputeUnits, in
// lamports, rounded up. It is the unit FillCost multiplies by the fill's signatures.
func (c *Client) GasPrice(ctx context.Context) (*big.Int, error) {
	return c.fees.Get(ctx, struct{}{})
}

func (c *Client) loadFee(ctx context.Context, _ struct{}) (*big.Int, error) {
	fees, err := c.rpc.GetRecentPrioritizationFees(ctx, nil)
	if err != nil {
		return nil, c.classify("get recent prioritization fees", err)
	}
	return new(big.Int).SetUint64(LamportsPerSignature + priorityFee(medianFee(fees), FillComputeUnits)), nil
}

// priorityFee is the lamports a transaction asking for units compute units pays at price
// micro-lamports per unit, rounded up.
func priorityFee(price, units uint64) uint64 {
	return (price*units + 999_999) / 1_000_000
}

// medianFee is the median compute-unit price of the recent slots (0 when none is reported).
func medianFee(fees []rpc.PriorizationFeeResult) uint64 {
	if len(fees) == 0 {
		return 0
	}
	ps := make([]uint64, len(fees))
	for i, f := range fees {
		ps[i] = f.PrioritizationFee
	}
	for i := 1; i < len(ps); i++ { // insertion sort: at most 150 entries
		for j := i; j > 0 && ps[j] < ps[j-1]; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	return ps[len(ps)/2]
}

// JSON-RPC error codes of a Solana node that are not "try again": the thing asked for is not
// there (a skipped slot, a block or a slot not available, a pruned ledger).
const (
	codeBlockNotAvailable  = -32004
	codeSlotSkipped        = -32007
	codeNoSnapshot         = -32008
	codeLongTermStorage    = -32009
	codeMethodNotFound     = -32601
	codeTxVersionRequested = -32015
)

// classify turns the error of an RPC call (op names it) into the chains vocabulary, as the EVM
// family's does: a *chains.Error whose kind is chains.ErrNotFound (solana-go's rpc.ErrNotFound, a
// null result; a skipped or unavailable slot), chains.ErrUnsupported (a method the node does not
// serve), or chains.ErrUnavailable for everything else (a transport failure, a timeout, a node's
// internal error, a rate limit). nil stays nil. The RPC URL a transport failure quotes is redacted
// (internal/redact): it usually holds the provider's key, and every caller logs these errors.
func (c *Client) classify(op string, err error) error {
	if err == nil {
		return nil
	}
	return &chains.Error{Kind: kindOf(err), ChainID: c.chain.ID, Op: op, Err: redact.Error(err)}
}

func kindOf(err error) error {
	if errors.Is(err, rpc.ErrNotFound) {
		return chains.ErrNotFound
	}
	var coded *jsonrpc.RPCError
	if errors.As(err, &coded) {
		switch coded.Code {
		case codeBlockNotAvailable, codeSlotSkipped, codeNoSnapshot, codeLongTermStorage:
			return chains.ErrNotFound
		case codeMethodNotFound, codeTxVersionRequested:
			return chains.ErrUnsupported
		}
	}
	return chains.ErrUnavailable
}
