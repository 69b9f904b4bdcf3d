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
	ABI: "[{\"inputs\":[{\"internalType\":\"contractDepository\",\"name\":\"depository_\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"sweeper_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"depositAddress\",\"type\":\"address\"}],\"name\":\"DeployFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotSweeper\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"depositAddress\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Swept\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"}],\"name\":\"computeDepositAddress\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"depository\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"implementation\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"orderId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"sweep\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"depositAddress\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"sweeper\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "DepositAddressFactory",
	Bin: "0x610100604052348015610010575f5ffd5b50604051610d2c380380610d2c83398101604081905261002f9161012c565b6001600160a01b03808316608052811660a0526040515f90839061005290610108565b6001600160a01b039091168152602001604051809103905ff08015801561007b573d5f5f3e3d5ffd5b506001600160a01b03811660c052604080517f3d602d80600a3d3981f3363d3d373d3d3d363d7300000000000000000000000060208201526001600160601b0319606084901b1660348201526e5af43d82803e903d91602b57fd5bf360881b6048820152815160378183030181526057909101909152909150805160209091012060e05250610164915050565b6106d08061065c83390190565b6001600160a01b0381168114610129575f5ffd5b50565b5f5f6040838503121561013d575f5ffd5b825161014881610115565b602084015190925061015981610115565b809150509250929050565b60805160a05160c05160e0516104ba6101a25f395f61015c01525f8181608d015261034a01525f818160c701526101af01525f60ee01526104ba5ff3fe608060405234801561000f575f5ffd5b5060043610610055575f3560e01c80630767bc1e146100595780635c60da1b146100885780637197b41a146100af5780639189a59e146100c2578063bedd12a5146100e9575b5f5ffd5b61006c610067366004610419565b610110565b6040516001600160a01b03909116815260200160405180910390f35b61006c7f000000000000000000000000000000000000000000000000000000000000000081565b61006c6100bd366004610443565b6101a3565b61006c7f000000000000000000000000000000000000000000000000000000000000000081565b61006c7f000000000000000000000000000000000000000000000000000000000000000081565b5f806001600160f81b03193061012686866102d5565b6040516001600160f81b031993909316602084015260609190911b6bffffffffffffffffffffffff1916602183015260358201527f0000000000000000000000000000000000000000000000000000000000000000605582015260750160408051808303601f190181529190528051602090910120949350505050565b5f336001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016146101ed57604051630982ebb360e01b815260040160405180910390fd5b6101f78585610110565b9050806001600160a01b03163b5f0361021557610215858583610319565b6040516338cbda0d60e11b8152600481018690526001600160a01b038581166024830152848116604483015260648201849052821690637197b41a906084015f604051808303815f87803b15801561026b575f5ffd5b505af115801561027d573d5f5f3e3d5ffd5b5050604080516001600160a01b0387811682526020820187905280861694508816925088917f1cf93e00037d53e5ba72df254debcde61bc406f00854ed42e46ab31c895ceca6910160405180910390a4949350505050565b5f82826040516020016102fb9291909182526001600160a01b0316602082015260400190565b60405160208183030381529060405280519060200120905092915050565b60408051733d602d80600a3d3981f3363d3d373d3d3d363d7360601b60208201526bffffffffffffffffffffffff197f000000000000000000000000000000000000000000000000000000000000000060601b1660348201526e5af43d82803e903d91602b57fd5bf360881b60488201528151603781830301815260579091019091525f6103a785856102d5565b90505f818351602085015ff59050836001600160a01b0316816001600160a01b0316146103f65760405163ca978b1160e01b81526001600160a01b038516600482015260240160405180910390fd5b505050505050565b80356001600160a01b0381168114610414575f5ffd5b919050565b5f5f6040838503121561042a575f5ffd5b8235915061043a602084016103fe565b90509250929050565b5f5f5f5f60808587031215610456575f5ffd5b84359350610466602086016103fe565b9250610474604086016103fe565b939692955092936060013592505056fea2646970667358221220157e9d442295ed336316947abc4b14ced640bc7621943bb8dd4fd9634cb8845764736f6c634300081c003360c060405234801561000f575f5ffd5b506040516106d03803806106d083398101604081905261002e91610043565b336080526001600160a01b031660a052610070565b5f60208284031215610053575f5ffd5b81516001600160a01b0381168114610069575f5ffd5b9392505050565b60805160a0516106266100aa5f395f81816073015281816101bf0152818161027301526102cd01525f818160c2015260ef01526106265ff3fe608060405260043610610036575f3560e01c80637197b41a14610041578063bedd12a514610062578063c45a0155146100b1575f5ffd5b3661003d57005b5f5ffd5b34801561004c575f5ffd5b5061006061005b36600461055c565b6100e4565b005b34801561006d575f5ffd5b506100957f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b03909116815260200160405180910390f35b3480156100bc575f5ffd5b506100957f000000000000000000000000000000000000000000000000000000000000000081565b336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161461012d57604051631966391b60e11b815260040160405180910390fd5b805f0361014d57604051631f2a200560e01b815260040160405180910390fd5b6001600160a01b03821661021e57804710156101995760405163db42144d60e01b81526001600160a01b0383166004820152476024820152604481018290526064015b60405180910390fd5b604051639a22ada960e01b81526001600160a01b038481166004830152602482018690527f00000000000000000000000000000000000000000000000000000000000000001690639a22ada99083906044015f604051808303818588803b158015610202575f5ffd5b505af1158015610214573d5f5f3e3d5ffd5b5050505050610326565b5f6102288361032c565b9050818110156102645760405163db42144d60e01b81526001600160a01b03841660048201526024810182905260448101839052606401610190565b6102986001600160a01b0384167f000000000000000000000000000000000000000000000000000000000000000084610417565b604051632424a1f760e01b81526001600160a01b038581166004830152602482018790528481166044830152606482018490527f00000000000000000000000000000000000000000000000000000000000000001690632424a1f7906084015f604051808303815f87803b15801561030e575f5ffd5b505af1158015610320573d5f5f3e3d5ffd5b50505050505b50505050565b604080513060248083019190915282518083039091018152604490910182526020810180516001600160e01b03166370a0823160e01b17905290515f91829182916001600160a01b03861691610382919061059d565b5f60405180830381855afa9150503d805f81146103ba576040519150601f19603f3d011682016040523d82523d5f602084013e6103bf565b606091505b50915091508115806103d2575060208151105b156103fb5760405163611c784760e11b81526001600160a01b0385166004820152602401610190565b8080602001905181019061040f91906105b3565b949350505050565b604080516001600160a01b038416602482015260448082018490528251808303909101815260649091019091526020810180516001600160e01b031663095ea7b360e01b17905261046990849061046e565b505050565b816001600160a01b03163b5f036104985760405163022e258160e11b815260040160405180910390fd5b5f5f836001600160a01b0316836040516104b2919061059d565b5f604051808303815f865af19150503d805f81146104eb576040519150601f19603f3d011682016040523d82523d5f602084013e6104f0565b606091505b50915091508161050257805160208201fd5b80511580159061052357508080602001905181019061052191906105ca565b155b156103265760405163022e258160e11b815260040160405180910390fd5b80356001600160a01b0381168114610557575f5ffd5b919050565b5f5f5f5f6080858703121561056f575f5ffd5b8435935061057f60208601610541565b925061058d60408601610541565b9396929550929360600135925050565b5f82518060208501845e5f920191825250919050565b5f602082840312156105c3575f5ffd5b5051919050565b5f602082840312156105da575f5ffd5b815180151581146105e9575f5ffd5b939250505056fea264697066735822122094f3d7c7100ab726dd96947aeddb85e1c167c643f87cc981adc02e0070a989e064736f6c634300081c0033",
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
// Solidity: constructor(address depository_, address sweeper_) returns()
func (depositAddressFactory *DepositAddressFactory) PackConstructor(depository_ common.Address, sweeper_ common.Address) []byte {
	enc, err := depositAddressFactory.abi.Pack("", depository_, sweeper_)
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
// the contract method with ID 0x7197b41a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function sweep(bytes32 orderId, address depositor, address currency, uint256 amount) returns(address depositAddress)
func (depositAddressFactory *DepositAddressFactory) PackSweep(orderId [32]byte, depositor common.Address, currency common.Address, amount *big.Int) []byte {
	enc, err := depositAddressFactory.abi.Pack("sweep", orderId, depositor, currency, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSweep is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7197b41a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function sweep(bytes32 orderId, address depositor, address currency, uint256 amount) returns(address depositAddress)
func (depositAddressFactory *DepositAddressFactory) TryPackSweep(orderId [32]byte, depositor common.Address, currency common.Address, amount *big.Int) ([]byte, error) {
	return depositAddressFactory.abi.Pack("sweep", orderId, depositor, currency, amount)
}

// UnpackSweep is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7197b41a.
//
// Solidity: function sweep(bytes32 orderId, address depositor, address currency, uint256 amount) returns(address depositAddress)
func (depositAddressFactory *DepositAddressFactory) UnpackSweep(data []byte) (common.Address, error) {
	out, err := depositAddressFactory.abi.Unpack("sweep", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackSweeper is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9189a59e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function sweeper() view returns(address)
func (depositAddressFactory *DepositAddressFactory) PackSweeper() []byte {
	enc, err := depositAddressFactory.abi.Pack("sweeper")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSweeper is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9189a59e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function sweeper() view returns(address)
func (depositAddressFactory *DepositAddressFactory) TryPackSweeper() ([]byte, error) {
	return depositAddressFactory.abi.Pack("sweeper")
}

// UnpackSweeper is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9189a59e.
//
// Solidity: function sweeper() view returns(address)
func (depositAddressFactory *DepositAddressFactory) UnpackSweeper(data []byte) (common.Address, error) {
	out, err := depositAddressFactory.abi.Unpack("sweeper", data)
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
	if bytes.Equal(raw[:4], depositAddressFactory.abi.Errors["NotSweeper"].ID.Bytes()[:4]) {
		return depositAddressFactory.UnpackNotSweeperError(raw[4:])
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

// DepositAddressFactoryNotSweeper represents a NotSweeper error raised by the DepositAddressFactory contract.
type DepositAddressFactoryNotSweeper struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotSweeper()
func DepositAddressFactoryNotSweeperErrorID() common.Hash {
	return common.HexToHash("0x0982ebb39c964746230019f093dd79b741eabce249612c65c394cfa02b238d49")
}

// UnpackNotSweeperError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotSweeper()
func (depositAddressFactory *DepositAddressFactory) UnpackNotSweeperError(raw []byte) (*DepositAddressFactoryNotSweeper, error) {
	out := new(DepositAddressFactoryNotSweeper)
	if err := depositAddressFactory.abi.UnpackIntoInterface(out, "NotSweeper", raw); err != nil {
		return nil, err
	}
	return out, nil
}
