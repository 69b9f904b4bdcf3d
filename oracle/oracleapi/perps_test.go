package oracleapi

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// samplePerpsDeposit is a deposit of 12.5 perps USDC.
func samplePerpsDeposit() PerpsDepositData {
	return PerpsDepositData{ChainID: 1337, Depository: common.HexToAddress("0x0a0b"), TransactionID: crypto.Keccak256Hash([]byte("transfer")),
		Block: 1_770_000_000, OrderID: crypto.Keccak256Hash([]byte("order")), Depositor: common.HexToAddress("0x0c0d"),
		Currency: make(hexutil.Bytes, 16), Amount: NewAmount(big.NewInt(1_250_000_000))}
}

// TestPerpsDepositDigestIsEIP712 recomputes a perps deposit's digest word by word, a reference
// for verifiers in other languages, under the perps domain (verifyingContract the zero address).
func TestPerpsDepositDigestIsEIP712(t *testing.T) {
	assert.Equal(t, PerpsDepositType, TypeString(PerpsDepositData{}))
	d := samplePerpsDeposit()
	u256 := func(x uint64) []byte { return math.U256Bytes(new(big.Int).SetUint64(x)) }
	domain := PerpsDomain("test", d.ChainID)
	require.Equal(t, common.Address{}, *domain.VerifyingContract)
	domainSeparator := crypto.Keccak256(
		crypto.Keccak256([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)")),
		crypto.Keccak256([]byte("ServiceOracle")), crypto.Keccak256([]byte("2")), u256(d.ChainID), make([]byte, 32), DeploymentSalt("test").Bytes())
	structHash := crypto.Keccak256(crypto.Keccak256([]byte(PerpsDepositType)), u256(d.ChainID), common.LeftPadBytes(d.Depository.Bytes(), 32),
		d.TransactionID.Bytes(), u256(0), d.OrderID.Bytes(), common.LeftPadBytes(d.Depositor.Bytes(), 32), crypto.Keccak256(d.Currency),
		u256(1_250_000_000))
	want := crypto.Keccak256Hash([]byte{0x19, 0x01}, domainSeparator, structHash)
	got, err := Digest(domain, d)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// The block is not signed; the currency must be a token id.
	d.Block++
	again, err := Digest(domain, d)
	require.NoError(t, err)
	assert.Equal(t, want, again)
	d.Currency = d.Currency[:8]
	_, err = Digest(domain, d)
	require.ErrorContains(t, err, "16")

	b, err := json.Marshal(samplePerpsDeposit())
	require.NoError(t, err)
	assert.Contains(t, string(b), `"currency":"0x00000000000000000000000000000000"`)
	assert.Contains(t, string(b), `"amount":"1250000000"`)
}

// The perps family's domain and names, and AttestFunding's refusal of a perps chain, whose
// deposit needs its nonce mapping (AttestPerpsDeposit).
func TestPerpsFamily(t *testing.T) {
	assert.Equal(t, "exchange-vm", PerpsFamily(""))
	assert.Equal(t, "acme-vm", PerpsFamily("Acme"))
	for _, f := range []string{"hypevm", "exchange-vm"} {
		assert.True(t, IsPerpsFamily(f), f)
		assert.True(t, FundingDomain(f, "test", 1337, "0x0000000000000000000000000000000000000abc").Equal(PerpsDomain("test", 1337)), f)
	}
	assert.False(t, IsPerpsFamily("evm"))
	c := NewClient("http://127.0.0.1:1", "", nil)
	_, err := c.AttestFunding(context.Background(), "hypevm", 1337, common.Hash{1}.Hex(), common.Hash{2}.Hex(), "")
	e, ok := AsError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, CodeClientMisconfigured, e.Code)
	assert.Contains(t, e.Message, "AttestPerpsDeposit")
}
