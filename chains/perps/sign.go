package perps

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// DefaultExchangeName is the word the exchange's signing domain and types are named with when
// the chain file names none (chains.Chain.Exchange): the local exchange's (devnet/exchange).
const DefaultExchangeName = "Exchange"

// SendAsset is a sendAsset action's parameters, as the exchange's wire writes them (the
// exchange's chain field is named after it: exchangeChain for "Exchange").
type SendAsset struct {
	ExchangeChain  string // "Mainnet" on the exchanges the engine pays on
	Destination    string
	SourceDex      string
	DestinationDex string
	Token          string // "USDC:0x<token id>"
	Amount         string // a decimal string
	FromSubAccount string
	Nonce          uint64
}

// sendAssetFields are the EIP-712 fields of the sendAsset message, in order.
func sendAssetFields(word string) []apitypes.Type {
	return []apitypes.Type{
		{Name: chainField(word), Type: "string"}, {Name: "destination", Type: "string"}, {Name: "sourceDex", Type: "string"},
		{Name: "destinationDex", Type: "string"}, {Name: "token", Type: "string"}, {Name: "amount", Type: "string"},
		{Name: "fromSubAccount", Type: "string"}, {Name: "nonce", Type: "uint64"},
	}
}

// chainField is the action's field naming the exchange's network: "exchangeChain" for Exchange.
func chainField(word string) string { return strings.ToLower(word[:1]) + word[1:] + "Chain" }

// sendAssetTypedData is the EIP-712 message a sendAsset action is signed as: domain
// "<word>SignTransaction" version 1, the signature's chain id, the zero verifying contract.
func sendAssetTypedData(word string, signatureChainID uint64, a SendAsset) apitypes.TypedData {
	primary := word + "Transaction:SendAsset"
	return apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"}, {Name: "chainId", Type: "uint256"},
				{Name: "verifyingContract", Type: "address"}},
			primary: sendAssetFields(word),
		},
		PrimaryType: primary,
		Domain: apitypes.TypedDataDomain{Name: word + "SignTransaction", Version: "1",
			ChainId: math.NewHexOrDecimal256(int64(signatureChainID)), VerifyingContract: "0x0000000000000000000000000000000000000000"},
		Message: apitypes.TypedDataMessage{
			chainField(word): a.ExchangeChain, "destination": a.Destination, "sourceDex": a.SourceDex, "destinationDex": a.DestinationDex,
			"token": a.Token, "amount": a.Amount, "fromSubAccount": a.FromSubAccount, "nonce": new(big.Int).SetUint64(a.Nonce),
		},
	}
}

// signedAction is a sendAsset action as POST /exchange takes it, and the id the engine keeps it
// by (the EIP-712 digest it signs).
type signedAction struct {
	Body   map[string]any
	Digest string
	Sig    string
}

// signSendAsset signs a as key's account on the exchange named word.
func signSendAsset(key *ecdsa.PrivateKey, word string, signatureChainID uint64, a SendAsset) (*signedAction, error) {
	digest, _, err := apitypes.TypedDataAndHash(sendAssetTypedData(word, signatureChainID, a))
	if err != nil {
		return nil, fmt.Errorf("hash the sendAsset message: %w", err)
	}
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		return nil, err
	}
	r, s, v := sig[:32], sig[32:64], int(sig[64])+27
	action := map[string]any{
		"type": "sendAsset", "signatureChainId": hexutil.EncodeUint64(signatureChainID), chainField(word): a.ExchangeChain,
		"destination": a.Destination, "sourceDex": a.SourceDex, "destinationDex": a.DestinationDex, "token": a.Token,
		"amount": a.Amount, "fromSubAccount": a.FromSubAccount, "nonce": a.Nonce,
	}
	return &signedAction{
		Body: map[string]any{"action": action, "nonce": a.Nonce,
			"signature": map[string]any{"r": hexutil.Encode(r), "s": hexutil.Encode(s), "v": v}},
		Digest: hexutil.Encode(digest), Sig: hexutil.Encode(sig),
	}, nil
}
