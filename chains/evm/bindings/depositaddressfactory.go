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

// DepositAddressFactoryMetaData contains all meta data concerning the DepositAddressFactory contract.
var DepositAddressFactoryMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"contractDepository\",\"name\":\"depository_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"depositAddress\",\"type\":\"address\"}],\"name\":\"DeployFailed\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"depositAddress\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Swept\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"}],\"name\":\"computeDepositAddress\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"depository\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"implementation\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"internalType\":\"address[]\",\"name\":\"currencies\",\"type\":\"address[]\"}],\"name\":\"sweep\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"depositAddress\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "DepositAddressFactory",
	Bin: "0x60e060405234801561000f575f5ffd5b50604051610d18380380610d1883398101604081905261002e9161010d565b6001600160a01b0381166080526040515f90829061004b90610100565b6001600160a01b039091168152602001604051809103905ff080158015610074573d5f5f3e3d5ffd5b506001600160a01b03811660a052604080517f3d602d80600a3d3981f3363d3d373d3d3d363d7300000000000000000000000060208201526001600160601b0319606084901b1660348201526e5af43d82803e903d91602b57fd5bf360881b6048820152815160378183030181526057909101909152909150805160209091012060c0525061013a9050565b61064f806106c983390190565b5f6020828403121561011d575f5ffd5b81516001600160a01b0381168114610133575f5ffd5b9392505050565b60805160a05160c0516105606101695f395f61012a01525f81816082015261036001525f60a901526105605ff3fe608060405234801561000f575f5ffd5b506004361061004a575f3560e01c80630767bc1e1461004e5780635c60da1b1461007d578063bedd12a5146100a4578063d80c6c1b146100cb575b5f5ffd5b61006161005c36600461042f565b6100de565b6040516001600160a01b03909116815260200160405180910390f35b6100617f000000000000000000000000000000000000000000000000000000000000000081565b6100617f000000000000000000000000000000000000000000000000000000000000000081565b6100616100d9366004610459565b610171565b5f806001600160f81b0319306100f486866102eb565b6040516001600160f81b031993909316602084015260609190911b6bffffffffffffffffffffffff1916602183015260358201527f0000000000000000000000000000000000000000000000000000000000000000605582015260750160408051808303601f190181529190528051602090910120949350505050565b5f61017c85856100de565b9050806001600160a01b03163b5f0361019a5761019a85858361032f565b5f5b828110156102e2575f826001600160a01b0316636f7f6d0488888888878181106101c8576101c86104df565b90506020020160208101906101dd91906104f3565b6040516001600160e01b031960e086901b16815260048101939093526001600160a01b0391821660248401521660448201526064016020604051808303815f875af115801561022e573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906102529190610513565b905080156102d957826001600160a01b0316866001600160a01b0316887f1cf93e00037d53e5ba72df254debcde61bc406f00854ed42e46ab31c895ceca68888878181106102a2576102a26104df565b90506020020160208101906102b791906104f3565b604080516001600160a01b039092168252602082018790520160405180910390a45b5060010161019c565b50949350505050565b5f82826040516020016103119291909182526001600160a01b0316602082015260400190565b60405160208183030381529060405280519060200120905092915050565b60408051733d602d80600a3d3981f3363d3d373d3d3d363d7360601b60208201526bffffffffffffffffffffffff197f000000000000000000000000000000000000000000000000000000000000000060601b1660348201526e5af43d82803e903d91602b57fd5bf360881b60488201528151603781830301815260579091019091525f6103bd85856102eb565b90505f818351602085015ff59050836001600160a01b0316816001600160a01b03161461040c5760405163ca978b1160e01b81526001600160a01b038516600482015260240160405180910390fd5b505050505050565b80356001600160a01b038116811461042a575f5ffd5b919050565b5f5f60408385031215610440575f5ffd5b8235915061045060208401610414565b90509250929050565b5f5f5f5f6060858703121561046c575f5ffd5b8435935061047c60208601610414565b9250604085013567ffffffffffffffff811115610497575f5ffd5b8501601f810187136104a7575f5ffd5b803567ffffffffffffffff8111156104bd575f5ffd5b8760208260051b84010111156104d1575f5ffd5b949793965060200194505050565b634e487b7160e01b5f52603260045260245ffd5b5f60208284031215610503575f5ffd5b61050c82610414565b9392505050565b5f60208284031215610523575f5ffd5b505191905056fea2646970667358221220c46e38f9525906593df5b4d5e97ce69721e19a101aed445670dffa03f02c1f8e64736f6c634300081c003360c060405234801561000f575f5ffd5b5060405161064f38038061064f83398101604081905261002e91610043565b336080526001600160a01b031660a052610070565b5f60208284031215610053575f5ffd5b81516001600160a01b0381168114610069575f5ffd5b9392505050565b60805160a0516105a56100aa5f395f8181608401528181610177015281816101f7015261025101525f818160cf015260fd01526105a55ff3fe608060405260043610610036575f3560e01c80636f7f6d0414610041578063bedd12a514610073578063c45a0155146100be575f5ffd5b3661003d57005b5f5ffd5b34801561004c575f5ffd5b5061006061005b3660046104ea565b6100f1565b6040519081526020015b60405180910390f35b34801561007e575f5ffd5b506100a67f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b03909116815260200161006a565b3480156100c9575f5ffd5b506100a67f000000000000000000000000000000000000000000000000000000000000000081565b5f336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161461013b57604051631966391b60e11b815260040160405180910390fd5b6001600160a01b0382166101d757504780156101d257604051639a22ada960e01b81526001600160a01b038481166004830152602482018690527f00000000000000000000000000000000000000000000000000000000000000001690639a22ada99083906044015f604051808303818588803b1580156101ba575f5ffd5b505af11580156101cc573d5f5f3e3d5ffd5b50505050505b6102a9565b6101e0826102b0565b905080156102a95761021c6001600160a01b0383167f00000000000000000000000000000000000000000000000000000000000000008361039f565b604051632424a1f760e01b81526001600160a01b038481166004830152602482018690528381166044830152606482018390527f00000000000000000000000000000000000000000000000000000000000000001690632424a1f7906084015f604051808303815f87803b158015610292575f5ffd5b505af11580156102a4573d5f5f3e3d5ffd5b505050505b9392505050565b604080513060248083019190915282518083039091018152604490910182526020810180516001600160e01b03166370a0823160e01b17905290515f91829182916001600160a01b038616916103069190610523565b5f60405180830381855afa9150503d805f811461033e576040519150601f19603f3d011682016040523d82523d5f602084013e610343565b606091505b5091509150811580610356575060208151105b156103835760405163611c784760e11b81526001600160a01b038516600482015260240160405180910390fd5b808060200190518101906103979190610539565b949350505050565b604080516001600160a01b038416602482015260448082018490528251808303909101815260649091019091526020810180516001600160e01b031663095ea7b360e01b1790526103f19084906103f6565b505050565b816001600160a01b03163b5f036104205760405163022e258160e11b815260040160405180910390fd5b5f5f836001600160a01b03168360405161043a9190610523565b5f604051808303815f865af19150503d805f8114610473576040519150601f19603f3d011682016040523d82523d5f602084013e610478565b606091505b50915091508161048a57805160208201fd5b8051158015906104ab5750808060200190518101906104a99190610550565b155b156104c95760405163022e258160e11b815260040160405180910390fd5b50505050565b80356001600160a01b03811681146104e5575f5ffd5b919050565b5f5f5f606084860312156104fc575f5ffd5b8335925061050c602085016104cf565b915061051a604085016104cf565b90509250925092565b5f82518060208501845e5f920191825250919050565b5f60208284031215610549575f5ffd5b5051919050565b5f60208284031215610560575f5ffd5b815180151581146102a9575f5ffdfea26469706673582212203eb27c4279804cebcfbf86be4ba5e3a245e45714e84c0ff020449ba8542ec44764736f6c634300081c0033",
}

// DepositAddressFactory is an auto generated Go binding around an Ethereum contract.
type DepositAddressFactory struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *DepositAddressFactory) GetABI() abi.ABI {
	return c.abi
}

// NewDepositAddressFactory creates a new instance of DepositAddressFactory.
func NewDepositAddressFactory() *DepositAddressFactory {
	parsed, err := DepositAddressFactoryMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &DepositAddressFactory{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *DepositAddressFactory) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address depository_) returns()
func (depositAddressFactory *DepositAddressFactory) PackConstructor(depository_ common.Address) []byte {
	enc, err := depositAddressFactory.abi.Pack("", depository_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackComputeDepositAddress is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0767bc1e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function computeDepositAddress(bytes32 orderId, address depositor) view returns(address)
func (depositAddressFactory *DepositAddressFactory) PackComputeDepositAddress(orderId [32]byte, depositor common.Address) []byte {
	enc, err := depositAddressFactory.abi.Pack("computeDepositAddress", orderId, depositor)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackComputeDepositAddress is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0767bc1e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function computeDepositAddress(bytes32 orderId, address depositor) view returns(address)
func (depositAddressFactory *DepositAddressFactory) TryPackComputeDepositAddress(orderId [32]byte, depositor common.Address) ([]byte, error) {
	return depositAddressFactory.abi.Pack("computeDepositAddress", orderId, depositor)
}

// UnpackComputeDepositAddress is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0767bc1e.
//
// Solidity: function computeDepositAddress(bytes32 orderId, address depositor) view returns(address)
func (depositAddressFactory *DepositAddressFactory) UnpackComputeDepositAddress(data []byte) (common.Address, error) {
	out, err := depositAddressFactory.abi.Unpack("computeDepositAddress", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackDepository is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbedd12a5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depository() view returns(address)
func (depositAddressFactory *DepositAddressFactory) PackDepository() []byte {
	enc, err := depositAddressFactory.abi.Pack("depository")
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
func (depositAddressFactory *DepositAddressFactory) TryPackDepository() ([]byte, error) {
	return depositAddressFactory.abi.Pack("depository")
}

// UnpackDepository is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xbedd12a5.
//
// Solidity: function depository() view returns(address)
func (depositAddressFactory *DepositAddressFactory) UnpackDepository(data []byte) (common.Address, error) {
	out, err := depositAddressFactory.abi.Unpack("depository", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackImplementation is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5c60da1b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function implementation() view returns(address)
func (depositAddressFactory *DepositAddressFactory) PackImplementation() []byte {
	enc, err := depositAddressFactory.abi.Pack("implementation")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackImplementation is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5c60da1b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function implementation() view returns(address)
func (depositAddressFactory *DepositAddressFactory) TryPackImplementation() ([]byte, error) {
	return depositAddressFactory.abi.Pack("implementation")
}

// UnpackImplementation is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (depositAddressFactory *DepositAddressFactory) UnpackImplementation(data []byte) (common.Address, error) {
	out, err := depositAddressFactory.abi.Unpack("implementation", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackSweep is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd80c6c1b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function sweep(bytes32 orderId, address depositor, address[] currencies) returns(address depositAddress)
func (depositAddressFactory *DepositAddressFactory) PackSweep(orderId [32]byte, depositor common.Address, currencies []common.Address) []byte {
	enc, err := depositAddressFactory.abi.Pack("sweep", orderId, depositor, currencies)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSweep is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd80c6c1b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function sweep(bytes32 orderId, address depositor, address[] currencies) returns(address depositAddress)
func (depositAddressFactory *DepositAddressFactory) TryPackSweep(orderId [32]byte, depositor common.Address, currencies []common.Address) ([]byte, error) {
	return depositAddressFactory.abi.Pack("sweep", orderId, depositor, currencies)
}

// UnpackSweep is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd80c6c1b.
//
// Solidity: function sweep(bytes32 orderId, address depositor, address[] currencies) returns(address depositAddress)
func (depositAddressFactory *DepositAddressFactory) UnpackSweep(data []byte) (common.Address, error) {
	out, err := depositAddressFactory.abi.Unpack("sweep", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// DepositAddressFactorySwept represents a Swept event raised by the DepositAddressFactory contract.
type DepositAddressFactorySwept struct {
	OrderId        [32]byte
	Depositor      common.Address
	DepositAddress common.Address
	Currency       common.Address
	Amount         *big.Int
	Raw            *types.Log // Blockchain specific contextual infos
}

const DepositAddressFactorySweptEventName = "Swept"

// ContractEventName returns the user-defined event name.
func (DepositAddressFactorySwept) ContractEventName() string {
	return DepositAddressFactorySweptEventName
}

// UnpackSweptEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Swept(bytes32 indexed orderId, address indexed depositor, address indexed depositAddress, address currency, uint256 amount)
func (depositAddressFactory *DepositAddressFactory) UnpackSweptEvent(log *types.Log) (*DepositAddressFactorySwept, error) {
	event := "Swept"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != depositAddressFactory.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DepositAddressFactorySwept)
	if len(log.Data) > 0 {
		if err := depositAddressFactory.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range depositAddressFactory.abi.Events[event].Inputs {
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
func (depositAddressFactory *DepositAddressFactory) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], depositAddressFactory.abi.Errors["DeployFailed"].ID.Bytes()[:4]) {
		return depositAddressFactory.UnpackDeployFailedError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// DepositAddressFactoryDeployFailed represents a DeployFailed error raised by the DepositAddressFactory contract.
type DepositAddressFactoryDeployFailed struct {
	DepositAddress common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DeployFailed(address depositAddress)
func DepositAddressFactoryDeployFailedErrorID() common.Hash {
	return common.HexToHash("0xca978b11b78f4f47e6e0b5589c4591afa6939b744982d914881017503e4fc1e4")
}

// UnpackDeployFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DeployFailed(address depositAddress)
func (depositAddressFactory *DepositAddressFactory) UnpackDeployFailedError(raw []byte) (*DepositAddressFactoryDeployFailed, error) {
	out := new(DepositAddressFactoryDeployFailed)
	if err := depositAddressFactory.abi.UnpackIntoInterface(out, "DeployFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}
