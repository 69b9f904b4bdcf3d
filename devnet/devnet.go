// Package devnet runs local EVM chains with the project's contracts deployed, for
// `intentd-dev devnet`, dev mode and tests.
//
// Each chain is a go-ethereum simulated backend (an in-process geth with a simulated beacon
// client) serving JSON-RPC over HTTP, so the service, wallets and scripts talk to it exactly as
// they would to a real node; its node also serves the debug namespace with go-ethereum's
// built-in tracers (debug_traceCall with callTracer, backend.go), which the simulated backend
// alone leaves out. On start every chain gets the same genesis funding, the same
// contracts at the same addresses (deployed by DeployerKey at its nonces 0, 1 and 2), the same
// USDC balances, two Chainlink-style USD price feeds (ETH/USD and USDC/USD, deployed after
// the funding), the factory of counterfactual deposit addresses (after the feeds) and the
// EIP-7702 batch executor (last), so
// configuration written once (configs/chains.dev.json) fits every run and a deposit address is
// the same on every chain. A heartbeat re-posts the feeds' answers every Options.FeedHeartbeat
// so that they stay fresh.
// State lives in memory only: a restart begins from a new genesis (a new chain, with the same
// contracts at the same addresses).
//
// Run (`intentd-dev devnet`) starts the local Solana chain of devnet/svm beside them when
// Options.Solana is set, and the local perps exchange of devnet/exchange (StartExchange) when
// Options.Exchange is.
//
// All keys in this package are public. They are for local chains only.
package devnet

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/devnet/exchange"
	"github.com/intentd/intentd/devnet/svm"
	// The devnet's chains are EVM chains: the family's notation reads their addresses when a
	// registry is made of them (Registry, ChainConfigs).
	_ "github.com/intentd/intentd/chains/evm"
)

// Contract addresses. The deployer deploys the three contracts at its nonces 0, 1 and 2 on a
// fresh chain, so they are the same on every devnet chain and across restarts, and the chain
// configuration can name them statically.
var (
	// DepositoryAddress is where the Depository (owner: SolverAddress) lives on every chain.
	DepositoryAddress = crypto.CreateAddress(DeployerAddress(), 0)
	// OutputSettlerAddress is where the OutputSettler lives on every chain.
	OutputSettlerAddress = crypto.CreateAddress(DeployerAddress(), 1)
	// USDCAddress is where TestUSDC (6 decimals, owner: DeployerAddress) lives on every chain.
	USDCAddress = crypto.CreateAddress(DeployerAddress(), 2)
)

// Price feed addresses. The feeds are Chainlink AggregatorV3Interface-compatible PriceFeed
// contracts (FeedDecimals decimals, owner: DeployerAddress). They are deployed after the
// funding, whose mints take the deployer's nonces 3 to feedNonce-1, so adding them moved none
// of the addresses above.
var (
	// ETHUSDFeedAddress is the ETH/USD feed on every chain; it starts at ETHUSDAnswer.
	ETHUSDFeedAddress = crypto.CreateAddress(DeployerAddress(), feedNonce)
	// USDCUSDFeedAddress is the USDC/USD feed on every chain; it starts at USDCUSDAnswer.
	USDCUSDFeedAddress = crypto.CreateAddress(DeployerAddress(), feedNonce+1)
)

// feedNonce is the deployer's nonce of the first feed deployment: after the three contracts
// (nonces 0-2), one mint to the solver and one to each test account.
const feedNonce = 3 + 1 + TestAccountCount

// Deposit address contracts, deployed after the feeds (so no address above moved either).
// The factory's constructor deploys the implementation, at the factory's own first nonce.
// Deposit addresses are EIP-1167 clones of the implementation at CREATE2 addresses of the
// factory: with both at the same address on every chain, each deposit address is too
// (evm.DepositAddress computes it offline).
var (
	// DepositAddressFactoryAddress is the DepositAddressFactory (depository: DepositoryAddress)
	// on every chain.
	DepositAddressFactoryAddress = crypto.CreateAddress(DeployerAddress(), depositAddressFactoryNonce)
	// DepositAddressImplementationAddress is the DepositAddress every deposit address is a clone
	// of, on every chain.
	DepositAddressImplementationAddress = crypto.CreateAddress(DepositAddressFactoryAddress, 1)
)

// depositAddressFactoryNonce is the deployer's nonce of the factory's deployment: right after
// the two feeds.
const depositAddressFactoryNonce = feedNonce + 2

// SOLUSDFeedAddress is the SOL/USD feed on every chain (the price of the local Solana chain's
// native currency, which the engine reads where it reads ETH's); it starts at SOLUSDAnswer. It is
// deployed last, after the deposit address factory, so adding it moved no address above.
var SOLUSDFeedAddress = crypto.CreateAddress(DeployerAddress(), solFeedNonce)

// solFeedNonce is the deployer's nonce of the SOL/USD feed's deployment: right after the
// factory.
const solFeedNonce = depositAddressFactoryNonce + 1

// batchExecutorAddress is where BatchExecutor lives on every chain (BatchExecutorAddress).
var batchExecutorAddress = crypto.CreateAddress(DeployerAddress(), batchExecutorNonce)

// batchExecutorNonce is the deployer's nonce of BatchExecutor's deployment: right after the
// SOL/USD feed, so adding it moved no address above.
const batchExecutorNonce = solFeedNonce + 1

// BatchExecutorAddress is the BatchExecutor (contracts/src/BatchExecutor.sol) on every chain:
// the EIP-7702 delegate a user's EOA authorizes so that a relayer (RelayerKey) can run the
// user's signed batch of calls (say USDC.approve and Depository.depositErc20) as the user, in a
// type-4 transaction the relayer pays for. See package chains/evm/eip7702.
func BatchExecutorAddress() common.Address { return batchExecutorAddress }

// Price feed parameters. A feed's answer is the USD price of one whole unit in feed units,
// i.e. scaled by 10^FeedDecimals, as Chainlink's USD feeds report it.
const (
	// FeedDecimals is the number of decimals of both devnet feeds (8, like Chainlink's USD
	// feeds).
	FeedDecimals = 8
	// ETHUSDPrice is the ETH/USD feed's initial price in whole USD.
	ETHUSDPrice = 3000
	// USDCUSDPrice is the USDC/USD feed's initial price in whole USD.
	USDCUSDPrice = 1
	// ETHUSDAnswer is the ETH/USD feed's initial answer: ETHUSDPrice in feed units.
	ETHUSDAnswer = ETHUSDPrice * 100_000_000
	// USDCUSDAnswer is the USDC/USD feed's initial answer: USDCUSDPrice in feed units.
	USDCUSDAnswer = USDCUSDPrice * 100_000_000
	// SOLUSDPrice is the SOL/USD feed's initial price in whole USD.
	SOLUSDPrice = 150
	// SOLUSDAnswer is the SOL/USD feed's initial answer: SOLUSDPrice in feed units.
	SOLUSDAnswer = SOLUSDPrice * 100_000_000
	// DefaultFeedHeartbeat is how often the devnet re-posts each feed's answer unless
	// Options.FeedHeartbeat says otherwise.
	DefaultFeedHeartbeat = time.Minute
)

// PriceFeedsConfig is the feed list of chain chainID in the PRICE_FEEDS format the service
// reads (see docs/prices.md): "ETH=<chainID>:<ETHUSDFeedAddress>,USDC=<chainID>:<USDCUSDFeedAddress>,
// SOL=<chainID>:<SOLUSDFeedAddress>,WSOL=<chainID>:<SOLUSDFeedAddress>" (SOL: the local Solana
// chain's native currency, priced on the EVM chain as production prices it on one; wSOL is
// priced as SOL, by the same feed).
func PriceFeedsConfig(chainID uint64) string {
	id := strconv.FormatUint(chainID, 10)
	return "ETH=" + id + ":" + ETHUSDFeedAddress.Hex() + ",USDC=" + id + ":" + USDCUSDFeedAddress.Hex() +
		",SOL=" + id + ":" + SOLUSDFeedAddress.Hex() + ",WSOL=" + id + ":" + SOLUSDFeedAddress.Hex()
}

// Genesis and setup amounts, exported so tests and docs can state expectations without
// repeating magic numbers.
const (
	// GenesisETH is the native balance, in whole ETH, that genesis gives the deployer, the
	// solver, the relayer, the oracle and every test account.
	GenesisETH = 10_000
	// USDCDecimals is TestUSDC's number of decimals, as on real USDC.
	USDCDecimals = 6
	// SolverUSDC is the solver's USDC float after setup, in base units (10,000,000 USDC).
	SolverUSDC = 10_000_000 * 1_000_000
	// TestAccountUSDC is each test account's USDC balance after setup, in base units
	// (1,000,000 USDC).
	TestAccountUSDC = 1_000_000 * 1_000_000
	// BlockGasLimit is the gas limit of every devnet block: generous, so that nothing a
	// developer tries runs into it.
	BlockGasLimit = 30_000_000
)

// Options configures Start. The zero value of every field has a usable default.
type Options struct {
	// Chains lists the chains to run; empty means DefaultOptions().Chains.
	Chains []ChainOptions
	// BlockTime is how often each chain seals a block; 0 means one second. Tests use a short
	// block time (and Chain.Mine) to keep confirmation waits short. Block timestamps are whole
	// seconds and strictly increasing, so below one second (or with frequent Mine calls) chain
	// time runs ahead of the wall clock by about a second per block.
	BlockTime time.Duration
	// Host is the interface the JSON-RPC servers listen on; empty means 127.0.0.1, so a devnet
	// is not reachable from other machines unless asked for.
	Host string
	// Logger receives the devnet's own progress messages; nil means slog.Default().
	Logger *slog.Logger
	// FeedHeartbeat is how often each chain re-posts its price feeds' current answers (a new
	// round updated at the block's timestamp), as a Chainlink feed posts on its heartbeat even
	// when the price has not moved; without it a long-running devnet's feeds would go stale.
	// 0 means DefaultFeedHeartbeat; a negative value turns the heartbeat off, for tests that
	// want a feed to go stale.
	FeedHeartbeat time.Duration
	// OnBlock, when set, is called after each block a chain seals, with the wall-clock time
	// it was sealed: benchmarks time the engine against block production with it.
	OnBlock func(chainID, number uint64, at time.Time)
	// Solana, when set, makes Run start the local Solana chain (devnet/svm) beside the EVM
	// chains; Start ignores it.
	Solana *svm.Options
	// Exchange, when set, makes Run start the local perps exchange (devnet/exchange, chain 1337)
	// beside the chains, funded as StartExchange funds it; Start ignores it.
	Exchange *exchange.Options
}

// ChainOptions configures one chain.
type ChainOptions struct {
	// ID is the chain id (EIP-155), which is also the network id.
	ID uint64
	// Port is the HTTP JSON-RPC port; 0 picks a free port, as tests do to run in parallel.
	Port int
}

// DefaultOptions returns the `intentd-dev devnet` defaults: chains 31337 on port 8545, 31338 on
// port 8546 and 999 on port 8547 (the perps exchange's EVM chain: an ordinary EVM chain, the
// spec's "related EVM chain for the same exchange"), which configs/chains.dev.json points at.
// (1337 is not an EVM chain here on purpose: it is the simulated backend's and many tools' own
// default, and the spec gives it to the perps exchange, devnet/exchange.)
func DefaultOptions() Options {
	return Options{
		Chains:    []ChainOptions{{ID: 31337, Port: 8545}, {ID: 31338, Port: 8546}, {ID: ExchangeEVMChainID, Port: 8547}},
		BlockTime: time.Second,
		Host:      "127.0.0.1",
	}
}

func (o Options) withDefaults() Options {
	def := DefaultOptions()
	if len(o.Chains) == 0 {
		o.Chains = def.Chains
	}
	if o.BlockTime <= 0 {
		o.BlockTime = def.BlockTime
	}
	if o.Host == "" {
		o.Host = def.Host
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.FeedHeartbeat == 0 {
		o.FeedHeartbeat = DefaultFeedHeartbeat
	}
	return o
}

// Devnet is a set of running local chains. Close stops them.
type Devnet struct {
	chains []*Chain
	byID   map[uint64]*Chain
	log    *slog.Logger

	stop      chan struct{}
	ctx       context.Context // cancelled by Close, for the heartbeat's RPC calls
	cancel    context.CancelFunc
	miners    sync.WaitGroup // miners and heartbeats
	closeOnce sync.Once
}

// Chain is one running devnet chain.
type Chain struct {
	// ID is the chain id.
	ID uint64
	// RPCURL is the HTTP JSON-RPC endpoint, e.g. http://127.0.0.1:8545.
	RPCURL string

	mu      sync.Mutex // serialises Commit and Close of the backend
	closed  bool
	paused  atomic.Bool // no automatic blocks while set (Pause, Resume)
	head    common.Hash // head after the last Mine, to notice a block that was not sealed
	onBlock func(chainID, number uint64, at time.Time)
	backend *backend
	log     *slog.Logger

	// deployerMu serialises the deployer's transactions after setup (the heartbeat and
	// SetPrice), so that each picks a fresh nonce and a heartbeat never re-posts an answer that
	// a SetPrice is replacing.
	deployerMu sync.Mutex
}

// Start runs the chains in o, deploys and funds the contracts on each, and starts sealing a
// block every o.BlockTime. On error nothing is left running. ctx bounds the setup only; the
// chains run until Close.
func Start(ctx context.Context, o Options) (*Devnet, error) {
	o = o.withDefaults()
	seen := make(map[uint64]bool, len(o.Chains))
	for _, co := range o.Chains {
		if co.ID == 0 {
			return nil, errors.New("devnet: chain id 0 is not valid")
		}
		if seen[co.ID] {
			return nil, fmt.Errorf("devnet: chain %d listed twice", co.ID)
		}
		seen[co.ID] = true
	}

	d := &Devnet{byID: make(map[uint64]*Chain), log: o.Logger, stop: make(chan struct{})}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	for _, co := range o.Chains {
		c, err := startChain(o.Host, co, o.Logger)
		if err != nil {
			d.Close()
			return nil, err
		}
		c.onBlock = o.OnBlock
		d.chains = append(d.chains, c)
		d.byID[c.ID] = c
		if err := c.setup(ctx); err != nil {
			d.Close()
			return nil, fmt.Errorf("devnet: chain %d: setup: %w", c.ID, err)
		}
		d.log.Info("devnet chain ready", "chain", c.ID, "rpc", c.RPCURL)
	}
	for _, c := range d.chains {
		d.miners.Add(1)
		go d.mine(c, o.BlockTime)
		if o.FeedHeartbeat > 0 {
			d.miners.Add(1)
			go d.heartbeat(c, o.FeedHeartbeat)
		}
	}
	return d, nil
}

// heartbeat re-posts c's feed answers every period until the devnet is closed. A failure is
// logged and tried again at the next beat.
func (d *Devnet) heartbeat(c *Chain, period time.Duration) {
	d.every(period, func() {
		if err := c.beat(d.ctx); err != nil && d.ctx.Err() == nil {
			d.log.Warn("devnet: feed heartbeat failed", "chain", c.ID, "err", err)
		}
	})
}

// mine seals a block on c every period until the devnet is closed.
// A paused chain (Pause) skips its automatic blocks.
func (d *Devnet) mine(c *Chain, period time.Duration) {
	d.every(period, func() {
		if !c.paused.Load() {
			c.Mine()
		}
	})
}

// every runs f every period until the devnet is closed; the caller has done d.miners.Add(1).
func (d *Devnet) every(period time.Duration, f func()) {
	defer d.miners.Done()
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
			f()
		}
	}
}

// Chains returns the running chains in the order they were configured.
func (d *Devnet) Chains() []*Chain { return slices.Clone(d.chains) }

// Chain returns the chain with the given id, or nil if the devnet does not run it.
func (d *Devnet) Chain(id uint64) *Chain { return d.byID[id] }

// Close stops block production and shuts every chain down, releasing its port. It is safe to
// call more than once.
func (d *Devnet) Close() {
	d.closeOnce.Do(func() {
		d.cancel()
		close(d.stop)
		d.miners.Wait()
		for _, c := range d.chains {
			c.close()
		}
	})
}

// Registry returns the chain registry for the running chains, as the service would load it
// from configuration, so tests and dev mode can wire the service to this devnet directly.
func (d *Devnet) Registry() (*chains.Registry, error) {
	urls := make(map[uint64]string, len(d.chains))
	for _, c := range d.chains {
		urls[c.ID] = c.RPCURL
	}
	return chains.NewRegistry(ChainConfigs(urls))
}

// The refund gas ceilings of the devnet's currencies (chains.Currency.RefundGas). The devnet
// runs go-ethereum's newest fork, which charges several times mainnet's gas for a new account or
// storage slot: a refund from the depository (a new once-only flag) uses about 331,000 gas in
// ETH to an account that never held any and about 258,000 in USDC, where mainnet's schedule
// needs some 60,000 and 80,000.
const (
	RefundGasETH  = 400_000
	RefundGasUSDC = 350_000
)

// ChainConfigs returns the registry entries for devnet chains with the given HTTP RPC URLs,
// in chain id order. configs/chains.dev.json is this for the default ports, and a test keeps
// the two equal.
func ChainConfigs(rpcURLs map[uint64]string) []chains.Chain {
	ids := make([]uint64, 0, len(rpcURLs))
	for id := range rpcURLs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]chains.Chain, 0, len(ids))
	for _, id := range ids {
		out = append(out, chains.Chain{
			ID:          id,
			Name:        "devnet-" + strconv.FormatUint(id, 10),
			DisplayName: displayName(id),
			VMType:      chains.VMTypeEVM,
			HTTPRPCURL:  rpcURLs[id],
			WSRPCURL:    "",
			// A devnet's endpoint holds no secret and is the one wallets use: it is public.
			PublicRPCURL:   rpcURLs[id],
			ExplorerURL:    "",
			DepositEnabled: true,
			Confirmations:  2,
			Depository:     DepositoryAddress.Hex(),
			OutputSettler:  OutputSettlerAddress.Hex(),
			// The factory the engine sweeps deposit addresses through (chains/evm/sweep.go).
			DepositAddressFactory: DepositAddressFactoryAddress.Hex(),
			Currency: chains.Currency{
				ID: "eth", Symbol: "ETH", Name: "Ether", Address: chains.NativeAddress, Decimals: 18, RefundGas: RefundGasETH,
			},
			ERC20: []chains.Currency{{
				ID: "usdc", Symbol: "USDC", Name: "USD Coin", Address: USDCAddress.Hex(), Decimals: USDCDecimals, RefundGas: RefundGasUSDC,
			}},
		})
	}
	return out
}

// displayName is "Devnet A" for 31337, "Devnet B" for 31338 and so on, so a chain's name does
// not depend on which other chains run beside it.
func displayName(id uint64) string {
	if id == ExchangeEVMChainID {
		return "Exchange EVM (local)"
	}
	if id >= 31337 && id < 31337+26 {
		return "Devnet " + string(rune('A'+id-31337))
	}
	return "Devnet " + strconv.FormatUint(id, 10)
}

// Run is `intentd-dev devnet`: it starts the chains (the local Solana chain too when o.Solana is
// set, first, so that a missing Node.js says so before the EVM chains spend their start; the
// local perps exchange when o.Exchange is set), prints where they are and what is deployed and
// funded on them to out, and runs them until ctx is done. The Solana chain's server or the
// exchange's exiting on its own ends Run with an error.
func Run(ctx context.Context, o Options, out io.Writer) error {
	var sol *svm.Chain
	if o.Solana != nil {
		so := *o.Solana
		if so.Logger == nil {
			so.Logger = o.Logger
		}
		var err error
		if sol, err = svm.Start(ctx, so); err != nil {
			return err
		}
		defer func() { _ = sol.Close() }()
	}
	var ex *exchange.Server
	if o.Exchange != nil {
		eo := *o.Exchange
		if eo.Logger == nil {
			eo.Logger = o.Logger
		}
		var err error
		if ex, err = StartExchange(ctx, eo); err != nil {
			return err
		}
		defer func() { _ = ex.Close() }()
	}
	d, err := Start(ctx, o)
	if err != nil {
		return err
	}
	defer d.Close()
	printSummary(out, d, sol, ex)
	var solDone, exDone <-chan struct{}
	if sol != nil {
		solDone = sol.Done()
	}
	if ex != nil {
		exDone = ex.Done()
	}
	select {
	case <-ctx.Done():
		return nil
	case <-solDone:
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("devnet: the Solana chain's server exited")
	case <-exDone:
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("devnet: the perps exchange's server exited: %v", ex.Close())
	}
}

func printSummary(out io.Writer, d *Devnet, sol *svm.Chain, ex *exchange.Server) {
	var b strings.Builder
	parts := []string{fmt.Sprintf("%d local EVM chain(s)", len(d.chains))}
	if sol != nil {
		parts = append(parts, "a local Solana chain")
	}
	if ex != nil {
		parts = append(parts, "a local perps exchange")
	}
	what := parts[len(parts)-1]
	if len(parts) > 1 {
		what = strings.Join(parts[:len(parts)-1], ", ") + " and " + what
	}
	fmt.Fprintf(&b, "intentd-dev devnet: %s, in memory (dev-only keys: never reuse them on a real chain)\n\n", what)
	for _, c := range d.chains {
		fmt.Fprintf(&b, "  chain %-8d %s\n", c.ID, c.RPCURL)
	}
	if sol != nil {
		fmt.Fprintf(&b, "  solana         %s\n", sol.RPCURL)
	}
	if ex != nil {
		fmt.Fprintf(&b, "  perps exchange %s  (chain %d)\n", ex.URL(), exchange.ChainID)
	}
	b.WriteString("\nContracts (same address on every chain):\n")
	fmt.Fprintf(&b, "  Depository     %s  (owner: solver)\n", DepositoryAddress.Hex())
	fmt.Fprintf(&b, "  OutputSettler  %s\n", OutputSettlerAddress.Hex())
	fmt.Fprintf(&b, "  USDC           %s  (TestUSDC, %d decimals)\n", USDCAddress.Hex(), USDCDecimals)
	fmt.Fprintf(&b, "  ETH/USD feed   %s  (PriceFeed, %d decimals, starts at %d USD)\n", ETHUSDFeedAddress.Hex(), FeedDecimals, ETHUSDPrice)
	fmt.Fprintf(&b, "  USDC/USD feed  %s  (PriceFeed, %d decimals, starts at %d USD)\n", USDCUSDFeedAddress.Hex(), FeedDecimals, USDCUSDPrice)
	fmt.Fprintf(&b, "  DA factory     %s  (DepositAddressFactory: a deposit address per order and depositor)\n", DepositAddressFactoryAddress.Hex())
	fmt.Fprintf(&b, "  DA code        %s  (DepositAddress, which every deposit address is a clone of)\n", DepositAddressImplementationAddress.Hex())
	fmt.Fprintf(&b, "  BatchExecutor  %s  (EIP-7702 delegate: a relayer runs an EOA's signed batch)\n", BatchExecutorAddress().Hex())
	b.WriteString("\nService accounts:\n")
	fmt.Fprintf(&b, "  solver    %s  (%d USDC, OutputSettler approved)\n", SolverAddress().Hex(), SolverUSDC/1_000_000)
	fmt.Fprintf(&b, "  deployer  %s  (USDC and feed owner)\n", DeployerAddress().Hex())
	fmt.Fprintf(&b, "  relayer   %s  (sends and pays for gasless type-4 transactions)\n", RelayerAddress().Hex())
	fmt.Fprintf(&b, "  oracle    %s\n", OracleAddress().Hex())
	fmt.Fprintf(&b, "\nTest accounts, %d ETH and %d USDC each on every chain; their keys are the\n", GenesisETH, TestAccountUSDC/1_000_000)
	b.WriteString("standard Hardhat/Anvil test mnemonic's (\"test test ... junk\", m/44'/60'/0'/0/i):\n")
	for i, a := range TestAddresses() {
		fmt.Fprintf(&b, "  (%d) %s\n", i, a.Hex())
	}
	if sol != nil {
		b.WriteString("\n")
		sol.Summary(&b)
	}
	if ex != nil {
		b.WriteString("\n")
		ex.Summary(&b)
		fmt.Fprintf(&b, "  funded     the solver with %d and every test account above with %d of perps USDC and of spot USDC\n",
			ExchangeSolverUSDC/100_000_000, ExchangeTestAccountUSDC/100_000_000)
	}
	b.WriteString("\nPress Ctrl-C to stop.\n")
	_, _ = io.WriteString(out, b.String())
}

// Mine seals one block now, including every pending transaction. The chain seals blocks on
// its own every BlockTime; tests call Mine to avoid waiting. It does nothing once the devnet is
// closed, and returns the new head's hash (zero when closed).
func (c *Chain) Mine() common.Hash {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return common.Hash{}
	}
	// The backend logs sealing failures to go-ethereum's logger, which discards them unless
	// the process configured it; an unchanged head is how a failure shows here.
	head := c.backend.Commit()
	at := time.Now()
	if head == c.head {
		c.log.Warn("devnet: block not sealed", "chain", c.ID, "head", head.Hex())
		return head
	}
	c.head = head
	if c.onBlock != nil {
		if h, err := c.backend.Client().HeaderByHash(context.Background(), head); err == nil {
			c.onBlock(c.ID, h.Number.Uint64(), at)
		}
	}
	return head
}

// Client returns an in-process client of the chain, which skips HTTP; it offers the usual
// ethclient reads, calls, gas estimation and SendTransaction. Use Dial for a real
// *ethclient.Client over the chain's RPC URL.
func (c *Chain) Client() simulated.Client { return c.backend.Client() }

// Dial connects an *ethclient.Client to the chain's HTTP JSON-RPC endpoint, the way the service
// and wallets reach it. The caller closes it.
func (c *Chain) Dial(ctx context.Context) (*ethclient.Client, error) {
	return ethclient.DialContext(ctx, c.RPCURL)
}

func (c *Chain) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	_ = c.backend.Close()
}

// startChain starts the simulated backend of one chain with its HTTP endpoint. Port 0 is
// resolved to a free port up front because the backend does not report the port it bound;
// should another process take that port in between, it tries again with another.
func startChain(host string, co ChainOptions, log *slog.Logger) (*Chain, error) {
	attempts := 1
	if co.Port == 0 {
		attempts = 5
	} else if err := portFree(host, co.Port); err != nil {
		// Checked first because a node that fails to bind leaves its half-built services
		// behind.
		return nil, fmt.Errorf("devnet: chain %d: port %d is not available (is another devnet running?): %w", co.ID, co.Port, err)
	}
	var err error
	for range attempts {
		port := co.Port
		if port == 0 {
			if port, err = freePort(host); err != nil {
				return nil, fmt.Errorf("devnet: chain %d: %w", co.ID, err)
			}
		}
		var b *backend
		b, err = newBackend(co.ID, host, port)
		if err == nil {
			url := "http://" + net.JoinHostPort(dialHost(host), strconv.Itoa(port))
			return &Chain{ID: co.ID, RPCURL: url, backend: b, log: log}, nil
		}
	}
	return nil, fmt.Errorf("devnet: chain %d: %w", co.ID, err)
}

// dialHost is the host clients use to reach a server listening on host: a wildcard address
// is reached through loopback.
func dialHost(host string) string {
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if ip.To4() != nil {
			return "127.0.0.1"
		}
		return "::1"
	}
	return host
}

func portFree(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return l.Close()
}

func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// newBackend creates the simulated backend (backend.go: go-ethereum's, with the tracers API). A
// panic while the node starts is turned into an error too.
func newBackend(id uint64, host string, port int) (b *backend, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("start node on %s: %v", net.JoinHostPort(host, strconv.Itoa(port)), r)
		}
	}()
	alloc := types.GenesisAlloc{}
	balance := new(big.Int).Mul(big.NewInt(GenesisETH), big.NewInt(params.Ether))
	for _, a := range append([]common.Address{DeployerAddress(), SolverAddress(), RelayerAddress(), OracleAddress()}, TestAddresses()...) {
		alloc[a] = types.Account{Balance: new(big.Int).Set(balance)}
	}
	configure := func(nc *node.Config, ec *ethconfig.Config) {
		nc.HTTPHost = host
		nc.HTTPPort = port
		// debug: debug_traceCall with the built-in tracers (callTracer), which the engine
		// simulates a relayed call with (chains/evm/trace.go).
		nc.HTTPModules = []string{"eth", "net", "web3", "debug"}
		nc.HTTPCors = []string{"*"}
		nc.HTTPVirtualHosts = []string{"*"}
		// Websocket subscriptions (eth_subscribe) on the same port, for clients that follow heads
		// and the pool without polling (bench/intentload).
		nc.WSHost = host
		nc.WSPort = port
		nc.WSModules = nc.HTTPModules
		nc.WSOrigins = []string{"*"}

		cfg := *params.AllDevChainProtocolChanges
		cfg.ChainID = new(big.Int).SetUint64(id)
		ec.Genesis.Config = &cfg
		// Each start is a new chain, and says so as a real one would: its genesis block (the
		// same funding otherwise) carries the start's time, so its hash differs from every
		// earlier run's and the engine, which keeps what it signed per chain, sees a new
		// genesis (docs/operations.md, "Restarting").
		ec.Genesis.ExtraData = binary.BigEndian.AppendUint64(nil, uint64(time.Now().UnixNano()))
		ec.NetworkId = id
	}
	return newSimulated(alloc, simulated.WithBlockGasLimit(BlockGasLimit), configure)
}

// The local Solana chain's id and SOL, as chains/solana names them (ChainID, NativeAddress,
// NativeDecimals). The package does not import chains/solana: a registry holding the entry
// needs the family linked (its notation), which is its user's choice, not every devnet user's.
const (
	SolanaChainID        = 792703809
	solanaNativeAddress  = "11111111111111111111111111111111"
	solanaNativeDecimals = 9
)

// SolanaChainConfig is the registry entry of the local Solana chain (devnet/svm) at rpcURL, as
// the engine lists it beside ChainConfigs' EVM chains when DEVNET_SOLANA runs it: chain id
// SolanaChainID, vmType svm, SOL (the System Program's id, 9 decimals), USDC at the local
// mint (svm.USDCMint, 6 decimals) and wSOL (the native mint, svm.WSOLMint, 9 decimals), the vault's keypair (svm.VaultKey) as its depository. Its
// addresses are base58 and case-sensitive, written as the chain writes them. A registry holding
// it needs the Solana family linked (import chains/solana).
func SolanaChainConfig(rpcURL string) chains.Chain {
	return chains.Chain{
		ID:          SolanaChainID,
		Name:        "solana-local",
		DisplayName: "Solana (local)",
		VMType:      chains.VMTypeSVM,
		HTTPRPCURL:  rpcURL,
		// As for the EVM chains: the local endpoint holds no secret and is the wallets' one.
		PublicRPCURL:   rpcURL,
		DepositEnabled: true,
		Confirmations:  1,
		Depository:     svm.VaultAddress().String(),
		Currency:       chains.Currency{ID: "sol", Symbol: "SOL", Name: "Solana", Address: solanaNativeAddress, Decimals: solanaNativeDecimals},
		ERC20: []chains.Currency{{
			ID: "usdc", Symbol: "USDC", Name: "USD Coin", Address: svm.USDCMint.String(), Decimals: svm.USDCDecimals,
		}, {
			ID: "wsol", Symbol: "WSOL", Name: "Wrapped SOL", Address: svm.WSOLMint.String(), Decimals: svm.WSOLDecimals,
		}},
	}
}
