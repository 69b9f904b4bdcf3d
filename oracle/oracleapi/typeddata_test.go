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
		Amount:        NewAmount(new(big.Int).Lsh(big.NewInt(1), 200)), // beyond uint64 and float64 precision
	}
}

func TestDepositTypeMatchesTheEncodedType(t *testing.T) {
	assert.Equal(t, DepositType, TypeString(DepositData{}))
	// The other messages' type strings, pinned for verifiers written in other languages.
	for m, want := range map[Message]string{
		WithdrawalData{}:           "DepositoryWithdrawal(uint256 chainId,address depository,bytes32 transactionId,uint256 logIndex,bytes32 withdrawalId,address recipient,address currency,uint256 amount)",
		SolverFillData{}:           "SolverFill(uint256 chainId,address outputSettler,bytes32 transactionId,uint256 logIndex,bytes32 orderId,address solver,address recipient,address currency,uint256 amount)",
		SolverRefundData{}:         "SolverRefund(uint256 chainId,address depository,bytes32 transactionId,uint256 logIndex,bytes32 refundId,address recipient,address currency,uint256 amount)",
		WithdrawalInitiationData{}: "WithdrawalInitiation(uint256 chainId,address depository,bytes32 withdrawalId,bytes32 depositTransactionId,uint256 depositLogIndex,bytes32 orderId,address recipient,address currency,uint256 amount)",
		WithdrawalInitiatedData{}:  "WithdrawalInitiated(uint256 chainId,address depository,bytes32 withdrawalId)",
	} {
		assert.Equal(t, want, TypeString(m))
	}
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
		u256(d.Amount.Int()),
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

// signDeposit signs d as the oracle does: r||s||v with v in {27,28}, under the version 1
// domain (RecoverDepositSigner's).
func signDeposit(t testing.TB, d DepositData) (sig []byte, signer common.Address) {
	return signUnder(t, OracleDomainV1, d)
}

// signUnder signs d under domain.
func signUnder(t testing.TB, domain Domain, d DepositData) (sig []byte, signer common.Address) {
	t.Helper()
	key, err := crypto.HexToECDSA(testKeyHex)
	require.NoError(t, err)
	digest, err := Digest(domain, d)
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

// TestDomainV2IsEIP712 recomputes the version 2 digest by hand: the domain separator declares
// and hashes name, version, chainId, verifyingContract and salt.
func TestDomainV2IsEIP712(t *testing.T) {
	d := sampleDeposit()
	domain := NewDomain("production", d.ChainID, d.Depository)
	u256 := func(x *big.Int) []byte { return math.U256Bytes(new(big.Int).Set(x)) }
	assert.Equal(t, crypto.Keccak256Hash([]byte("intentd-oracle/production")), *domain.Salt)
	domainSeparator := crypto.Keccak256(
		crypto.Keccak256([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)")),
		crypto.Keccak256([]byte("ServiceOracle")),
		crypto.Keccak256([]byte("2")),
		u256(new(big.Int).SetUint64(d.ChainID)),
		common.LeftPadBytes(d.Depository.Bytes(), 32),
		domain.Salt.Bytes(),
	)
	v1, err := DepositDigest(d)
	require.NoError(t, err)
	got, err := Digest(domain, d)
	require.NoError(t, err)
	td, err := TypedData(domain, d)
	require.NoError(t, err)
	msgHash, err := td.HashStruct(d.PrimaryType(), td.Message)
	require.NoError(t, err)
	want := crypto.Keccak256Hash([]byte{0x19, 0x01}, domainSeparator, msgHash)
	assert.Equal(t, want, got)
	assert.NotEqual(t, v1, got)
}

// A signature made for one deployment (environment), chain or contract never verifies for
// another: the domain separation.
func TestSignatureDoesNotVerifyInAnotherDeployment(t *testing.T) {
	d := sampleDeposit()
	key, err := crypto.HexToECDSA(testKeyHex)
	require.NoError(t, err)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	prod := NewDomain("production", d.ChainID, d.Depository)
	digest, err := Digest(prod, d)
	require.NoError(t, err)
	sig, err := crypto.Sign(digest.Bytes(), key)
	require.NoError(t, err)
	got, err := RecoverSigner(prod, d, sig)
	require.NoError(t, err)
	require.Equal(t, signer, got)
	for name, other := range map[string]Domain{
		"another environment": NewDomain("staging", d.ChainID, d.Depository),
		"another chain":       NewDomain("production", d.ChainID+1, d.Depository),
		"another contract":    NewDomain("production", d.ChainID, common.HexToAddress("0x01")),
		"version 1":           OracleDomainV1,
	} {
		got, err := RecoverSigner(other, d, sig)
		require.NoError(t, err, name)
		assert.NotEqual(t, signer, got, name)
	}
	// Unknown or malformed domains are refused rather than hashed.
	for _, bad := range []Domain{{Name: "Other", Version: "2"}, {Name: DomainName, Version: "3"}, {Name: DomainName, Version: "2"},
		{Name: DomainName, Version: "1", ChainID: 1}} {
		_, err := Digest(bad, d)
		assert.Error(t, err, "%+v", bad)
	}
}

func TestQuorumCountsAllowlistedSignersOfEveryMessage(t *testing.T) {
	a, b, c := common.HexToAddress("0xa"), common.HexToAddress("0xb"), common.HexToAddress("0xc")
	sig := func(s common.Address) Signature { return Signature{Signer: s} }
	att := &DepositAttestation{Messages: []DepositMessage{
		{Signatures: []Signature{sig(a), sig(b), sig(a), sig(c)}},
		{Signatures: []Signature{sig(b), sig(a)}},
	}}
	assert.Equal(t, []common.Address{a, b}, Quorum(att, []common.Address{a, b, c}), "c is missing from the second message, a counts once")
	assert.Equal(t, []common.Address{b}, Quorum(att, []common.Address{b}))
	assert.Empty(t, Quorum(att, nil))
}
