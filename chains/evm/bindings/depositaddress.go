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

// DepositAddressMetaData contains all meta data concerning the DepositAddress contract.
var DepositAddressMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"contractDepository\",\"name\":\"depository_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"}],\"name\":\"BalanceUnreadable\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotFactory\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TokenTransferFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"depository\",\"outputs\":[{\"internalType\":\"contractDepository\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"factory\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"}],\"name\":\"sweep\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	ID:  "DepositAddress",
	Bin: "0x60c060405234801561000f575f5ffd5b5060405161064f38038061064f83398101604081905261002e91610043565b336080526001600160a01b031660a052610070565b5f60208284031215610053575f5ffd5b81516001600160a01b0381168114610069575f5ffd5b9392505050565b60805160a0516105a56100aa5f395f8181608401528181610177015281816101f7015261025101525f818160cf015260fd01526105a55ff3fe608060405260043610610036575f3560e01c80636f7f6d0414610041578063bedd12a514610073578063c45a0155146100be575f5ffd5b3661003d57005b5f5ffd5b34801561004c575f5ffd5b5061006061005b3660046104ea565b6100f1565b6040519081526020015b60405180910390f35b34801561007e575f5ffd5b506100a67f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b03909116815260200161006a565b3480156100c9575f5ffd5b506100a67f000000000000000000000000000000000000000000000000000000000000000081565b5f336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161461013b57604051631966391b60e11b815260040160405180910390fd5b6001600160a01b0382166101d757504780156101d257604051639a22ada960e01b81526001600160a01b038481166004830152602482018690527f00000000000000000000000000000000000000000000000000000000000000001690639a22ada99083906044015f604051808303818588803b1580156101ba575f5ffd5b505af11580156101cc573d5f5f3e3d5ffd5b50505050505b6102a9565b6101e0826102b0565b905080156102a95761021c6001600160a01b0383167f00000000000000000000000000000000000000000000000000000000000000008361039f565b604051632424a1f760e01b81526001600160a01b038481166004830152602482018690528381166044830152606482018390527f00000000000000000000000000000000000000000000000000000000000000001690632424a1f7906084015f604051808303815f87803b158015610292575f5ffd5b505af11580156102a4573d5f5f3e3d5ffd5b505050505b9392505050565b604080513060248083019190915282518083039091018152604490910182526020810180516001600160e01b03166370a0823160e01b17905290515f91829182916001600160a01b038616916103069190610523565b5f60405180830381855afa9150503d805f811461033e576040519150601f19603f3d011682016040523d82523d5f602084013e610343565b606091505b5091509150811580610356575060208151105b156103835760405163611c784760e11b81526001600160a01b038516600482015260240160405180910390fd5b808060200190518101906103979190610539565b949350505050565b604080516001600160a01b038416602482015260448082018490528251808303909101815260649091019091526020810180516001600160e01b031663095ea7b360e01b1790526103f19084906103f6565b505050565b816001600160a01b03163b5f036104205760405163022e258160e11b815260040160405180910390fd5b5f5f836001600160a01b03168360405161043a9190610523565b5f604051808303815f865af19150503d805f8114610473576040519150601f19603f3d011682016040523d82523d5f602084013e610478565b606091505b50915091508161048a57805160208201fd5b8051158015906104ab5750808060200190518101906104a99190610550565b155b156104c95760405163022e258160e11b815260040160405180910390fd5b50505050565b80356001600160a01b03811681146104e5575f5ffd5b919050565b5f5f5f606084860312156104fc575f5ffd5b8335925061050c602085016104cf565b915061051a604085016104cf565b90509250925092565b5f82518060208501845e5f920191825250919050565b5f60208284031215610549575f5ffd5b5051919050565b5f60208284031215610560575f5ffd5b815180151581146102a9575f5ffdfea26469706673582212203eb27c4279804cebcfbf86be4ba5e3a245e45714e84c0ff020449ba8542ec44764736f6c634300081c0033",
}

// DepositAddress is an auto generated Go binding around an Ethereum contract.
type DepositAddress struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *DepositAddress) GetABI() abi.ABI {
	return c.abi
}

// NewDepositAddress creates a new instance of DepositAddress.
func NewDepositAddress() *DepositAddress {
	parsed, err := DepositAddressMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &DepositAddress{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *DepositAddress) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address depository_) returns()
func (depositAddress *DepositAddress) PackConstructor(depository_ common.Address) []byte {
	enc, err := depositAddress.abi.Pack("", depository_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDepository is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbedd12a5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depository() view returns(address)
func (depositAddress *DepositAddress) PackDepository() []byte {
	enc, err := depositAddress.abi.Pack("depository")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDepository is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbedd12a5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function depository() view returns(address)
func (depositAddress *DepositAddress) TryPackDepository() ([]byte, error) {
	return depositAddress.abi.Pack("depository")
}

// UnpackDepository is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xbedd12a5.
//
// Solidity: function depository() view returns(address)
func (depositAddress *DepositAddress) UnpackDepository(data []byte) (common.Address, error) {
	out, err := depositAddress.abi.Unpack("depository", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackFactory is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc45a0155.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function factory() view returns(address)
func (depositAddress *DepositAddress) PackFactory() []byte {
	enc, err := depositAddress.abi.Pack("factory")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFactory is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc45a0155.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function factory() view returns(address)
func (depositAddress *DepositAddress) TryPackFactory() ([]byte, error) {
	return depositAddress.abi.Pack("factory")
}

// UnpackFactory is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc45a0155.
//
// Solidity: function factory() view returns(address)
func (depositAddress *DepositAddress) UnpackFactory(data []byte) (common.Address, error) {
	out, err := depositAddress.abi.Unpack("factory", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackSweep is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6f7f6d04.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function sweep(bytes32 orderId, address depositor, address currency) returns(uint256 amount)
func (depositAddress *DepositAddress) PackSweep(orderId [32]byte, depositor common.Address, currency common.Address) []byte {
	enc, err := depositAddress.abi.Pack("sweep", orderId, depositor, currency)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSweep is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6f7f6d04.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function sweep(bytes32 orderId, address depositor, address currency) returns(uint256 amount)
func (depositAddress *DepositAddress) TryPackSweep(orderId [32]byte, depositor common.Address, currency common.Address) ([]byte, error) {
	return depositAddress.abi.Pack("sweep", orderId, depositor, currency)
}

// UnpackSweep is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6f7f6d04.
//
// Solidity: function sweep(bytes32 orderId, address depositor, address currency) returns(uint256 amount)
func (depositAddress *DepositAddress) UnpackSweep(data []byte) (*big.Int, error) {
	out, err := depositAddress.abi.Unpack("sweep", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (depositAddress *DepositAddress) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], depositAddress.abi.Errors["BalanceUnreadable"].ID.Bytes()[:4]) {
		return depositAddress.UnpackBalanceUnreadableError(raw[4:])
	}
	if bytes.Equal(raw[:4], depositAddress.abi.Errors["NotFactory"].ID.Bytes()[:4]) {
		return depositAddress.UnpackNotFactoryError(raw[4:])
	}
	if bytes.Equal(raw[:4], depositAddress.abi.Errors["TokenTransferFailed"].ID.Bytes()[:4]) {
		return depositAddress.UnpackTokenTransferFailedError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// DepositAddressBalanceUnreadable represents a BalanceUnreadable error raised by the DepositAddress contract.
type DepositAddressBalanceUnreadable struct {
	Currency common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BalanceUnreadable(address currency)
func DepositAddressBalanceUnreadableErrorID() common.Hash {
	return common.HexToHash("0xc238f08ecd3b893002a0f80750d9a8d26c5da1c09722480ce8ed7150ae0d1cd5")
}

// UnpackBalanceUnreadableError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BalanceUnreadable(address currency)
func (depositAddress *DepositAddress) UnpackBalanceUnreadableError(raw []byte) (*DepositAddressBalanceUnreadable, error) {
	out := new(DepositAddressBalanceUnreadable)
	if err := depositAddress.abi.UnpackIntoInterface(out, "BalanceUnreadable", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DepositAddressNotFactory represents a NotFactory error raised by the DepositAddress contract.
type DepositAddressNotFactory struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotFactory()
func DepositAddressNotFactoryErrorID() common.Hash {
	return common.HexToHash("0x32cc723614e775fc4a8386492bc9a860c12fe98d5f5f28ec17e265818645b229")
}

// UnpackNotFactoryError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotFactory()
func (depositAddress *DepositAddress) UnpackNotFactoryError(raw []byte) (*DepositAddressNotFactory, error) {
	out := new(DepositAddressNotFactory)
	if err := depositAddress.abi.UnpackIntoInterface(out, "NotFactory", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DepositAddressTokenTransferFailed represents a TokenTransferFailed error raised by the DepositAddress contract.
type DepositAddressTokenTransferFailed struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TokenTransferFailed()
func DepositAddressTokenTransferFailedErrorID() common.Hash {
	return common.HexToHash("0x045c4b02bfd1d72e80013ca423cc4ad578d2b3a61cfe3a46410880647bff4f57")
}

// UnpackTokenTransferFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TokenTransferFailed()
func (depositAddress *DepositAddress) UnpackTokenTransferFailedError(raw []byte) (*DepositAddressTokenTransferFailed, error) {
	out := new(DepositAddressTokenTransferFailed)
	if err := depositAddress.abi.UnpackIntoInterface(out, "TokenTransferFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}
