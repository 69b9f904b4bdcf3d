package oracle

import (
	"crypto/ecdsa"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/oracle/oracleapi"
)

// messageSigner is the instance's single signer (spec: one signer per instance). Raw keys are
// the only implementation today; a KMS signer will satisfy the same interface.
type messageSigner interface {
	Address() common.Address
	SignDigest(digest common.Hash) ([]byte, error)
}

type keySigner struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

func newKeySigner(key *ecdsa.PrivateKey) *keySigner {
	return &keySigner{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

func (s *keySigner) Address() common.Address { return s.addr }

// SignDigest returns r||s||v with v in {27,28}, the form ecrecover and OpenZeppelin expect.
func (s *keySigner) SignDigest(digest common.Hash) ([]byte, error) {
	sig, err := crypto.Sign(digest.Bytes(), s.key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}

// sign signs the deposit's EIP-712 digest with the instance's signer.
func (s *Server) sign(d oracleapi.DepositData) (oracleapi.Signature, error) {
	digest, err := oracleapi.DepositDigest(d)
	if err != nil {
		return oracleapi.Signature{}, err
	}
	sig, err := s.signer.SignDigest(digest)
	if err != nil {
		return oracleapi.Signature{}, err
	}
	return oracleapi.Signature{Signer: s.signer.Address(), Signature: sig}, nil
}
