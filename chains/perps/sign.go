package perps

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// signedAction is a sendAsset action as POST /exchange takes it, and the id the engine keeps it
// by (the EIP-712 digest it signs).
type signedAction struct {
	Body   json.RawMessage
	Digest string
	Sig    string
}

// signSendAsset signs a as key's account on exchange x, for chain signatureChainID.
func signSendAsset(key *ecdsa.PrivateKey, x Exchange, signatureChainID uint64, a SendAsset) (*signedAction, error) {
	digest, _, err := apitypes.TypedDataAndHash(x.SendAssetTypedData(a, signatureChainID))
	if err != nil {
		return nil, fmt.Errorf("hash the sendAsset message: %w", err)
	}
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		return nil, err
	}
	req, err := x.ExchangeRequestOf(a, signatureChainID, sig)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	return &signedAction{Body: body, Digest: hexutil.Encode(digest), Sig: hexutil.Encode(sig)}, nil
}
