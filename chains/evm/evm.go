// Package evm is the engine's client for EVM chains: a thin layer over go-ethereum's ethclient
// that knows the project's contracts (depository deposits, output-settler fills), caches what a
// quote needs (gas price) and classifies errors so callers can tell a retryable RPC failure from
// a final answer.
package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/internal/refresh"
)

// Contract ABIs, parsed once.
var (
	DepositoryABI    = bindings.NewDepository()
	OutputSettlerABI = bindings.NewOutputSettler()
	ERC20ABI         = bindings.NewTestUSDC()
	depositEventID   = DepositoryABI.GetABI().Events["Deposit"].ID
	fillEventID      = OutputSettlerABI.GetABI().Events["Fill"].ID
)

// ErrUnavailable wraps RPC failures that are worth retrying (transport errors, timeouts).
var ErrUnavailable = errors.New("chain rpc unavailable")

// Client talks to one chain.
type Client struct {
	Chain *chains.Chain
	eth   *ethclient.Client

	gasPrices *refresh.Cache[struct{}, *big.Int]
	balances  *refresh.Cache[balanceKey, *big.Int]
	fillSims  *refresh.Cache[fillSimKey, error]
	heads     *headWatcher
}

// Pool holds one client per configured chain, dialled lazily and reused.
type Pool struct {
	registry *chains.Registry
	mu       sync.Mutex
	clients  map[uint64]*Client
}

// NewPool creates a pool over the registry.
func NewPool(r *chains.Registry) *Pool {
	return &Pool{registry: r, clients: make(map[uint64]*Client)}
}

// Registry returns the registry the pool serves.
func (p *Pool) Registry() *chains.Registry { return p.registry }

// Client returns the client for a chain id.
func (p *Pool) Client(chainID uint64) (*Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[chainID]; ok {
		return c, nil
	}
	ch, err := p.registry.Get(chainID)
	if err != nil {
		return nil, err
	}
	eth, err := ethclient.Dial(ch.HTTPRPCURL)
	if err != nil {
		return nil, fmt.Errorf("%w: dial chain %d: %v", ErrUnavailable, chainID, err)
	}
	c := newClient(ch, eth)
	p.clients[chainID] = c
	return c, nil
}

func newClient(ch *chains.Chain, eth *ethclient.Client) *Client {
	c := &Client{Chain: ch, eth: eth}
	c.gasPrices = refresh.New(c.loadGasPrice, refresh.Options{Fresh: gasPriceFresh, MaxAge: gasPriceMaxAge, ErrorTTL: time.Second})
	c.balances = refresh.New(c.loadBalance, refresh.Options{Fresh: 5 * time.Second, MaxAge: 30 * time.Second, ErrorTTL: time.Second})
	c.fillSims = refresh.New(c.simulateFill, refresh.Options{Fresh: fillSimFresh, MaxAge: fillSimMaxAge, ErrorTTL: time.Second})
	c.heads = newHeadWatcher(c.Head)
	return c
}

// Eth exposes the underlying ethclient for reads the engine does not wrap.
func (c *Client) Eth() *ethclient.Client { return c.eth }

func unavailable(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ethereum.NotFound) {
		return err
	}
	return fmt.Errorf("%w: %s on chain: %v", ErrUnavailable, op, err)
}

// Gas prices are served refresh-ahead: a price younger than gasPriceFresh is used as is, an
// older one (up to gasPriceMaxAge) while a background read replaces it. A quote therefore never
// waits on the chain for its gas price once the cache is warm, and a chain whose RPC has been
// down for longer than gasPriceMaxAge is reported unavailable rather than quoted on old data.
const (
	gasPriceFresh  = 3 * time.Second
	gasPriceMaxAge = 30 * time.Second
)

// GasPrice returns the chain's suggested gas price (see gasPriceFresh).
func (c *Client) GasPrice(ctx context.Context) (*big.Int, error) {
	return c.gasPrices.Get(ctx, struct{}{})
}

func (c *Client) loadGasPrice(ctx context.Context, _ struct{}) (*big.Int, error) {
	p, err := c.eth.SuggestGasPrice(ctx)
	return p, unavailable("gas price", err)
}

// balanceKey names an account's balance of one currency (zero address: native).
type balanceKey struct{ currency, account common.Address }

// Balance returns an account's balance of a currency (zero address: native), cached for a few
// seconds: quotes report it for display only, never to decide anything.
func (c *Client) Balance(ctx context.Context, currency, account common.Address) (*big.Int, error) {
	return c.balances.Get(ctx, balanceKey{currency, account})
}

func (c *Client) loadBalance(ctx context.Context, k balanceKey) (*big.Int, error) {
	return c.BalanceNow(ctx, k.currency, k.account)
}

// BalanceNow reads an account's balance of a currency (zero address: native) from the chain,
// uncached: for decisions such as whether the solver can pay a fill.
func (c *Client) BalanceNow(ctx context.Context, currency, account common.Address) (*big.Int, error) {
	k := balanceKey{currency, account}
	if k.currency == (common.Address{}) {
		b, err := c.eth.BalanceAt(ctx, k.account, nil)
		return b, unavailable("balance", err)
	}
	out, err := c.eth.CallContract(ctx, ethereum.CallMsg{To: &k.currency, Data: ERC20ABI.PackBalanceOf(k.account)}, nil)
	if err != nil {
		return nil, unavailable("balance", err)
	}
	return ERC20ABI.UnpackBalanceOf(out)
}

// Allowance reads an ERC-20 allowance.
func (c *Client) Allowance(ctx context.Context, token, owner, spender common.Address) (*big.Int, error) {
	out, err := c.eth.CallContract(ctx, ethereum.CallMsg{To: &token, Data: ERC20ABI.PackAllowance(owner, spender)}, nil)
	if err != nil {
		return nil, unavailable("allowance", err)
	}
	return ERC20ABI.UnpackAllowance(out)
}

// Deposit is a Deposit event of the depository.
type Deposit struct {
	ChainID     uint64
	TxHash      common.Hash
	LogIndex    uint
	BlockNumber uint64
	BlockHash   common.Hash
	OrderID     common.Hash
	Depositor   common.Address
	Currency    common.Address
	Amount      *big.Int
}

// ParseDeposits extracts the depository's Deposit events from logs.
func ParseDeposits(chainID uint64, depository common.Address, logs []types.Log) []Deposit {
	var out []Deposit
	for i := range logs {
		l := &logs[i]
		if l.Address != depository || len(l.Topics) == 0 || l.Topics[0] != depositEventID || l.Removed {
			continue
		}
		ev, err := DepositoryABI.UnpackDepositEvent(l)
		if err != nil {
			continue
		}
		out = append(out, Deposit{ChainID: chainID, TxHash: l.TxHash, LogIndex: l.Index, BlockNumber: l.BlockNumber,
			BlockHash: l.BlockHash, OrderID: ev.OrderId, Depositor: ev.Depositor, Currency: ev.Currency, Amount: ev.Amount})
	}
	return out
}

// Deposits returns the depository's Deposit events in blocks [from, to].
func (c *Client) Deposits(ctx context.Context, from, to uint64) ([]Deposit, error) {
	dep := common.HexToAddress(c.Chain.Depository)
	logs, err := c.eth.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to),
		Addresses: []common.Address{dep}, Topics: [][]common.Hash{{depositEventID}},
	})
	if err != nil {
		return nil, unavailable("filter logs", err)
	}
	return ParseDeposits(c.Chain.ID, dep, logs), nil
}

// DepositsInTx returns the depository's Deposit events of one transaction; ethereum.NotFound
// when the transaction has no receipt yet.
func (c *Client) DepositsInTx(ctx context.Context, tx common.Hash) ([]Deposit, error) {
	r, err := c.eth.TransactionReceipt(ctx, tx)
	if err != nil {
		return nil, unavailable("receipt", err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return nil, nil
	}
	logs := make([]types.Log, 0, len(r.Logs))
	for _, l := range r.Logs {
		logs = append(logs, *l)
	}
	return ParseDeposits(c.Chain.ID, common.HexToAddress(c.Chain.Depository), logs), nil
}

// Head returns the latest block number.
func (c *Client) Head(ctx context.Context) (uint64, error) {
	n, err := c.eth.BlockNumber(ctx)
	return n, unavailable("block number", err)
}

// BlockHash returns the canonical hash of a block.
func (c *Client) BlockHash(ctx context.Context, number uint64) (common.Hash, error) {
	h, err := c.eth.HeaderByNumber(ctx, new(big.Int).SetUint64(number))
	if err != nil {
		return common.Hash{}, unavailable("header", err)
	}
	return h.Hash(), nil
}

// Receipt returns a transaction receipt; ethereum.NotFound while it is not mined.
func (c *Client) Receipt(ctx context.Context, tx common.Hash) (*types.Receipt, error) {
	r, err := c.eth.TransactionReceipt(ctx, tx)
	return r, unavailable("receipt", err)
}

// NonceAt returns the account's nonce at the latest block.
func (c *Client) NonceAt(ctx context.Context, account common.Address) (uint64, error) {
	n, err := c.eth.NonceAt(ctx, account, nil)
	return n, unavailable("nonce", err)
}

// SendRaw broadcasts a signed transaction. A transaction the node already has is not an error.
func (c *Client) SendRaw(ctx context.Context, tx *types.Transaction) error {
	err := c.eth.SendTransaction(ctx, tx)
	if err == nil || isKnown(err) {
		return nil
	}
	return err
}

func isKnown(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "already known") || strings.Contains(msg, "known transaction") ||
		strings.Contains(msg, "nonce too low")
}

// FillCalldata encodes the output settler call that pays `amount` of `currency` to recipient
// for orderID, and the native value to send with it.
func FillCalldata(orderID common.Hash, currency, recipient common.Address, amount *big.Int) (data []byte, value *big.Int) {
	if currency == (common.Address{}) {
		return OutputSettlerABI.PackFillNative(orderID, recipient), new(big.Int).Set(amount)
	}
	return OutputSettlerABI.PackFillErc20(orderID, currency, recipient, amount), new(big.Int)
}

// FillGasEstimate is the gas a fill is quoted with; real fills are estimated at execution.
func FillGasEstimate(currency common.Address) uint64 {
	if currency == (common.Address{}) {
		return 60_000
	}
	return 90_000
}

// FillsInReceipt returns the order ids filled by a receipt's Fill events.
func FillsInReceipt(r *types.Receipt, settler common.Address) []common.Hash {
	var out []common.Hash
	for _, l := range r.Logs {
		if l.Address == settler && len(l.Topics) > 1 && l.Topics[0] == fillEventID {
			out = append(out, l.Topics[1])
		}
	}
	return out
}
