package chains

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/intentd/intentd/intent"
)

// fakeHeads is a client of any VM that reads heads only.
type fakeHeads struct {
	chain *Chain
	head  uint64
}

func (f *fakeHeads) Chain() *Chain                        { return f.chain }
func (f *fakeHeads) Head(context.Context) (uint64, error) { return f.head, nil }
func (f *fakeHeads) BlockHash(context.Context, uint64) (string, error) {
	return "", ErrNotFound
}

// fakeAccounts is a client that reads heads and balances.
type fakeAccounts struct{ fakeHeads }

func (f *fakeAccounts) Balance(context.Context, string, string) (*big.Int, error) {
	return big.NewInt(1), nil
}

func (f *fakeAccounts) BalanceNow(ctx context.Context, c, a string) (*big.Int, error) {
	return f.Balance(ctx, c, a)
}

// registryOf builds a registry without the configuration's validation, which accepts EVM
// chains only until another family is built.
func registryOf(list ...Chain) *Registry {
	r := &Registry{byID: map[uint64]*Chain{}}
	for i := range list {
		r.byID[list[i].ID] = &list[i]
		r.order = append(r.order, &list[i])
	}
	return r
}

// A second chain family plugs in as a VM: each chain's client is opened once by its own VM,
// and a capability resolves by chain id to whichever client the chain has, or to a typed error.
func TestClientsResolveCapabilitiesPerVM(t *testing.T) {
	reg := registryOf(Chain{ID: 31337, VMType: VMTypeEVM}, Chain{ID: 792703809, VMType: VMTypeSVM}, Chain{ID: 1337, VMType: "perps"})
	opened := map[VMType]int{}
	evmLike := VM{Type: VMTypeEVM, Open: func(ch *Chain) (Client, error) {
		opened[ch.VMType]++
		return &fakeAccounts{fakeHeads{chain: ch, head: 100}}, nil
	}}
	svm := VM{Type: VMTypeSVM, Open: func(ch *Chain) (Client, error) {
		opened[ch.VMType]++
		return &fakeHeads{chain: ch, head: 7}, nil
	}}
	cs := NewClients(reg, evmLike, svm)
	ctx := context.Background()

	for id, want := range map[uint64]uint64{31337: 100, 792703809: 7} {
		heads, err := Capability[HeadReader](cs, id)
		if err != nil {
			t.Fatalf("HeadReader of chain %d: %v", id, err)
		}
		if h, _ := heads.Head(ctx); h != want {
			t.Fatalf("head of chain %d = %d, want %d (the wrong VM's client)", id, h, want)
		}
		if heads.(Client).Chain().ID != id {
			t.Fatalf("client of chain %d is for chain %d", id, heads.(Client).Chain().ID)
		}
	}
	if _, err := Capability[BalanceReader](cs, 31337); err != nil {
		t.Fatalf("BalanceReader of the EVM chain: %v", err)
	}
	if _, err := Capability[BalanceReader](cs, 792703809); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("BalanceReader of the SVM chain = %v, want ErrUnsupported", err)
	}
	if _, err := Capability[HeadReader](cs, 1337); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("a chain whose VM has no client = %v, want ErrUnsupported", err)
	}
	if _, err := Capability[HeadReader](cs, 5); !errors.Is(err, ErrUnknownChain) {
		t.Fatalf("a chain not in the registry = %v, want ErrUnknownChain", err)
	}
	if opened[VMTypeEVM] != 1 || opened[VMTypeSVM] != 1 {
		t.Fatalf("clients opened %v, want each chain's once", opened)
	}
}

// A client that fails to open is not kept: the next use opens it again.
func TestClientsRetryAFailedOpen(t *testing.T) {
	fail := true
	cs := NewClients(registryOf(Chain{ID: 1, VMType: VMTypeEVM}), VM{Type: VMTypeEVM, Open: func(ch *Chain) (Client, error) {
		if fail {
			return nil, &Error{Kind: ErrUnavailable, ChainID: ch.ID, Op: "dial", Err: errors.New("bad url")}
		}
		return &fakeHeads{chain: ch}, nil
	}})
	if _, err := cs.Client(1); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("failed open = %v", err)
	}
	fail = false
	if _, err := cs.Client(1); err != nil {
		t.Fatalf("open after a failure: %v", err)
	}
}

// The sentinels nest as documented: a chain outage is the domain's outage, every nonce refusal
// is ErrNonce, and a classified error is both its kind and the node's answer.
func TestErrorKinds(t *testing.T) {
	if !errors.Is(ErrUnavailable, intent.ErrUnavailable) {
		t.Fatal("ErrUnavailable is not intent.ErrUnavailable")
	}
	for _, k := range []error{ErrNonceTooLow, ErrAlreadyKnown, ErrReplacementUnderpriced} {
		if !errors.Is(k, ErrNonce) {
			t.Fatalf("%v is not ErrNonce", k)
		}
	}
	cause := errors.New("already known")
	err := error(&Error{Kind: ErrAlreadyKnown, ChainID: 1, Op: "send transaction", Err: cause})
	if !errors.Is(err, ErrAlreadyKnown) || !errors.Is(err, ErrNonce) || !errors.Is(err, cause) || errors.Is(err, ErrUnavailable) {
		t.Fatalf("%v does not unwrap to its kind and cause only", err)
	}
}
