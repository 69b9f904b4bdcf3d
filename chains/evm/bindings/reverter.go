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

// ReverterMetaData contains all meta data concerning the Reverter contract.
var ReverterMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"limit\",\"type\":\"uint256\"}],\"name\":\"AmountTooLarge\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"contractReverter\",\"name\":\"other\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"limit\",\"type\":\"uint256\"}],\"name\":\"callOther\",\"outputs\":[],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"a\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"b\",\"type\":\"uint256\"}],\"name\":\"divide\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"failEmpty\",\"outputs\":[],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"limit\",\"type\":\"uint256\"}],\"name\":\"failWithCustomError\",\"outputs\":[],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"failWithString\",\"outputs\":[],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"failWithUnknownError\",\"outputs\":[],\"stateMutability\":\"pure\",\"type\":\"function\"}]",
	ID:  "Reverter",
	Bin: "0x6080604052348015600e575f5ffd5b506102cb8061001c5f395ff3fe608060405234801561000f575f5ffd5b5060043610610060575f3560e01c806331778d5614610064578063a02b71b11461006e578063b41a66e314610081578063bdd4ad3214610089578063ceaa007a14610090578063f88e9fbf146100a3575b5f5ffd5b61006c6100c8565b005b61006c61007c3660046101e1565b6100dc565b61006c610113565b61006c5f5ffd5b61006c61009e366004610213565b61014f565b6100b66100b1366004610256565b6101b8565b60405190815260200160405180910390f35b63deadbeef60e01b5f52602a60045260245ffd5b604051630a1b4b6f60e31b81526001600160a01b038416600482015260248101839052604481018290526064015b60405180910390fd5b60405162461bcd60e51b815260206004820152601160248201527014995d995c9d195c8e881c99599d5cd959607a1b604482015260640161010a565b60405163a02b71b160e01b81526001600160a01b038481166004830152602482018490526044820183905285169063a02b71b1906064015f6040518083038186803b15801561019c575f5ffd5b505afa1580156101ae573d5f5f3e3d5ffd5b5050505050505050565b5f6101c38284610276565b9392505050565b6001600160a01b03811681146101de575f5ffd5b50565b5f5f5f606084860312156101f3575f5ffd5b83356101fe816101ca565b95602085013595506040909401359392505050565b5f5f5f5f60808587031215610226575f5ffd5b8435610231816101ca565b93506020850135610241816101ca565b93969395505050506040820135916060013590565b5f5f60408385031215610267575f5ffd5b50508035926020909101359150565b5f8261029057634e487b7160e01b5f52601260045260245ffd5b50049056fea264697066735822122091bdaae7f228c1167eead591344d84f77528a88baf6143a0be450e001644bde764736f6c634300081c0033",
}

// Reverter is an auto generated Go binding around an Ethereum contract.
type Reverter struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *Reverter) GetABI() abi.ABI {
	return c.abi
}

// NewReverter creates a new instance of Reverter.
func NewReverter() *Reverter {
	parsed, err := ReverterMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &Reverter{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *Reverter) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackCallOther is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xceaa007a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function callOther(address other, address account, uint256 amount, uint256 limit) view returns()
func (reverter *Reverter) PackCallOther(other common.Address, account common.Address, amount *big.Int, limit *big.Int) []byte {
	enc, err := reverter.abi.Pack("callOther", other, account, amount, limit)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCallOther is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xceaa007a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function callOther(address other, address account, uint256 amount, uint256 limit) view returns()
func (reverter *Reverter) TryPackCallOther(other common.Address, account common.Address, amount *big.Int, limit *big.Int) ([]byte, error) {
	return reverter.abi.Pack("callOther", other, account, amount, limit)
}

// PackDivide is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf88e9fbf.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function divide(uint256 a, uint256 b) pure returns(uint256)
func (reverter *Reverter) PackDivide(a *big.Int, b *big.Int) []byte {
	enc, err := reverter.abi.Pack("divide", a, b)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDivide is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf88e9fbf.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function divide(uint256 a, uint256 b) pure returns(uint256)
func (reverter *Reverter) TryPackDivide(a *big.Int, b *big.Int) ([]byte, error) {
	return reverter.abi.Pack("divide", a, b)
}

// UnpackDivide is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf88e9fbf.
//
// Solidity: function divide(uint256 a, uint256 b) pure returns(uint256)
func (reverter *Reverter) UnpackDivide(data []byte) (*big.Int, error) {
	out, err := reverter.abi.Unpack("divide", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackFailEmpty is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbdd4ad32.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function failEmpty() pure returns()
func (reverter *Reverter) PackFailEmpty() []byte {
	enc, err := reverter.abi.Pack("failEmpty")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFailEmpty is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbdd4ad32.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function failEmpty() pure returns()
func (reverter *Reverter) TryPackFailEmpty() ([]byte, error) {
	return reverter.abi.Pack("failEmpty")
}

// PackFailWithCustomError is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa02b71b1.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function failWithCustomError(address account, uint256 amount, uint256 limit) pure returns()
func (reverter *Reverter) PackFailWithCustomError(account common.Address, amount *big.Int, limit *big.Int) []byte {
	enc, err := reverter.abi.Pack("failWithCustomError", account, amount, limit)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFailWithCustomError is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa02b71b1.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function failWithCustomError(address account, uint256 amount, uint256 limit) pure returns()
func (reverter *Reverter) TryPackFailWithCustomError(account common.Address, amount *big.Int, limit *big.Int) ([]byte, error) {
	return reverter.abi.Pack("failWithCustomError", account, amount, limit)
}

// PackFailWithString is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb41a66e3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function failWithString() pure returns()
func (reverter *Reverter) PackFailWithString() []byte {
	enc, err := reverter.abi.Pack("failWithString")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFailWithString is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb41a66e3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function failWithString() pure returns()
func (reverter *Reverter) TryPackFailWithString() ([]byte, error) {
	return reverter.abi.Pack("failWithString")
}

// PackFailWithUnknownError is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x31778d56.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function failWithUnknownError() pure returns()
func (reverter *Reverter) PackFailWithUnknownError() []byte {
	enc, err := reverter.abi.Pack("failWithUnknownError")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFailWithUnknownError is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x31778d56.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function failWithUnknownError() pure returns()
func (reverter *Reverter) TryPackFailWithUnknownError() ([]byte, error) {
	return reverter.abi.Pack("failWithUnknownError")
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (reverter *Reverter) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], reverter.abi.Errors["AmountTooLarge"].ID.Bytes()[:4]) {
		return reverter.UnpackAmountTooLargeError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// ReverterAmountTooLarge represents a AmountTooLarge error raised by the Reverter contract.
type ReverterAmountTooLarge struct {
	Account common.Address
	Amount  *big.Int
	Limit   *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AmountTooLarge(address account, uint256 amount, uint256 limit)
func ReverterAmountTooLargeErrorID() common.Hash {
	return common.HexToHash("0x50da5b78c7723dd6446f7a2a101ac224e0bee1958513a64801db4d4c0c6f63c9")
}

// UnpackAmountTooLargeError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AmountTooLarge(address account, uint256 amount, uint256 limit)
func (reverter *Reverter) UnpackAmountTooLargeError(raw []byte) (*ReverterAmountTooLarge, error) {
	out := new(ReverterAmountTooLarge)
	if err := reverter.abi.UnpackIntoInterface(out, "AmountTooLarge", raw); err != nil {
		return nil, err
	}
	return out, nil
}
