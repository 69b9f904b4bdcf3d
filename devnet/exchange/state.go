package exchange

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// The exchange's nonce rules, as the real exchange states them: a signer's nonce must lie within
// (now - NonceMaxAge, now + NonceMaxAhead) in milliseconds, must never have been used by that
// signer, and once NonceSetSize nonces are stored must be greater than the smallest of the
// signer's NonceSetSize highest. Keeping exactly those highest nonces therefore answers "never
// used" too: every nonce dropped from the set is below its smallest.
const (
	NonceMaxAge   = 48 * time.Hour
	NonceMaxAhead = 24 * time.Hour
	NonceSetSize  = 100
)

// Dex names as a transfer's sourceDex and destinationDex write them.
const (
	// DexPerps ("") is the perps balance: perps USDC only.
	DexPerps = ""
	// DexSpot is the spot balance: spot tokens by token id.
	DexSpot = "spot"
)

// maxDexName bounds a HIP-3 DEX's name, in bytes: the family's notation appends the name to a
// 16-byte token id, and 32 bytes of name keep that currency address within 48 bytes.
const maxDexName = 32

// checkDexName reports whether name can be a HIP-3 DEX's: 1 to maxDexName ASCII letters and
// digits, neither "" (the perps balance) nor "spot". A DEX's tokens are named by their token id
// followed by the name's bytes, so the name must be plain ASCII to be read back from them.
func checkDexName(name string) error {
	if name == DexPerps || name == DexSpot || len(name) > maxDexName {
		return fmt.Errorf("dex name %q must be 1 to %d ASCII letters and digits, and neither \"\" nor %q", name, maxDexName, DexSpot)
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return fmt.Errorf("dex name %q must be ASCII letters and digits only", name)
		}
	}
	return nil
}

// holding names a balance other than perps USDC: a token in the spot dex or in a HIP-3 DEX.
type holding struct {
	dex string
	id  TokenID
}

// errRefused wraps every reason the exchange refuses an action for; its message is the answer's.
type errRefused struct{ msg string }

func (e errRefused) Error() string { return e.msg }

func refuse(format string, args ...any) error { return errRefused{fmt.Sprintf(format, args...)} }

// Transfer is one accepted sendAsset, as ledgerUpdates reports it.
type Transfer struct {
	Time           time.Time
	Hash           common.Hash
	User           common.Address // the sender (the signer)
	Destination    common.Address
	SourceDex      string
	DestinationDex string
	Token          string // as the action wrote it
	Amount         *big.Int
	Fee            *big.Int // perps USDC units: the activation fee, or 0
	Nonce          uint64
	decimals       int // the amount's
}

// state is the exchange's whole state. Every method takes mu.
type state struct {
	mu        sync.Mutex
	usdc      Token             // the spot listing's USDC, which perps USDC transfers name too
	tokens    map[TokenID]Token // the spot listing
	dexes     map[string]bool   // the HIP-3 DEXes (Options.Dexes)
	perps     map[common.Address]*big.Int
	held      map[common.Address]map[holding]*big.Int // spot and HIP-3 DEX balances, by dex and token
	known     map[common.Address]bool                 // has ever held anything (the activation fee's test)
	nonces    map[common.Address][]uint64             // each signer's highest nonces, ascending, at most NonceSetSize
	ledger    []Transfer
	byUser    map[common.Address][]int // indexes into ledger of every transfer a user sent or received
	lastTime  time.Time
	activateF *big.Int
}

func newState(usdc Token, more []Token, dexes []string) *state {
	s := &state{usdc: usdc, tokens: map[TokenID]Token{usdc.ID: usdc}, dexes: map[string]bool{}, perps: map[common.Address]*big.Int{},
		held: map[common.Address]map[holding]*big.Int{}, known: map[common.Address]bool{},
		nonces: map[common.Address][]uint64{}, byUser: map[common.Address][]int{},
		activateF: new(big.Int).Set(ActivationFee)}
	for _, t := range more {
		s.tokens[t.ID] = t
	}
	for _, d := range dexes {
		s.dexes[d] = true
	}
	return s
}

// asset is one balance a transfer moves: perps USDC, a spot token, or a token in a HIP-3 DEX.
type asset struct {
	dex   string
	token Token // for DexPerps: perps USDC (PerpsDecimals)
}

func (a asset) decimals() int {
	if a.dex == DexPerps {
		return PerpsDecimals
	}
	return a.token.WeiDecimals
}

// resolve reads a transfer's token ("NAME:0x<id>") for a move from dex src to dex dst. Perps
// USDC is named by the spot USDC's id, as the real exchange names it, or by its own listing
// address, 16 zero bytes; a move to or from the perps balance is USDC's only. A HIP-3 DEX holds
// any listed token by its token id, as the spot dex does.
func (s *state) resolve(token, src, dst string) (from, to asset, err error) {
	for _, d := range []string{src, dst} {
		if d != DexPerps && d != DexSpot && !s.dexes[d] {
			return from, to, refuse("unknown dex %q: this exchange has the perps balance (\"\"), spot (%q) and %s", d, DexSpot, s.dexesText())
		}
	}
	name, idText, ok := cutLast(token, ":")
	if !ok {
		return from, to, refuse("token %q is not NAME:0x<token id>", token)
	}
	id, err := ParseTokenID(idText)
	if err != nil {
		return from, to, refuse("token %q: %v", token, err)
	}
	var t Token
	if id == PerpsUSDCID && name == s.usdc.Name {
		if src != DexPerps || dst != DexPerps {
			return from, to, refuse("token %q is perps USDC, which moves between perps balances only; name spot USDC %s to move to or from spot", token, s.usdc.Wire())
		}
		t = s.usdc
	} else if t, ok = s.tokens[id]; !ok || t.Name != name {
		return from, to, refuse("unknown token %q", token)
	}
	if (src == DexPerps || dst == DexPerps) && t.ID != s.usdc.ID {
		return from, to, refuse("token %q has no perps balance: only USDC does", token)
	}
	return asset{src, t}, asset{dst, t}, nil
}

// dexList is the HIP-3 DEXes' names, sorted; the caller may hold mu or not (dexes never
// changes after newState).
func (s *state) dexList() []string {
	out := make([]string, 0, len(s.dexes))
	for d := range s.dexes {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// dexesText names the HIP-3 DEXes for a refusal: "no DEXes", or "the DEXes [xyz]".
func (s *state) dexesText() string {
	if len(s.dexes) == 0 {
		return "no DEXes"
	}
	return fmt.Sprintf("the DEXes %v", s.dexList())
}

func cutLast(s, sep string) (before, after string, found bool) {
	for i := len(s) - len(sep); i >= 0; i-- {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// balance is user's balance of a, nil when there is none; the caller holds mu.
func (s *state) balance(user common.Address, a asset) *big.Int {
	if a.dex == DexPerps {
		return s.perps[user]
	}
	return s.held[user][holding{a.dex, a.token.ID}]
}

// add adds v to user's balance of a (v may be negative; the caller checked it suffices); the
// caller holds mu.
func (s *state) add(user common.Address, a asset, v *big.Int) {
	b := s.balance(user, a)
	if b == nil {
		b = new(big.Int)
		if a.dex == DexPerps {
			s.perps[user] = b
		} else {
			if s.held[user] == nil {
				s.held[user] = map[holding]*big.Int{}
			}
			s.held[user][holding{a.dex, a.token.ID}] = b
		}
	}
	b.Add(b, v)
	s.known[user] = true
}

// credit is the faucet: amount of a to user.
func (s *state) credit(user common.Address, a asset, amount *big.Int) error {
	if amount.Sign() <= 0 {
		return refuse("amount must be positive")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(user, a, amount)
	return nil
}

// transfer is a verified sendAsset: signer sends amount of from to destination's to, under
// nonce, at now. It checks the nonce and the balances and changes nothing unless it accepts.
func (s *state) transfer(now time.Time, signer, destination common.Address, from, to asset, token string, amount *big.Int, nonce uint64) (Transfer, error) {
	if amount.Sign() <= 0 {
		return Transfer{}, refuse("amount must be positive")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.known[signer] {
		// A signature over other data recovers some other address, which has never held
		// anything: the real exchange says so in these words.
		return Transfer{}, refuse("User or API Wallet %s does not exist.", signer.Hex())
	}
	if err := s.checkNonce(now, signer, nonce); err != nil {
		return Transfer{}, err
	}
	fee := new(big.Int)
	if !s.known[destination] {
		fee.Set(s.activateF)
	}
	// What the sender needs of each balance: the amount from its source, the fee from perps.
	need := new(big.Int).Set(amount)
	if from.dex == DexPerps {
		need.Add(need, fee)
	} else if fee.Sign() > 0 {
		if have := s.perps[signer]; have == nil || have.Cmp(fee) < 0 {
			return Transfer{}, refuse("Insufficient balance for the activation fee: %s has never held anything, so the transfer costs %s USDC from the sender's perps balance", destination.Hex(), FormatAmount(fee, PerpsDecimals))
		}
	}
	if have := s.balance(signer, from); have == nil || have.Cmp(need) < 0 {
		h := new(big.Int)
		if have != nil {
			h = have
		}
		return Transfer{}, refuse("Insufficient balance for asset transfer: %s %s balance is %s, the transfer needs %s (fee %s)",
			dexName(from.dex), from.token.Name, FormatAmount(h, from.decimals()), FormatAmount(need, from.decimals()), FormatAmount(fee, PerpsDecimals))
	}
	s.add(signer, from, new(big.Int).Neg(amount))
	if fee.Sign() > 0 {
		s.add(signer, asset{dex: DexPerps, token: s.usdc}, new(big.Int).Neg(fee))
	}
	s.add(destination, to, amount)
	s.useNonce(signer, nonce)
	if now.Before(s.lastTime) {
		now = s.lastTime // the ledger's times never go back
	}
	s.lastTime = now
	t := Transfer{Time: now, Hash: transferHash(signer, nonce), User: signer, Destination: destination,
		SourceDex: from.dex, DestinationDex: to.dex, Token: token, Amount: new(big.Int).Set(amount), Fee: fee, Nonce: nonce,
		decimals: from.decimals()}
	s.ledger = append(s.ledger, t)
	s.byUser[signer] = append(s.byUser[signer], len(s.ledger)-1)
	if destination != signer {
		s.byUser[destination] = append(s.byUser[destination], len(s.ledger)-1)
	}
	return t, nil
}

func dexName(dex string) string {
	if dex == DexPerps {
		return "perps"
	}
	return dex
}

// transferHash is a transfer's id: a signer uses a nonce once, so signer and nonce name it.
func transferHash(signer common.Address, nonce uint64) common.Hash {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], nonce)
	return crypto.Keccak256Hash([]byte("sendAsset"), signer[:], n[:])
}

// checkNonce applies the nonce rules; the caller holds mu.
func (s *state) checkNonce(now time.Time, signer common.Address, nonce uint64) error {
	ms := uint64(now.UnixMilli())
	if lo := ms - uint64(NonceMaxAge.Milliseconds()); nonce <= lo {
		return refuse("Invalid nonce: %d is too far in the past (it must be after %d, the time two days ago in milliseconds)", nonce, lo)
	}
	if hi := ms + uint64(NonceMaxAhead.Milliseconds()); nonce >= hi {
		return refuse("Invalid nonce: %d is too far in the future (it must be before %d, the time a day from now in milliseconds)", nonce, hi)
	}
	set := s.nonces[signer]
	if _, found := slices.BinarySearch(set, nonce); found {
		return refuse("Invalid nonce: %d was already used by %s", nonce, signer.Hex())
	}
	if len(set) >= NonceSetSize && nonce <= set[0] {
		return refuse("Invalid nonce: %d is not greater than %d, the smallest of the signer's %d highest nonces", nonce, set[0], NonceSetSize)
	}
	return nil
}

// useNonce stores a nonce checkNonce accepted; the caller holds mu.
func (s *state) useNonce(signer common.Address, nonce uint64) {
	set := s.nonces[signer]
	i, _ := slices.BinarySearch(set, nonce)
	set = slices.Insert(set, i, nonce)
	if len(set) > NonceSetSize {
		set = slices.Delete(set, 0, 1)
	}
	s.nonces[signer] = set
}

// transfersOf is every transfer user sent or received at or after start (and before end, when
// end is not zero), in order.
func (s *state) transfersOf(user common.Address, start, end time.Time) []Transfer {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Transfer
	for _, i := range s.byUser[user] {
		t := s.ledger[i]
		if t.Time.Before(start) || (!end.IsZero() && !t.Time.Before(end)) {
			continue
		}
		t.Amount, t.Fee = new(big.Int).Set(t.Amount), new(big.Int).Set(t.Fee)
		out = append(out, t)
	}
	return out
}

// perpsOf is user's perps USDC (PerpsDecimals units), zero when none.
func (s *state) perpsOf(user common.Address) *big.Int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.perps[user]; b != nil {
		return new(big.Int).Set(b)
	}
	return new(big.Int)
}

// heldOf is user's balance of token id in dex (DexSpot or a HIP-3 DEX), zero when none.
func (s *state) heldOf(user common.Address, dex string, id TokenID) *big.Int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.held[user][holding{dex, id}]; b != nil {
		return new(big.Int).Set(b)
	}
	return new(big.Int)
}

// spotBalance is one line of spotClearinghouseState.
type spotBalance struct {
	token Token
	total *big.Int
}

// balancesOf is every token user has held in dex (DexSpot or a HIP-3 DEX), by listing index.
func (s *state) balancesOf(user common.Address, dex string) []spotBalance {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []spotBalance
	for h, b := range s.held[user] {
		if h.dex == dex {
			out = append(out, spotBalance{s.tokens[h.id], new(big.Int).Set(b)})
		}
	}
	slices.SortFunc(out, func(a, b spotBalance) int { return a.token.Index - b.token.Index })
	return out
}

// listing is the spot listing, by index.
func (s *state) listing() []Token {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Token
	for _, t := range s.tokens {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Token) int { return a.Index - b.Index })
	return out
}
