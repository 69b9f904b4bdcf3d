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

// BatchExecutorCall is an auto generated low-level Go binding around an user-defined struct.
type BatchExecutorCall struct {
	To    common.Address
	Value *big.Int
	Data  []byte
}

// BatchExecutorMetaData contains all meta data concerning the BatchExecutor contract.
var BatchExecutorMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"name\":\"Expired\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidSignature\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NonceUsed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"Unauthorized\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"name\":\"BatchExecuted\",\"type\":\"event\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"internalType\":\"structBatchExecutor.Call[]\",\"name\":\"calls\",\"type\":\"tuple[]\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"name\":\"digest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"domainSeparator\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"internalType\":\"structBatchExecutor.Call[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"execute\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"internalType\":\"structBatchExecutor.Call[]\",\"name\":\"calls\",\"type\":\"tuple[]\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"execute\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"name\":\"nonceUsed\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	ID:  "BatchExecutor",
	Bin: "0x6080604052348015600e575f5ffd5b50610aa38061001c5f395ff3fe60806040526004361061004c575f3560e01c80631f3219a0146100575780633f707e6b1461008957806374b506ec1461009e57806394d0d3a6146100bd578063f698da251461011a575f5ffd5b3661005357005b5f5ffd5b348015610062575f5ffd5b506100766100713660046107db565b61012e565b6040519081526020015b60405180910390f35b61009c610097366004610828565b610378565b005b3480156100a9575f5ffd5b5061009c6100b8366004610867565b6103a5565b3480156100c8575f5ffd5b5061010a6100d7366004610917565b5f9081527fc417cff70f73caf857f7b678d356a8303414b8f405668c9c44f91ac87442c100602052604090205460ff1690565b6040519015158152602001610080565b348015610125575f5ffd5b506100766104a7565b5f808467ffffffffffffffff8111156101495761014961092e565b604051908082528060200260200182016040528015610172578160200160208202803683370190505b5090505f5b858110156102ac577f9085b19ea56248c94d86174b3784cfaaa8673d1041d6441f61ff52752dac84838787838181106101b2576101b2610942565b90506020028101906101c49190610956565b6101d2906020810190610974565b8888848181106101e4576101e4610942565b90506020028101906101f69190610956565b6020013589898581811061020c5761020c610942565b905060200281019061021e9190610956565b61022c9060408101906109a1565b60405161023a9291906109e4565b604051908190038120610271949392916020019384526001600160a01b039290921660208401526040830152606082015260800190565b6040516020818303038152906040528051906020012082828151811061029957610299610942565b6020908102919091010152600101610177565b505f7fb6eb2e6bd4dd2620d8f857bdfd6d6e6c24a1ecb8eef11147e4d521bea98da658826040516020016102e091906109f3565b60408051601f19818403018152828252805160209182012090830193909352810191909152606081018690526080810185905260a0016040516020818303038152906040528051906020012090506103366104a7565b60405161190160f01b60208201526022810191909152604281018290526062016040516020818303038152906040528051906020012092505050949350505050565b333014610397576040516282b42960e81b815260040160405180910390fd5b6103a1828261054b565b5050565b824211156103c657604051630407b05b60e31b815260040160405180910390fd5b5f8481527fc417cff70f73caf857f7b678d356a8303414b8f405668c9c44f91ac87442c100602081905260409091205460ff161561041757604051631f6d5aef60e01b815260040160405180910390fd5b3061042e6104278989898961012e565b858561065a565b6001600160a01b03161461045557604051638baa579f60e01b815260040160405180910390fd5b5f85815260208290526040808220805460ff191660011790555186917fe9cc9bbe7de1cbb097a6357ca3182909488efe8d793e25665befc064a02d10a791a261049e878761054b565b50505050505050565b604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201527f4241d703f7565dd92548c2ce7c8bccc629304bd108959535dff558e2a1c9ee1a918101919091527fc89efdaa54c0f20c7adf612882df0950f5a951637e0307cdcb4c672f298b8bc660608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b5f5b81811015610655575f5f84848481811061056957610569610942565b905060200281019061057b9190610956565b610589906020810190610974565b6001600160a01b03168585858181106105a4576105a4610942565b90506020028101906105b69190610956565b602001358686868181106105cc576105cc610942565b90506020028101906105de9190610956565b6105ec9060408101906109a1565b6040516105fa9291906109e4565b5f6040518083038185875af1925050503d805f8114610634576040519150601f19603f3d011682016040523d82523d5f602084013e610639565b606091505b50915091508161064b57805160208201fd5b505060010161054d565b505050565b5f6041821461067c57604051638baa579f60e01b815260040160405180910390fd5b5f61068a6020828587610a28565b61069391610a4f565b90505f6106a4604060208688610a28565b6106ad91610a4f565b90505f858560408181106106c3576106c3610942565b919091013560f81c9150507f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a082118061070f57508060ff16601b1415801561070f57508060ff16601c14155b1561072d57604051638baa579f60e01b815260040160405180910390fd5b604080515f81526020810180835289905260ff831691810191909152606081018490526080810183905260019060a0016020604051602081039080840390855afa15801561077d573d5f5f3e3d5ffd5b5050604051601f19015198975050505050505050565b5f5f83601f8401126107a3575f5ffd5b50813567ffffffffffffffff8111156107ba575f5ffd5b6020830191508360208260051b85010111156107d4575f5ffd5b9250929050565b5f5f5f5f606085870312156107ee575f5ffd5b843567ffffffffffffffff811115610804575f5ffd5b61081087828801610793565b90989097506020870135966040013595509350505050565b5f5f60208385031215610839575f5ffd5b823567ffffffffffffffff81111561084f575f5ffd5b61085b85828601610793565b90969095509350505050565b5f5f5f5f5f5f6080878903121561087c575f5ffd5b863567ffffffffffffffff811115610892575f5ffd5b61089e89828a01610793565b9097509550506020870135935060408701359250606087013567ffffffffffffffff8111156108cb575f5ffd5b8701601f810189136108db575f5ffd5b803567ffffffffffffffff8111156108f1575f5ffd5b896020828401011115610902575f5ffd5b60208201935080925050509295509295509295565b5f60208284031215610927575f5ffd5b5035919050565b634e487b7160e01b5f52604160045260245ffd5b634e487b7160e01b5f52603260045260245ffd5b5f8235605e1983360301811261096a575f5ffd5b9190910192915050565b5f60208284031215610984575f5ffd5b81356001600160a01b038116811461099a575f5ffd5b9392505050565b5f5f8335601e198436030181126109b6575f5ffd5b83018035915067ffffffffffffffff8211156109d0575f5ffd5b6020019150368190038213156107d4575f5ffd5b818382375f9101908152919050565b81515f90829060208501835b82811015610a1d5781518452602093840193909101906001016109ff565b509195945050505050565b5f5f85851115610a36575f5ffd5b83861115610a42575f5ffd5b5050820193919092039150565b80356020831015610a67575f19602084900360031b1b165b9291505056fea264697066735822122026555874b1208e6e21afccc51d8e99ea6a70a22d1ba7df4cb4d02151f73e23d864736f6c634300081c0033",
}

// BatchExecutor is an auto generated Go binding around an Ethereum contract.
type BatchExecutor struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *BatchExecutor) GetABI() abi.ABI {
	return c.abi
}

// NewBatchExecutor creates a new instance of BatchExecutor.
func NewBatchExecutor() *BatchExecutor {
	parsed, err := BatchExecutorMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &BatchExecutor{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *BatchExecutor) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1f3219a0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function digest((address,uint256,bytes)[] calls, uint256 nonce, uint256 deadline) view returns(bytes32)
func (batchExecutor *BatchExecutor) PackDigest(calls []BatchExecutorCall, nonce *big.Int, deadline *big.Int) []byte {
	enc, err := batchExecutor.abi.Pack("digest", calls, nonce, deadline)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1f3219a0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function digest((address,uint256,bytes)[] calls, uint256 nonce, uint256 deadline) view returns(bytes32)
func (batchExecutor *BatchExecutor) TryPackDigest(calls []BatchExecutorCall, nonce *big.Int, deadline *big.Int) ([]byte, error) {
	return batchExecutor.abi.Pack("digest", calls, nonce, deadline)
}

// UnpackDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1f3219a0.
//
// Solidity: function digest((address,uint256,bytes)[] calls, uint256 nonce, uint256 deadline) view returns(bytes32)
func (batchExecutor *BatchExecutor) UnpackDigest(data []byte) ([32]byte, error) {
	out, err := batchExecutor.abi.Unpack("digest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (batchExecutor *BatchExecutor) PackDomainSeparator() []byte {
	enc, err := batchExecutor.abi.Pack("domainSeparator")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (batchExecutor *BatchExecutor) TryPackDomainSeparator() ([]byte, error) {
	return batchExecutor.abi.Pack("domainSeparator")
}

// UnpackDomainSeparator is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (batchExecutor *BatchExecutor) UnpackDomainSeparator(data []byte) ([32]byte, error) {
	out, err := batchExecutor.abi.Unpack("domainSeparator", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackExecute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3f707e6b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function execute((address,uint256,bytes)[] calls) payable returns()
func (batchExecutor *BatchExecutor) PackExecute(calls []BatchExecutorCall) []byte {
	enc, err := batchExecutor.abi.Pack("execute", calls)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3f707e6b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function execute((address,uint256,bytes)[] calls) payable returns()
func (batchExecutor *BatchExecutor) TryPackExecute(calls []BatchExecutorCall) ([]byte, error) {
	return batchExecutor.abi.Pack("execute", calls)
}

// PackExecute0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x74b506ec.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function execute((address,uint256,bytes)[] calls, uint256 nonce, uint256 deadline, bytes signature) returns()
func (batchExecutor *BatchExecutor) PackExecute0(calls []BatchExecutorCall, nonce *big.Int, deadline *big.Int, signature []byte) []byte {
	enc, err := batchExecutor.abi.Pack("execute0", calls, nonce, deadline, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecute0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x74b506ec.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function execute((address,uint256,bytes)[] calls, uint256 nonce, uint256 deadline, bytes signature) returns()
func (batchExecutor *BatchExecutor) TryPackExecute0(calls []BatchExecutorCall, nonce *big.Int, deadline *big.Int, signature []byte) ([]byte, error) {
	return batchExecutor.abi.Pack("execute0", calls, nonce, deadline, signature)
}

// PackNonceUsed is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x94d0d3a6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function nonceUsed(uint256 nonce) view returns(bool)
func (batchExecutor *BatchExecutor) PackNonceUsed(nonce *big.Int) []byte {
	enc, err := batchExecutor.abi.Pack("nonceUsed", nonce)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackNonceUsed is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x94d0d3a6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function nonceUsed(uint256 nonce) view returns(bool)
func (batchExecutor *BatchExecutor) TryPackNonceUsed(nonce *big.Int) ([]byte, error) {
	return batchExecutor.abi.Pack("nonceUsed", nonce)
}

// UnpackNonceUsed is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x94d0d3a6.
//
// Solidity: function nonceUsed(uint256 nonce) view returns(bool)
func (batchExecutor *BatchExecutor) UnpackNonceUsed(data []byte) (bool, error) {
	out, err := batchExecutor.abi.Unpack("nonceUsed", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// BatchExecutorBatchExecuted represents a BatchExecuted event raised by the BatchExecutor contract.
type BatchExecutorBatchExecuted struct {
	Nonce *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const BatchExecutorBatchExecutedEventName = "BatchExecuted"

// ContractEventName returns the user-defined event name.
func (BatchExecutorBatchExecuted) ContractEventName() string {
	return BatchExecutorBatchExecutedEventName
}

// UnpackBatchExecutedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event BatchExecuted(uint256 indexed nonce)
func (batchExecutor *BatchExecutor) UnpackBatchExecutedEvent(log *types.Log) (*BatchExecutorBatchExecuted, error) {
	event := "BatchExecuted"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchExecutor.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchExecutorBatchExecuted)
	if len(log.Data) > 0 {
		if err := batchExecutor.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchExecutor.abi.Events[event].Inputs {
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
func (batchExecutor *BatchExecutor) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], batchExecutor.abi.Errors["Expired"].ID.Bytes()[:4]) {
		return batchExecutor.UnpackExpiredError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchExecutor.abi.Errors["InvalidSignature"].ID.Bytes()[:4]) {
		return batchExecutor.UnpackInvalidSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchExecutor.abi.Errors["NonceUsed"].ID.Bytes()[:4]) {
		return batchExecutor.UnpackNonceUsedError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchExecutor.abi.Errors["Unauthorized"].ID.Bytes()[:4]) {
		return batchExecutor.UnpackUnauthorizedError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// BatchExecutorExpired represents a Expired error raised by the BatchExecutor contract.
type BatchExecutorExpired struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error Expired()
func BatchExecutorExpiredErrorID() common.Hash {
	return common.HexToHash("0x203d82d8d99f63bfecc8335216735e0271df4249ea752b030f9ab305b94e5afe")
}

// UnpackExpiredError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error Expired()
func (batchExecutor *BatchExecutor) UnpackExpiredError(raw []byte) (*BatchExecutorExpired, error) {
	out := new(BatchExecutorExpired)
	if err := batchExecutor.abi.UnpackIntoInterface(out, "Expired", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchExecutorInvalidSignature represents a InvalidSignature error raised by the BatchExecutor contract.
type BatchExecutorInvalidSignature struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidSignature()
func BatchExecutorInvalidSignatureErrorID() common.Hash {
	return common.HexToHash("0x8baa579fce362245063d36f11747a89dd489c54795634fc673cc0e0db51fedc5")
}

// UnpackInvalidSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidSignature()
func (batchExecutor *BatchExecutor) UnpackInvalidSignatureError(raw []byte) (*BatchExecutorInvalidSignature, error) {
	out := new(BatchExecutorInvalidSignature)
	if err := batchExecutor.abi.UnpackIntoInterface(out, "InvalidSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchExecutorNonceUsed represents a NonceUsed error raised by the BatchExecutor contract.
type BatchExecutorNonceUsed struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NonceUsed()
func BatchExecutorNonceUsedErrorID() common.Hash {
	return common.HexToHash("0x1f6d5aef5a4e50674e57b82f3fc08dc6ad8892bdf4aadafb3bc99cc8cf7a4706")
}

// UnpackNonceUsedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NonceUsed()
func (batchExecutor *BatchExecutor) UnpackNonceUsedError(raw []byte) (*BatchExecutorNonceUsed, error) {
	out := new(BatchExecutorNonceUsed)
	if err := batchExecutor.abi.UnpackIntoInterface(out, "NonceUsed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchExecutorUnauthorized represents a Unauthorized error raised by the BatchExecutor contract.
type BatchExecutorUnauthorized struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error Unauthorized()
func BatchExecutorUnauthorizedErrorID() common.Hash {
	return common.HexToHash("0x82b4290015f7ec7256ca2a6247d3c2a89c4865c0e791456df195f40ad0a81367")
}

// UnpackUnauthorizedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error Unauthorized()
func (batchExecutor *BatchExecutor) UnpackUnauthorizedError(raw []byte) (*BatchExecutorUnauthorized, error) {
	out := new(BatchExecutorUnauthorized)
	if err := batchExecutor.abi.UnpackIntoInterface(out, "Unauthorized", raw); err != nil {
		return nil, err
	}
	return out, nil
}
