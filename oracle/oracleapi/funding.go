package oracleapi

import (
	"context"
	"fmt"
	"math/big"
	"net/http"

	"github.com/ethereum/go-ethereum/common"
	"github.com/mr-tron/base58"
)

// The engine's view of a deposit attestation, whatever the deposit's chain family: the engine
// compares what the oracle signed with what its own scanner saw, in the strings the family
// writes (EVM: 0x-hex; Solana: base58), so that its comparison is one code path for every
// family. AttestFunding asks the family's deposit route (the EVM body or the Solana one, by the
// family's name) and returns the signed messages in this form; the signatures are checked
// against the returned domain as for any attestation (Attest).

// FundingFact is one attested deposit. Depository, TransactionID, Depositor and Currency are
// written as the family writes them (EVM: 0x-hex, the addresses checksummed, the hash in lower
// case; Solana: base58); BlockHash is empty when the family's answer names none (Solana); Index
// is the deposit's position in its block or transaction (an EVM log index, a Solana instruction
// index).
type FundingFact struct {
	ChainID       uint64
	Depository    string
	TransactionID string
	BlockNumber   uint64
	BlockHash     string
	Index         uint64
	OrderID       common.Hash
	Depositor     string
	Currency      string
	Amount        *big.Int
	Signatures    []Signature
}

// FundingAttestation is a deposit attestation in the engine's view: the domain it was signed
// under and its messages about one order.
type FundingAttestation struct {
	Domain Domain
	Facts  []FundingFact
}

// IsSolanaFamily reports whether family (a chain file's vmType, "svm", or the oracle's
// "solana-vm") names the Solana family; every other name is read as EVM.
func IsSolanaFamily(family string) bool { return family == "svm" || family == VMFamilySolana }

// FundingDomain is the domain a deposit on chainID of family is signed under in environment:
// an EVM chain's names its depository as the verifying contract, a Solana chain's and a perps
// chain's have none (SolanaDomain, PerpsDomain; the vault or the depository account is a field
// of the message).
func FundingDomain(family, environment string, chainID uint64, depository string) Domain {
	if IsSolanaFamily(family) {
		return SolanaDomain(environment, chainID)
	}
	if IsPerpsFamily(family) {
		return PerpsDomain(environment, chainID)
	}
	return NewDomain(environment, chainID, common.HexToAddress(depository))
}

// AttestFunding asks for the deposits of transaction txID on chainID, a chain of family, that pay
// for orderID (both as the engine writes them), with the peers' signatures: AttestDepositFor's
// EVM body, or for a Solana chain the Solana body (txID a base58 signature). sweptPayment, when
// not empty, is the plain transfer to a deposit address that txID's sweep moved into the
// depository (EVM only: AttestSweepDepositFor; the Solana body has no such field and ignores it).
// A perps chain's deposit is attested with its nonce mapping, which this call does not carry:
// AttestPerpsDeposit; here it is CLIENT_MISCONFIGURED, nothing asked.
func (c *Client) AttestFunding(ctx context.Context, family string, chainID uint64, txID, orderID, sweptPayment string) (*FundingAttestation, error) {
	order := common.HexToHash(orderID)
	if IsPerpsFamily(family) {
		return nil, &Error{Code: CodeClientMisconfigured,
			Message: fmt.Sprintf("a deposit on perps chain %d is attested with its nonce mapping: AttestPerpsDeposit", chainID)}
	}
	if !IsSolanaFamily(family) {
		var att *DepositAttestation
		var err error
		if sweptPayment != "" {
			att, err = c.AttestSweepDepositFor(ctx, chainID, common.HexToHash(txID), order, common.HexToHash(sweptPayment))
		} else {
			att, err = c.AttestDepositFor(ctx, chainID, common.HexToHash(txID), order)
		}
		if err != nil {
			return nil, err
		}
		return &FundingAttestation{Domain: att.Domain, Facts: EVMFundingFacts(att.Messages)}, nil
	}
	att, err := Attest[SolanaDepositData](ctx, c, PathDepositAttestation,
		SolanaDepositAttestationRequest{ChainID: chainID, TransactionID: txID, OrderID: &order, RequestPeerSignatures: true})
	if err != nil {
		return nil, err
	}
	out := &FundingAttestation{Domain: att.Domain}
	for i, m := range att.Messages {
		sig := base58.Encode(m.Data.TransactionID)
		if m.Data.ChainID != chainID || sig != txID {
			return nil, invalidResponse("message %d is about chain %d transaction %s", i, m.Data.ChainID, sig)
		}
		if m.Data.OrderID != order {
			continue
		}
		amount, err := m.Data.Amount.value("deposit")
		if err != nil {
			return nil, invalidResponse("message %d: %v", i, err)
		}
		f := FundingFact{ChainID: m.Data.ChainID, Depository: base58.Encode(m.Data.Depository[:]), TransactionID: sig,
			BlockNumber: m.Data.Slot, Index: m.Data.InstructionIndex, OrderID: m.Data.OrderID,
			Depositor: base58.Encode(m.Data.Depositor[:]), Currency: base58.Encode(m.Data.Currency[:]), Amount: amount,
			Signatures: m.Signatures}
		if m.Data.BlockHash != (common.Hash{}) {
			f.BlockHash = base58.Encode(m.Data.BlockHash[:])
		}
		out.Facts = append(out.Facts, f)
	}
	if len(out.Facts) == 0 {
		return nil, &Error{Status: http.StatusNotFound, Code: CodeNoDepositEvents,
			Message: fmt.Sprintf("the oracle attested no deposit of transaction %s for order %s", txID, order.Hex())}
	}
	return out, nil
}

// EVMFundingFacts are EVM deposit messages in the engine's view.
func EVMFundingFacts(msgs []DepositMessage) []FundingFact {
	out := make([]FundingFact, len(msgs))
	for i, m := range msgs {
		out[i] = FundingFact{ChainID: m.Data.ChainID, Depository: m.Data.Depository.Hex(), TransactionID: m.Data.TransactionID.Hex(),
			BlockNumber: m.Data.BlockNumber, BlockHash: m.Data.BlockHash.Hex(), Index: m.Data.LogIndex, OrderID: m.Data.OrderID,
			Depositor: m.Data.Depositor.Hex(), Currency: m.Data.Currency.Hex(), Signatures: m.Signatures}
		if m.Data.Amount != nil {
			out[i].Amount = m.Data.Amount.Int()
		}
	}
	return out
}
