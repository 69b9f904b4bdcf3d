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
	ABI: "[{\"inputs\":[{\"internalType\":\"contractDepository\",\"name\":\"depository_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"}],\"name\":\"BalanceUnreadable\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotFactory\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TokenTransferFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroAmount\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"depository\",\"outputs\":[{\"internalType\":\"contractDepository\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"factory\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"sweep\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	ID:  "DepositAddress",
	Bin: "0x60c060405234801561000f575f5ffd5b506040516106d03803806106d083398101604081905261002e91610043565b336080526001600160a01b031660a052610070565b5f60208284031215610053575f5ffd5b81516001600160a01b0381168114610069575f5ffd5b9392505050565b60805160a0516106266100aa5f395f81816073015281816101bf0152818161027301526102cd01525f818160c2015260ef01526106265ff3fe608060405260043610610036575f3560e01c80637197b41a14610041578063bedd12a514610062578063c45a0155146100b1575f5ffd5b3661003d57005b5f5ffd5b34801561004c575f5ffd5b5061006061005b36600461055c565b6100e4565b005b34801561006d575f5ffd5b506100957f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b03909116815260200160405180910390f35b3480156100bc575f5ffd5b506100957f000000000000000000000000000000000000000000000000000000000000000081565b336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161461012d57604051631966391b60e11b815260040160405180910390fd5b805f0361014d57604051631f2a200560e01b815260040160405180910390fd5b6001600160a01b03821661021e57804710156101995760405163db42144d60e01b81526001600160a01b0383166004820152476024820152604481018290526064015b60405180910390fd5b604051639a22ada960e01b81526001600160a01b038481166004830152602482018690527f00000000000000000000000000000000000000000000000000000000000000001690639a22ada99083906044015f604051808303818588803b158015610202575f5ffd5b505af1158015610214573d5f5f3e3d5ffd5b5050505050610326565b5f6102288361032c565b9050818110156102645760405163db42144d60e01b81526001600160a01b03841660048201526024810182905260448101839052606401610190565b6102986001600160a01b0384167f000000000000000000000000000000000000000000000000000000000000000084610417565b604051632424a1f760e01b81526001600160a01b038581166004830152602482018790528481166044830152606482018490527f00000000000000000000000000000000000000000000000000000000000000001690632424a1f7906084015f604051808303815f87803b15801561030e575f5ffd5b505af1158015610320573d5f5f3e3d5ffd5b50505050505b50505050565b604080513060248083019190915282518083039091018152604490910182526020810180516001600160e01b03166370a0823160e01b17905290515f91829182916001600160a01b03861691610382919061059d565b5f60405180830381855afa9150503d805f81146103ba576040519150601f19603f3d011682016040523d82523d5f602084013e6103bf565b606091505b50915091508115806103d2575060208151105b156103fb5760405163611c784760e11b81526001600160a01b0385166004820152602401610190565b8080602001905181019061040f91906105b3565b949350505050565b604080516001600160a01b038416602482015260448082018490528251808303909101815260649091019091526020810180516001600160e01b031663095ea7b360e01b17905261046990849061046e565b505050565b816001600160a01b03163b5f036104985760405163022e258160e11b815260040160405180910390fd5b5f5f836001600160a01b0316836040516104b2919061059d565b5f604051808303815f865af19150503d805f81146104eb576040519150601f19603f3d011682016040523d82523d5f602084013e6104f0565b606091505b50915091508161050257805160208201fd5b80511580159061052357508080602001905181019061052191906105ca565b155b156103265760405163022e258160e11b815260040160405180910390fd5b80356001600160a01b0381168114610557575f5ffd5b919050565b5f5f5f5f6080858703121561056f575f5ffd5b8435935061057f60208601610541565b925061058d60408601610541565b9396929550929360600135925050565b5f82518060208501845e5f920191825250919050565b5f602082840312156105c3575f5ffd5b5051919050565b5f602082840312156105da575f5ffd5b815180151581146105e9575f5ffd5b939250505056fea264697066735822122094f3d7c7100ab726dd96947aeddb85e1c167c643f87cc981adc02e0070a989e064736f6c634300081c0033",
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
// the contract method with ID 0x7197b41a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function sweep(bytes32 orderId, address depositor, address currency, uint256 amount) returns()
func (depositAddress *DepositAddress) PackSweep(orderId [32]byte, depositor common.Address, currency common.Address, amount *big.Int) []byte {
	enc, err := depositAddress.abi.Pack("sweep", orderId, depositor, currency, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSweep is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7197b41a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function sweep(bytes32 orderId, address depositor, address currency, uint256 amount) returns()
func (depositAddress *DepositAddress) TryPackSweep(orderId [32]byte, depositor common.Address, currency common.Address, amount *big.Int) ([]byte, error) {
	return depositAddress.abi.Pack("sweep", orderId, depositor, currency, amount)
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (depositAddress *DepositAddress) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], depositAddress.abi.Errors["BalanceUnreadable"].ID.Bytes()[:4]) {
		return depositAddress.UnpackBalanceUnreadableError(raw[4:])
	}
	if bytes.Equal(raw[:4], depositAddress.abi.Errors["InsufficientBalance"].ID.Bytes()[:4]) {
		return depositAddress.UnpackInsufficientBalanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], depositAddress.abi.Errors["NotFactory"].ID.Bytes()[:4]) {
		return depositAddress.UnpackNotFactoryError(raw[4:])
	}
	if bytes.Equal(raw[:4], depositAddress.abi.Errors["TokenTransferFailed"].ID.Bytes()[:4]) {
		return depositAddress.UnpackTokenTransferFailedError(raw[4:])
	}
	if bytes.Equal(raw[:4], depositAddress.abi.Errors["ZeroAmount"].ID.Bytes()[:4]) {
		return depositAddress.UnpackZeroAmountError(raw[4:])
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

// DepositAddressInsufficientBalance represents a InsufficientBalance error raised by the DepositAddress contract.
type DepositAddressInsufficientBalance struct {
	Currency common.Address
	Balance  *big.Int
	Amount   *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientBalance(address currency, uint256 balance, uint256 amount)
func DepositAddressInsufficientBalanceErrorID() common.Hash {
	return common.HexToHash("0xdb42144d928cd19733b9dfeead8bc02ed403845c274e06a6eee0944fb25ca5c4")
}

// UnpackInsufficientBalanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientBalance(address currency, uint256 balance, uint256 amount)
func (depositAddress *DepositAddress) UnpackInsufficientBalanceError(raw []byte) (*DepositAddressInsufficientBalance, error) {
	out := new(DepositAddressInsufficientBalance)
	if err := depositAddress.abi.UnpackIntoInterface(out, "InsufficientBalance", raw); err != nil {
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

// DepositAddressZeroAmount represents a ZeroAmount error raised by the DepositAddress contract.
type DepositAddressZeroAmount struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroAmount()
func DepositAddressZeroAmountErrorID() common.Hash {
	return common.HexToHash("0x1f2a2005cb66a8e145327e8814e243a0996aec9bfe1e15a495778b1236dbd485")
}

// UnpackZeroAmountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroAmount()
func (depositAddress *DepositAddress) UnpackZeroAmountError(raw []byte) (*DepositAddressZeroAmount, error) {
	out := new(DepositAddressZeroAmount)
	if err := depositAddress.abi.UnpackIntoInterface(out, "ZeroAmount", raw); err != nil {
		return nil, err
	}
	return out, nil
}
