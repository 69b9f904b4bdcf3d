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

// OutputSettlerMetaData contains all meta data concerning the OutputSettler contract.
var OutputSettlerMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"}],\"name\":\"AlreadyFilled\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NativeTransferFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TokenTransferFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroAmount\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"solver\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Fill\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"fillErc20\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"}],\"name\":\"fillNative\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"filledBy\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "OutputSettler",
	Bin: "0x6080604052348015600e575f5ffd5b506104d98061001c5f395ff3fe608060405260043610610033575f3560e01c80630e3e69601461003757806329db720314610058578063d70e3dfd1461006b575b5f5ffd5b348015610042575f5ffd5b506100566100513660046103e5565b6100bb565b005b610056610066366004610426565b610149565b348015610076575f5ffd5b5061009f610085366004610450565b5f602081905290815260409020546001600160a01b031681565b6040516001600160a01b03909116815260200160405180910390f35b805f036100db57604051631f2a200560e01b815260040160405180910390fd5b6100e4846101c7565b6100f96001600160a01b038416338484610222565b604080516001600160a01b03858116825260208201849052841691339187917fa423321d4fa2e1d1e7a145f3eeb1f47e808b10132cc458ef5ce57eb02858edcc910160405180910390a450505050565b345f0361016957604051631f2a200560e01b815260040160405180910390fd5b610172826101c7565b61017c8134610282565b604080515f81523460208201526001600160a01b03831691339185917fa423321d4fa2e1d1e7a145f3eeb1f47e808b10132cc458ef5ce57eb02858edcc910160405180910390a45050565b5f818152602081905260409020546001600160a01b0316156102035760405163cee8144360e01b81526004810182905260240160405180910390fd5b5f90815260208190526040902080546001600160a01b03191633179055565b604080516001600160a01b0385811660248301528416604482015260648082018490528251808303909101815260849091019091526020810180516001600160e01b03166323b872dd60e01b17905261027c9085906102f7565b50505050565b5f826001600160a01b0316826040515f6040518083038185875af1925050503d805f81146102cb576040519150601f19603f3d011682016040523d82523d5f602084013e6102d0565b606091505b50509050806102f257604051633d2cec6f60e21b815260040160405180910390fd5b505050565b816001600160a01b03163b5f036103215760405163022e258160e11b815260040160405180910390fd5b5f5f836001600160a01b03168360405161033b9190610467565b5f604051808303815f865af19150503d805f8114610374576040519150601f19603f3d011682016040523d82523d5f602084013e610379565b606091505b50915091508161038b57805160208201fd5b8051158015906103ac5750808060200190518101906103aa919061047d565b155b1561027c5760405163022e258160e11b815260040160405180910390fd5b80356001600160a01b03811681146103e0575f5ffd5b919050565b5f5f5f5f608085870312156103f8575f5ffd5b84359350610408602086016103ca565b9250610416604086016103ca565b9396929550929360600135925050565b5f5f60408385031215610437575f5ffd5b82359150610447602084016103ca565b90509250929050565b5f60208284031215610460575f5ffd5b5035919050565b5f82518060208501845e5f920191825250919050565b5f6020828403121561048d575f5ffd5b8151801515811461049c575f5ffd5b939250505056fea26469706673582212201b0dacb0912ba6d070e7909016c9ab8a75e99bce7d0ae6856363607a2f964d8a64736f6c634300081c0033",
}

// OutputSettler is an auto generated Go binding around an Ethereum contract.
type OutputSettler struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *OutputSettler) GetABI() abi.ABI {
	return c.abi
}

// NewOutputSettler creates a new instance of OutputSettler.
func NewOutputSettler() *OutputSettler {
	parsed, err := OutputSettlerMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &OutputSettler{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *OutputSettler) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackFillErc20 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0e3e6960.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function fillErc20(bytes32 orderId, address currency, address recipient, uint256 amount) returns()
func (outputSettler *OutputSettler) PackFillErc20(orderId [32]byte, currency common.Address, recipient common.Address, amount *big.Int) []byte {
	enc, err := outputSettler.abi.Pack("fillErc20", orderId, currency, recipient, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFillErc20 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0e3e6960.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function fillErc20(bytes32 orderId, address currency, address recipient, uint256 amount) returns()
func (outputSettler *OutputSettler) TryPackFillErc20(orderId [32]byte, currency common.Address, recipient common.Address, amount *big.Int) ([]byte, error) {
	return outputSettler.abi.Pack("fillErc20", orderId, currency, recipient, amount)
}

// PackFillNative is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x29db7203.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function fillNative(bytes32 orderId, address recipient) payable returns()
func (outputSettler *OutputSettler) PackFillNative(orderId [32]byte, recipient common.Address) []byte {
	enc, err := outputSettler.abi.Pack("fillNative", orderId, recipient)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFillNative is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x29db7203.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function fillNative(bytes32 orderId, address recipient) payable returns()
func (outputSettler *OutputSettler) TryPackFillNative(orderId [32]byte, recipient common.Address) ([]byte, error) {
	return outputSettler.abi.Pack("fillNative", orderId, recipient)
}

// PackFilledBy is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd70e3dfd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function filledBy(bytes32 ) view returns(address)
func (outputSettler *OutputSettler) PackFilledBy(arg0 [32]byte) []byte {
	enc, err := outputSettler.abi.Pack("filledBy", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFilledBy is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd70e3dfd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function filledBy(bytes32 ) view returns(address)
func (outputSettler *OutputSettler) TryPackFilledBy(arg0 [32]byte) ([]byte, error) {
	return outputSettler.abi.Pack("filledBy", arg0)
}

// UnpackFilledBy is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd70e3dfd.
//
// Solidity: function filledBy(bytes32 ) view returns(address)
func (outputSettler *OutputSettler) UnpackFilledBy(data []byte) (common.Address, error) {
	out, err := outputSettler.abi.Unpack("filledBy", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// OutputSettlerFill represents a Fill event raised by the OutputSettler contract.
type OutputSettlerFill struct {
	OrderId   [32]byte
	Solver    common.Address
	Recipient common.Address
	Currency  common.Address
	Amount    *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const OutputSettlerFillEventName = "Fill"

// ContractEventName returns the user-defined event name.
func (OutputSettlerFill) ContractEventName() string {
	return OutputSettlerFillEventName
}

// UnpackFillEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Fill(bytes32 indexed orderId, address indexed solver, address indexed recipient, address currency, uint256 amount)
func (outputSettler *OutputSettler) UnpackFillEvent(log *types.Log) (*OutputSettlerFill, error) {
	event := "Fill"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != outputSettler.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(OutputSettlerFill)
	if len(log.Data) > 0 {
		if err := outputSettler.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range outputSettler.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (outputSettler *OutputSettler) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], outputSettler.abi.Errors["AlreadyFilled"].ID.Bytes()[:4]) {
		return outputSettler.UnpackAlreadyFilledError(raw[4:])
	}
	if bytes.Equal(raw[:4], outputSettler.abi.Errors["NativeTransferFailed"].ID.Bytes()[:4]) {
		return outputSettler.UnpackNativeTransferFailedError(raw[4:])
	}
	if bytes.Equal(raw[:4], outputSettler.abi.Errors["TokenTransferFailed"].ID.Bytes()[:4]) {
		return outputSettler.UnpackTokenTransferFailedError(raw[4:])
	}
	if bytes.Equal(raw[:4], outputSettler.abi.Errors["ZeroAmount"].ID.Bytes()[:4]) {
		return outputSettler.UnpackZeroAmountError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// OutputSettlerAlreadyFilled represents a AlreadyFilled error raised by the OutputSettler contract.
type OutputSettlerAlreadyFilled struct {
	OrderId [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AlreadyFilled(bytes32 orderId)
func OutputSettlerAlreadyFilledErrorID() common.Hash {
	return common.HexToHash("0xcee814430f462fa736c124b732c7a9accc7838dc253bc16d5145f53413e56ca1")
}

// UnpackAlreadyFilledError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AlreadyFilled(bytes32 orderId)
func (outputSettler *OutputSettler) UnpackAlreadyFilledError(raw []byte) (*OutputSettlerAlreadyFilled, error) {
	out := new(OutputSettlerAlreadyFilled)
	if err := outputSettler.abi.UnpackIntoInterface(out, "AlreadyFilled", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// OutputSettlerNativeTransferFailed represents a NativeTransferFailed error raised by the OutputSettler contract.
type OutputSettlerNativeTransferFailed struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NativeTransferFailed()
func OutputSettlerNativeTransferFailedErrorID() common.Hash {
	return common.HexToHash("0xf4b3b1bcbe5924688bdd352ae99c1966d3ce0a2ba09d3a1d796de982d1ee8c84")
}

// UnpackNativeTransferFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NativeTransferFailed()
func (outputSettler *OutputSettler) UnpackNativeTransferFailedError(raw []byte) (*OutputSettlerNativeTransferFailed, error) {
	out := new(OutputSettlerNativeTransferFailed)
	if err := outputSettler.abi.UnpackIntoInterface(out, "NativeTransferFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// OutputSettlerTokenTransferFailed represents a TokenTransferFailed error raised by the OutputSettler contract.
type OutputSettlerTokenTransferFailed struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TokenTransferFailed()
func OutputSettlerTokenTransferFailedErrorID() common.Hash {
	return common.HexToHash("0x045c4b02bfd1d72e80013ca423cc4ad578d2b3a61cfe3a46410880647bff4f57")
}

// UnpackTokenTransferFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TokenTransferFailed()
func (outputSettler *OutputSettler) UnpackTokenTransferFailedError(raw []byte) (*OutputSettlerTokenTransferFailed, error) {
	out := new(OutputSettlerTokenTransferFailed)
	if err := outputSettler.abi.UnpackIntoInterface(out, "TokenTransferFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// OutputSettlerZeroAmount represents a ZeroAmount error raised by the OutputSettler contract.
type OutputSettlerZeroAmount struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroAmount()
func OutputSettlerZeroAmountErrorID() common.Hash {
	return common.HexToHash("0x1f2a2005cb66a8e145327e8814e243a0996aec9bfe1e15a495778b1236dbd485")
}

// UnpackZeroAmountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroAmount()
func (outputSettler *OutputSettler) UnpackZeroAmountError(raw []byte) (*OutputSettlerZeroAmount, error) {
	out := new(OutputSettlerZeroAmount)
	if err := outputSettler.abi.UnpackIntoInterface(out, "ZeroAmount", raw); err != nil {
		return nil, err
	}
	return out, nil
}
