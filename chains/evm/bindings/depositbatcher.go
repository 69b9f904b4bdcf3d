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
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"depository\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"count\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"name\":\"depositMany\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "DepositBatcher",
	Bin: "0x6080604052348015600e575f5ffd5b5061018f8061001c5f395ff3fe608060405234801561000f575f5ffd5b5060043610610029575f3560e01c80637ee52ced1461002d575b5f5ffd5b61004061003b36600461011a565b610042565b005b5f5b828110156100f857846001600160a01b031663be056b288383604051602001610077929190918252602082015260400190565b60408051601f198184030181529082905280516020909101206001600160e01b031960e084901b16825260048201526001600160a01b0387166024820152600160448201526064015f604051808303815f87803b1580156100d6575f5ffd5b505af11580156100e8573d5f5f3e3d5ffd5b5050600190920191506100449050565b5050505050565b80356001600160a01b0381168114610115575f5ffd5b919050565b5f5f5f5f6080858703121561012d575f5ffd5b610136856100ff565b9350610144602086016100ff565b9396939550505050604082013591606001359056fea2646970667358221220d91c1de5313967c2af3064f9866a59b55bd5275c9a1e587ab46f559ead84470464736f6c634300081c0033",
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
