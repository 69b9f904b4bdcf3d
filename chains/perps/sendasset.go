package perps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/intentd/intentd/intent"
)

// The sendAsset action: the exchange's transfer between two accounts (or between the perps and
// spot balances of one), signed by the sender with EIP-712 over domain <Word>SignTransaction
// version 1, the wallet's chain id and a zero verifying contract.
const (
	SendAssetAction     = "sendAsset"
	SendAssetDomainVers = "1"
	// SpotDex is the sourceDex/destinationDex of the spot balance; "" is the perps balance.
	SpotDex = "spot"
)

// SendAsset is one sendAsset action's parameters, the fields of the signed type but the chain
// field (Exchange.Chain).
type SendAsset struct {
	Destination    string // the receiving account, 0x hex
	SourceDex      string // "" the perps balance, SpotDex the spot balance, else a HIP-3 DEX's name
	DestinationDex string
	Token          string // "<name>:<token id>", Token
	Amount         string // a decimal string, FormatAmount
	FromSubAccount string // "": the signer's own account
	Nonce          uint64 // milliseconds; the authorize step's nonce for a withdrawal
}

// Token is a token as sendAsset names it: its name, a colon and its token id (USDC:0x6d1e…).
func Token(name, tokenID string) string { return name + ":" + tokenID }

// sendAssetFields are the signed type's fields after the chain field, in the order hashed.
var sendAssetFields = []apitypes.Type{
	{Name: "destination", Type: "string"}, {Name: "sourceDex", Type: "string"}, {Name: "destinationDex", Type: "string"},
	{Name: "token", Type: "string"}, {Name: "amount", Type: "string"}, {Name: "fromSubAccount", Type: "string"},
	{Name: "nonce", Type: "uint64"},
}

// SendAssetTypes are the EIP-712 types of sendAsset, without EIP712Domain: what the deposit
// step's eip712Types carries.
func (x Exchange) SendAssetTypes() map[string][]apitypes.Type {
	fields := append([]apitypes.Type{{Name: x.ChainField(), Type: "string"}}, sendAssetFields...)
	return map[string][]apitypes.Type{x.SendAssetType(): fields}
}

// SendAssetTypedData is a as EIP-712 typed data signed on chain signatureChainID, EIP712Domain
// included: what the sender signs.
func (x Exchange) SendAssetTypedData(a SendAsset, signatureChainID uint64) apitypes.TypedData {
	types := apitypes.Types{"EIP712Domain": domainFields}
	for k, v := range x.SendAssetTypes() {
		types[k] = v
	}
	return apitypes.TypedData{
		Types:       types,
		PrimaryType: x.SendAssetType(),
		Domain: apitypes.TypedDataDomain{Name: x.SignDomain(), Version: SendAssetDomainVers,
			ChainId: (*math.HexOrDecimal256)(new(big.Int).SetUint64(signatureChainID)), VerifyingContract: zeroAddress},
		Message: apitypes.TypedDataMessage{
			x.ChainField(): x.orDefault().Chain, "destination": a.Destination, "sourceDex": a.SourceDex,
			"destinationDex": a.DestinationDex, "token": a.Token, "amount": a.Amount, "fromSubAccount": a.FromSubAccount,
			"nonce": new(big.Int).SetUint64(a.Nonce),
		},
	}
}

// SendAssetParameters are the action's parameters as the deposit step writes them: the signed
// fields in their order, the chain field named by the exchange's word.
type SendAssetParameters struct {
	chainField string
	Chain      string
	SendAsset
}

// MarshalJSON writes the parameters in the signed type's order.
func (p SendAssetParameters) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range []struct {
		name string
		v    any
	}{{p.chainField, p.Chain}, {"destination", p.Destination}, {"sourceDex", p.SourceDex}, {"destinationDex", p.DestinationDex},
		{"token", p.Token}, {"amount", p.Amount}, {"fromSubAccount", p.FromSubAccount}, {"nonce", p.Nonce}} {
		k, _ := json.Marshal(f.name)
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// SendAssetActionData is the deposit step's action: its type and parameters.
type SendAssetActionData struct {
	Type       string              `json:"type"`
	Parameters SendAssetParameters `json:"parameters"`
}

// SendAssetData is the data of the deposit step's item: the action, its nonce, and the EIP-712
// types the client signs it with (the domain is <Word>SignTransaction v1 on the wallet's chain).
type SendAssetData struct {
	Action            SendAssetActionData        `json:"action"`
	Nonce             uint64                     `json:"nonce"`
	EIP712Types       map[string][]apitypes.Type `json:"eip712Types"`
	EIP712PrimaryType string                     `json:"eip712PrimaryType"`
}

// SendAssetStepData is the deposit step's item data for a: the public example's shape.
func (x Exchange) SendAssetStepData(a SendAsset) SendAssetData {
	return SendAssetData{
		Action: SendAssetActionData{Type: SendAssetAction,
			Parameters: SendAssetParameters{chainField: x.ChainField(), Chain: x.orDefault().Chain, SendAsset: a}},
		Nonce:             a.Nonce,
		EIP712Types:       x.SendAssetTypes(),
		EIP712PrimaryType: x.SendAssetType(),
	}
}

// SendAssetStepItem is the deposit step's one item, with SendAssetStepData(a) as its data.
func (x Exchange) SendAssetStepItem(a SendAsset) (intent.StepItem, error) {
	d, err := intent.OtherData(x.SendAssetStepData(a))
	if err != nil {
		return intent.StepItem{}, err
	}
	return intent.StepItem{Status: intent.StepItemIncomplete, Data: d}, nil
}

// SignatureChainIDHex is a chain id as the exchange's action writes signatureChainId: 0x and hex.
func SignatureChainIDHex(chainID uint64) string { return "0x" + strconv.FormatUint(chainID, 16) }

// ExchangeRequest is the body of the exchange's POST /exchange for a signed sendAsset: the action
// (type, signatureChainId in hex, then the signed fields), its nonce, and the signature as
// {r, s, v} with v 27 or 28, as the SDK posts the deposit step and the solver posts its transfers.
type ExchangeRequest struct {
	Action    ExchangeAction `json:"action"`
	Nonce     uint64         `json:"nonce"`
	Signature RSV            `json:"signature"`
}

// ExchangeAction is a sendAsset action as the exchange takes it.
type ExchangeAction struct {
	SignatureChainID string
	Parameters       SendAssetParameters
}

// MarshalJSON writes type and signatureChainId, then the parameters in the signed type's order.
func (a ExchangeAction) MarshalJSON() ([]byte, error) {
	params, err := a.Parameters.MarshalJSON()
	if err != nil {
		return nil, err
	}
	head, _ := json.Marshal(SendAssetAction)
	chain, _ := json.Marshal(a.SignatureChainID)
	out := append([]byte(`{"type":`), head...)
	out = append(append(append(out, `,"signatureChainId":`...), chain...), ',')
	return append(out, params[1:]...), nil
}

// RSV is a signature as the exchange takes it.
type RSV struct {
	R string `json:"r"`
	S string `json:"s"`
	V byte   `json:"v"`
}

// RSVOf splits a 65-byte signature r‖s‖v, v 27/28 or 0/1, into the exchange's {r, s, v: 27|28}.
func RSVOf(sig []byte) (RSV, error) {
	if len(sig) != 65 {
		return RSV{}, fmt.Errorf("%w: %d bytes, want 65", ErrBadSignature, len(sig))
	}
	v := sig[64]
	if v < 27 {
		v += 27
	}
	return RSV{R: hexutil.Encode(sig[:32]), S: hexutil.Encode(sig[32:64]), V: v}, nil
}

// ExchangeRequestOf is the POST /exchange body of a signed on chain signatureChainID with sig
// (r‖s‖v, from SendAssetTypedData's hash).
func (x Exchange) ExchangeRequestOf(a SendAsset, signatureChainID uint64, sig []byte) (ExchangeRequest, error) {
	rsv, err := RSVOf(sig)
	if err != nil {
		return ExchangeRequest{}, err
	}
	return ExchangeRequest{
		Action: ExchangeAction{SignatureChainID: SignatureChainIDHex(signatureChainID),
			Parameters: SendAssetParameters{chainField: x.ChainField(), Chain: x.orDefault().Chain, SendAsset: a}},
		Nonce: a.Nonce, Signature: rsv,
	}, nil
}
