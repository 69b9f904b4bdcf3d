// Package eip7702 builds gasless EVM execution through EIP-7702: a user's EOA delegates to the
// BatchExecutor contract (contracts/src/BatchExecutor.sol) with a signed authorization, signs a
// batch of calls as EIP-712 typed data, and a relayer sends both in one type-4 (set-code)
// transaction that it pays for, so the calls run with msg.sender = the user.
//
// The helpers here are for clients (a wallet or SDK preparing POST /execute) and for tests:
// SignAuthorization, Digest / SignBatch / ExecuteCalldata for the batch, and SendSetCodeTx for the
// relayer's side. None of them logs or keeps a key.
package eip7702

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/intentd/intentd/chains/evm/bindings"
)

// EIP-712 names of BatchExecutor's signed batches: the domain is {name: DomainName, version:
// DomainVersion, chainId: the chain, verifyingContract: the user's EOA}.
const (
	DomainName    = "BatchExecutor"
	DomainVersion = "1"
)

var (
	domainTypehash  = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	callTypehash    = crypto.Keccak256Hash([]byte("Call(address to,uint256 value,bytes data)"))
	executeTypehash = crypto.Keccak256Hash([]byte("Execute(Call[] calls,uint256 nonce,uint256 deadline)Call(address to,uint256 value,bytes data)"))
)

// Call is one call of a batch: Value wei (nil means 0) and Data to To.
type Call struct {
	To    common.Address
	Value *big.Int
	Data  []byte
}

// SignAuthorization signs the EIP-7702 authorization by which key's account delegates its code to
// delegate (e.g. devnet.BatchExecutorAddress()) on chain chainID. nonce must be the account's
// nonce when the type-4 transaction carrying it executes: its current nonce when a relayer sends
// it, its current nonce + 1 when the account sends the transaction itself.
func SignAuthorization(key *ecdsa.PrivateKey, chainID uint64, delegate common.Address, nonce uint64) (types.SetCodeAuthorization, error) {
	return types.SignSetCode(key, types.SetCodeAuthorization{
		ChainID: *uint256.NewInt(chainID),
		Address: delegate,
		Nonce:   nonce,
	})
}

// Digest is the EIP-712 digest that account signs for executing calls under nonce, valid until
// deadline (a Unix time, inclusive), on chain chainID: what BatchExecutor.digest returns when
// called on account.
func Digest(chainID uint64, account common.Address, calls []Call, nonce, deadline *big.Int) common.Hash {
	domain := crypto.Keccak256Hash(
		domainTypehash[:],
		crypto.Keccak256([]byte(DomainName)),
		crypto.Keccak256([]byte(DomainVersion)),
		word(new(big.Int).SetUint64(chainID)),
		common.LeftPadBytes(account[:], 32),
	)
	var hashes []byte
	for _, c := range calls {
		h := crypto.Keccak256(callTypehash[:], common.LeftPadBytes(c.To[:], 32), word(c.Value), crypto.Keccak256(c.Data))
		hashes = append(hashes, h...)
	}
	structHash := crypto.Keccak256(executeTypehash[:], crypto.Keccak256(hashes), word(nonce), word(deadline))
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, domain[:], structHash)
}

// word is the 32-byte big-endian ABI word of a non-negative v (nil is 0).
func word(v *big.Int) []byte {
	if v == nil {
		return make([]byte, 32)
	}
	return common.LeftPadBytes(v.Bytes(), 32)
}

// SignBatch signs Digest for key's account: a 65-byte r‖s‖v signature with v 27 or 28, as
// BatchExecutor checks it.
func SignBatch(key *ecdsa.PrivateKey, chainID uint64, calls []Call, nonce, deadline *big.Int) ([]byte, error) {
	if nonce == nil || deadline == nil || nonce.Sign() < 0 || deadline.Sign() < 0 {
		return nil, errors.New("eip7702: nonce and deadline must be non-negative")
	}
	account := crypto.PubkeyToAddress(key.PublicKey)
	digest := Digest(chainID, account, calls, nonce, deadline)
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}

// ExecuteCalldata is the calldata of BatchExecutor.execute(calls, nonce, deadline, signature):
// the signed entry point anyone (the relayer) may call on the user's delegated EOA.
func ExecuteCalldata(calls []Call, nonce, deadline *big.Int, signature []byte) []byte {
	return bindings.NewBatchExecutor().PackExecute0(toBinding(calls), nonce, deadline, signature)
}

// SignedExecuteCalldata signs calls with key (SignBatch) and returns ExecuteCalldata of them: the
// data of a transaction to key's own (delegated) address.
func SignedExecuteCalldata(key *ecdsa.PrivateKey, chainID uint64, calls []Call, nonce, deadline *big.Int) ([]byte, error) {
	sig, err := SignBatch(key, chainID, calls, nonce, deadline)
	if err != nil {
		return nil, err
	}
	return ExecuteCalldata(calls, nonce, deadline, sig), nil
}

// SelfExecuteCalldata is the calldata of BatchExecutor.execute(calls): the unsigned entry point,
// which only the EOA itself may call (a transaction it sends to its own address).
func SelfExecuteCalldata(calls []Call) []byte {
	return bindings.NewBatchExecutor().PackExecute(toBinding(calls))
}

func toBinding(calls []Call) []bindings.BatchExecutorCall {
	out := make([]bindings.BatchExecutorCall, len(calls))
	for i, c := range calls {
		v := c.Value
		if v == nil {
			v = new(big.Int)
		}
		out[i] = bindings.BatchExecutorCall{To: c.To, Value: v, Data: c.Data}
	}
	return out
}

// Backend is what SendSetCodeTx needs of a chain client (an *ethclient.Client or the devnet's
// simulated client).
type Backend interface {
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
}

// SendSetCodeTx signs and sends, from relayer on chain chainID, a type-4 transaction to `to`
// with data, value (nil means 0) and the authorizations auths (at least one: EIP-7702 allows no
// empty list). The nonce is the relayer's pending nonce, the gas the node's estimate (with the
// authorizations applied) plus a fifth, the fee cap twice the head's base fee plus the suggested
// tip. A call that would revert fails the estimate: the error returned then wraps the node's,
// which carries the revert data (rpc.DataError), and nothing is sent. The caller waits for the
// receipt.
func SendSetCodeTx(ctx context.Context, b Backend, relayer *ecdsa.PrivateKey, chainID uint64, to common.Address, data []byte, value *big.Int, auths []types.SetCodeAuthorization) (*types.Transaction, error) {
	if len(auths) == 0 {
		return nil, errors.New("eip7702: a set-code transaction needs at least one authorization")
	}
	if value == nil {
		value = new(big.Int)
	}
	from := crypto.PubkeyToAddress(relayer.PublicKey)
	nonce, err := b.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("eip7702: relayer nonce: %w", err)
	}
	gas, err := b.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data, AuthorizationList: auths})
	if err != nil {
		return nil, fmt.Errorf("eip7702: estimate gas: %w", err)
	}
	head, err := b.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("eip7702: head: %w", err)
	}
	if head.BaseFee == nil {
		return nil, errors.New("eip7702: chain has no base fee (pre-London): no type-4 transactions")
	}
	tip, err := b.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, fmt.Errorf("eip7702: gas tip: %w", err)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx, err := types.SignNewTx(relayer, types.LatestSignerForChainID(new(big.Int).SetUint64(chainID)), &types.SetCodeTx{
		ChainID:   uint256.NewInt(chainID),
		Nonce:     nonce,
		GasTipCap: uint256.MustFromBig(tip),
		GasFeeCap: uint256.MustFromBig(feeCap),
		Gas:       gas + gas/5,
		To:        to,
		Value:     uint256.MustFromBig(value),
		Data:      data,
		AuthList:  auths,
	})
	if err != nil {
		return nil, fmt.Errorf("eip7702: sign: %w", err)
	}
	if err := b.SendTransaction(ctx, tx); err != nil {
		return nil, fmt.Errorf("eip7702: send: %w", err)
	}
	return tx, nil
}
