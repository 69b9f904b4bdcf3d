package oracleapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// The perps exchange's deposits (docs/oracle.md, "Perps exchange chains"). A withdrawal from
// the exchange is funded by the user's sendAsset transfer to the depository's account on the
// exchange. A transfer names no order: the user binds its nonce to the order with the
// NonceMapping message (domain ServiceNonceMapping version 2), and the deposit endpoint takes
// that signed message with the transfer's hash when its chainId names a perps chain. The oracle
// finds the transfer in the depository's ledger, checks it against the message and the message's
// signature against its wallet, and signs a PerpsDeposit.
//
// Domain. As for Solana, the messages of a perps chain are signed under the version 2 domain
// with verifyingContract the zero address (PerpsDomain): the depository is an account of the
// exchange, not a contract, and is a signed field of the message; the primary type is the
// family's own, so a perps message never verifies as an EVM or a Solana one.

// VMTypePerps is the chain files' vmType of a perps exchange's chain.
const VMTypePerps = "hypevm"

// DefaultExchangeWord is the exchange's word when a chain entry names none (the local exchange's).
const DefaultExchangeWord = "Exchange"

// PerpsFamily is the spec's VM family identifier of a perps chain whose exchange's word (the
// chain entry's "exchange") is word: the word in lower case and "-vm", "exchange-vm" for the
// local exchange (empty word). GET /chains/v1 names a perps chain so; a chain file may write it
// or hypevm.
func PerpsFamily(word string) string {
	if word == "" {
		word = DefaultExchangeWord
	}
	return strings.ToLower(word) + "-vm"
}

// IsPerpsFamily reports whether family (a chain file's vmType, hypevm, or the local exchange's
// family identifier, exchange-vm) names the perps family.
func IsPerpsFamily(family string) bool { return family == VMTypePerps || family == PerpsFamily("") }

// PerpsDomain is the version 2 domain of facts about a perps chain in environment: its
// verifyingContract is the zero address (see the top of this file).
func PerpsDomain(environment string, chainID uint64) Domain {
	return NewDomain(environment, chainID, common.Address{})
}

// PerpsNonceMapping is the signed NonceMapping message as the deposit request carries it: Wallet
// signed, on chain SignatureChainID (the message's domain chainId), that Depositor's transfer of
// nonce Nonce pays for order ID. Signature is r‖s‖v, 65 bytes.
type PerpsNonceMapping struct {
	Wallet           common.Address `json:"wallet" doc:"The wallet that signed the message."`
	Depositor        common.Address `json:"depositor" doc:"The exchange account whose transfer carries the nonce."`
	Nonce            uint64         `json:"nonce" minimum:"1" doc:"The transfer's nonce (milliseconds)."`
	ID               common.Hash    `json:"id" doc:"The order id the nonce is bound to; must be the request's orderId."`
	SignatureChainID uint64         `json:"signatureChainId" minimum:"1" doc:"The chain id of the message's signing domain."`
	Signature        hexutil.Bytes  `json:"signature" doc:"The wallet's EIP-712 signature of the message, 0x and 65 bytes of hex."`
}

// PerpsDepositAttestationRequest is the body of POST /attestations/depository-deposits/v1 for a
// perps chain: TransactionID is the exchange transfer's hash (its ledger's "hash"), OrderID the
// order it funds, NonceMapping the message binding the transfer's nonce to it. An orphan (a
// transfer to the depository whose nonce no order was bound to, for its refund) is asked with
// the zero OrderID and no NonceMapping: the attested message then names no order.
type PerpsDepositAttestationRequest struct {
	ChainID               uint64             `json:"chainId" minimum:"1"`
	TransactionID         common.Hash        `json:"transactionId" doc:"The transfer's hash in the exchange's ledger, 0x and 32 bytes of hex."`
	OrderID               common.Hash        `json:"orderId" doc:"The order the transfer funds; the zero id for an orphan (then without nonceMapping)."`
	NonceMapping          *PerpsNonceMapping `json:"nonceMapping,omitempty" doc:"The signed NonceMapping binding the transfer's nonce to orderId; absent for an orphan."`
	RequestPeerSignatures bool               `json:"requestPeerSignatures,omitempty"`
}

// PerpsDepositAttestation is the response of the perps variant.
type PerpsDepositAttestation = Attestation[PerpsDepositData]

// PerpsDepositType is the EIP-712 type string of a perps deposit; a test pins it to what
// apitypes encodes.
const PerpsDepositType = "PerpsDeposit(uint256 chainId,address depository,bytes32 transactionId,uint256 index,bytes32 orderId,address depositor,bytes currency,uint256 amount)"

// PerpsDepositData is one deposit to a perps chain's depository account: the sendAsset transfer
// TransactionID of Amount of Currency from Depositor to Depository, whose nonce Depositor's
// wallet bound to OrderID. Index is always 0 (a transfer moves one asset). Currency is the
// token id the depository received: perps USDC's 16 zero bytes for a transfer to its perps
// balance, else the token's 16-byte id. Block is the transfer's time in Unix seconds, the
// family's block; it is returned for the caller's tracking and not signed, as an EVM deposit's
// block is not.
type PerpsDepositData struct {
	ChainID       uint64         `json:"chainId"`
	Depository    common.Address `json:"depository"`
	TransactionID common.Hash    `json:"transactionId"`
	Index         uint64         `json:"index"`
	Block         uint64         `json:"block"`
	OrderID       common.Hash    `json:"orderId"`
	Depositor     common.Address `json:"depositor"`
	Currency      hexutil.Bytes  `json:"currency"`
	Amount        *Amount        `json:"amount"`
}

// PrimaryType names the perps deposit's EIP-712 type.
func (PerpsDepositData) PrimaryType() string { return "PerpsDeposit" }

// TypeFields are PerpsDepositType's fields.
func (PerpsDepositData) TypeFields() []apitypes.Type {
	return []apitypes.Type{{Name: "chainId", Type: "uint256"}, {Name: "depository", Type: "address"},
		{Name: "transactionId", Type: "bytes32"}, {Name: "index", Type: "uint256"}, {Name: "orderId", Type: "bytes32"},
		{Name: "depositor", Type: "address"}, {Name: "currency", Type: "bytes"}, {Name: "amount", Type: "uint256"}}
}

// TypedMessage is the perps deposit's values.
func (d PerpsDepositData) TypedMessage() (apitypes.TypedDataMessage, error) {
	amount, err := d.Amount.value("deposit")
	if err != nil {
		return nil, err
	}
	if len(d.Currency) < 16 {
		return nil, fmt.Errorf("deposit currency has %d bytes, not a token id's 16 or more", len(d.Currency))
	}
	return apitypes.TypedDataMessage{
		"chainId": u256(d.ChainID), "depository": d.Depository.Hex(), "transactionId": d.TransactionID.Bytes(),
		"index": u256(d.Index), "orderId": d.OrderID.Bytes(), "depositor": d.Depositor.Hex(),
		"currency": []byte(d.Currency), "amount": amount,
	}, nil
}

// AttestPerpsDeposit asks the oracle to attest the deposit of a perps chain (POST
// /attestations/depository-deposits/v1 with the perps body, with its peers' signatures): the
// transfer transferHash to the depository, whose nonce mapping binds it to orderID. It returns
// the deposit in the engine's view (FundingFact: addresses checksummed, the hash and the
// currency in lower case, BlockNumber the transfer's second, BlockHash empty), its signatures
// recovered to their claimed signers under the returned domain; whether that domain is
// PerpsDomain and the signers are trusted, and enough of them, is the caller's decision.
func (c *Client) AttestPerpsDeposit(ctx context.Context, chainID uint64, transferHash, orderID common.Hash, mapping *PerpsNonceMapping) (*FundingAttestation, error) {
	att, err := Attest[PerpsDepositData](ctx, c, PathDepositAttestation, PerpsDepositAttestationRequest{ChainID: chainID,
		TransactionID: transferHash, OrderID: orderID, NonceMapping: mapping, RequestPeerSignatures: true})
	if err != nil {
		return nil, err
	}
	out := &FundingAttestation{Domain: att.Domain}
	for i, m := range att.Messages {
		if m.Data.ChainID != chainID || m.Data.TransactionID != transferHash {
			return nil, invalidResponse("message %d is about chain %d transfer %s", i, m.Data.ChainID, m.Data.TransactionID.Hex())
		}
		if m.Data.OrderID != orderID {
			continue
		}
		amount, err := m.Data.Amount.value("deposit")
		if err != nil {
			return nil, invalidResponse("message %d: %v", i, err)
		}
		out.Facts = append(out.Facts, FundingFact{ChainID: m.Data.ChainID, Depository: m.Data.Depository.Hex(),
			TransactionID: strings.ToLower(m.Data.TransactionID.Hex()), BlockNumber: m.Data.Block, Index: m.Data.Index,
			OrderID: m.Data.OrderID, Depositor: m.Data.Depositor.Hex(), Currency: strings.ToLower(m.Data.Currency.String()),
			Amount: amount, Signatures: m.Signatures})
	}
	if len(out.Facts) == 0 {
		return nil, &Error{Status: http.StatusNotFound, Code: CodeNoDepositEvents,
			Message: fmt.Sprintf("the oracle attested no deposit of transfer %s for order %s", transferHash.Hex(), orderID.Hex())}
	}
	return out, nil
}

// PerpsMapping is a nonce mapping as the engine keeps it (store.PerpsNonceMapping): addresses
// and the signature as 0x-hex strings.
type PerpsMapping struct {
	Wallet, Depositor, Signature string
	Nonce, SignatureChainID      uint64
}

// AttestPerpsFunding is AttestPerpsDeposit for the engine, which writes ids and addresses as
// strings: txID is the transfer's hash, orderID the order's id; m nil asks about an orphan (the
// zero order id).
func (c *Client) AttestPerpsFunding(ctx context.Context, chainID uint64, txID, orderID string, m *PerpsMapping) (*FundingAttestation, error) {
	if m == nil {
		return c.AttestPerpsDeposit(ctx, chainID, common.HexToHash(txID), common.Hash{}, nil)
	}
	sig, err := hexutil.Decode(m.Signature)
	if err != nil {
		return nil, &Error{Status: http.StatusBadRequest, Code: CodeClientMisconfigured,
			Message: fmt.Sprintf("the nonce mapping's signature %q is not hex", m.Signature)}
	}
	return c.AttestPerpsDeposit(ctx, chainID, common.HexToHash(txID), common.HexToHash(orderID), &PerpsNonceMapping{
		Wallet: common.HexToAddress(m.Wallet), Depositor: common.HexToAddress(m.Depositor), Nonce: m.Nonce,
		ID: common.HexToHash(orderID), SignatureChainID: m.SignatureChainID, Signature: sig})
}
