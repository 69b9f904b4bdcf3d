// Package exchange is the devnet's local perps exchange (chain id 1337): a simulation of the
// exchange's HTTP API that `intentd-dev devnet` (and so `make run`) and the tests run, so that
// deposits to and withdrawals from the perps exchange run on this machine with no outside
// network.
//
// It is real software with the real exchange's rules, not a canned answer: balances per address
// (perps USDC at PerpsDecimals decimals, spot tokens by token id at their own decimals, and the
// tokens held in each configured HIP-3 DEX, Options.Dexes) and a ledger of transfers, in memory (a restart is a new, empty exchange), under one mutex. It
// accepts one action, sendAsset (POST /exchange), verified against its EIP-712 signature (domain
// "<name>SignTransaction" v1 on the wallet's chain id, zero verifying contract; go-ethereum's
// apitypes), the signer being the sender, with the real exchange's nonce rules (NonceMaxAge,
// NonceMaxAhead, NonceSetSize) and its USD 1 activation fee (ActivationFee) on a transfer to an
// address that has never held anything. POST /info answers clearinghouseState,
// spotClearinghouseState, ledgerUpdates and spotMeta as the real exchange shapes them, and POST
// /devnet/credit is a faucet of this simulation alone. A transfer's sourceDex and destinationDex
// are "" (the perps balance), "spot", or the name of a configured HIP-3 DEX; any other name is
// refused. Amounts are integers of the token's
// smallest unit throughout (math/big); decimal strings are read strictly (ParseAmount).
//
// What it leaves out: trading (no order book, positions, margin or funding: perps USDC is a
// balance), sub-accounts and agent wallets, every action but sendAsset, websockets, and a HIP-3
// DEX's own markets (a DEX here is a set of balances by token, nothing more).
package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode"

	"github.com/ethereum/go-ethereum/common"
)

const (
	// ChainID is the perps exchange's chain id in the service's chain listing.
	ChainID = 1337
	// DefaultPort is where `intentd-dev devnet` serves the exchange: free of the house's other
	// ports (8545 and 8546 the EVM chains, 8899 Solana, 3000-3002 the oracles, 8080 and 8081
	// the API, 7233 and 8233 Temporal, 9100 up the metrics) and easy to tell by its 337.
	DefaultPort = 8337
	// DefaultName is the exchange's word in its signing domain ("ExchangeSignTransaction"), its
	// EIP-712 type ("ExchangeTransaction:SendAsset") and the action's chain field
	// ("exchangeChain").
	DefaultName = "Exchange"
	// DefaultSpotUSDCTokenID is spot USDC's token id unless Options.SpotUSDCTokenID says
	// otherwise: the real exchange's.
	DefaultSpotUSDCTokenID = "0x6d1e7cde53ba9467b783cb7c530ce054"
	// PerpsDecimals is perps USDC's number of decimals; spot USDC has as many.
	PerpsDecimals = 8
	// maxBody bounds a request's body.
	maxBody = 1 << 20
)

// ActivationFee is what a transfer to an address that has never held anything costs its sender,
// in perps USDC units: USD 1.
var ActivationFee = big.NewInt(100_000_000)

// Options configures Start. The zero value of every field has a usable default.
type Options struct {
	// Host is the interface the exchange listens on; empty means 127.0.0.1.
	Host string
	// Port is its port; 0 picks a free one (tests), DefaultPort is `intentd-dev devnet`'s.
	Port int
	// Name is the exchange's word in its signing domain, type and chain field; empty means
	// DefaultName.
	Name string
	// Logger receives a line per transfer and per refusal; nil means slog.Default().
	Logger *slog.Logger
	// SpotUSDCTokenID is spot USDC's token id (0x and 32 hex digits); empty means
	// DefaultSpotUSDCTokenID.
	SpotUSDCTokenID string
	// SpotTokens are spot tokens listed beside USDC (index 0); their indexes must be distinct
	// and above 0.
	SpotTokens []Token
	// Dexes are the HIP-3 DEXes a transfer may name as its sourceDex or destinationDex beside
	// "" and "spot" (e.g. "xyz"): each 1 to 32 ASCII letters and digits, distinct. Each holds
	// any listed token by its token id.
	Dexes []string
}

// Server is a running exchange. It serves until the context given to Start is done or Close is
// called.
type Server struct {
	name string
	url  string
	log  *slog.Logger
	st   *state
	srv  *http.Server
	done chan struct{}
	once sync.Once
	err  error
}

// Start listens and serves the exchange, and returns once it accepts connections.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Name == "" {
		o.Name = DefaultName
	}
	if r := []rune(o.Name); !unicode.IsLetter(r[0]) {
		return nil, fmt.Errorf("exchange: name %q must start with a letter", o.Name)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.SpotUSDCTokenID == "" {
		o.SpotUSDCTokenID = DefaultSpotUSDCTokenID
	}
	id, err := ParseTokenID(o.SpotUSDCTokenID)
	if err != nil {
		return nil, fmt.Errorf("exchange: spot USDC: %w", err)
	}
	usdc := Token{Name: "USDC", Index: 0, ID: id, SzDecimals: PerpsDecimals, WeiDecimals: PerpsDecimals}
	seen := map[int]bool{0: true}
	for _, t := range o.SpotTokens {
		if seen[t.Index] || t.ID == id || t.ID == PerpsUSDCID || t.Name == "" || t.WeiDecimals < 0 || t.WeiDecimals > 30 {
			return nil, fmt.Errorf("exchange: spot token %s (index %d): its index and id must be new, its name set and its decimals 0 to 30", t.Wire(), t.Index)
		}
		seen[t.Index] = true
	}
	dexSeen := map[string]bool{}
	for _, d := range o.Dexes {
		if err := checkDexName(d); err != nil {
			return nil, fmt.Errorf("exchange: %w", err)
		}
		if dexSeen[d] {
			return nil, fmt.Errorf("exchange: dex %q is listed twice", d)
		}
		dexSeen[d] = true
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.Host, strconv.Itoa(o.Port)))
	if err != nil {
		return nil, fmt.Errorf("exchange: %w", err)
	}
	s := &Server{name: o.Name, url: "http://" + ln.Addr().String(), log: o.Logger.With("component", "exchange"),
		st: newState(usdc, o.SpotTokens, o.Dexes), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /exchange", s.handleExchange)
	mux.HandleFunc("POST /info", s.handleInfo)
	mux.HandleFunc("POST /devnet/credit", s.handleCredit)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = s.Close()
		case <-s.done:
		}
	}()
	return s, nil
}

// URL is the exchange's base URL, e.g. http://127.0.0.1:8337.
func (s *Server) URL() string { return s.url }

// Name is the exchange's word (Options.Name).
func (s *Server) Name() string { return s.name }

// SpotUSDC is spot USDC's listing.
func (s *Server) SpotUSDC() Token { return s.st.usdc }

// Done is closed once the server has stopped serving.
func (s *Server) Done() <-chan struct{} { return s.done }

// Close stops the server (requests under way get 5 seconds to finish). It is safe to call more
// than once.
func (s *Server) Close() error {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			_ = s.srv.Close()
		}
		<-s.done
	})
	return s.err
}

// CreditPerps adds amount (PerpsDecimals units) to user's perps USDC, as the faucet does.
func (s *Server) CreditPerps(user common.Address, amount *big.Int) error {
	return s.st.credit(user, asset{dex: DexPerps, token: s.st.usdc}, amount)
}

// CreditSpot adds amount (the token's smallest units) of spot token id to user's spot balance,
// as the faucet does.
func (s *Server) CreditSpot(user common.Address, id TokenID, amount *big.Int) error {
	s.st.mu.Lock()
	t, ok := s.st.tokens[id]
	s.st.mu.Unlock()
	if !ok {
		return refuse("unknown spot token %s", id)
	}
	return s.st.credit(user, asset{dex: DexSpot, token: t}, amount)
}

// CreditDex adds amount (the token's smallest units) of token id to user's balance in the HIP-3
// DEX dex, as the faucet does.
func (s *Server) CreditDex(user common.Address, dex string, id TokenID, amount *big.Int) error {
	s.st.mu.Lock()
	t, ok := s.st.tokens[id]
	s.st.mu.Unlock()
	if !ok {
		return refuse("unknown spot token %s", id)
	}
	if !s.st.dexes[dex] {
		return refuse("unknown dex %q", dex)
	}
	return s.st.credit(user, asset{dex: dex, token: t}, amount)
}

// PerpsBalance is user's perps USDC in PerpsDecimals units.
func (s *Server) PerpsBalance(user common.Address) *big.Int { return s.st.perpsOf(user) }

// SpotBalance is user's spot balance of token id in its smallest units.
func (s *Server) SpotBalance(user common.Address, id TokenID) *big.Int {
	return s.st.heldOf(user, DexSpot, id)
}

// DexBalance is user's balance of token id in the HIP-3 DEX dex, in the token's smallest units.
func (s *Server) DexBalance(user common.Address, dex string, id TokenID) *big.Int {
	return s.st.heldOf(user, dex, id)
}

// Dexes are the HIP-3 DEXes' names (Options.Dexes), sorted.
func (s *Server) Dexes() []string { return s.st.dexList() }

// Transfers is every transfer user sent or received, in order.
func (s *Server) Transfers(user common.Address) []Transfer {
	return s.st.transfersOf(user, time.Time{}, time.Time{})
}

// Summary writes what `intentd-dev devnet` prints about the exchange.
func (s *Server) Summary(w io.Writer) {
	_, _ = fmt.Fprintf(w, "Perps exchange (chain %d; a local simulation of the exchange's API: sendAsset, info, a faucet; in memory)\n", ChainID)
	_, _ = fmt.Fprintf(w, "  API        %s  (POST /exchange, POST /info, POST /devnet/credit)\n", s.url)
	_, _ = fmt.Fprintf(w, "  perps USDC %s  (%d decimals)\n", PerpsUSDCID.Hex(), PerpsDecimals)
	_, _ = fmt.Fprintf(w, "  spot USDC  %s  (token %s, %d decimals)\n", s.st.usdc.ID.Hex(), s.st.usdc.Wire(), s.st.usdc.WeiDecimals)
	if dexes := s.st.dexList(); len(dexes) > 0 {
		_, _ = fmt.Fprintf(w, "  DEXes      %v  (a DEX token's currency is its token id and the DEX's name in hex)\n", dexes)
	}
	_, _ = fmt.Fprintf(w, "  signing    domain %sSignTransaction v1 (the wallet's chain id), type %sTransaction:SendAsset, %s %q\n",
		s.name, s.name, chainField(s.name), ExchangeChain)
}

// exchangeRequest is POST /exchange's body.
type exchangeRequest struct {
	Action    json.RawMessage `json:"action"`
	Nonce     *uint64         `json:"nonce"`
	Signature *Signature      `json:"signature"`
}

// reply is the exchange's answer envelope: status "ok" with a response object, or "err" with a
// message.
type reply struct {
	Status   string `json:"status"`
	Response any    `json:"response"`
}

var okReply = reply{Status: "ok", Response: map[string]string{"type": "default"}}

func (s *Server) handleExchange(w http.ResponseWriter, r *http.Request) {
	var req exchangeRequest
	if !readJSON(w, r, &req) {
		return
	}
	t, err := s.sendAsset(req)
	if err != nil {
		var ref errRefused
		if !errors.As(err, &ref) {
			s.log.Error("sendAsset failed", "err", err)
			writeJSON(w, http.StatusInternalServerError, reply{Status: "err", Response: "internal error"})
			return
		}
		s.log.Info("sendAsset refused", "reason", ref.msg)
		writeJSON(w, http.StatusOK, reply{Status: "err", Response: ref.msg})
		return
	}
	s.log.Info("sendAsset", "from", t.User.Hex(), "to", t.Destination.Hex(), "sourceDex", t.SourceDex,
		"destinationDex", t.DestinationDex, "token", t.Token, "amount", FormatAmount(t.Amount, t.decimals),
		"fee", FormatAmount(t.Fee, PerpsDecimals), "nonce", t.Nonce, "hash", t.Hash.Hex())
	writeJSON(w, http.StatusOK, okReply)
}

// sendAsset checks and applies one request; a refusal is an errRefused and changes nothing.
func (s *Server) sendAsset(req exchangeRequest) (Transfer, error) {
	if req.Action == nil || req.Nonce == nil || req.Signature == nil {
		return Transfer{}, refuse("the request needs action, nonce and signature")
	}
	a, err := parseAction(s.name, req.Action)
	if err != nil {
		return Transfer{}, err
	}
	if a.Nonce != *req.Nonce {
		return Transfer{}, refuse("the action's nonce %d is not the request's nonce %d", a.Nonce, *req.Nonce)
	}
	if a.ExchangeChain != ExchangeChain {
		return Transfer{}, refuse("%s %q is not this exchange's network %q", chainField(s.name), a.ExchangeChain, ExchangeChain)
	}
	if a.FromSubAccount != "" {
		return Transfer{}, refuse("fromSubAccount %q: this exchange has no sub-accounts; it must be empty", a.FromSubAccount)
	}
	if !common.IsHexAddress(a.Destination) || len(a.Destination) != 42 || a.Destination[:2] != "0x" {
		return Transfer{}, refuse("destination %q is not an address (0x and 40 hex digits)", a.Destination)
	}
	from, to, err := s.st.resolve(a.Token, a.SourceDex, a.DestinationDex)
	if err != nil {
		return Transfer{}, err
	}
	amount, err := ParseAmount(a.Amount, from.decimals())
	if err != nil {
		return Transfer{}, refuse("%v", err)
	}
	signer, err := Signer(s.name, a, *req.Signature)
	if err != nil {
		return Transfer{}, err
	}
	return s.st.transfer(time.Now(), signer, common.HexToAddress(a.Destination), from, to, a.Token, amount, a.Nonce)
}

// infoRequest is POST /info's body.
type infoRequest struct {
	Type string `json:"type"`
	User string `json:"user"`
	// Dex names the HIP-3 DEX whose balances clearinghouseState and spotClearinghouseState
	// answer, as the real exchange's dex field does; empty is the perps (or spot) balance.
	Dex       string `json:"dex"`
	StartTime *int64 `json:"startTime"`
	EndTime   *int64 `json:"endTime"`
}

func (s *Server) handleInfo(w http.ResponseWriter, r *http.Request) {
	var req infoRequest
	if !readJSON(w, r, &req) {
		return
	}
	user := func() (common.Address, bool) {
		if !common.IsHexAddress(req.User) {
			writeJSON(w, http.StatusBadRequest, reply{Status: "err", Response: fmt.Sprintf("user %q is not an address", req.User)})
			return common.Address{}, false
		}
		return common.HexToAddress(req.User), true
	}
	if req.Dex != "" && !s.st.dexes[req.Dex] {
		writeJSON(w, http.StatusBadRequest, reply{Status: "err", Response: fmt.Sprintf("unknown dex %q: this exchange's DEXes are %v", req.Dex, s.st.dexList())})
		return
	}
	switch req.Type {
	case "clearinghouseState":
		u, ok := user()
		if !ok {
			return
		}
		// A DEX's clearinghouse state is its USDC: what a DEX's perps are margined with.
		held := s.st.perpsOf(u)
		if req.Dex != "" {
			held = s.st.heldOf(u, req.Dex, s.st.usdc.ID)
		}
		v := FormatAmount(held, PerpsDecimals)
		summary := map[string]string{"accountValue": v, "totalNtlPos": "0.0", "totalRawUsd": v, "totalMarginUsed": "0.0"}
		writeJSON(w, http.StatusOK, map[string]any{"withdrawable": v, "marginSummary": summary, "crossMarginSummary": summary,
			"crossMaintenanceMarginUsed": "0.0", "assetPositions": []any{}, "time": time.Now().UnixMilli()})
	case "spotClearinghouseState":
		u, ok := user()
		if !ok {
			return
		}
		dex := DexSpot
		if req.Dex != "" {
			dex = req.Dex
		}
		balances := []map[string]any{}
		for _, b := range s.st.balancesOf(u, dex) {
			balances = append(balances, map[string]any{"coin": b.token.Name, "token": b.token.Index, "tokenId": b.token.ID.Hex(),
				"total": FormatAmount(b.total, b.token.WeiDecimals), "hold": "0.0", "entryNtl": "0.0"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"balances": balances})
	case "ledgerUpdates", "userNonFundingLedgerUpdates":
		u, ok := user()
		if !ok {
			return
		}
		var start, end time.Time
		if req.StartTime != nil {
			start = time.UnixMilli(*req.StartTime)
		}
		if req.EndTime != nil {
			end = time.UnixMilli(*req.EndTime)
		}
		out := []map[string]any{}
		for _, t := range s.st.transfersOf(u, start, end) {
			out = append(out, map[string]any{"time": t.Time.UnixMilli(), "hash": t.Hash.Hex(), "delta": map[string]any{
				"type": "send", "user": t.User.Hex(), "destination": t.Destination.Hex(), "sourceDex": t.SourceDex,
				"destinationDex": t.DestinationDex, "token": t.Token, "amount": FormatAmount(t.Amount, t.decimals),
				"fee": FormatAmount(t.Fee, PerpsDecimals), "nonce": t.Nonce}})
		}
		writeJSON(w, http.StatusOK, out)
	case "spotMeta":
		tokens := []map[string]any{}
		for _, t := range s.st.listing() {
			tokens = append(tokens, map[string]any{"name": t.Name, "index": t.Index, "tokenId": t.ID.Hex(),
				"szDecimals": t.SzDecimals, "weiDecimals": t.WeiDecimals, "isCanonical": true})
		}
		writeJSON(w, http.StatusOK, map[string]any{"tokens": tokens, "universe": []any{}})
	default:
		writeJSON(w, http.StatusBadRequest, reply{Status: "err", Response: fmt.Sprintf("info type %q is not supported: clearinghouseState, spotClearinghouseState, ledgerUpdates and spotMeta are", req.Type)})
	}
}

// creditRequest is POST /devnet/credit's body.
type creditRequest struct {
	User   string `json:"user"`
	Token  string `json:"token"` // "perps", or "NAME:0x<token id>"
	Amount string `json:"amount"`
	Dex    string `json:"dex"`
}

func (s *Server) handleCredit(w http.ResponseWriter, r *http.Request) {
	var req creditRequest
	if !readJSON(w, r, &req) {
		return
	}
	err := s.credit(req)
	if err != nil {
		writeJSON(w, http.StatusOK, reply{Status: "err", Response: err.Error()})
		return
	}
	s.log.Info("faucet", "user", req.User, "dex", dexName(req.Dex), "token", req.Token, "amount", req.Amount)
	writeJSON(w, http.StatusOK, okReply)
}

func (s *Server) credit(req creditRequest) error {
	if !common.IsHexAddress(req.User) {
		return refuse("user %q is not an address", req.User)
	}
	token := req.Token
	if token == "perps" {
		if req.Dex != DexPerps {
			return refuse("token \"perps\" is perps USDC, whose dex is \"\"")
		}
		token = s.st.usdc.Wire()
	}
	a, _, err := s.st.resolve(token, req.Dex, req.Dex)
	if err != nil {
		return err
	}
	amount, err := ParseAmount(req.Amount, a.decimals())
	if err != nil {
		return err
	}
	return s.st.credit(common.HexToAddress(req.User), a, amount)
}

// readJSON decodes the body into v, or answers 422 as the real exchange does to a body it cannot
// read.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(v); err != nil {
		http.Error(w, "Failed to deserialize the JSON body into the target type: "+err.Error(), http.StatusUnprocessableEntity)
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
