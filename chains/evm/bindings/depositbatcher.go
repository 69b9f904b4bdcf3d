// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package bindings

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// DepositBatcherMetaData contains all meta data concerning the DepositBatcher contract.
var DepositBatcherMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"sent\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"expected\",\"type\":\"uint256\"}],\"name\":\"WrongValue\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"depository\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"count\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"name\":\"depositMany\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"depository\",\"type\":\"address\"},{\"internalType\":\"bytes32[]\",\"name\":\"orderIds\",\"type\":\"bytes32[]\"},{\"internalType\":\"uint256\",\"name\":\"amountEach\",\"type\":\"uint256\"}],\"name\":\"depositNativeMany\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	ID:  "DepositBatcher",
	Bin: "0x6080604052348015600e575f5ffd5b506103498061001c5f395ff3fe60806040526004361061002b575f3560e01c80637ee52ced146100365780638fd7935b14610057575f5ffd5b3661003257005b5f5ffd5b348015610041575f5ffd5b5061005561005036600461020f565b61006a565b005b61005561006536600461024e565b610127565b5f5b8281101561012057846001600160a01b031663be056b28838360405160200161009f929190918252602082015260400190565b60408051601f198184030181529082905280516020909101206001600160e01b031960e084901b16825260048201526001600160a01b0387166024820152600160448201526064015f604051808303815f87803b1580156100fe575f5ffd5b505af1158015610110573d5f5f3e3d5ffd5b50506001909201915061006c9050565b5050505050565b5f61013283836102d6565b90508034146101615760405163195a3ca160e01b81523460048201526024810182905260440160405180910390fd5b5f5b838110156101ec57856001600160a01b03166342ef5fbb8487878581811061018d5761018d6102ff565b905060200201356040518363ffffffff1660e01b81526004016101b291815260200190565b5f604051808303818588803b1580156101c9575f5ffd5b505af11580156101db573d5f5f3e3d5ffd5b505060019093019250610163915050565b505050505050565b80356001600160a01b038116811461020a575f5ffd5b919050565b5f5f5f5f60808587031215610222575f5ffd5b61022b856101f4565b9350610239602086016101f4565b93969395505050506040820135916060013590565b5f5f5f5f60608587031215610261575f5ffd5b61026a856101f4565b9350602085013567ffffffffffffffff811115610285575f5ffd5b8501601f81018713610295575f5ffd5b803567ffffffffffffffff8111156102ab575f5ffd5b8760208260051b84010111156102bf575f5ffd5b949760209190910196509394604001359392505050565b80820281158282048414176102f957634e487b7160e01b5f52601160045260245ffd5b92915050565b634e487b7160e01b5f52603260045260245ffdfea2646970667358221220493cbf72000a59f8cf15b9fca7568758b3640965317fe094d9de02e25878899664736f6c634300081c0033",
}

// DepositBatcher is an auto generated Go binding around an Ethereum contract.
type DepositBatcher struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *DepositBatcher) GetABI() abi.ABI {
	return c.abi
}

// NewDepositBatcher creates a new instance of DepositBatcher.
func NewDepositBatcher() *DepositBatcher {
	parsed, err := DepositBatcherMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &DepositBatcher{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *DepositBatcher) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackDepositMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7ee52ced.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depositMany(address depository, address currency, uint256 count, bytes32 salt) returns()
func (depositBatcher *DepositBatcher) PackDepositMany(depository common.Address, currency common.Address, count *big.Int, salt [32]byte) []byte {
	enc, err := depositBatcher.abi.Pack("depositMany", depository, currency, count, salt)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDepositMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7ee52ced.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function depositMany(address depository, address currency, uint256 count, bytes32 salt) returns()
func (depositBatcher *DepositBatcher) TryPackDepositMany(depository common.Address, currency common.Address, count *big.Int, salt [32]byte) ([]byte, error) {
	return depositBatcher.abi.Pack("depositMany", depository, currency, count, salt)
}

// PackDepositNativeMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8fd7935b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depositNativeMany(address depository, bytes32[] orderIds, uint256 amountEach) payable returns()
func (depositBatcher *DepositBatcher) PackDepositNativeMany(depository common.Address, orderIds [][32]byte, amountEach *big.Int) []byte {
	enc, err := depositBatcher.abi.Pack("depositNativeMany", depository, orderIds, amountEach)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDepositNativeMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8fd7935b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function depositNativeMany(address depository, bytes32[] orderIds, uint256 amountEach) payable returns()
func (depositBatcher *DepositBatcher) TryPackDepositNativeMany(depository common.Address, orderIds [][32]byte, amountEach *big.Int) ([]byte, error) {
	return depositBatcher.abi.Pack("depositNativeMany", depository, orderIds, amountEach)
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (depositBatcher *DepositBatcher) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], depositBatcher.abi.Errors["WrongValue"].ID.Bytes()[:4]) {
		return depositBatcher.UnpackWrongValueError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// DepositBatcherWrongValue represents a WrongValue error raised by the DepositBatcher contract.
type DepositBatcherWrongValue struct {
	Sent     *big.Int
	Expected *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WrongValue(uint256 sent, uint256 expected)
func DepositBatcherWrongValueErrorID() common.Hash {
	return common.HexToHash("0x195a3ca12ac3744ef64727effb118b3b203c382e49c7a7d24d450eae5e3b889a")
}

// UnpackWrongValueError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WrongValue(uint256 sent, uint256 expected)
func (depositBatcher *DepositBatcher) UnpackWrongValueError(raw []byte) (*DepositBatcherWrongValue, error) {
	out := new(DepositBatcherWrongValue)
	if err := depositBatcher.abi.UnpackIntoInterface(out, "WrongValue", raw); err != nil {
		return nil, err
	}
	return out, nil
}
