package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/chains"
)

// chainsQuery is GET /chains's parameters: the public SDK's, accepted and not applied (every
// enabled chain is listed; configureDynamicChains sends its referrer).
type chainsQuery struct {
	IncludeChains string `query:"includeChains" doc:"accepted, not applied: every enabled chain is listed"`
	Referrer      string `query:"referrer" doc:"accepted (the SDK's configureDynamicChains sends it), not applied"`
}

// chainsJSON is GET /chains's answer.
type chainsJSON struct {
	Chains []chainJSON `json:"chains"`
}

// currencyJSON is a chain's native currency, and the base of its listed ERC-20 currencies.
type currencyJSON struct {
	ID               string `json:"id"`
	Symbol           string `json:"symbol"`
	Name             string `json:"name"`
	Address          string `json:"address"`
	Decimals         uint8  `json:"decimals"`
	SupportsBridging bool   `json:"supportsBridging"`
}

// erc20JSON is one of a chain's erc20Currencies: no token here supports permit, and no chain
// charges deposit or withdrawal fees or surges.
type erc20JSON struct {
	currencyJSON
	SupportsPermit bool `json:"supportsPermit"`
	WithdrawalFee  int  `json:"withdrawalFee"`
	DepositFee     int  `json:"depositFee"`
	SurgeEnabled   bool `json:"surgeEnabled"`
}

type featuredTokenJSON struct {
	currencyJSON
	Metadata logoJSON `json:"metadata"`
}

type logoJSON struct {
	LogoURI string `json:"logoURI"`
}

type solverCurrencyJSON struct {
	ID       string `json:"id"`
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Address  string `json:"address"`
	Decimals uint8  `json:"decimals"`
}

type chainProtocolJSON struct {
	V2 chainProtocolV2JSON `json:"v2"`
}

type chainProtocolV2JSON struct {
	ChainID         string  `json:"chainId" doc:"the chain's protocol name (its name in the chain file)"`
	Depository      string  `json:"depository"`
	DepositoryVault *string `json:"depositoryVault" doc:"always null: the depository holds the deposits itself"`
}

// chainJSON is one chain of GET /chains, in the public SDK's shape: every field its
// configureDynamicChains and the steps it executes read (displayName, currency, httpRpcUrl,
// wsRpcUrl, explorerName, explorerUrl, iconUrl, vmType, depositEnabled, erc20Currencies,
// solverCurrencies, protocol). What this engine has no notion of is written as the SDK's type
// says "none": null, 0, false or empty.
type chainJSON struct {
	ID                     uint64               `json:"id"`
	Name                   string               `json:"name"`
	DisplayName            string               `json:"displayName"`
	HTTPRPCURL             string               `json:"httpRpcUrl" doc:"the chain's public RPC, \"\" for none (the engine's own is never served)"`
	WSRPCURL               string               `json:"wsRpcUrl"`
	ExplorerURL            string               `json:"explorerUrl"`
	ExplorerName           string               `json:"explorerName"`
	ExplorerPaths          *map[string]string   `json:"explorerPaths" doc:"always null: explorers use the usual /tx/ and /address/ paths"`
	ExplorerQueryParams    *map[string]string   `json:"explorerQueryParams"`
	VMType                 chains.VMType        `json:"vmType" enum:"evm,svm,hypevm"`
	DepositEnabled         bool                 `json:"depositEnabled"`
	Disabled               bool                 `json:"disabled"`
	TokenSupport           string               `json:"tokenSupport" enum:"All,Limited" doc:"Limited: only the listed currencies"`
	PartialDisableLimit    int                  `json:"partialDisableLimit"`
	BlockProductionLagging bool                 `json:"blockProductionLagging"`
	Currency               currencyJSON         `json:"currency"`
	WithdrawalFee          int                  `json:"withdrawalFee"`
	DepositFee             int                  `json:"depositFee"`
	SurgeEnabled           bool                 `json:"surgeEnabled"`
	FeaturedTokens         []featuredTokenJSON  `json:"featuredTokens"`
	ERC20Currencies        []erc20JSON          `json:"erc20Currencies"`
	SolverCurrencies       []solverCurrencyJSON `json:"solverCurrencies" doc:"what a deposit can be made in: the native currency and every listed ERC-20"`
	IconURL                *string              `json:"iconUrl"`
	LogoURL                *string              `json:"logoUrl"`
	BrandColor             *string              `json:"brandColor"`
	BaseChainID            *uint64              `json:"baseChainId"`
	StatusMessage          *string              `json:"statusMessage"`
	SolverAddresses        []string             `json:"solverAddresses"`
	Tags                   []string             `json:"tags"`
	Protocol               chainProtocolJSON    `json:"protocol"`
}

func toCurrencyJSON(ch *chains.Chain, c chains.Currency) currencyJSON {
	return currencyJSON{ID: c.ID, Symbol: c.Symbol, Name: c.Name, Address: chainAddress(ch, c.Address), Decimals: c.Decimals,
		SupportsBridging: true}
}

// chainAddress is a, an address of the chain's file, as the chain's family writes it (EVM:
// checksummed; Solana: base58 as written, its case kept). The registry has read it, so it is one.
func chainAddress(ch *chains.Chain, a string) string {
	if n := ch.Notation(); n != nil {
		if c, ok := n.CanonicalAddress(a); ok {
			return c
		}
	}
	return a
}

// listChains serves GET /chains: the enabled chains, so clients configure themselves from the API.
// The RPC URLs served are the chain's public ones (chains.Chain.PublicRPCURL), never the
// engine's own, which carry the RPC provider's key; a chain without one is served with "".
func (s *Server) listChains(c *gin.Context) {
	var q chainsQuery
	if err := chainsParams.Bind(c.Request.URL.Query(), &q); err != nil {
		abort(c, invalidInput(err.Error()))
		return
	}
	out := chainsJSON{Chains: []chainJSON{}}
	for _, ch := range s.Chains.Enabled() {
		// The solver's address on the chain's family (quote.Engine.SolverFor: the EVM one, or the
		// family's own, e.g. its Solana key) is listed on the chains it is an address of: not on
		// Solana while the solver has no Solana key.
		solvers := []string{}
		if s.Quotes != nil && s.Quotes.SolverFor(ch) != "" {
			if a, ok := ch.Notation().CanonicalAddress(s.Quotes.SolverFor(ch)); ok {
				solvers = append(solvers, a)
			}
		}
		j := chainJSON{ID: ch.ID, Name: ch.Name, DisplayName: ch.DisplayName, HTTPRPCURL: ch.PublicRPCURL, WSRPCURL: ch.PublicWSRPCURL,
			ExplorerURL: ch.ExplorerURL, VMType: ch.VMType, DepositEnabled: ch.DepositEnabled, Disabled: ch.Disabled,
			TokenSupport: "Limited", Currency: toCurrencyJSON(ch, ch.Currency), FeaturedTokens: []featuredTokenJSON{},
			ERC20Currencies: []erc20JSON{}, SolverCurrencies: []solverCurrencyJSON{}, SolverAddresses: solvers, Tags: []string{},
			Protocol: chainProtocolJSON{V2: chainProtocolV2JSON{ChainID: ch.Name}}}
		if ch.Depository != "" {
			j.Protocol.V2.Depository = chainAddress(ch, ch.Depository)
		}
		for _, cur := range ch.Currencies() {
			base := toCurrencyJSON(ch, cur)
			j.SolverCurrencies = append(j.SolverCurrencies, solverCurrencyJSON{ID: base.ID, Symbol: base.Symbol, Name: base.Name,
				Address: base.Address, Decimals: base.Decimals})
		}
		for _, e := range ch.ERC20 {
			j.ERC20Currencies = append(j.ERC20Currencies, erc20JSON{currencyJSON: toCurrencyJSON(ch, e)})
			j.FeaturedTokens = append(j.FeaturedTokens, featuredTokenJSON{currencyJSON: toCurrencyJSON(ch, e), Metadata: logoJSON{LogoURI: e.LogoURI}})
		}
		out.Chains = append(out.Chains, j)
	}
	c.JSON(http.StatusOK, out)
}

var chainsParams = schemas.MustQuery(chainsQuery{})
