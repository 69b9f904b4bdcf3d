package api

import (
	"net/http"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/chains"
)

type currencyJSON struct {
	ID       string `json:"id"`
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Address  string `json:"address"`
	Decimals uint8  `json:"decimals"`
}

type chainJSON struct {
	ID              uint64         `json:"id"`
	Name            string         `json:"name"`
	DisplayName     string         `json:"displayName"`
	HTTPRPCURL      string         `json:"httpRpcUrl"`
	WSRPCURL        string         `json:"wsRpcUrl"`
	ExplorerURL     string         `json:"explorerUrl"`
	VMType          chains.VMType  `json:"vmType"`
	DepositEnabled  bool           `json:"depositEnabled"`
	Disabled        bool           `json:"disabled"`
	Currency        currencyJSON   `json:"currency"`
	ERC20Currencies []currencyJSON `json:"erc20Currencies"`
}

func toCurrencyJSON(c chains.Currency) currencyJSON {
	return currencyJSON{ID: c.ID, Symbol: c.Symbol, Name: c.Name, Address: common.HexToAddress(c.Address).Hex(), Decimals: c.Decimals}
}

// listChains serves GET /chains: the enabled chains, so clients configure themselves from the API.
// The RPC URLs served are the chain's public ones (chains.Chain.PublicRPCURL), never the
// engine's own, which carry the RPC provider's key; a chain without one is served with "".
func (s *Server) listChains(c *gin.Context) {
	out := []chainJSON{}
	for _, ch := range s.Chains.Enabled() {
		j := chainJSON{ID: ch.ID, Name: ch.Name, DisplayName: ch.DisplayName, HTTPRPCURL: ch.PublicRPCURL, WSRPCURL: ch.PublicWSRPCURL,
			ExplorerURL: ch.ExplorerURL, VMType: ch.VMType, DepositEnabled: ch.DepositEnabled, Disabled: ch.Disabled,
			Currency: toCurrencyJSON(ch.Currency), ERC20Currencies: []currencyJSON{}}
		for _, e := range ch.ERC20 {
			j.ERC20Currencies = append(j.ERC20Currencies, toCurrencyJSON(e))
		}
		out = append(out, j)
	}
	c.JSON(http.StatusOK, gin.H{"chains": out})
}
