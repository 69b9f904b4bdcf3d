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

// GasBurnerTokenMetaData contains all meta data concerning the GasBurnerToken contract.
var GasBurnerTokenMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"burn_\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"burn\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"pure\",\"type\":\"function\"}]",
	ID:  "GasBurnerToken",
	Bin: "0x60a0604052348015600e575f5ffd5b5060405161034a38038061034a833981016040819052602b916032565b6080526048565b5f602082840312156041575f5ffd5b5051919050565b6080516102e36100675f395f8181610103015261017c01526102e35ff3fe608060405234801561000f575f5ffd5b506004361061007a575f3560e01c806344df8e701161005857806344df8e70146100fe57806370a082311461013357806395d89b4114610147578063a9059cbb1461016a575f5ffd5b806306fdde031461007e57806323b872dd146100bd578063313ce567146100e4575b5f5ffd5b6100a76040518060400160405280600a81526020016923b0b990213ab93732b960b11b81525081565b6040516100b491906101bc565b60405180910390f35b6100d46100cb36600461020c565b60019392505050565b60405190151581526020016100b4565b6100ec601281565b60405160ff90911681526020016100b4565b6101257f000000000000000000000000000000000000000000000000000000000000000081565b6040519081526020016100b4565b610125610141366004610246565b50600190565b6100a760405180604001604052806004815260200163212aa92760e11b81525081565b6100d4610178366004610266565b5f5f7f00000000000000000000000000000000000000000000000000000000000000005a6101a6919061028e565b90505b805a116101a95760019150505b92915050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b80356001600160a01b0381168114610207575f5ffd5b919050565b5f5f5f6060848603121561021e575f5ffd5b610227846101f1565b9250610235602085016101f1565b929592945050506040919091013590565b5f60208284031215610256575f5ffd5b61025f826101f1565b9392505050565b5f5f60408385031215610277575f5ffd5b610280836101f1565b946020939093013593505050565b818103818111156101b657634e487b7160e01b5f52601160045260245ffdfea2646970667358221220fef03344c58d0597046a6bd46f3cd78b2c8a86fb9b0322c54be6610ef1df805964736f6c634300081c0033",
}

// GasBurnerToken is an auto generated Go binding around an Ethereum contract.
type GasBurnerToken struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *GasBurnerToken) GetABI() abi.ABI {
	return c.abi
}

// NewGasBurnerToken creates a new instance of GasBurnerToken.
func NewGasBurnerToken() *GasBurnerToken {
	parsed, err := GasBurnerTokenMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &GasBurnerToken{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *GasBurnerToken) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(uint256 burn_) returns()
func (gasBurnerToken *GasBurnerToken) PackConstructor(burn_ *big.Int) []byte {
	enc, err := gasBurnerToken.abi.Pack("", burn_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function balanceOf(address ) pure returns(uint256)
func (gasBurnerToken *GasBurnerToken) PackBalanceOf(arg0 common.Address) []byte {
	enc, err := gasBurnerToken.abi.Pack("balanceOf", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function balanceOf(address ) pure returns(uint256)
func (gasBurnerToken *GasBurnerToken) TryPackBalanceOf(arg0 common.Address) ([]byte, error) {
	return gasBurnerToken.abi.Pack("balanceOf", arg0)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address ) pure returns(uint256)
func (gasBurnerToken *GasBurnerToken) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := gasBurnerToken.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackBurn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x44df8e70.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function burn() view returns(uint256)
func (gasBurnerToken *GasBurnerToken) PackBurn() []byte {
	enc, err := gasBurnerToken.abi.Pack("burn")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBurn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x44df8e70.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function burn() view returns(uint256)
func (gasBurnerToken *GasBurnerToken) TryPackBurn() ([]byte, error) {
	return gasBurnerToken.abi.Pack("burn")
}

// UnpackBurn is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x44df8e70.
//
// Solidity: function burn() view returns(uint256)
func (gasBurnerToken *GasBurnerToken) UnpackBurn(data []byte) (*big.Int, error) {
	out, err := gasBurnerToken.abi.Unpack("burn", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() view returns(uint8)
func (gasBurnerToken *GasBurnerToken) PackDecimals() []byte {
	enc, err := gasBurnerToken.abi.Pack("decimals")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function decimals() view returns(uint8)
func (gasBurnerToken *GasBurnerToken) TryPackDecimals() ([]byte, error) {
	return gasBurnerToken.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (gasBurnerToken *GasBurnerToken) UnpackDecimals(data []byte) (uint8, error) {
	out, err := gasBurnerToken.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (gasBurnerToken *GasBurnerToken) PackName() []byte {
	enc, err := gasBurnerToken.abi.Pack("name")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function name() view returns(string)
func (gasBurnerToken *GasBurnerToken) TryPackName() ([]byte, error) {
	return gasBurnerToken.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (gasBurnerToken *GasBurnerToken) UnpackName(data []byte) (string, error) {
	out, err := gasBurnerToken.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() view returns(string)
func (gasBurnerToken *GasBurnerToken) PackSymbol() []byte {
	enc, err := gasBurnerToken.abi.Pack("symbol")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function symbol() view returns(string)
func (gasBurnerToken *GasBurnerToken) TryPackSymbol() ([]byte, error) {
	return gasBurnerToken.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (gasBurnerToken *GasBurnerToken) UnpackSymbol(data []byte) (string, error) {
	out, err := gasBurnerToken.abi.Unpack("symbol", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transfer(address , uint256 ) view returns(bool)
func (gasBurnerToken *GasBurnerToken) PackTransfer(arg0 common.Address, arg1 *big.Int) []byte {
	enc, err := gasBurnerToken.abi.Pack("transfer", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transfer(address , uint256 ) view returns(bool)
func (gasBurnerToken *GasBurnerToken) TryPackTransfer(arg0 common.Address, arg1 *big.Int) ([]byte, error) {
	return gasBurnerToken.abi.Pack("transfer", arg0, arg1)
}

// UnpackTransfer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa9059cbb.
//
// Solidity: function transfer(address , uint256 ) view returns(bool)
func (gasBurnerToken *GasBurnerToken) UnpackTransfer(data []byte) (bool, error) {
	out, err := gasBurnerToken.abi.Unpack("transfer", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom(address , address , uint256 ) pure returns(bool)
func (gasBurnerToken *GasBurnerToken) PackTransferFrom(arg0 common.Address, arg1 common.Address, arg2 *big.Int) []byte {
	enc, err := gasBurnerToken.abi.Pack("transferFrom", arg0, arg1, arg2)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address , address , uint256 ) pure returns(bool)
func (gasBurnerToken *GasBurnerToken) TryPackTransferFrom(arg0 common.Address, arg1 common.Address, arg2 *big.Int) ([]byte, error) {
	return gasBurnerToken.abi.Pack("transferFrom", arg0, arg1, arg2)
}

// UnpackTransferFrom is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23b872dd.
//
// Solidity: function transferFrom(address , address , uint256 ) pure returns(bool)
func (gasBurnerToken *GasBurnerToken) UnpackTransferFrom(data []byte) (bool, error) {
	out, err := gasBurnerToken.abi.Unpack("transferFrom", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}
