package oracleapi

import (
	"bytes"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleSolanaDeposit is a Solana deposit of 1.5 SOL.
func sampleSolanaDeposit() SolanaDepositData {
	return SolanaDepositData{ChainID: 792703809, Depository: common.HexToHash("0x0a0b"), TransactionID: bytes.Repeat([]byte{0xcd}, 64),
		InstructionIndex: 1, Slot: 42, OrderID: crypto.Keccak256Hash([]byte("order")), Depositor: common.HexToHash("0x0c0d"),
		Amount: NewAmount(big.NewInt(1_500_000_000))}
}

// TestSolanaDepositDigestIsEIP712 recomputes a Solana deposit's digest word by word (bytes as
// the keccak256 of their contents), a reference for verifiers in other languages, under the
// Solana domain (verifyingContract the zero address).
func TestSolanaDepositDigestIsEIP712(t *testing.T) {
	assert.Equal(t, SolanaDepositType, TypeString(SolanaDepositData{}))
	assert.Equal(t, SolanaSolverFillType, TypeString(SolanaSolverFillData{}))
	d := sampleSolanaDeposit()
	u256 := func(x uint64) []byte { return math.U256Bytes(new(big.Int).SetUint64(x)) }
	domain := SolanaDomain("test", d.ChainID)
	require.Equal(t, common.Address{}, *domain.VerifyingContract)
	salt := DeploymentSalt("test")
	domainSeparator := crypto.Keccak256(
		crypto.Keccak256([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)")),
		crypto.Keccak256([]byte("ServiceOracle")), crypto.Keccak256([]byte("2")), u256(d.ChainID), make([]byte, 32), salt.Bytes())
	structHash := crypto.Keccak256(crypto.Keccak256([]byte(SolanaDepositType)), u256(d.ChainID), d.Depository.Bytes(),
		crypto.Keccak256(d.TransactionID), u256(d.InstructionIndex), d.OrderID.Bytes(), d.Depositor.Bytes(), d.Currency.Bytes(),
		u256(1_500_000_000))
	want := crypto.Keccak256Hash([]byte{0x19, 0x01}, domainSeparator, structHash)
	got, err := Digest(domain, d)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// The slot and block hash are not signed; the transaction id must be a signature's 64 bytes.
	d.Slot, d.BlockHash = 43, common.HexToHash("0x99")
	again, err := Digest(domain, d)
	require.NoError(t, err)
	assert.Equal(t, want, again)
	d.TransactionID = d.TransactionID[:32]
	_, err = Digest(domain, d)
	require.ErrorContains(t, err, "64")

	// On the wire: 0x-hex bytes, the amount a decimal string.
	b, err := json.Marshal(sampleSolanaDeposit())
	require.NoError(t, err)
	assert.Contains(t, string(b), `"transactionId":"0x`+common.Bytes2Hex(bytes.Repeat([]byte{0xcd}, 64))+`"`)
	assert.Contains(t, string(b), `"amount":"1500000000"`)
}
