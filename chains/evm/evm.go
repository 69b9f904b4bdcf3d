// Package evm is the EVM chain family: the engine's client for EVM chains (VM, plugged into
// chains.Clients), a thin layer over go-ethereum's ethclient that knows the project's contracts
// (depository deposits, output-settler fills), builds what the user sends for a quote (the
// chains.Steps port: approve and deposit calldata, fill gas, fill simulations), reads
// Chainlink-style price feeds (chains.PriceFeedReader), writes the family's addresses and
// transaction ids (chains.Notation, registered when the package is linked), caches what a quote
// needs (gas price, balances, fill simulations), watches the head for waits, and classifies every
// RPC error into the chains vocabulary (chains.ErrUnavailable, chains.ErrNotFound,
// *chains.RevertError, chains.ErrInsufficientFunds, chains.ErrNonce). The raw ethclient never
// leaves the package: callers use the capability interfaces of package chains (in the engine's
// terms) and of this package (in go-ethereum's, capabilities.go), which *Client implements.
package evm

import (
	"context"
	"math/big"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/redact"
	"github.com/intentd/intentd/internal/refresh"
	"github.com/intentd/intentd/internal/sharedread"
)

// Contract ABIs, parsed once.
var (
	DepositoryABI    = bindings.NewDepository()
	OutputSettlerABI = bindings.NewOutputSettler()
	ERC20ABI         = bindings.NewTestUSDC()
	depositEventID   = DepositoryABI.GetABI().Events["Deposit"].ID
	sweptEventID     = DepositAddressFactoryABI.GetABI().Events["Swept"].ID
	fillEventID      = OutputSettlerABI.GetABI().Events["Fill"].ID
)

// Client talks to one EVM chain.
type Client struct {
	chain *chains.Chain
	eth   *ethclient.Client

	gasPrices *refresh.Cache[struct{}, *big.Int]
	balances  *refresh.Cache[balanceKey, *big.Int]
	fillSims  *refresh.Cache[fillSimKey, error]
	heads     *headWatcher

	headers     *lru.Cache[common.Hash, *types.Header] // read by hash (HeaderByHash)
	headerReads sharedread.Group
}

// The capabilities *Client has; callers ask chains.Capability for them.
var _ interface {
	chains.Client
	chains.HeadReader
	chains.HeadWatcher
	chains.DepositReader
	chains.BalanceReader
	chains.GasPricer
	chains.Steps
	chains.PriceFeedReader
	chains.Funding
	chains.DepositAddressReader
	chains.TxFactsReader
	ContractCaller
	TxReader
	TxSender
} = (*Client)(nil)

// VM is the EVM family for chains.NewClients: it opens a *Client for each chain of type evm.
func VM() chains.VM {
	return chains.VM{Type: chains.VMTypeEVM, Open: func(ch *chains.Chain) (chains.Client, error) {
		c, err := Dial(ch)
		if err != nil {
			return nil, err
		}
		return c, nil
	}}
}

// Dial returns a client for the chain's HTTP JSON-RPC endpoint (no request is made yet).
func Dial(ch *chains.Chain) (*Client, error) {
	rc, err := rpc.DialOptions(context.Background(), ch.HTTPRPCURL, rpc.WithHTTPClient(httpClient(ch.ID)))
	if err != nil {
		return nil, &chains.Error{Kind: chains.ErrUnavailable, ChainID: ch.ID, Op: "dial", Err: redact.Error(err)}
	}
	return newClient(ch, ethclient.NewClient(rc)), nil
}

func newClient(ch *chains.Chain, eth *ethclient.Client) *Client {
	c := &Client{chain: ch, eth: eth}
	c.gasPrices = refresh.New(c.loadGasPrice, refresh.Options{Fresh: gasPriceFresh, MaxAge: gasPriceMaxAge, ErrorTTL: time.Second})
	c.balances = refresh.New(c.loadBalance, refresh.Options{Fresh: 5 * time.Second, MaxAge: 30 * time.Second, ErrorTTL: time.Second})
	c.fillSims = refresh.New(c.simulateFill, refresh.Options{Fresh: fillSimFresh, MaxAge: fillSimMaxAge, ErrorTTL: time.Second})
	c.heads = newHeadWatcher(c.Head)
	c.headers = lru.NewCache[common.Hash, *types.Header](headerCacheSize)
	return c
}

// Chain is the registry entry the client was opened for.
func (c *Client) Chain() *chains.Chain { return c.chain }

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
	return p, c.classify("gas price", err)
}

// balanceKey names an account's balance of one currency (zero address: native).
type balanceKey struct{ currency, account common.Address }

// Balance returns an account's balance of a currency (zero address: native), cached for a few
// seconds: quotes report it for display only, never to decide anything.
func (c *Client) Balance(ctx context.Context, currency, account string) (*big.Int, error) {
	return c.balances.Get(ctx, balanceKey{common.HexToAddress(currency), common.HexToAddress(account)})
}

func (c *Client) loadBalance(ctx context.Context, k balanceKey) (*big.Int, error) {
	return c.balanceNow(ctx, k)
}

// BalanceNow reads an account's balance of a currency (zero address: native) from the chain,
// uncached: for decisions such as whether the solver can pay a fill.
func (c *Client) BalanceNow(ctx context.Context, currency, account string) (*big.Int, error) {
	return c.balanceNow(ctx, balanceKey{common.HexToAddress(currency), common.HexToAddress(account)})
}

func (c *Client) balanceNow(ctx context.Context, k balanceKey) (*big.Int, error) {
	if k.currency == (common.Address{}) {
		b, err := c.eth.BalanceAt(ctx, k.account, nil)
		return b, c.classify("balance", err)
	}
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &k.currency, Data: ERC20ABI.PackBalanceOf(k.account)})
	if err != nil {
		return nil, err
	}
	return ERC20ABI.UnpackBalanceOf(out)
}

// Allowance reads an ERC-20 allowance.
func (c *Client) Allowance(ctx context.Context, token, owner, spender common.Address) (*big.Int, error) {
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &token, Data: ERC20ABI.PackAllowance(owner, spender)})
	if err != nil {
		return nil, err
	}
	return ERC20ABI.UnpackAllowance(out)
}

// ParseDeposits extracts the depository's Deposit events from logs, in the engine's one shape of
// a deposit. A Deposit that a sweep of a deposit address made names the address in SweptFrom:
// the factory (when the chain has one) emits its Swept event right after the deposit address's
// call of the depository returns, so it is the log after the Deposit, in the same transaction,
// with the same order, depositor, currency and amount. Only the factory emits Swept, and only
// after a deposit address's deposit, so no other deposit is taken for a sweep's.
func ParseDeposits(chainID uint64, depository, factory common.Address, logs []types.Log) []intent.Deposit {
	var out []intent.Deposit
	for i := range logs {
		l := &logs[i]
		if l.Address != depository || len(l.Topics) == 0 || l.Topics[0] != depositEventID || l.Removed {
			continue
		}
		ev, err := DepositoryABI.UnpackDepositEvent(l)
		if err != nil {
			continue
		}
		d := intent.Deposit{ChainID: chainID, TxHash: l.TxHash.Hex(), LogIndex: l.Index, BlockNumber: l.BlockNumber,
			BlockHash: l.BlockHash.Hex(), OrderID: common.Hash(ev.OrderId).Hex(), Depositor: ev.Depositor.Hex(),
			Currency: ev.Currency.Hex(), Amount: ev.Amount.String(), Family: string(chains.VMTypeEVM)}
		if factory != (common.Address{}) && i+1 < len(logs) {
			d.SweptFrom = sweptFrom(ev, l, &logs[i+1], factory)
		}
		out = append(out, d)
	}
	return out
}

// sweptFrom is the deposit address whose sweep made the deposit ev (logged at l), when next is
// the factory's Swept event of that deposit; "" otherwise.
func sweptFrom(ev *bindings.DepositoryDeposit, l, next *types.Log, factory common.Address) string {
	if next.Address != factory || next.TxHash != l.TxHash || next.Index != l.Index+1 || next.Removed ||
		len(next.Topics) == 0 || next.Topics[0] != sweptEventID {
		return ""
	}
	sw, err := DepositAddressFactoryABI.UnpackSweptEvent(next)
	if err != nil || sw.OrderId != ev.OrderId || sw.Depositor != ev.Depositor || sw.Currency != ev.Currency ||
		sw.Amount.Cmp(ev.Amount) != 0 {
		return ""
	}
	return sw.DepositAddress.Hex()
}

// depositLogs is the filter of a range's deposits: the depository's Deposit events and, on a
// chain with a deposit-address factory, its Swept events, which say which deposits are sweeps
// (one query all the same).
func (c *Client) depositLogs(from, to *big.Int) ethereum.FilterQuery {
	q := ethereum.FilterQuery{FromBlock: from, ToBlock: to, Addresses: []common.Address{common.HexToAddress(c.chain.Depository)},
		Topics: [][]common.Hash{{depositEventID}}}
	if f := c.factory(); f != (common.Address{}) {
		q.Addresses, q.Topics = append(q.Addresses, f), [][]common.Hash{{depositEventID, sweptEventID}}
	}
	return q
}

// factory is the chain's deposit-address factory, the zero address when it has none.
func (c *Client) factory() common.Address {
	if c.chain.DepositAddressFactory == "" {
		return common.Address{}
	}
	return common.HexToAddress(c.chain.DepositAddressFactory)
}

// Deposits returns the depository's Deposit events in blocks [from, to].
func (c *Client) Deposits(ctx context.Context, from, to uint64) ([]intent.Deposit, error) {
	logs, err := c.eth.FilterLogs(ctx, c.depositLogs(new(big.Int).SetUint64(from), new(big.Int).SetUint64(to)))
	if err != nil {
		return nil, c.classify("filter logs", err)
	}
	return ParseDeposits(c.chain.ID, common.HexToAddress(c.chain.Depository), c.factory(), logs), nil
}

// DepositsInTx returns the depository's Deposit events of one transaction (0x-hex hash);
// chains.ErrNotFound when the transaction has no receipt yet.
func (c *Client) DepositsInTx(ctx context.Context, tx string) ([]intent.Deposit, error) {
	r, err := c.Receipt(ctx, common.HexToHash(tx))
	if err != nil {
		return nil, err
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return nil, nil
	}
	return ParseDeposits(c.chain.ID, common.HexToAddress(c.chain.Depository), c.factory(), receiptLogs(r)), nil
}

// receiptLogs are a receipt's logs, by value.
func receiptLogs(r *types.Receipt) []types.Log {
	logs := make([]types.Log, 0, len(r.Logs))
	for _, l := range r.Logs {
		logs = append(logs, *l)
	}
	return logs
}

// Head returns the latest block number.
func (c *Client) Head(ctx context.Context) (uint64, error) {
	n, err := c.eth.BlockNumber(ctx)
	return n, c.classify("block number", err)
}

// BlockHash returns the canonical hash of a block, 0x-hex; chains.ErrNotFound when there is
// none.
func (c *Client) BlockHash(ctx context.Context, number uint64) (string, error) {
	h, err := c.eth.HeaderByNumber(ctx, new(big.Int).SetUint64(number))
	if err != nil {
		return "", c.classify("header", err)
	}
	return h.Hash().Hex(), nil
}

// CallContract runs a read-only call against the latest block; a *chains.RevertError when the
// call reverts.
func (c *Client) CallContract(ctx context.Context, msg ethereum.CallMsg) ([]byte, error) {
	out, err := c.eth.CallContract(ctx, msg, nil)
	return out, c.classify("call", err)
}

// FillCalldata encodes the output settler call that pays `amount` of `currency` to recipient
// for orderID, and the native value to send with it.
func FillCalldata(orderID common.Hash, currency, recipient common.Address, amount *big.Int) (data []byte, value *big.Int) {
	if currency == (common.Address{}) {
		return OutputSettlerABI.PackFillNative(orderID, recipient), new(big.Int).Set(amount)
	}
	return OutputSettlerABI.PackFillErc20(orderID, currency, recipient, amount), new(big.Int)
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
