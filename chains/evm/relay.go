package evm

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// The EVM family's relayer (chains.Relayer, issue 37, docs/gasless.md): a gasless request's
// call, signed by the user (its EIP-7702 authorizations and its batch), is sent by the relayer,
// a key that is not the solver's, which pays its gas. It is a transaction of kind relay, signed
// and kept like a fill (payout_sign.go: a nonce of the relayer's own sequence allocated in
// Postgres, kept before its broadcast, the broadcast rounds in nonce order), watched by Watch and
// replaced by Replace with the relayer's key. With authorizations it is a set-code (type-4)
// transaction carrying them, otherwise an ordinary dynamic-fee one. It commits the relayer's gas
// only: what the call moves is the user's.

var _ chains.Relayer = (*Payout)(nil)

// WithRelayer has p relay gasless calls (Relay) signed with key, and returns p. Only kind relay
// is signed with it (and replaced and cancelled with it, at the relayer's own nonces); every
// other kind stays the solver's. Call it before p is used.
func (p *Payout) WithRelayer(key *ecdsa.PrivateKey) *Payout {
	p.relayer = key
	return p
}

// errNoRelayer is Relay's answer in a process without a relayer key.
func errNoRelayer(chainID uint64) error {
	return fmt.Errorf("%w: chain %d: this process has no relayer key", chains.ErrUnsupported, chainID)
}

// RelayerAddress is the relayer's address (checksummed hex); chains.ErrUnsupported without a
// relayer key.
func (p *Payout) RelayerAddress(chainID uint64) (string, error) {
	if p.relayer == nil {
		return "", errNoRelayer(chainID)
	}
	if _, err := p.clients.Registry().Get(chainID); err != nil {
		return "", err
	}
	return crypto.PubkeyToAddress(p.relayer.PublicKey).Hex(), nil
}

// Relay signs the request's call once with the relayer's key, keeps it and broadcasts it; a
// retry finds it kept and broadcasts the same bytes again, signing nothing new. A call that
// would revert fails its gas estimate with a *chains.RevertError before anything is kept (unless
// a transaction is kept already, which is then sent again); one whose fields do not parse is
// refused (chains.ErrPayoutRefused). Without a relayer key it is chains.ErrUnsupported.
func (p *Payout) Relay(ctx context.Context, r chains.Relay) (*chains.PayoutSent, error) {
	if p.relayer == nil {
		return nil, errNoRelayer(r.Call.ChainID)
	}
	c, err := p.chain(r.Call.ChainID)
	if err != nil {
		return nil, err
	}
	call, err := relayCall(r)
	if err != nil {
		return nil, err
	}
	call.signer = p.relayer
	// A relay kept already (a retry, a restarted worker) is sent again as it is: neither
	// estimated nor checked again, so Check runs before the first signing only (two first
	// attempts at once may both run it; one signs). Its latest attempt, a replacement's too.
	kept, err := p.store.SolverTx(ctx, r.RequestID, intent.TxKindRelay)
	switch {
	case err == nil:
		if err := p.firstBroadcast(ctx, c, kept); err != nil {
			return nil, err
		}
		return &chains.PayoutSent{TxHash: kept.Hash}, nil
	case !errors.Is(err, intent.ErrNotFound):
		return nil, err // unknown whether one is kept: retried, never signed again
	}
	stored, err := p.send(ctx, c, call)
	if err != nil {
		return nil, err
	}
	return &chains.PayoutSent{TxHash: stored.Hash}, nil
}

// relayCall is the transaction of r: its call and authorizations (read as SimCallOf reads them
// for the API's simulation), its gas ceiling and check.
func relayCall(r chains.Relay) (solverCall, error) {
	sim, err := SimCallOf(common.Address{}, r.Call)
	if err != nil {
		return solverCall{}, fmt.Errorf("%w: relayed call of request %s: %w", chains.ErrPayoutRefused, r.RequestID, err)
	}
	return solverCall{requestID: r.RequestID, kind: intent.TxKindRelay, to: sim.To, data: sim.Data,
		value: sim.Value, gasLimit: r.Ceiling, check: r.Check, auths: sim.AuthorizationList}, nil
}

// orEmptyHex is s, or "0x" for no data.
func orEmptyHex(s string) string {
	if s == "" {
		return "0x"
	}
	return s
}

// setCodeAuthorization is a as go-ethereum writes it.
func setCodeAuthorization(a intent.Authorization) (types.SetCodeAuthorization, error) {
	if !common.IsHexAddress(a.Address) {
		return types.SetCodeAuthorization{}, fmt.Errorf("address %q", a.Address)
	}
	if a.YParity > 1 {
		return types.SetCodeAuthorization{}, fmt.Errorf("yParity %d", a.YParity)
	}
	word := func(name, s string) (uint256.Int, error) {
		b, err := hexutil.DecodeBig(trimZeros(s))
		if err != nil || b.BitLen() > 256 {
			return uint256.Int{}, fmt.Errorf("%s %q is not a 32-byte hex word", name, s)
		}
		return *uint256.MustFromBig(b), nil
	}
	r, err := word("r", a.R)
	if err != nil {
		return types.SetCodeAuthorization{}, err
	}
	s, err := word("s", a.S)
	if err != nil {
		return types.SetCodeAuthorization{}, err
	}
	return types.SetCodeAuthorization{ChainID: *uint256.NewInt(a.ChainID), Address: common.HexToAddress(a.Address),
		Nonce: a.Nonce, V: a.YParity, R: r, S: s}, nil
}

// trimZeros is a 0x-prefixed hex word without its leading zeros, as hexutil.DecodeBig takes it
// ("0x0" for zero).
func trimZeros(s string) string {
	if len(s) < 2 || (s[:2] != "0x" && s[:2] != "0X") {
		return s // refused by DecodeBig
	}
	digits := s[2:]
	for len(digits) > 1 && digits[0] == '0' {
		digits = digits[1:]
	}
	return "0x" + digits
}
