// Package chains is the engine's boundary to the chains: the registry of the chains the service
// supports, keyed by chain id and VM type; the Clients set, which opens one client per chain
// through the VM registered for its type (chains/evm for EVM chains; a Solana or perps client
// plugs in as another VM); the small capability interfaces callers ask a chain's client for
// (HeadReader, DepositReader, TxSender, ...); and the typed errors every client classifies its
// failures into (ErrUnavailable, ErrNotFound, *RevertError, ErrInsufficientFunds, ErrNonce).
// Callers depend on the capability they use, never on a concrete client or a raw RPC client,
// so enabling a chain is one configuration entry and a new chain family is one VM.
package chains

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/shopspring/decimal"
)

// VMType names a chain family. Only EVM chains are enabled today; the type is part of the wire
// format of GET /chains so clients can branch on it.
type VMType string

// VM types known to the registry.
const (
	VMTypeEVM VMType = "evm"
	VMTypeSVM VMType = "svm"
	// VMTypePerps is the perps exchange's chain (id 1337 on the public service): accounts are
	// EVM addresses, currencies the exchange's 16-byte token ids, and payments signed actions
	// posted to the exchange's API (chains/perps; the public SDK's vmType for it).
	VMTypePerps VMType = "hypevm"
)

// The oracle spec's VM family identifiers, accepted in chain files as the same VM types (a
// chain file shared by the oracle and the engine may use either); the oracle's GET /chains/v1
// names families this way.
const (
	VMFamilyEthereum VMType = "ethereum-vm"
	VMFamilySolana   VMType = "solana-vm"
)

// PerpsFamily is the oracle spec's family identifier of a perps exchange's chain whose exchange
// word (Chain.Exchange) is word: the word in lower case and "-vm", "exchange-vm" for the local
// exchange (an empty word). A chain file may write it for hypevm (oracleapi.PerpsFamily is the
// same rule on the oracle's wire).
func PerpsFamily(word string) VMType {
	if word == "" {
		word = "Exchange"
	}
	return VMType(strings.ToLower(word) + "-vm")
}

// NativeAddress is the address clients use for a chain's native currency on EVM chains.
const NativeAddress = "0x0000000000000000000000000000000000000000"

// Currency is a token the service accepts or pays out on one chain.
type Currency struct {
	ID       string `json:"id"`
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Address  string `json:"address"`
	Decimals uint8  `json:"decimals"`
	LogoURI  string `json:"logoURI,omitempty"`
	// RefundGas is the gas a refund of this currency out of the chain's depository is signed
	// with and valued against: a fixed ceiling, never the estimate (docs/operations.md, "Money
	// safety"). Unset, the worker's REFUND_GAS_LIMITS for native or ERC-20 currencies applies.
	RefundGas uint64 `json:"refundGas,omitempty"`
}

// A refund's gas ceiling (Currency.RefundGas, REFUND_GAS_LIMITS) is whole gas within these
// bounds: below the cost of any transaction, or above a block's worth, a ceiling is a typo.
const (
	MinRefundGas = 21_000
	MaxRefundGas = 10_000_000
)

// IsNative reports whether the currency is the chain's native asset: its address is the EVM
// zero address, or the native address of another family linked into the binary (each family's
// is its own notation, so no two families' native addresses are one string).
func (c Currency) IsNative() bool {
	if strings.EqualFold(c.Address, NativeAddress) {
		return true
	}
	native := false
	notations.Range(func(_, v any) bool {
		n := v.(Notation)
		native = n.SameAddress(c.Address, n.NativeAddress())
		return !native
	})
	return native
}

// Chain is one entry of the registry. Contract addresses are those of the project's own
// contracts on that chain; Confirmations is how deep a deposit must be before it is final, and
// attested unless ConfirmationTiers let a deposit of small value be attested earlier
// (tiers.go); ExposureCapUSD bounds the value filled against deposits not yet final.
//
// HTTPRPCURL and WSRPCURL are the endpoints the engine itself reads the chain through; in
// production they carry the RPC provider's key, so they are secrets and never served.
// PublicRPCURL and PublicWSRPCURL are what GET /chains tells clients: set only to endpoints meant
// for anyone (a public RPC, the devnet's own), empty when there is none to give.
type Chain struct {
	ID             uint64     `json:"id"`
	Name           string     `json:"name"`
	DisplayName    string     `json:"displayName"`
	VMType         VMType     `json:"vmType"`
	HTTPRPCURL     string     `json:"httpRpcUrl"`
	WSRPCURL       string     `json:"wsRpcUrl"`
	PublicRPCURL   string     `json:"publicRpcUrl,omitempty"`
	PublicWSRPCURL string     `json:"publicWsRpcUrl,omitempty"`
	ExplorerURL    string     `json:"explorerUrl"`
	DepositEnabled bool       `json:"depositEnabled"`
	Disabled       bool       `json:"disabled"`
	Confirmations  uint64     `json:"confirmations"`
	Depository     string     `json:"depository"`
	OutputSettler  string     `json:"outputSettler"`
	Currency       Currency   `json:"currency"`
	ERC20          []Currency `json:"erc20Currencies"`
	// ConfirmationTiers (confirmationTiers, optional) are the confirmations by value, smallest
	// first; ExposureCapUSD (exposureCapUsd, optional: EXPOSURE_CAP_USD) the engine's cap on
	// what it fills against deposits that are not yet final. See tiers.go.
	ConfirmationTiers []ConfirmationTier `json:"confirmationTiers,omitempty"`
	ExposureCapUSD    string             `json:"exposureCapUsd,omitempty"`
	// DepositAddressFactory (depositAddressFactory, optional) is the chain's factory of
	// counterfactual deposit addresses (contracts/src/DepositAddressFactory.sol on EVM chains,
	// whose address alone gives every deposit address offline: chains/evm/depositaddr.go); empty
	// where the chain has none.
	DepositAddressFactory string `json:"depositAddressFactory,omitempty"`
	// Exchange (exchange, optional) is, on a perps exchange's chain (vmType hypevm), the word
	// the exchange names its signing domain and action types with ("<Exchange>SignTransaction",
	// "<Exchange>Transaction:SendAsset", the action's "<exchange>Chain" field); empty is the
	// local exchange's "Exchange" (chains/perps, docs/perps.md).
	Exchange string `json:"exchange,omitempty"`

	// exposureCap is ExposureCapUSD parsed; nil when unset.
	exposureCap *decimal.Decimal
}

// Currencies returns the native currency followed by the chain's ERC-20 currencies.
func (c *Chain) Currencies() []Currency {
	return append([]Currency{c.Currency}, c.ERC20...)
}

// FindCurrency looks a currency up by address, as the chain's family compares addresses
// (case-insensitive on EVM chains).
func (c *Chain) FindCurrency(address string) (Currency, bool) {
	n := c.Notation()
	for _, cur := range c.Currencies() {
		if n != nil && n.SameAddress(cur.Address, address) || n == nil && cur.Address == address {
			return cur, true
		}
	}
	return Currency{}, false
}

// ErrUnknownChain is returned for a chain id that is not in the registry.
var ErrUnknownChain = errors.New("unknown chain")

// Registry holds the configured chains. It is immutable after construction and safe for
// concurrent use.
type Registry struct {
	byID  map[uint64]*Chain
	order []*Chain
}

// NewRegistry validates the chains and builds a registry; chains are listed in id order.
func NewRegistry(list []Chain) (*Registry, error) {
	r := &Registry{byID: make(map[uint64]*Chain, len(list))}
	for i := range list {
		c := list[i]
		if err := validate(&c); err != nil {
			return nil, fmt.Errorf("chain %d: %w", c.ID, err)
		}
		if _, dup := r.byID[c.ID]; dup {
			return nil, fmt.Errorf("chain %d: listed twice", c.ID)
		}
		r.byID[c.ID] = &c
		r.order = append(r.order, &c)
	}
	sort.Slice(r.order, func(i, j int) bool { return r.order[i].ID < r.order[j].ID })
	return r, nil
}

func validate(c *Chain) error {
	if c.ID == 0 {
		return errors.New("id is required")
	}
	switch c.VMType {
	case "", VMFamilyEthereum:
		// The oracle spec's family identifier names the same VM.
		c.VMType = VMTypeEVM
	case VMFamilySolana:
		c.VMType = VMTypeSVM
	case PerpsFamily(c.Exchange):
		c.VMType = VMTypePerps
	}
	// Another chain family needs its notation (its package linked, RegisterNotation) and a VM
	// for Clients.
	n, err := NotationOf(c.VMType)
	if err != nil {
		return err
	}
	if c.HTTPRPCURL == "" {
		return errors.New("httpRpcUrl is required")
	}
	for _, u := range []struct{ name, v string }{{"publicRpcUrl", c.PublicRPCURL}, {"publicWsRpcUrl", c.PublicWSRPCURL}} {
		if u.v == "" {
			continue
		}
		if p, err := url.Parse(u.v); err != nil || p.Host == "" || p.User != nil {
			// A URL with credentials in it is not public, whatever the field says.
			return fmt.Errorf("%s must be an absolute URL without credentials", u.name)
		}
	}
	for _, a := range []struct{ name, v string }{{"depository", c.Depository}, {"outputSettler", c.OutputSettler},
		{"depositAddressFactory", c.DepositAddressFactory}} {
		if _, ok := n.CanonicalAddress(a.v); a.v != "" && !ok {
			return fmt.Errorf("%s %q is not an address", a.name, a.v)
		}
	}
	if c.Currency.Address == "" {
		c.Currency.Address = n.NativeAddress()
	}
	for _, cur := range c.Currencies() {
		if _, ok := n.CanonicalAddress(cur.Address); !ok {
			return fmt.Errorf("currency %s address %q is not an address", cur.Symbol, cur.Address)
		}
		if cur.Symbol == "" || cur.Decimals == 0 {
			return fmt.Errorf("currency %q needs a symbol and decimals", cur.Address)
		}
		if cur.RefundGas != 0 && (cur.RefundGas < MinRefundGas || cur.RefundGas > MaxRefundGas) {
			return fmt.Errorf("currency %s refundGas %d is not from %d to %d", cur.Symbol, cur.RefundGas, MinRefundGas, MaxRefundGas)
		}
	}
	return validateTiers(c)
}

// Get returns the chain with the given id.
func (r *Registry) Get(id uint64) (*Chain, error) {
	c, ok := r.byID[id]
	if !ok {
		return nil, fmt.Errorf("%w: %d", ErrUnknownChain, id)
	}
	return c, nil
}

// All returns every configured chain in id order, including disabled ones.
func (r *Registry) All() []*Chain { return r.order }

// Enabled returns the chains that are not disabled, in id order.
func (r *Registry) Enabled() []*Chain {
	out := make([]*Chain, 0, len(r.order))
	for _, c := range r.order {
		if !c.Disabled {
			out = append(out, c)
		}
	}
	return out
}

var placeholder = regexp.MustCompile(`\$\{([A-Z0-9_]+)(:-([^}]*))?\}|\$([A-Z_][A-Z0-9_]*)`)

// ExpandPlaceholders replaces $NAME (the oracle spec's form), ${NAME} and ${NAME:-default} with
// values from lookup. A placeholder without a value or default is an error naming the
// variable, so a chain without a working endpoint is caught at start rather than at the first
// attestation.
func ExpandPlaceholders(s string, lookup func(string) (string, bool)) (string, error) {
	var missing []string
	out := placeholder.ReplaceAllStringFunc(s, func(m string) string {
		g := placeholder.FindStringSubmatch(m)
		name := g[1]
		if g[4] != "" {
			name = g[4]
		}
		if v, ok := lookup(name); ok && v != "" {
			return v
		}
		if g[2] != "" {
			return g[3]
		}
		missing = append(missing, name)
		return ""
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable %s is not set", strings.Join(missing, ", "))
	}
	return out, nil
}

// ParseRegistry reads a JSON document {"chains": [...]} after expanding placeholders.
func ParseRegistry(doc []byte, lookup func(string) (string, bool)) (*Registry, error) {
	expanded, err := ExpandPlaceholders(string(doc), lookup)
	if err != nil {
		return nil, err
	}
	var file struct {
		Chains []Chain `json:"chains"`
	}
	dec := json.NewDecoder(strings.NewReader(expanded))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("parse chains: %w", err)
	}
	return NewRegistry(file.Chains)
}

// LoadRegistry reads a chain configuration file, resolving placeholders from the environment.
func LoadRegistry(path string) (*Registry, error) {
	doc, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := ParseRegistry(doc, os.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
