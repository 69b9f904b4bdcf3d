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
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner_\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"depositAddressFactory_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"id\",\"type\":\"bytes32\"}],\"name\":\"AlreadyWithdrawn\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NativeTransferFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotDepositAddress\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotOwner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TokenTransferFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroAmount\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Deposit\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"id\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Withdrawal\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"depositAddressFactory\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"depositErc20\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"depositErc20For\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"}],\"name\":\"depositNative\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"}],\"name\":\"depositNativeFor\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"id\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"withdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"withdrawn\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "Depository",
	Bin: "0x60c060405234801561000f575f5ffd5b5060405161098d38038061098d83398101604081905261002e91610060565b6001600160a01b039182166080521660a052610091565b80516001600160a01b038116811461005b575f5ffd5b919050565b5f5f60408385031215610071575f5ffd5b61007a83610045565b915061008860208401610045565b90509250929050565b60805160a0516108cd6100c05f395f8181610105015261049e01525f8181610150015261029701526108cd5ff3fe608060405260043610610079575f3560e01c80638da5cb5b1161004c5780638da5cb5b1461013f5780638e0cc176146101725780639a22ada914610191578063be056b28146101a4575f5ffd5b80632424a1f71461007d5780633823d66c1461009e57806342ef5fbb146100e15780636a3de7c0146100f4575b5f5ffd5b348015610088575f5ffd5b5061009c610097366004610730565b6101c3565b005b3480156100a9575f5ffd5b506100cc6100b8366004610775565b5f6020819052908152604090205460ff1681565b60405190151581526020015b60405180910390f35b61009c6100ef366004610775565b610243565b3480156100ff575f5ffd5b506101277f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016100d8565b34801561014a575f5ffd5b506101277f000000000000000000000000000000000000000000000000000000000000000081565b34801561017d575f5ffd5b5061009c61018c36600461078c565b61028c565b61009c61019f3660046107c1565b61039a565b3480156101af575f5ffd5b5061009c6101be3660046107eb565b610403565b6101cd8385610478565b805f036101ed57604051631f2a200560e01b815260040160405180910390fd5b6102026001600160a01b03831633308461053c565b816001600160a01b0316846001600160a01b0316845f5160206108785f395f51905f528460405161023591815260200190565b60405180910390a450505050565b345f0361026357604051631f2a200560e01b815260040160405180910390fd5b6040513481525f90339083905f5160206108785f395f51905f529060200160405180910390a450565b336001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016146102d5576040516330cd747160e01b815260040160405180910390fd5b5f8481526020819052604090205460ff161561030b5760405163c4e4c7d960e01b81526004810185905260240160405180910390fd5b5f848152602081905260409020805460ff191660011790556001600160a01b0383166103405761033b82826105a4565b610354565b6103546001600160a01b0384168383610619565b826001600160a01b0316826001600160a01b0316857f6c3a45613039e0a1117bd6ce110ab3c920271709c010983d921a2cd268e2ea478460405161023591815260200190565b6103a48183610478565b345f036103c457604051631f2a200560e01b815260040160405180910390fd5b5f6001600160a01b0316826001600160a01b0316825f5160206108785f395f51905f52346040516103f791815260200190565b60405180910390a45050565b805f0361042357604051631f2a200560e01b815260040160405180910390fd5b6104386001600160a01b03831633308461053c565b816001600160a01b0316336001600160a01b0316845f5160206108785f395f51905f528460405161046b91815260200190565b60405180910390a4505050565b6040516303b3de0f60e11b8152600481018390526001600160a01b0382811660248301527f00000000000000000000000000000000000000000000000000000000000000001690630767bc1e90604401602060405180830381865afa1580156104e3573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906105079190610820565b6001600160a01b0316336001600160a01b0316146105385760405163167359cf60e01b815260040160405180910390fd5b5050565b6040516001600160a01b038085166024830152831660448201526064810182905261059e9085906323b872dd906084015b6040516020818303038152906040529060e01b6020820180516001600160e01b038381831617835250505050610646565b50505050565b5f826001600160a01b0316826040515f6040518083038185875af1925050503d805f81146105ed576040519150601f19603f3d011682016040523d82523d5f602084013e6105f2565b606091505b505090508061061457604051633d2cec6f60e21b815260040160405180910390fd5b505050565b6040516001600160a01b03831660248201526044810182905261061490849063a9059cbb9060640161056d565b816001600160a01b03163b5f036106705760405163022e258160e11b815260040160405180910390fd5b5f5f836001600160a01b03168360405161068a9190610842565b5f604051808303815f865af19150503d805f81146106c3576040519150601f19603f3d011682016040523d82523d5f602084013e6106c8565b606091505b5091509150816106da57805160208201fd5b8051158015906106fb5750808060200190518101906106f99190610858565b155b1561059e5760405163022e258160e11b815260040160405180910390fd5b6001600160a01b038116811461072d575f5ffd5b50565b5f5f5f5f60808587031215610743575f5ffd5b843561074e81610719565b935060208501359250604085013561076581610719565b9396929550929360600135925050565b5f60208284031215610785575f5ffd5b5035919050565b5f5f5f5f6080858703121561079f575f5ffd5b8435935060208501356107b181610719565b9250604085013561076581610719565b5f5f604083850312156107d2575f5ffd5b82356107dd81610719565b946020939093013593505050565b5f5f5f606084860312156107fd575f5ffd5b83359250602084013561080f81610719565b929592945050506040919091013590565b5f60208284031215610830575f5ffd5b815161083b81610719565b9392505050565b5f82518060208501845e5f920191825250919050565b5f60208284031215610868575f5ffd5b8151801515811461083b575f5ffdfec95ddcaddf83340b68d0d44c01b1703f5d28d0611a3fd87e69d79ba7e2ac21d3a26469706673582212207cd254f26d05349915110dc68fb494dfef0bfb8063e7fc0153027193bccf84c864736f6c634300081c0033",
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
// Solidity: constructor(address owner_, address depositAddressFactory_) returns()
func (depository *Depository) PackConstructor(owner_ common.Address, depositAddressFactory_ common.Address) []byte {
	enc, err := depository.abi.Pack("", owner_, depositAddressFactory_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDepositAddressFactory is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6a3de7c0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depositAddressFactory() view returns(address)
func (depository *Depository) PackDepositAddressFactory() []byte {
	enc, err := depository.abi.Pack("depositAddressFactory")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDepositAddressFactory is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6a3de7c0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function depositAddressFactory() view returns(address)
func (depository *Depository) TryPackDepositAddressFactory() ([]byte, error) {
	return depository.abi.Pack("depositAddressFactory")
}

// UnpackDepositAddressFactory is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6a3de7c0.
//
// Solidity: function depositAddressFactory() view returns(address)
func (depository *Depository) UnpackDepositAddressFactory(data []byte) (common.Address, error) {
	out, err := depository.abi.Unpack("depositAddressFactory", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
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
	if bytes.Equal(raw[:4], depository.abi.Errors["NotDepositAddress"].ID.Bytes()[:4]) {
		return depository.UnpackNotDepositAddressError(raw[4:])
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

// DepositoryNotDepositAddress represents a NotDepositAddress error raised by the Depository contract.
type DepositoryNotDepositAddress struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotDepositAddress()
func DepositoryNotDepositAddressErrorID() common.Hash {
	return common.HexToHash("0x167359cf450fb36624847fc1d9f5a0b2b7c072a26a05e82c1583da616e9d884f")
}

// UnpackNotDepositAddressError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotDepositAddress()
func (depository *Depository) UnpackNotDepositAddressError(raw []byte) (*DepositoryNotDepositAddress, error) {
	out := new(DepositoryNotDepositAddress)
	if err := depository.abi.UnpackIntoInterface(out, "NotDepositAddress", raw); err != nil {
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
