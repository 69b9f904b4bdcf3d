package exchange

import (
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"unicode"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// SendAsset is a sendAsset action: a transfer of Amount of Token from the signer's SourceDex
// balance to Destination's DestinationDex balance. On the wire its ExchangeChain is the field
// "<name>Chain", name the exchange's word with a lower-case first letter ("exchangeChain" for
// DefaultName); Action writes it so.
type SendAsset struct {
	// SignatureChainID is the chain id the wallet signed on, 0x and hex ("0xa4b1").
	SignatureChainID string
	// ExchangeChain is the exchange's network: "Mainnet" here.
	ExchangeChain  string
	Destination    string // 0x and 40 hex digits
	SourceDex      string // DexPerps, DexSpot or a configured HIP-3 DEX's name
	DestinationDex string // DexPerps, DexSpot or a configured HIP-3 DEX's name
	Token          string // "NAME:0x<token id>"
	Amount         string // a decimal, at most the token's decimals
	FromSubAccount string // must be empty here
	Nonce          uint64 // milliseconds, equal to the request's nonce
}

// Signature is an action's signature as the exchange's requests carry it.
type Signature struct {
	R string `json:"r"` // 0x and hex, 32 bytes
	S string `json:"s"` // 0x and hex, 32 bytes
	V int    `json:"v"` // 27 or 28
}

// ExchangeChain is the only network this exchange answers for.
const ExchangeChain = "Mainnet"

// chainField is the action's network field for an exchange called name: "exchangeChain" for
// "Exchange".
func chainField(name string) string {
	r := []rune(name)
	r[0] = unicode.ToLower(r[0])
	return string(r) + "Chain"
}

// Action is a as the request's "action" object of an exchange called name.
func Action(name string, a SendAsset) map[string]any {
	return map[string]any{
		"type": "sendAsset", "signatureChainId": a.SignatureChainID, chainField(name): a.ExchangeChain,
		"destination": a.Destination, "sourceDex": a.SourceDex, "destinationDex": a.DestinationDex,
		"token": a.Token, "amount": a.Amount, "fromSubAccount": a.FromSubAccount, "nonce": a.Nonce,
	}
}

// parseAction reads a request's action of an exchange called name.
func parseAction(name string, raw json.RawMessage) (SendAsset, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return SendAsset{}, refuse("action: not a JSON object: %v", err)
	}
	var typ string
	if err := json.Unmarshal(fields["type"], &typ); err != nil || typ != "sendAsset" {
		return SendAsset{}, refuse("action type %s is not supported: this exchange accepts sendAsset only", string(fields["type"]))
	}
	var a SendAsset
	str := map[string]*string{"signatureChainId": &a.SignatureChainID, chainField(name): &a.ExchangeChain,
		"destination": &a.Destination, "sourceDex": &a.SourceDex, "destinationDex": &a.DestinationDex,
		"token": &a.Token, "amount": &a.Amount, "fromSubAccount": &a.FromSubAccount}
	for k, p := range str {
		v, ok := fields[k]
		if !ok {
			return SendAsset{}, refuse("action: field %q is missing", k)
		}
		if err := json.Unmarshal(v, p); err != nil {
			return SendAsset{}, refuse("action: field %q is not a string", k)
		}
	}
	v, ok := fields["nonce"]
	if !ok {
		return SendAsset{}, refuse("action: field \"nonce\" is missing")
	}
	if err := json.Unmarshal(v, &a.Nonce); err != nil {
		return SendAsset{}, refuse("action: field \"nonce\" is not an unsigned 64-bit integer")
	}
	return a, nil
}

// signatureChainID reads the action's signatureChainId: 0x and hex, positive.
func (a SendAsset) signatureChainID() (*big.Int, error) {
	h, ok := strings.CutPrefix(a.SignatureChainID, "0x")
	id, ok2 := new(big.Int).SetString(h, 16)
	if !ok || !ok2 || h == "" || id.Sign() <= 0 || id.BitLen() > 256 {
		return nil, refuse("signatureChainId %q is not a chain id written 0x and hex", a.SignatureChainID)
	}
	return id, nil
}

// TypedData is the EIP-712 message a wallet signs for a on an exchange called name: domain
// {name: name+"SignTransaction", version: "1", chainId: a's signatureChainId, verifyingContract:
// the zero address}, primary type name+"Transaction:SendAsset".
func TypedData(name string, a SendAsset) (apitypes.TypedData, error) {
	chainID, err := a.signatureChainID()
	if err != nil {
		return apitypes.TypedData{}, err
	}
	primary := name + "Transaction:SendAsset"
	return apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
				{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			primary: {{Name: chainField(name), Type: "string"}, {Name: "destination", Type: "string"},
				{Name: "sourceDex", Type: "string"}, {Name: "destinationDex", Type: "string"},
				{Name: "token", Type: "string"}, {Name: "amount", Type: "string"},
				{Name: "fromSubAccount", Type: "string"}, {Name: "nonce", Type: "uint64"}},
		},
		PrimaryType: primary,
		Domain: apitypes.TypedDataDomain{Name: name + "SignTransaction", Version: "1",
			ChainId: (*math.HexOrDecimal256)(chainID), VerifyingContract: common.Address{}.Hex()},
		Message: apitypes.TypedDataMessage{
			chainField(name): a.ExchangeChain, "destination": a.Destination, "sourceDex": a.SourceDex,
			"destinationDex": a.DestinationDex, "token": a.Token, "amount": a.Amount,
			"fromSubAccount": a.FromSubAccount, "nonce": new(big.Int).SetUint64(a.Nonce),
		},
	}, nil
}

// Sign signs a with key for an exchange called name, as a wallet's eth_signTypedData_v4 does.
func Sign(key *ecdsa.PrivateKey, name string, a SendAsset) (Signature, error) {
	td, err := TypedData(name, a)
	if err != nil {
		return Signature{}, err
	}
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return Signature{}, err
	}
	sig, err := crypto.Sign(hash, key)
	if err != nil {
		return Signature{}, err
	}
	return Signature{R: "0x" + hex.EncodeToString(sig[:32]), S: "0x" + hex.EncodeToString(sig[32:64]), V: int(sig[64]) + 27}, nil
}

// Signer recovers the address that signed a with sig on an exchange called name.
func Signer(name string, a SendAsset, sig Signature) (common.Address, error) {
	td, err := TypedData(name, a)
	if err != nil {
		return common.Address{}, err
	}
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return common.Address{}, refuse("the action cannot be hashed: %v", err)
	}
	r, errR := word(sig.R)
	s, errS := word(sig.S)
	if errR != nil || errS != nil || (sig.V != 27 && sig.V != 28) {
		return common.Address{}, refuse("invalid signature: r and s must be 0x and at most 64 hex digits, v 27 or 28")
	}
	if !crypto.ValidateSignatureValues(byte(sig.V-27), new(big.Int).SetBytes(r), new(big.Int).SetBytes(s), true) {
		return common.Address{}, refuse("invalid signature: r or s out of range")
	}
	pub, err := crypto.SigToPub(hash, append(append(r, s...), byte(sig.V-27)))
	if err != nil {
		return common.Address{}, refuse("invalid signature: %v", err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// word reads 0x and at most 64 hex digits into 32 bytes, left-padded.
func word(s string) ([]byte, error) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || h == "" || len(h) > 64 {
		return nil, fmt.Errorf("not 0x and at most 64 hex digits")
	}
	if len(h)%2 == 1 {
		h = "0" + h
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, err
	}
	return common.LeftPadBytes(b, 32), nil
}
