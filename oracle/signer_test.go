package oracle

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/oracle/oracleapi"
)

// The instance's signer signs in the form ecrecover and OpenZeppelin take (v in {27,28}), and
// the engine's recovery (oracleapi.RecoverDepositSigner) finds the instance's address.
func TestKeySignerSignsWhatTheEngineRecovers(t *testing.T) {
	d := oracleapi.DepositData{ChainID: testChainID, Depository: common.HexToAddress(addrA),
		TransactionID: crypto.Keccak256Hash([]byte("tx")), LogIndex: 3, OrderID: crypto.Keccak256Hash([]byte("order")),
		Depositor: common.HexToAddress(addrB), Amount: oracleapi.NewAmount(new(big.Int).Lsh(big.NewInt(1), 200))}
	signer := newKeySigner(testOracleKey(t))
	domain := oracleapi.NewDomain("test", d.ChainID, d.Depository)
	digest, err := oracleapi.Digest(domain, d)
	require.NoError(t, err)
	sig, err := signer.SignDigest(context.Background(), digest)
	require.NoError(t, err)
	require.Len(t, sig, 65)
	require.Contains(t, []byte{27, 28}, sig[64])

	got, err := oracleapi.RecoverSigner(domain, d, sig)
	require.NoError(t, err)
	assert.Equal(t, testOracleAddress(t), got)
	assert.Equal(t, testOracleAddress(t), signer.Address())
}
