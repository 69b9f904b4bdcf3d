package oracleapi

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleDeposit() DepositData {
	return DepositData{
		ChainID:       31337,
		Depository:    common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3"),
		TransactionID: common.HexToHash("0x" + "ab" + "00000000000000000000000000000000000000000000000000000000000012"),
		LogIndex:      3,
		BlockNumber:   42,
		BlockHash:     common.HexToHash("0x99"),
		OrderID:       crypto.Keccak256Hash([]byte("order")),
		Depositor:     common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),
		Currency:      common.Address{},
		Amount:        new(big.Int).Lsh(big.NewInt(1), 200), // beyond uint64 and float64 precision
	}
}

func TestDepositTypeMatchesTheEncodedType(t *testing.T) {
	td, err := sampleDeposit().TypedData()
	require.NoError(t, err)
	assert.Equal(t, DepositType, string(td.EncodeType(depositPrimaryType)))
}

// TestDepositDigestIsEIP712 recomputes the digest by hand, word by word, so a verifier written
// in Solidity or TypeScript has an independent reference.
func TestDepositDigestIsEIP712(t *testing.T) {
	d := sampleDeposit()
	word := func(b []byte) []byte { return common.LeftPadBytes(b, 32) }
	u256 := func(x *big.Int) []byte { return math.U256Bytes(new(big.Int).Set(x)) }

	domainSeparator := crypto.Keccak256(
		crypto.Keccak256([]byte("EIP712Domain(string name,string version)")),
		crypto.Keccak256([]byte("ServiceOracle")),
		crypto.Keccak256([]byte("1")),
	)
	structHash := crypto.Keccak256(
		crypto.Keccak256([]byte(DepositType)),
		u256(new(big.Int).SetUint64(d.ChainID)),
		word(d.Depository.Bytes()),
		d.TransactionID.Bytes(),
		u256(new(big.Int).SetUint64(d.LogIndex)),
		d.OrderID.Bytes(),
		word(d.Depositor.Bytes()),
		word(d.Currency.Bytes()),
		u256(d.Amount),
	)
	want := crypto.Keccak256Hash([]byte{0x19, 0x01}, domainSeparator, structHash)

	got, err := DepositDigest(d)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// Block number and hash are not signed.
	d.BlockNumber, d.BlockHash = 43, common.HexToHash("0x98")
	again, err := DepositDigest(d)
	require.NoError(t, err)
	assert.Equal(t, want, again)
}

// testKeyHex signs the test messages; the oracle's own signer is tested in package oracle.
const testKeyHex = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"

// signDeposit signs d as the oracle does: r||s||v with v in {27,28}.
func signDeposit(t testing.TB, d DepositData) (sig []byte, signer common.Address) {
	t.Helper()
	key, err := crypto.HexToECDSA(testKeyHex)
	require.NoError(t, err)
	digest, err := DepositDigest(d)
	require.NoError(t, err)
	sig, err = crypto.Sign(digest.Bytes(), key)
	require.NoError(t, err)
	sig[64] += 27
	return sig, crypto.PubkeyToAddress(key.PublicKey)
}

func TestRecoverDepositSigner(t *testing.T) {
	d := sampleDeposit()
	sig, signer := signDeposit(t, d)

	got, err := RecoverDepositSigner(d, sig)
	require.NoError(t, err)
	assert.Equal(t, signer, got)

	// v in {0,1} is accepted too.
	low := append([]byte(nil), sig...)
	low[64] -= 27
	got, err = RecoverDepositSigner(d, low)
	require.NoError(t, err)
	assert.Equal(t, signer, got)

	// Wrong length and malleable (high-s) signatures are refused.
	_, err = RecoverDepositSigner(d, sig[:64])
	assert.Error(t, err)
	n := crypto.S256().Params().N
	s := new(big.Int).SetBytes(sig[32:64])
	high := append([]byte(nil), sig...)
	copy(high[32:64], common.LeftPadBytes(new(big.Int).Sub(n, s).Bytes(), 32))
	high[64] ^= 1 // 27 <-> 28
	_, err = RecoverDepositSigner(d, high)
	assert.Error(t, err)

	// A missing amount cannot be hashed.
	d.Amount = nil
	_, err = DepositDigest(d)
	assert.Error(t, err)
}

func TestDepositDataJSON(t *testing.T) {
	d := sampleDeposit()
	b, err := json.Marshal(d)
	require.NoError(t, err)
	var wire map[string]any
	require.NoError(t, json.Unmarshal(b, &wire))
	assert.Equal(t, d.Amount.String(), wire["amount"])
	assert.Equal(t, "0x0000000000000000000000000000000000000000", wire["currency"])

	var back DepositData
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, d, back)

	wire["amount"] = 1.5
	b, _ = json.Marshal(wire)
	assert.Error(t, json.Unmarshal(b, &back), "a numeric amount is refused")
	wire["amount"] = "-1"
	b, _ = json.Marshal(wire)
	assert.Error(t, json.Unmarshal(b, &back))
}
