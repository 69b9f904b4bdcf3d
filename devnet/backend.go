package devnet

import (
	"errors"
	"maps"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	// The built-in native tracers (callTracer among them), which debug_traceCall looks up by
	// name; they register themselves when linked.
	_ "github.com/ethereum/go-ethereum/eth/tracers/native"
)

// backend is go-ethereum's simulated backend (ethclient/simulated, v1.17.10) as its NewBackend
// and newWithNode build it, with one addition: the node also registers the tracers API
// (debug_traceCall, debug_traceTransaction, ...), which the simulated backend leaves out, so
// that a devnet chain simulates a call with its trace as a real node does (chains/evm/trace.go).
// Everything else is the simulated backend's own: the same defaults, the filter API, a
// simulated beacon that seals blocks on Commit.
type backend struct {
	node   *node.Node
	beacon *catalyst.SimulatedBeacon
	client *ethclient.Client
}

// newSimulated is simulated.NewBackend with the tracers API; options are the simulated
// backend's (simulated.WithBlockGasLimit and the like). It must not panic: errors are returned.
func newSimulated(alloc types.GenesisAlloc, options ...func(*node.Config, *ethconfig.Config)) (*backend, error) {
	nodeConf := node.DefaultConfig
	nodeConf.DataDir = ""
	nodeConf.P2P = p2p.Config{NoDiscovery: true}

	// The dev chain starts out on every fork, so the system contracts those forks call into
	// are present from genesis; the caller's alloc wins on conflict.
	genesisAlloc := core.SystemContractAllocs()
	maps.Copy(genesisAlloc, alloc)

	ethConf := ethconfig.Defaults
	ethConf.Genesis = &core.Genesis{
		Config:   params.AllDevChainProtocolChanges,
		GasLimit: ethconfig.Defaults.Miner.GasCeil,
		Alloc:    genesisAlloc,
	}
	ethConf.SyncMode = ethconfig.FullSync
	ethConf.TxPool.NoLocals = true
	ethConf.LogNoHistory = true
	for _, option := range options {
		option(&nodeConf, &ethConf)
	}

	stack, err := node.New(&nodeConf)
	if err != nil {
		return nil, err
	}
	eb, err := eth.New(stack, &ethConf)
	if err != nil {
		_ = stack.Close()
		return nil, err
	}
	filterSystem := filters.NewFilterSystem(eb.APIBackend, filters.Config{})
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(filterSystem)}})
	stack.RegisterAPIs(tracers.APIs(eb.APIBackend))
	if err := stack.Start(); err != nil {
		_ = stack.Close()
		return nil, err
	}
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, eb)
	if err != nil {
		_ = stack.Close()
		return nil, err
	}
	if err := beacon.Fork(eb.BlockChain().GetCanonicalHash(0)); err != nil {
		_ = beacon.Stop()
		_ = stack.Close()
		return nil, err
	}
	return &backend{node: stack, beacon: beacon, client: ethclient.NewClient(stack.Attach())}, nil
}

// Close shuts the chain down; the backend cannot be used afterwards.
func (b *backend) Close() error {
	if b.client != nil {
		b.client.Close()
		b.client = nil
	}
	var err error
	if b.beacon != nil {
		err = b.beacon.Stop()
		b.beacon = nil
	}
	if b.node != nil {
		err = errors.Join(err, b.node.Close())
		b.node = nil
	}
	return err
}

// Commit seals a block and moves the chain forward to a new empty block.
func (b *backend) Commit() common.Hash { return b.beacon.Commit() }

// Rollback removes all pending transactions, reverting to the last committed state.
func (b *backend) Rollback() { b.beacon.Rollback() }

// Fork makes parentHash the head, for a side chain to be built on (simulated.Backend.Fork).
func (b *backend) Fork(parentHash common.Hash) error { return b.beacon.Fork(parentHash) }

// Client returns the in-process client of the chain.
func (b *backend) Client() simulated.Client { return simClient{b.client} }

// rpc is the in-process RPC client, which serves every API of the node.
func (b *backend) rpc() *rpc.Client { return b.client.Client() }

// simClient hides the *ethclient.Client behind simulated.Client, as the simulated backend's
// own client does.
type simClient struct{ *ethclient.Client }
