package oracle

import (
	"context"
	"crypto/ecdsa"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// messageSigner is the instance's single signer (spec: one signer per instance), used for every
// message it signs: a raw key (keySigner) or a KMS key (kmsSigner).
type messageSigner interface {
	Address() common.Address
	// SignDigest returns r‖s‖v with v in {27,28} and a low s, the form ecrecover and
	// OpenZeppelin's ECDSA take.
	SignDigest(ctx context.Context, digest common.Hash) ([]byte, error)
}

type keySigner struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

func newKeySigner(key *ecdsa.PrivateKey) *keySigner {
	return &keySigner{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

func (s *keySigner) Address() common.Address { return s.addr }

// SignDigest signs with the raw key (go-ethereum signs with a low s).
func (s *keySigner) SignDigest(_ context.Context, digest common.Hash) ([]byte, error) {
	sig, err := crypto.Sign(digest.Bytes(), s.key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}
