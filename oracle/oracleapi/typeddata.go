package oracleapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// EIP-712 domain of every message the oracle signs. The domain has no chainId and no
// verifyingContract because one oracle attests facts of many chains; the chain is a field of
// each message instead.
const (
	DomainName    = "ServiceOracle"
	DomainVersion = "1"
)

// DepositType is the EIP-712 type string of a deposit attestation, exactly as a Solidity verifier
// hashes it; a test pins it to what apitypes encodes so the two can never drift apart.
const DepositType = "DepositoryDeposit(uint256 chainId,address depository,bytes32 transactionId,uint256 logIndex,bytes32 orderId,address depositor,address currency,uint256 amount)"

const depositPrimaryType = "DepositoryDeposit"

var depositTypes = apitypes.Types{
	"EIP712Domain": {
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
	},
	depositPrimaryType: {
		{Name: "chainId", Type: "uint256"},
		{Name: "depository", Type: "address"},
		{Name: "transactionId", Type: "bytes32"},
		{Name: "logIndex", Type: "uint256"},
		{Name: "orderId", Type: "bytes32"},
		{Name: "depositor", Type: "address"},
		{Name: "currency", Type: "address"},
		{Name: "amount", Type: "uint256"},
	},
}

// Domain is the EIP-712 domain returned with every attestation so callers can rebuild the digest
// without hard-coding it.
type Domain struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// OracleDomain is the domain this build signs under.
var OracleDomain = Domain{Name: DomainName, Version: DomainVersion}

// DepositData is one attested Deposit event. The signed fields are those of DepositType;
// BlockNumber and BlockHash are returned for the caller's reorg tracking but are not signed,
// so the signature stays valid for the same deposit if it is re-included in another block.
type DepositData struct {
	ChainID       uint64         `json:"chainId"`
	Depository    common.Address `json:"depository"`
	TransactionID common.Hash    `json:"transactionId"`
	LogIndex      uint64         `json:"logIndex"`
	BlockNumber   uint64         `json:"blockNumber"`
	BlockHash     common.Hash    `json:"blockHash"`
	OrderID       common.Hash    `json:"orderId"`
	Depositor     common.Address `json:"depositor"`
	Currency      common.Address `json:"currency"`
	// Amount is in the currency's smallest unit; on the wire it is a decimal string because
	// JSON numbers lose precision above 2^53.
	Amount *big.Int `json:"-"`
}

// depositDataFields is DepositData without its methods, so the JSON methods can embed it; its
// Amount is hidden by the `json:"-"` tag and the wrapper's string Amount takes its place.
type depositDataFields DepositData

// MarshalJSON writes Amount as a decimal string.
func (d DepositData) MarshalJSON() ([]byte, error) {
	amount := ""
	if d.Amount != nil {
		amount = d.Amount.String()
	}
	return json.Marshal(struct {
		depositDataFields
		Amount string `json:"amount"`
	}{depositDataFields(d), amount})
}

// UnmarshalJSON reads Amount from a decimal string and rejects anything else, so a client
// never verifies a signature over an amount it misread.
func (d *DepositData) UnmarshalJSON(b []byte) error {
	var w struct {
		depositDataFields
		Amount string `json:"amount"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	amount, ok := new(big.Int).SetString(w.Amount, 10)
	if !ok || amount.Sign() < 0 {
		return fmt.Errorf("amount %q is not a non-negative decimal integer", w.Amount)
	}
	*d = DepositData(w.depositDataFields)
	d.Amount = amount
	return nil
}

// TypedData is the EIP-712 document of the deposit, for wallets and tools that take the JSON
// form (eth_signTypedData_v4) and for DepositDigest.
func (d DepositData) TypedData() (apitypes.TypedData, error) {
	if d.Amount == nil || d.Amount.Sign() < 0 {
		return apitypes.TypedData{}, errors.New("deposit amount is missing or negative")
	}
	return apitypes.TypedData{
		Types:       depositTypes,
		PrimaryType: depositPrimaryType,
		Domain:      apitypes.TypedDataDomain{Name: DomainName, Version: DomainVersion},
		Message: apitypes.TypedDataMessage{
			"chainId":       new(big.Int).SetUint64(d.ChainID),
			"depository":    d.Depository.Hex(),
			"transactionId": d.TransactionID.Bytes(),
			"logIndex":      new(big.Int).SetUint64(d.LogIndex),
			"orderId":       d.OrderID.Bytes(),
			"depositor":     d.Depositor.Hex(),
			"currency":      d.Currency.Hex(),
			"amount":        new(big.Int).Set(d.Amount),
		},
	}, nil
}

// DepositDigest is the EIP-712 digest the oracle signs for a deposit; the engine and contracts
// verify attestations against it.
func DepositDigest(d DepositData) (common.Hash, error) {
	td, err := d.TypedData()
	if err != nil {
		return common.Hash{}, err
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return common.Hash{}, fmt.Errorf("hash deposit typed data: %w", err)
	}
	return common.BytesToHash(digest), nil
}

// RecoverDepositSigner returns the address that signed the deposit, so a caller can check it
// against the signers it trusts. It takes 65-byte signatures with v in {27,28} (or {0,1}) and
// rejects malleable high-s signatures, as OpenZeppelin's ECDSA does on chain.
func RecoverDepositSigner(d DepositData, sig []byte) (common.Address, error) {
	digest, err := DepositDigest(d)
	if err != nil {
		return common.Address{}, err
	}
	return recoverSigner(digest, sig)
}

func recoverSigner(digest common.Hash, sig []byte) (common.Address, error) {
	if len(sig) != crypto.SignatureLength {
		return common.Address{}, fmt.Errorf("signature is %d bytes, want %d", len(sig), crypto.SignatureLength)
	}
	rsv := make([]byte, crypto.SignatureLength)
	copy(rsv, sig)
	if rsv[64] >= 27 {
		rsv[64] -= 27
	}
	r, s := new(big.Int).SetBytes(rsv[:32]), new(big.Int).SetBytes(rsv[32:64])
	if !crypto.ValidateSignatureValues(rsv[64], r, s, true) {
		return common.Address{}, errors.New("signature values are invalid or malleable")
	}
	pub, err := crypto.SigToPub(digest.Bytes(), rsv)
	if err != nil {
		return common.Address{}, fmt.Errorf("recover signer: %w", err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}
