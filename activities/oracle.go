package activities

import (
	"context"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/oracle"
)

// OracleActivities ask the attestation oracle to sign on-chain facts and check its answers.
type OracleActivities struct {
	Client *oracle.Client
	// Signers are the oracle addresses whose signatures the engine accepts.
	Signers []common.Address
}

// AttestInput names the deposit to attest and what the workflow expects it to be.
type AttestInput struct {
	ChainID   uint64
	TxHash    string
	LogIndex  uint
	OrderID   string
	Currency  string
	Amount    string
	Depositor string
}

// AttestResult is the oracle's signed statement about the deposit.
type AttestResult struct {
	Signer    string
	Signature string
}

// AttestDeposit returns once the oracle has attested the deposit. The oracle refuses until the
// deposit has the chain's confirmations in a canonical block, so the retries of this activity
// are also the wait for confirmation. The attested facts must equal what the scanner saw and
// the signature must come from an accepted signer; anything else is not trusted.
func (a *OracleActivities) AttestDeposit(ctx context.Context, in AttestInput) (*AttestResult, error) {
	att, err := a.Client.AttestDeposit(ctx, in.ChainID, common.HexToHash(in.TxHash))
	if err != nil {
		return nil, err // retried: not confirmed yet, not seen yet, or the oracle is unavailable
	}
	for _, m := range att.Messages {
		if m.Data.LogIndex != uint64(in.LogIndex) {
			continue
		}
		d := m.Data
		if d.OrderID != common.HexToHash(in.OrderID) || !strings.EqualFold(d.Currency.Hex(), in.Currency) ||
			d.Amount == nil || d.Amount.String() != in.Amount || !strings.EqualFold(d.Depositor.Hex(), in.Depositor) {
			return nil, failure(intent.FailReasonUnknown, "attested deposit differs from the observed deposit", nil)
		}
		for _, sig := range m.Signatures {
			signer, err := oracle.RecoverDepositSigner(d, sig.Signature)
			if err != nil || signer != sig.Signer || !a.accepted(signer) {
				continue
			}
			return &AttestResult{Signer: signer.Hex(), Signature: hexutil.Encode(sig.Signature)}, nil
		}
		return nil, fmt.Errorf("no signature from an accepted oracle signer on %s", in.TxHash)
	}
	return nil, fmt.Errorf("oracle attestation of %s has no deposit at log %d", in.TxHash, in.LogIndex)
}

func (a *OracleActivities) accepted(s common.Address) bool {
	for _, x := range a.Signers {
		if x == s {
			return true
		}
	}
	return false
}
