package chains

import (
	"fmt"
	"reflect"
	"sync"
)

// Client is an open connection to one chain. What it can do is the capability interfaces it
// implements (HeadReader, TxSender, ...): callers ask Capability for the one they need, so a
// chain family that lacks one is a typed error rather than a missing method at run time.
type Client interface {
	// Chain is the registry entry the client was opened for.
	Chain() *Chain
}

// VM is one family of chains the engine talks to: its registry type and how to open a client
// for one of its chains (chains/evm provides the EVM's). A new family plugs in as another VM.
type VM struct {
	Type VMType
	// Open returns a client for ch. Clients calls it once per chain, on first use, and keeps
	// the client; a failure is not kept, so the next use tries again.
	Open func(ch *Chain) (Client, error)
}

// Clients holds one client per chain of a registry, opened on first use through the VM
// registered for the chain's VM type, and reused. It is the one way into the chains for
// everything but the registry's own data; safe for concurrent use.
type Clients struct {
	registry *Registry
	vms      map[VMType]VM

	mu      sync.Mutex
	clients map[uint64]Client
}

// NewClients serves the registry's chains through the given VMs.
func NewClients(r *Registry, vms ...VM) *Clients {
	cs := &Clients{registry: r, vms: make(map[VMType]VM, len(vms)), clients: make(map[uint64]Client)}
	for _, vm := range vms {
		cs.vms[vm.Type] = vm
	}
	return cs
}

// Registry returns the registry the clients serve.
func (cs *Clients) Registry() *Registry { return cs.registry }

// Client returns the chain's client, opening it on first use. Errors: ErrUnknownChain for an id
// not in the registry, ErrUnsupported when no VM is registered for the chain's type, or the
// VM's failure to open the client.
func (cs *Clients) Client(chainID uint64) (Client, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if c, ok := cs.clients[chainID]; ok {
		return c, nil
	}
	ch, err := cs.registry.Get(chainID)
	if err != nil {
		return nil, err
	}
	vm, ok := cs.vms[ch.VMType]
	if !ok {
		return nil, fmt.Errorf("%w: chain %d is of VM type %q, which has no client", ErrUnsupported, chainID, ch.VMType)
	}
	c, err := vm.Open(ch)
	if err != nil {
		return nil, err
	}
	cs.clients[chainID] = c
	return c, nil
}

// Capability returns the chain's client as T, a capability interface (or several embedded in
// one), with the errors of Client and ErrUnsupported when the chain's client does not
// implement T.
func Capability[T any](cs *Clients, chainID uint64) (T, error) {
	var zero T
	c, err := cs.Client(chainID)
	if err != nil {
		return zero, err
	}
	t, ok := c.(T)
	if !ok {
		return zero, fmt.Errorf("%w: chain %d (%s) has no %s", ErrUnsupported, chainID, c.Chain().VMType, reflect.TypeFor[T]())
	}
	return t, nil
}
