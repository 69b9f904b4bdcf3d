package perps

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/intentd/intentd/intent"
)

// The NonceMapping message (the spec's step `authorize`): its domain is literally
// ServiceNonceMapping version 2 with a zero verifying contract, signed on any EVM chain.
const (
	NonceMappingDomain  = "ServiceNonceMapping"
	NonceMappingVersion = "2"
	NonceMappingType    = "NonceMapping"
	// DefaultSignatureChainID is the chain the message is signed on unless the client signs it
	// on its wallet's active chain (overriding both sign.domain.chainId and the post body's
	// signatureChainId, as the SDK does).
	DefaultSignatureChainID = 1
	// AuthorizeEndpoint and AuthorizeType are where and as what the signature is posted.
	AuthorizeEndpoint = "/authorize"
	AuthorizeType     = "nonce-mapping"
)

// zeroAddress is the verifying contract of both messages.
const zeroAddress = "0x0000000000000000000000000000000000000000"

// nonceMappingFields are the NonceMapping type's fields, in the order that is hashed.
var nonceMappingFields = []apitypes.Type{
	{Name: "chainId", Type: "string"}, {Name: "wallet", Type: "address"}, {Name: "depositor", Type: "address"},
	{Name: "id", Type: "bytes32"}, {Name: "nonce", Type: "uint256"},
}

// domainFields are EIP712Domain's fields for a domain of name, version, chainId and
// verifyingContract (how wallets derive it from such a domain).
var domainFields = []apitypes.Type{
	{Name: "name", Type: "string"}, {Name: "version", Type: "string"}, {Name: "chainId", Type: "uint256"},
	{Name: "verifyingContract", Type: "address"},
}

// NonceMapping is what the authorize step binds: the nonce of Depositor's transfer on the
// exchange to the order OrderID, signed by Wallet on chain SignatureChainID.
type NonceMapping struct {
	Wallet           common.Address
	Depositor        common.Address
	OrderID          common.Hash // the protocol order id (protocol.v2.orderId), not the requestId
	Nonce            uint64      // the sendAsset action's nonce (milliseconds, the exchange's rule)
	SignatureChainID uint64      // the signing domain's chainId; 0 is DefaultSignatureChainID
}

func (m NonceMapping) signatureChainID() uint64 {
	if m.SignatureChainID == 0 {
		return DefaultSignatureChainID
	}
	return m.SignatureChainID
}

// hexAddress is an address as the messages write it: lower-case hex.
func hexAddress(a common.Address) string { return strings.ToLower(a.Hex()) }

// NonceMappingTypedData is m as EIP-712 typed data, EIP712Domain included: what the wallet signs
// and VerifyNonceMapping recovers the signer of.
func (x Exchange) NonceMappingTypedData(m NonceMapping) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       apitypes.Types{"EIP712Domain": domainFields, NonceMappingType: nonceMappingFields},
		PrimaryType: NonceMappingType,
		Domain: apitypes.TypedDataDomain{Name: NonceMappingDomain, Version: NonceMappingVersion,
			ChainId: (*math.HexOrDecimal256)(new(big.Int).SetUint64(m.signatureChainID())), VerifyingContract: zeroAddress},
		Message: apitypes.TypedDataMessage{
			"chainId":   x.NonceMappingChain(),
			"wallet":    hexAddress(m.Wallet),
			"depositor": hexAddress(m.Depositor),
			"id":        m.OrderID.Hex(),
			"nonce":     new(big.Int).SetUint64(m.Nonce),
		},
	}
}

// ErrBadSignature is a signature that is no valid secp256k1 signature at all (its length, v, r
// or s); a valid one of another signer is not an error of VerifyNonceMapping, its caller
// compares the signer.
var ErrBadSignature = errors.New("not a valid signature")

// VerifyNonceMapping recovers the address that signed td with sig: 65 bytes r‖s‖v, v 27/28 or
// 0/1, s in the lower half of the curve's order (as every wallet signs; the upper half is the
// same signature mirrored).
func VerifyNonceMapping(td apitypes.TypedData, sig []byte) (common.Address, error) {
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return common.Address{}, fmt.Errorf("hash the typed data: %w", err)
	}
	return recoverSigner(hash, sig)
}

// recoverSigner is the signer of hash (32 bytes) by sig (r‖s‖v).
func recoverSigner(hash, sig []byte) (common.Address, error) {
	if len(sig) != crypto.SignatureLength {
		return common.Address{}, fmt.Errorf("%w: %d bytes, want 65", ErrBadSignature, len(sig))
	}
	s := make([]byte, len(sig))
	copy(s, sig)
	if s[64] >= 27 {
		s[64] -= 27
	}
	if s[64] > 1 || !crypto.ValidateSignatureValues(s[64], new(big.Int).SetBytes(s[:32]), new(big.Int).SetBytes(s[32:64]), true) {
		return common.Address{}, fmt.Errorf("%w: v, r or s out of range", ErrBadSignature)
	}
	pub, err := crypto.SigToPub(hash, s)
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// Domain is an EIP-712 domain as a step writes it (the SDK's sign.domain).
type Domain struct {
	Name              string `json:"name"`
	Version           string `json:"version"`
	ChainID           uint64 `json:"chainId"`
	VerifyingContract string `json:"verifyingContract"`
}

// NonceMappingValue is the NonceMapping message as the step writes it (sign.value), in the
// public example's order.
type NonceMappingValue struct {
	ChainID   string `json:"chainId"`
	Wallet    string `json:"wallet"`
	Depositor string `json:"depositor"`
	Nonce     uint64 `json:"nonce"`
	ID        string `json:"id"`
}

// AuthorizeBody is what the client posts to POST /authorize with the signature (post.body).
type AuthorizeBody struct {
	Type             string `json:"type"`
	WalletChainID    uint64 `json:"walletChainId"`
	Wallet           string `json:"wallet"`
	Depositor        string `json:"depositor"`
	Nonce            uint64 `json:"nonce"`
	ID               string `json:"id"`
	SignatureChainID uint64 `json:"signatureChainId"`
}

// AuthorizeBodyOf is the body that posts m.
func AuthorizeBodyOf(m NonceMapping) AuthorizeBody {
	return AuthorizeBody{Type: AuthorizeType, WalletChainID: ChainID, Wallet: hexAddress(m.Wallet), Depositor: hexAddress(m.Depositor),
		Nonce: m.Nonce, ID: m.OrderID.Hex(), SignatureChainID: m.signatureChainID()}
}

// AuthorizeStepData is the data of the authorize step's item: sign, the NonceMapping message
// (the types without EIP712Domain, which wallets derive from the domain), and post, the call to
// POST /authorize with AuthorizeBodyOf(m).
func (x Exchange) AuthorizeStepData(m NonceMapping) intent.SignatureData {
	return intent.SignatureData{
		Sign: &intent.SignData{
			SignatureKind: intent.SignatureKindEIP712,
			Domain: Domain{Name: NonceMappingDomain, Version: NonceMappingVersion, ChainID: m.signatureChainID(),
				VerifyingContract: zeroAddress},
			Types: map[string][]apitypes.Type{NonceMappingType: nonceMappingFields},
			Value: NonceMappingValue{ChainID: x.NonceMappingChain(), Wallet: hexAddress(m.Wallet), Depositor: hexAddress(m.Depositor),
				Nonce: m.Nonce, ID: m.OrderID.Hex()},
			PrimaryType: NonceMappingType,
		},
		Post: &intent.StepPostTo{Endpoint: AuthorizeEndpoint, Method: "POST", Body: AuthorizeBodyOf(m)},
	}
}

// AuthorizeStepItem is the authorize step's one item: its data (AuthorizeStepData), and the
// same post on the item, where the spec's step table lists it.
func (x Exchange) AuthorizeStepItem(m NonceMapping) (intent.StepItem, error) {
	data := x.AuthorizeStepData(m)
	d, err := intent.OtherData(data)
	if err != nil {
		return intent.StepItem{}, err
	}
	return intent.StepItem{Status: intent.StepItemIncomplete, Data: d, Post: data.Post}, nil
}

// ParseSignature reads a signature as the client posts it: 0x and 65 bytes of hex.
func ParseSignature(s string) ([]byte, error) {
	b, err := hexutil.Decode(s)
	if err != nil || len(b) != crypto.SignatureLength {
		return nil, fmt.Errorf("%w: want 0x and 65 bytes of hex", ErrBadSignature)
	}
	return b, nil
}
