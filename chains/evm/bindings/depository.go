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

// DepositoryMetaData contains all meta data concerning the Depository contract.
var DepositoryMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"id\",\"type\":\"bytes32\"}],\"name\":\"AlreadyWithdrawn\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NativeTransferFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotOwner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TokenTransferFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroAmount\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Deposit\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"id\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Withdrawal\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"depositErc20\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"depositErc20For\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"}],\"name\":\"depositNative\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"}],\"name\":\"depositNativeFor\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"id\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"withdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"withdrawn\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "Depository",
	Bin: "0x60a0604052348015600e575f5ffd5b50604051610818380380610818833981016040819052602b91603b565b6001600160a01b03166080526066565b5f60208284031215604a575f5ffd5b81516001600160a01b0381168114605f575f5ffd5b9392505050565b6080516107946100845f395f818160fa015261024f01526107945ff3fe60806040526004361061006e575f3560e01c80638da5cb5b1161004c5780638da5cb5b146100e95780638e0cc176146101345780639a22ada914610153578063be056b2814610166575f5ffd5b80632424a1f7146100725780633823d66c1461009357806342ef5fbb146100d6575b5f5ffd5b34801561007d575f5ffd5b5061009161008c36600461061e565b610185565b005b34801561009e575f5ffd5b506100c16100ad36600461065f565b5f6020819052908152604090205460ff1681565b60405190151581526020015b60405180910390f35b6100916100e436600461065f565b6101fb565b3480156100f4575f5ffd5b5061011c7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016100cd565b34801561013f575f5ffd5b5061009161014e366004610676565b610244565b6100916101613660046106a7565b610352565b348015610171575f5ffd5b506100916101803660046106cf565b6103b1565b805f036101a557604051631f2a200560e01b815260040160405180910390fd5b6101ba6001600160a01b038316333084610426565b816001600160a01b0316846001600160a01b0316845f51602061073f5f395f51905f52846040516101ed91815260200190565b60405180910390a450505050565b345f0361021b57604051631f2a200560e01b815260040160405180910390fd5b6040513481525f90339083905f51602061073f5f395f51905f529060200160405180910390a450565b336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161461028d576040516330cd747160e01b815260040160405180910390fd5b5f8481526020819052604090205460ff16156102c35760405163c4e4c7d960e01b81526004810185905260240160405180910390fd5b5f848152602081905260409020805460ff191660011790556001600160a01b0383166102f8576102f3828261048e565b61030c565b61030c6001600160a01b0384168383610503565b826001600160a01b0316826001600160a01b0316857f6c3a45613039e0a1117bd6ce110ab3c920271709c010983d921a2cd268e2ea47846040516101ed91815260200190565b345f0361037257604051631f2a200560e01b815260040160405180910390fd5b5f6001600160a01b0316826001600160a01b0316825f51602061073f5f395f51905f52346040516103a591815260200190565b60405180910390a45050565b805f036103d157604051631f2a200560e01b815260040160405180910390fd5b6103e66001600160a01b038316333084610426565b816001600160a01b0316336001600160a01b0316845f51602061073f5f395f51905f528460405161041991815260200190565b60405180910390a4505050565b6040516001600160a01b03808516602483015283166044820152606481018290526104889085906323b872dd906084015b6040516020818303038152906040529060e01b6020820180516001600160e01b038381831617835250505050610530565b50505050565b5f826001600160a01b0316826040515f6040518083038185875af1925050503d805f81146104d7576040519150601f19603f3d011682016040523d82523d5f602084013e6104dc565b606091505b50509050806104fe57604051633d2cec6f60e21b815260040160405180910390fd5b505050565b6040516001600160a01b0383166024820152604481018290526104fe90849063a9059cbb90606401610457565b816001600160a01b03163b5f0361055a5760405163022e258160e11b815260040160405180910390fd5b5f5f836001600160a01b0316836040516105749190610702565b5f604051808303815f865af19150503d805f81146105ad576040519150601f19603f3d011682016040523d82523d5f602084013e6105b2565b606091505b5091509150816105c457805160208201fd5b8051158015906105e55750808060200190518101906105e39190610718565b155b156104885760405163022e258160e11b815260040160405180910390fd5b80356001600160a01b0381168114610619575f5ffd5b919050565b5f5f5f5f60808587031215610631575f5ffd5b61063a85610603565b93506020850135925061064f60408601610603565b9396929550929360600135925050565b5f6020828403121561066f575f5ffd5b5035919050565b5f5f5f5f60808587031215610689575f5ffd5b8435935061069960208601610603565b925061064f60408601610603565b5f5f604083850312156106b8575f5ffd5b6106c183610603565b946020939093013593505050565b5f5f5f606084860312156106e1575f5ffd5b833592506106f160208501610603565b929592945050506040919091013590565b5f82518060208501845e5f920191825250919050565b5f60208284031215610728575f5ffd5b81518015158114610737575f5ffd5b939250505056fec95ddcaddf83340b68d0d44c01b1703f5d28d0611a3fd87e69d79ba7e2ac21d3a2646970667358221220d96c6288e50be656cfb2b022f58342cf2a3bb09d02e6bafef92b20bb0d851b9064736f6c634300081c0033",
}

// Depository is an auto generated Go binding around an Ethereum contract.
type Depository struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *Depository) GetABI() abi.ABI {
	return c.abi
}

// NewDepository creates a new instance of Depository.
func NewDepository() *Depository {
	parsed, err := DepositoryMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &Depository{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *Depository) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address owner_) returns()
func (depository *Depository) PackConstructor(owner_ common.Address) []byte {
	enc, err := depository.abi.Pack("", owner_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDepositErc20 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbe056b28.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depositErc20(bytes32 orderId, address currency, uint256 amount) returns()
func (depository *Depository) PackDepositErc20(orderId [32]byte, currency common.Address, amount *big.Int) []byte {
	enc, err := depository.abi.Pack("depositErc20", orderId, currency, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDepositErc20 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbe056b28.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function depositErc20(bytes32 orderId, address currency, uint256 amount) returns()
func (depository *Depository) TryPackDepositErc20(orderId [32]byte, currency common.Address, amount *big.Int) ([]byte, error) {
	return depository.abi.Pack("depositErc20", orderId, currency, amount)
}

// PackDepositErc20For is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2424a1f7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depositErc20For(address depositor, bytes32 orderId, address currency, uint256 amount) returns()
func (depository *Depository) PackDepositErc20For(depositor common.Address, orderId [32]byte, currency common.Address, amount *big.Int) []byte {
	enc, err := depository.abi.Pack("depositErc20For", depositor, orderId, currency, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDepositErc20For is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2424a1f7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function depositErc20For(address depositor, bytes32 orderId, address currency, uint256 amount) returns()
func (depository *Depository) TryPackDepositErc20For(depositor common.Address, orderId [32]byte, currency common.Address, amount *big.Int) ([]byte, error) {
	return depository.abi.Pack("depositErc20For", depositor, orderId, currency, amount)
}

// PackDepositNative is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42ef5fbb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depositNative(bytes32 orderId) payable returns()
func (depository *Depository) PackDepositNative(orderId [32]byte) []byte {
	enc, err := depository.abi.Pack("depositNative", orderId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDepositNative is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42ef5fbb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function depositNative(bytes32 orderId) payable returns()
func (depository *Depository) TryPackDepositNative(orderId [32]byte) ([]byte, error) {
	return depository.abi.Pack("depositNative", orderId)
}

// PackDepositNativeFor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9a22ada9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depositNativeFor(address depositor, bytes32 orderId) payable returns()
func (depository *Depository) PackDepositNativeFor(depositor common.Address, orderId [32]byte) []byte {
	enc, err := depository.abi.Pack("depositNativeFor", depositor, orderId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDepositNativeFor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9a22ada9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function depositNativeFor(address depositor, bytes32 orderId) payable returns()
func (depository *Depository) TryPackDepositNativeFor(depositor common.Address, orderId [32]byte) ([]byte, error) {
	return depository.abi.Pack("depositNativeFor", depositor, orderId)
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (depository *Depository) PackOwner() []byte {
	enc, err := depository.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (depository *Depository) TryPackOwner() ([]byte, error) {
	return depository.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (depository *Depository) UnpackOwner(data []byte) (common.Address, error) {
	out, err := depository.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8e0cc176.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function withdraw(bytes32 id, address currency, address recipient, uint256 amount) returns()
func (depository *Depository) PackWithdraw(id [32]byte, currency common.Address, recipient common.Address, amount *big.Int) []byte {
	enc, err := depository.abi.Pack("withdraw", id, currency, recipient, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8e0cc176.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function withdraw(bytes32 id, address currency, address recipient, uint256 amount) returns()
func (depository *Depository) TryPackWithdraw(id [32]byte, currency common.Address, recipient common.Address, amount *big.Int) ([]byte, error) {
	return depository.abi.Pack("withdraw", id, currency, recipient, amount)
}

// PackWithdrawn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3823d66c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function withdrawn(bytes32 ) view returns(bool)
func (depository *Depository) PackWithdrawn(arg0 [32]byte) []byte {
	enc, err := depository.abi.Pack("withdrawn", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWithdrawn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3823d66c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function withdrawn(bytes32 ) view returns(bool)
func (depository *Depository) TryPackWithdrawn(arg0 [32]byte) ([]byte, error) {
	return depository.abi.Pack("withdrawn", arg0)
}

// UnpackWithdrawn is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3823d66c.
//
// Solidity: function withdrawn(bytes32 ) view returns(bool)
func (depository *Depository) UnpackWithdrawn(data []byte) (bool, error) {
	out, err := depository.abi.Unpack("withdrawn", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// DepositoryDeposit represents a Deposit event raised by the Depository contract.
type DepositoryDeposit struct {
	OrderId   [32]byte
	Depositor common.Address
	Currency  common.Address
	Amount    *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const DepositoryDepositEventName = "Deposit"

// ContractEventName returns the user-defined event name.
func (DepositoryDeposit) ContractEventName() string {
	return DepositoryDepositEventName
}

// UnpackDepositEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Deposit(bytes32 indexed orderId, address indexed depositor, address indexed currency, uint256 amount)
func (depository *Depository) UnpackDepositEvent(log *types.Log) (*DepositoryDeposit, error) {
	event := "Deposit"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != depository.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DepositoryDeposit)
	if len(log.Data) > 0 {
		if err := depository.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range depository.abi.Events[event].Inputs {
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

// DepositoryWithdrawal represents a Withdrawal event raised by the Depository contract.
type DepositoryWithdrawal struct {
	Id        [32]byte
	Recipient common.Address
	Currency  common.Address
	Amount    *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const DepositoryWithdrawalEventName = "Withdrawal"

// ContractEventName returns the user-defined event name.
func (DepositoryWithdrawal) ContractEventName() string {
	return DepositoryWithdrawalEventName
}

// UnpackWithdrawalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Withdrawal(bytes32 indexed id, address indexed recipient, address indexed currency, uint256 amount)
func (depository *Depository) UnpackWithdrawalEvent(log *types.Log) (*DepositoryWithdrawal, error) {
	event := "Withdrawal"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != depository.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DepositoryWithdrawal)
	if len(log.Data) > 0 {
		if err := depository.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range depository.abi.Events[event].Inputs {
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
func (depository *Depository) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], depository.abi.Errors["AlreadyWithdrawn"].ID.Bytes()[:4]) {
		return depository.UnpackAlreadyWithdrawnError(raw[4:])
	}
	if bytes.Equal(raw[:4], depository.abi.Errors["NativeTransferFailed"].ID.Bytes()[:4]) {
		return depository.UnpackNativeTransferFailedError(raw[4:])
	}
	if bytes.Equal(raw[:4], depository.abi.Errors["NotOwner"].ID.Bytes()[:4]) {
		return depository.UnpackNotOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], depository.abi.Errors["TokenTransferFailed"].ID.Bytes()[:4]) {
		return depository.UnpackTokenTransferFailedError(raw[4:])
	}
	if bytes.Equal(raw[:4], depository.abi.Errors["ZeroAmount"].ID.Bytes()[:4]) {
		return depository.UnpackZeroAmountError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// DepositoryAlreadyWithdrawn represents a AlreadyWithdrawn error raised by the Depository contract.
type DepositoryAlreadyWithdrawn struct {
	Id [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AlreadyWithdrawn(bytes32 id)
func DepositoryAlreadyWithdrawnErrorID() common.Hash {
	return common.HexToHash("0xc4e4c7d9ae37453626e7cca7b687b4f6914994cb0f1b2bf29c5b38d242f5c500")
}

// UnpackAlreadyWithdrawnError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AlreadyWithdrawn(bytes32 id)
func (depository *Depository) UnpackAlreadyWithdrawnError(raw []byte) (*DepositoryAlreadyWithdrawn, error) {
	out := new(DepositoryAlreadyWithdrawn)
	if err := depository.abi.UnpackIntoInterface(out, "AlreadyWithdrawn", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DepositoryNativeTransferFailed represents a NativeTransferFailed error raised by the Depository contract.
type DepositoryNativeTransferFailed struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NativeTransferFailed()
func DepositoryNativeTransferFailedErrorID() common.Hash {
	return common.HexToHash("0xf4b3b1bcbe5924688bdd352ae99c1966d3ce0a2ba09d3a1d796de982d1ee8c84")
}

// UnpackNativeTransferFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NativeTransferFailed()
func (depository *Depository) UnpackNativeTransferFailedError(raw []byte) (*DepositoryNativeTransferFailed, error) {
	out := new(DepositoryNativeTransferFailed)
	if err := depository.abi.UnpackIntoInterface(out, "NativeTransferFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DepositoryNotOwner represents a NotOwner error raised by the Depository contract.
type DepositoryNotOwner struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotOwner()
func DepositoryNotOwnerErrorID() common.Hash {
	return common.HexToHash("0x30cd74712f59d478562d48e2d35de830db72c60a63dd08ae59199eec990b5bc4")
}

// UnpackNotOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotOwner()
func (depository *Depository) UnpackNotOwnerError(raw []byte) (*DepositoryNotOwner, error) {
	out := new(DepositoryNotOwner)
	if err := depository.abi.UnpackIntoInterface(out, "NotOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DepositoryTokenTransferFailed represents a TokenTransferFailed error raised by the Depository contract.
type DepositoryTokenTransferFailed struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TokenTransferFailed()
func DepositoryTokenTransferFailedErrorID() common.Hash {
	return common.HexToHash("0x045c4b02bfd1d72e80013ca423cc4ad578d2b3a61cfe3a46410880647bff4f57")
}

// UnpackTokenTransferFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TokenTransferFailed()
func (depository *Depository) UnpackTokenTransferFailedError(raw []byte) (*DepositoryTokenTransferFailed, error) {
	out := new(DepositoryTokenTransferFailed)
	if err := depository.abi.UnpackIntoInterface(out, "TokenTransferFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DepositoryZeroAmount represents a ZeroAmount error raised by the Depository contract.
type DepositoryZeroAmount struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroAmount()
func DepositoryZeroAmountErrorID() common.Hash {
	return common.HexToHash("0x1f2a2005cb66a8e145327e8814e243a0996aec9bfe1e15a495778b1236dbd485")
}

// UnpackZeroAmountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroAmount()
func (depository *Depository) UnpackZeroAmountError(raw []byte) (*DepositoryZeroAmount, error) {
	out := new(DepositoryZeroAmount)
	if err := depository.abi.UnpackIntoInterface(out, "ZeroAmount", raw); err != nil {
		return nil, err
	}
	return out, nil
}
