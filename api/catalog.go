package api

import (
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/openapidoc"
	"github.com/intentd/intentd/prices"
)

// The catalog (docs/api.md, "Catalog"): what clients configure themselves from, in the public
// SDK's shapes. GET /config/v2 reads balances on the chains; GET and POST /currencies/v2 and GET
// /prices/rates read the chain registry and the price source only.

// schemas generates the API's JSON schemas (OpenAPI 3.1: "may be null" is a null type), and
// requestSchemas those of what handlers decode (required only when tagged).
var (
	schemas        = openapidoc.Generator{NullAsType: true}
	requestSchemas = openapidoc.Generator{NullAsType: true, Requests: true}
)

// configV2Query is GET /config/v2's parameters (the SDK's names; chain ids arrive as strings).
type configV2Query struct {
	OriginChainID      uint64 `query:"originChainId,required" minimum:"1" doc:"the chain the user would deposit on"`
	DestinationChainID uint64 `query:"destinationChainId,required" minimum:"1" doc:"the chain the solver would fill on"`
	User               string `query:"user" pattern:"^0x[0-9a-fA-F]{40}$" doc:"with it, the answer has the user's balance and the most they can bridge"`
	Currency           string `query:"currency" pattern:"^[a-z0-9][a-z0-9.-]{0,31}$" doc:"a currency id (GET /chains, currency.id), on both chains; default the destination's native currency"`
}

var configV2Params = schemas.MustQuery(configV2Query{})

// configV2JSON is GET /config/v2's answer.
type configV2JSON struct {
	Enabled bool             `json:"enabled" doc:"the route is served: both chains enabled and deposits open on the origin"`
	User    *configUserJSON  `json:"user,omitempty" doc:"only with the user parameter"`
	Fee     string           `json:"fee,omitempty" pattern:"^[0-9]+$" doc:"what a bridge costs the user, in the currency's smallest unit on the origin: the execution cost (a bridge pays no swap or platform fee)"`
	Solver  configSolverJSON `json:"solver"`
	// SupportsExternalLiquidity is always false: the solver fills from its own inventory only.
	SupportsExternalLiquidity bool `json:"supportsExternalLiquidity" doc:"always false: the solver fills from its own inventory, no canonical bridge"`
}

type configUserJSON struct {
	Balance         string `json:"balance" pattern:"^[0-9]+$" doc:"the user's balance of the currency on the origin, smallest unit"`
	MaxBridgeAmount string `json:"maxBridgeAmount" pattern:"^[0-9]+$" doc:"the most the user can receive in one bridge, after the fee, on origin units: min(balance, the pair's QUOTE_MAX_USD maximum, capacityPerRequest + fee) - fee, at least 0"`
}

type configSolverJSON struct {
	Address            string `json:"address" pattern:"^0x[0-9a-fA-F]{40}$"`
	Balance            string `json:"balance,omitempty" pattern:"^[0-9]+$" doc:"the solver's balance of the currency on the destination, smallest unit"`
	CapacityPerRequest string `json:"capacityPerRequest,omitempty" pattern:"^[0-9]+$" doc:"the most one fill pays: the solver's balance, capped by SOLVER_MAX_FILL"`
}

// configV2 serves GET /config/v2: the limits a bridge of one currency between two chains would
// hit, for the user when one is named. A disabled route answers enabled: false and nothing it
// would have to read a chain for.
func (s *Server) configV2(c *gin.Context) {
	var q configV2Query
	if err := configV2Params.Bind(c.Request.URL.Query(), &q); err != nil {
		abort(c, invalidInput(err.Error()))
		return
	}
	if q.User != "" && !intent.ChecksumValid(q.User) {
		abort(c, invalidInput("user "+q.User+" "+intent.ErrAddressChecksum))
		return
	}
	origin, e := s.catalogChain(q.OriginChainID, "originChainId")
	if e != nil {
		abort(c, e)
		return
	}
	dest, e := s.catalogChain(q.DestinationChainID, "destinationChainId")
	if e != nil {
		abort(c, e)
		return
	}
	id := q.Currency
	if id == "" {
		id = dest.Currency.ID
	}
	in, okIn := currencyByID(origin, id)
	out, okOut := currencyByID(dest, id)
	if !okIn || !okOut {
		abort(c, &Error{Code: CodeUnsupportedCurrency, Message: "currency " + strconv.Quote(id) + " is not listed on both chains"})
		return
	}
	answer := configV2JSON{Solver: configSolverJSON{Address: s.Quotes.SolverFor(dest)}}
	answer.Enabled = !origin.Disabled && !dest.Disabled && origin.DepositEnabled
	if !answer.Enabled {
		c.JSON(http.StatusOK, answer)
		return
	}
	ctx := c.Request.Context()
	terms, qerr := s.Quotes.Bridge(ctx, origin.ID, in.Address, dest.ID, out.Address)
	if qerr != nil {
		abort(c, fromQuote(qerr))
		return
	}
	solverBalance, err := s.balance(c, dest.ID, out.Address, s.Quotes.SolverFor(dest))
	if err != nil {
		abort(c, err)
		return
	}
	capacity := new(big.Int).Set(solverBalance)
	if max, ok := s.SolverMaxFill[strings.ToUpper(out.Symbol)]; ok {
		if units := max.Shift(int32(out.Decimals)).Floor().BigInt(); units.Cmp(capacity) < 0 {
			capacity = units
		}
	}
	answer.Fee = terms.Fee.String()
	answer.Solver.Balance, answer.Solver.CapacityPerRequest = solverBalance.String(), capacity.String()
	if q.User != "" {
		userBalance, err := s.balance(c, origin.ID, in.Address, common.HexToAddress(q.User).Hex())
		if err != nil {
			abort(c, err)
			return
		}
		// The most the user can put in: their balance, the pair's maximum, and what the solver
		// can pay out plus the fee (capacity converted to origin units: one currency, 1:1).
		most := new(big.Int).Add(shiftUnits(capacity, out.Decimals, in.Decimals), terms.Fee)
		for _, limit := range []*big.Int{userBalance, terms.MaxAmount} {
			if limit != nil && limit.Cmp(most) < 0 {
				most = limit
			}
		}
		max := new(big.Int).Sub(most, terms.Fee)
		if max.Sign() < 0 {
			max.SetInt64(0)
		}
		answer.User = &configUserJSON{Balance: userBalance.String(), MaxBridgeAmount: max.String()}
	}
	c.JSON(http.StatusOK, answer)
}

// catalogChain is a chain of the registry, disabled ones too (they answer enabled: false);
// an id the registry does not know is 400 UNSUPPORTED_CHAIN.
func (s *Server) catalogChain(id uint64, field string) (*chains.Chain, *Error) {
	ch, err := s.Chains.Get(id)
	if err != nil {
		return nil, &Error{Code: CodeUnsupportedChain, Message: field + " " + strconv.FormatUint(id, 10) + " is not a supported chain"}
	}
	return ch, nil
}

func currencyByID(ch *chains.Chain, id string) (chains.Currency, bool) {
	for _, cur := range ch.Currencies() {
		if strings.EqualFold(cur.ID, id) {
			return cur, true
		}
	}
	return chains.Currency{}, false
}

// balance reads account's balance of currency on a chain (the chain client's few-seconds cache:
// for display); a chain that cannot be read now is 503 SERVICE_UNAVAILABLE.
func (s *Server) balance(c *gin.Context, chainID uint64, currency, account string) (*big.Int, *Error) {
	r, err := chains.Capability[chains.BalanceReader](s.Quotes.Chains, chainID)
	if err == nil {
		var b *big.Int
		if b, err = r.Balance(c.Request.Context(), currency, account); err == nil {
			return b, nil
		}
	}
	return nil, &Error{Code: CodeServiceUnavailable, Message: "chain " + strconv.FormatUint(chainID, 10) + " could not be read; retry shortly", cause: err}
}

// shiftUnits converts an amount between two decimal counts of one currency (rounded down).
func shiftUnits(v *big.Int, from, to uint8) *big.Int {
	return decimal.NewFromBigInt(v, int32(to)-int32(from)).Floor().BigInt()
}

// currenciesQuery is the search of GET /currencies/v2 (as parameters) and POST /currencies/v2
// (as a JSON body): the public SDK's request body.
type currenciesQuery struct {
	DefaultList        bool     `json:"defaultList,omitempty" query:"defaultList" doc:"accepted; the registry is the default list"`
	ChainIDs           []uint64 `json:"chainIds,omitempty" query:"chainIds" minimum:"1" doc:"only these chains"`
	Term               string   `json:"term,omitempty" query:"term" doc:"case-insensitive part of the symbol or name, or a whole address"`
	Address            string   `json:"address,omitempty" query:"address" doc:"the currency's address (case-insensitive on EVM chains)"`
	CurrencyID         string   `json:"currencyId,omitempty" query:"currencyId" doc:"a currency id, e.g. usdc"`
	Tokens             []string `json:"tokens,omitempty" query:"tokens" pattern:"^[0-9]+:[^:]+$" doc:"chainId:address entries; a currency matching any of them"`
	Verified           bool     `json:"verified,omitempty" query:"verified" doc:"true: verified currencies only (every currency of the registry is verified: it is a curated list)"`
	Limit              int      `json:"limit,omitempty" query:"limit" minimum:"1" maximum:"100" doc:"at most this many, default 20"`
	IncludeAllChains   bool     `json:"includeAllChains,omitempty" query:"includeAllChains" doc:"with chainIds or address: also the same currency (by id) on every other chain"`
	UseExternalSearch  bool     `json:"useExternalSearch,omitempty" query:"useExternalSearch" doc:"accepted; there is no outside search"`
	DepositAddressOnly bool     `json:"depositAddressOnly,omitempty" query:"depositAddressOnly" doc:"true: only what a deposit address can be quoted in, the currencies of the chains with a deposit address factory and deposits enabled"`
}

var (
	currenciesParams = schemas.MustQuery(currenciesQuery{})
	currenciesBody   = requestSchemas.MustSchema(currenciesQuery{})
)

// currencyV2JSON is one currency of /currencies/v2.
type currencyV2JSON struct {
	ChainID  uint64                  `json:"chainId"`
	Address  string                  `json:"address"`
	Symbol   string                  `json:"symbol"`
	Name     string                  `json:"name"`
	Decimals uint8                   `json:"decimals"`
	VMType   chains.VMType           `json:"vmType" enum:"evm,svm,hypevm"`
	Metadata intent.CurrencyMetadata `json:"metadata"`

	currencyID string // the registry's id, for includeAllChains
}

// defaultCurrencyLimit is the public SDK's default of limit.
const defaultCurrencyLimit = 20

// currenciesV2 serves GET /currencies/v2 (the search as parameters) and POST /currencies/v2 (as
// the SDK's JSON body; an empty body is the empty search). Keys the search does not know are
// ignored, as the quote endpoints ignore options they do not know; a known key of the wrong
// type is 400 INVALID_INPUT.
func (s *Server) currenciesV2(c *gin.Context) {
	var q currenciesQuery
	if c.Request.Method == http.MethodPost {
		raw, err := io.ReadAll(c.Request.Body) // bounded by bound()
		if err != nil {
			abort(c, invalidInput("body could not be read: "+openapidoc.JSONProblem(err)))
			return
		}
		if len(strings.TrimSpace(string(raw))) > 0 {
			if err := openapidoc.ValidateJSON(currenciesBody, raw); err != nil {
				abort(c, invalidInput("invalid body: "+err.Error()))
				return
			}
			_ = json.Unmarshal(raw, &q) // validated above
		}
	} else if err := currenciesParams.Bind(c.Request.URL.Query(), &q); err != nil {
		abort(c, invalidInput(err.Error()))
		return
	}
	if intent.IsAddress(q.Address) && !intent.ChecksumValid(q.Address) {
		abort(c, invalidInput("address "+q.Address+" "+intent.ErrAddressChecksum))
		return
	}
	c.JSON(http.StatusOK, s.searchCurrencies(q))
}

// searchCurrencies runs a currency search over the enabled chains, in chain id order, each
// chain's native currency first. Every filter given must match.
func (s *Server) searchCurrencies(q currenciesQuery) []currencyV2JSON {
	out := []currencyV2JSON{}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultCurrencyLimit
	}
	term := strings.ToLower(strings.TrimSpace(q.Term))
	matchedIDs := map[string]bool{}
	var all []currencyV2JSON
	for _, ch := range s.Chains.Enabled() {
		if q.DepositAddressOnly && (ch.DepositAddressFactory == "" || !ch.DepositEnabled) {
			// No deposit address can be quoted from this chain (docs/deposit-addresses.md).
			continue
		}
		for _, cur := range ch.Currencies() {
			j := toCurrencyV2(ch, cur)
			all = append(all, j)
			switch {
			case len(q.ChainIDs) > 0 && !slices.Contains(q.ChainIDs, ch.ID),
				q.Address != "" && !sameAddress(ch, q.Address, cur.Address),
				q.CurrencyID != "" && !strings.EqualFold(q.CurrencyID, cur.ID),
				term != "" && !strings.Contains(strings.ToLower(cur.Symbol), term) &&
					!strings.Contains(strings.ToLower(cur.Name), term) && term != strings.ToLower(cur.Address),
				len(q.Tokens) > 0 && !slices.ContainsFunc(q.Tokens, func(t string) bool {
					id, addr, _ := strings.Cut(t, ":")
					return id == strconv.FormatUint(ch.ID, 10) && sameAddress(ch, addr, cur.Address)
				}):
				continue
			}
			matchedIDs[strings.ToLower(cur.ID)] = true
			out = append(out, j)
		}
	}
	if q.IncludeAllChains && (len(q.ChainIDs) > 0 || q.Address != "") {
		out = out[:0]
		for _, j := range all {
			if matchedIDs[strings.ToLower(j.currencyID)] {
				out = append(out, j)
			}
		}
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// sameAddress compares two addresses as the chain's family does: EVM's whatever their case,
// Solana's exactly (base58 is case-sensitive).
func sameAddress(ch *chains.Chain, a, b string) bool {
	if n := ch.Notation(); n != nil {
		return n.SameAddress(a, b)
	}
	return a == b
}

func toCurrencyV2(ch *chains.Chain, cur chains.Currency) currencyV2JSON {
	return currencyV2JSON{ChainID: ch.ID, Address: chainAddress(ch, cur.Address), Symbol: cur.Symbol, Name: cur.Name,
		Decimals: cur.Decimals, VMType: ch.VMType, currencyID: cur.ID,
		Metadata: intent.CurrencyMetadata{LogoURI: cur.LogoURI, Verified: true, IsNative: cur.IsNative()}}
}

// pricesRates serves GET /prices/rates: the USD price of one whole unit of every currency
// symbol of the enabled chains, as the quotes price them, written as JSON numbers (the SDK's
// type) from decimals, never through a float. A symbol the price source has no price for is
// left out, and so is one whose price cannot be read now (logged); when none can be read at
// all the answer is 503 PRICE_FETCH_FAILED.
func (s *Server) pricesRates(c *gin.Context) {
	out := map[string]json.Number{}
	var failed error
	for _, sym := range s.symbols() {
		p, err := s.Quotes.Prices.USDPrice(c.Request.Context(), sym)
		switch {
		case errors.Is(err, prices.ErrNoSource):
		case err != nil:
			failed = err
			s.Logger.Warn("price not read for /prices/rates", "symbol", sym, "error", err)
		default:
			out[sym] = json.Number(p.String())
		}
	}
	if len(out) == 0 && failed != nil {
		abort(c, &Error{Code: CodePriceFetchFailed, Message: "prices are unavailable; retry shortly", cause: failed})
		return
	}
	c.JSON(http.StatusOK, out)
}

// symbols are the upper-case symbols of the enabled chains' currencies, sorted.
func (s *Server) symbols() []string {
	var out []string
	for _, ch := range s.Chains.Enabled() {
		for _, cur := range ch.Currencies() {
			if sym := strings.ToUpper(cur.Symbol); !slices.Contains(out, sym) {
				out = append(out, sym)
			}
		}
	}
	slices.Sort(out)
	return out
}
