package oracleapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// DomainName names the EIP-712 domain of every message the oracle signs.
const DomainName = "ServiceOracle"

// Domain versions. Version 1 (name and version only) is what deposits were signed under before
// domain separation; it is kept so that attestations recorded then still verify
// (RecoverDepositSigner). Version 2 binds the deployment and the contract: chainId is the chain
// of the attested fact, verifyingContract the project's contract on it whose event is attested
// (the depository, or the output settler for fills) and salt DeploymentSalt(environment), so a
// signature made for one deployment or contract never verifies for another.
const (
	DomainVersion1 = "1"
	DomainVersion2 = "2"
	// DomainVersion is the version this build signs under.
	DomainVersion = DomainVersion2
)

// Domain is the EIP-712 domain returned with every attestation so callers can rebuild the digest
// and check that it is the one they expect. Version 1 has Name and Version only.
type Domain struct {
	Name              string          `json:"name"`
	Version           string          `json:"version"`
	ChainID           uint64          `json:"chainId,omitempty"`
	VerifyingContract *common.Address `json:"verifyingContract,omitempty"`
	Salt              *common.Hash    `json:"salt,omitempty"`
}

// OracleDomainV1 is the domain deposits were signed under before version 2; only recorded
// attestations are checked against it.
var OracleDomainV1 = Domain{Name: DomainName, Version: DomainVersion1}

// DeploymentSalt is the salt of the version 2 domain for an environment (the ENVIRONMENT of the
// oracle and of the engine): keccak256("intentd-oracle/" + environment).
func DeploymentSalt(environment string) common.Hash {
	return crypto.Keccak256Hash([]byte("intentd-oracle/" + environment))
}

// NewDomain is the version 2 domain of facts about contract on chainID in environment.
func NewDomain(environment string, chainID uint64, contract common.Address) Domain {
	salt := DeploymentSalt(environment)
	c := contract
	return Domain{Name: DomainName, Version: DomainVersion2, ChainID: chainID, VerifyingContract: &c, Salt: &salt}
}

// Equal reports whether two domains are the same, field by field.
func (d Domain) Equal(o Domain) bool {
	if d.Name != o.Name || d.Version != o.Version || d.ChainID != o.ChainID {
		return false
	}
	if (d.VerifyingContract == nil) != (o.VerifyingContract == nil) || (d.Salt == nil) != (o.Salt == nil) {
		return false
	}
	return (d.VerifyingContract == nil || *d.VerifyingContract == *o.VerifyingContract) && (d.Salt == nil || *d.Salt == *o.Salt)
}

// typedDomain is the EIP-712 form of d with its type: version 1 declares name and version only,
// version 2 every field. Any other shape is refused, so a verifier never hashes a domain it
// does not know.
func (d Domain) typedDomain() ([]apitypes.Type, apitypes.TypedDataDomain, error) {
	if d.Name != DomainName {
		return nil, apitypes.TypedDataDomain{}, fmt.Errorf("domain name %q is not %q", d.Name, DomainName)
	}
	switch d.Version {
	case DomainVersion1:
		if d.ChainID != 0 || d.VerifyingContract != nil || d.Salt != nil {
			return nil, apitypes.TypedDataDomain{}, errors.New("a version 1 domain has only name and version")
		}
		return []apitypes.Type{{Name: "name", Type: "string"}, {Name: "version", Type: "string"}},
			apitypes.TypedDataDomain{Name: d.Name, Version: d.Version}, nil
	case DomainVersion2:
		if d.ChainID == 0 || d.VerifyingContract == nil || d.Salt == nil {
			return nil, apitypes.TypedDataDomain{}, errors.New("a version 2 domain needs chainId, verifyingContract and salt")
		}
		chainID := math.HexOrDecimal256(*new(big.Int).SetUint64(d.ChainID))
		return []apitypes.Type{{Name: "name", Type: "string"}, {Name: "version", Type: "string"}, {Name: "chainId", Type: "uint256"},
				{Name: "verifyingContract", Type: "address"}, {Name: "salt", Type: "bytes32"}},
			apitypes.TypedDataDomain{Name: d.Name, Version: d.Version, ChainId: &chainID,
				VerifyingContract: d.VerifyingContract.Hex(), Salt: d.Salt.Hex()}, nil
	default:
		return nil, apitypes.TypedDataDomain{}, fmt.Errorf("domain version %q is not known", d.Version)
	}
}

// Message is one kind of attested fact: its EIP-712 primary type, the type's fields in order and
// the values to hash. Every attestation endpoint signs one kind (see the *Data types).
type Message interface {
	PrimaryType() string
	TypeFields() []apitypes.Type
	TypedMessage() (apitypes.TypedDataMessage, error)
}

// TypedData is the EIP-712 document of m under domain, for wallets and tools that take the JSON
// form (eth_signTypedData_v4) and for Digest.
func TypedData(domain Domain, m Message) (apitypes.TypedData, error) {
	domainType, typedDomain, err := domain.typedDomain()
	if err != nil {
		return apitypes.TypedData{}, err
	}
	msg, err := m.TypedMessage()
	if err != nil {
		return apitypes.TypedData{}, err
	}
	return apitypes.TypedData{
		Types:       apitypes.Types{"EIP712Domain": domainType, m.PrimaryType(): m.TypeFields()},
		PrimaryType: m.PrimaryType(),
		Domain:      typedDomain,
		Message:     msg,
	}, nil
}

// Digest is the EIP-712 digest the oracle signs for m under domain; verifiers (the engine,
// settlement contracts) recompute it.
func Digest(domain Domain, m Message) (common.Hash, error) {
	td, err := TypedData(domain, m)
	if err != nil {
		return common.Hash{}, err
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return common.Hash{}, fmt.Errorf("hash %s typed data: %w", m.PrimaryType(), err)
	}
	return common.BytesToHash(digest), nil
}

// RecoverSigner returns the address that signed m under domain, so a caller can check it
// against the signers it trusts. It takes 65-byte signatures with v in {27,28} (or {0,1}) and
// rejects malleable high-s signatures, as OpenZeppelin's ECDSA does on chain.
func RecoverSigner(domain Domain, m Message, sig []byte) (common.Address, error) {
	digest, err := Digest(domain, m)
	if err != nil {
		return common.Address{}, err
	}
	return RecoverDigestSigner(digest, sig)
}

// TypeString is the EIP-712 type string of m ("Name(type name,…)"), as a Solidity verifier
// hashes it.
func TypeString(m Message) string {
	td := apitypes.TypedData{Types: apitypes.Types{m.PrimaryType(): m.TypeFields()}}
	return string(td.EncodeType(m.PrimaryType()))
}

// DepositType is the EIP-712 type string of a deposit attestation; a test pins it to what
// apitypes encodes so the two can never drift apart.
const DepositType = "DepositoryDeposit(uint256 chainId,address depository,bytes32 transactionId,uint256 logIndex,bytes32 orderId,address depositor,address currency,uint256 amount)"

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
	Amount *Amount `json:"amount"`
}

// PrimaryType names the deposit's EIP-712 type.
func (DepositData) PrimaryType() string { return "DepositoryDeposit" }

// TypeFields are DepositType's fields.
func (DepositData) TypeFields() []apitypes.Type {
	return []apitypes.Type{{Name: "chainId", Type: "uint256"}, {Name: "depository", Type: "address"},
		{Name: "transactionId", Type: "bytes32"}, {Name: "logIndex", Type: "uint256"}, {Name: "orderId", Type: "bytes32"},
		{Name: "depositor", Type: "address"}, {Name: "currency", Type: "address"}, {Name: "amount", Type: "uint256"}}
}

// TypedMessage is the deposit's values.
func (d DepositData) TypedMessage() (apitypes.TypedDataMessage, error) {
	amount, err := d.Amount.value("deposit")
	if err != nil {
		return nil, err
	}
	return apitypes.TypedDataMessage{
		"chainId": u256(d.ChainID), "depository": d.Depository.Hex(), "transactionId": d.TransactionID.Bytes(),
		"logIndex": u256(d.LogIndex), "orderId": d.OrderID.Bytes(), "depositor": d.Depositor.Hex(),
		"currency": d.Currency.Hex(), "amount": amount,
	}, nil
}

// DepositDigest is the version 1 digest of a deposit (domain name and version only): what
// attestations recorded before domain separation were signed over.
func DepositDigest(d DepositData) (common.Hash, error) { return Digest(OracleDomainV1, d) }

// RecoverDepositSigner recovers the signer of a deposit attestation recorded before domain
// separation (version 1 domain). New attestations are checked with RecoverSigner and the
// version 2 domain they were returned with.
func RecoverDepositSigner(d DepositData, sig []byte) (common.Address, error) {
	return RecoverSigner(OracleDomainV1, d, sig)
}

// RecoverDigestSigner recovers the signer of a digest from a 65-byte r‖s‖v signature.
func RecoverDigestSigner(digest common.Hash, sig []byte) (common.Address, error) {
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

// Amount is a non-negative integer in a currency's smallest unit, a decimal string on the wire
// (JSON numbers lose precision above 2^53). Decoding refuses anything else, so a client never
// verifies a signature over an amount it misread.
type Amount big.Int

// NewAmount wraps x (nil stays nil).
func NewAmount(x *big.Int) *Amount {
	if x == nil {
		return nil
	}
	return (*Amount)(new(big.Int).Set(x))
}

// Int is the amount as a *big.Int (a copy; nil for a nil amount).
func (a *Amount) Int() *big.Int {
	if a == nil {
		return nil
	}
	return new(big.Int).Set((*big.Int)(a))
}

// String is the decimal form.
func (a *Amount) String() string {
	if a == nil {
		return ""
	}
	return (*big.Int)(a).String()
}

// MarshalJSON writes the decimal string.
func (a *Amount) MarshalJSON() ([]byte, error) {
	if a == nil {
		return []byte(`""`), nil
	}
	return json.Marshal(a.String())
}

// UnmarshalJSON reads a decimal string of digits only.
func (a *Amount) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("amount must be a decimal string")
	}
	x, ok := ParseAmount(s)
	if !ok {
		return fmt.Errorf("amount %q is not a non-negative decimal integer", s)
	}
	*a = Amount(*x)
	return nil
}

// ParseAmount reads a non-negative decimal integer of digits only (no sign, no exponent) that
// fits in a uint256.
func ParseAmount(s string) (*big.Int, bool) {
	if s == "" || len(s) > 78 {
		return nil, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return nil, false
		}
	}
	x, ok := new(big.Int).SetString(s, 10)
	if !ok || x.BitLen() > 256 {
		return nil, false
	}
	return x, true
}

func (a *Amount) value(what string) (*big.Int, error) {
	if a == nil || (*big.Int)(a).Sign() < 0 {
		return nil, fmt.Errorf("%s amount is missing or negative", what)
	}
	return a.Int(), nil
}

func u256(x uint64) *big.Int { return new(big.Int).SetUint64(x) }

func keccakWords(words ...[]byte) common.Hash { return crypto.Keccak256Hash(words...) }
