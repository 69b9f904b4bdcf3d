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

// PriceFeedMetaData contains all meta data concerning the PriceFeed contract.
var PriceFeedMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner_\",\"type\":\"address\"},{\"internalType\":\"uint8\",\"name\":\"decimals_\",\"type\":\"uint8\"},{\"internalType\":\"string\",\"name\":\"description_\",\"type\":\"string\"},{\"internalType\":\"int256\",\"name\":\"initialAnswer\",\"type\":\"int256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"NoDataPresent\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotOwner\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"int256\",\"name\":\"current\",\"type\":\"int256\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"roundId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"updatedAt\",\"type\":\"uint256\"}],\"name\":\"AnswerUpdated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"roundId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"startedBy\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"startedAt\",\"type\":\"uint256\"}],\"name\":\"NewRound\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"description\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint80\",\"name\":\"roundId_\",\"type\":\"uint80\"}],\"name\":\"getRoundData\",\"outputs\":[{\"internalType\":\"uint80\",\"name\":\"roundId\",\"type\":\"uint80\"},{\"internalType\":\"int256\",\"name\":\"answer\",\"type\":\"int256\"},{\"internalType\":\"uint256\",\"name\":\"startedAt\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"updatedAt\",\"type\":\"uint256\"},{\"internalType\":\"uint80\",\"name\":\"answeredInRound\",\"type\":\"uint80\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"latestAnswer\",\"outputs\":[{\"internalType\":\"int256\",\"name\":\"\",\"type\":\"int256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"latestRound\",\"outputs\":[{\"internalType\":\"uint80\",\"name\":\"\",\"type\":\"uint80\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"latestRoundData\",\"outputs\":[{\"internalType\":\"uint80\",\"name\":\"roundId\",\"type\":\"uint80\"},{\"internalType\":\"int256\",\"name\":\"answer\",\"type\":\"int256\"},{\"internalType\":\"uint256\",\"name\":\"startedAt\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"updatedAt\",\"type\":\"uint256\"},{\"internalType\":\"uint80\",\"name\":\"answeredInRound\",\"type\":\"uint80\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"latestTimestamp\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"int256\",\"name\":\"answer\",\"type\":\"int256\"}],\"name\":\"setAnswer\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"int256\",\"name\":\"answer\",\"type\":\"int256\"},{\"internalType\":\"uint256\",\"name\":\"updatedAt\",\"type\":\"uint256\"}],\"name\":\"setRound\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"version\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "PriceFeed",
	Bin: "0x60c060405234801561000f575f5ffd5b50604051610a47380380610a4783398101604081905261002e91610170565b6001600160a01b03841660805260ff831660a0525f61004d83826102e2565b506100588142610061565b505050506103cd565b600180545f9161007a916001600160501b03169061039c565b600180546001600160501b0383166001600160501b031990911681178255604080516060810182528781524260208083018281528385018a81525f878152600293849052869020945185559051968401969096559451919094015551929350339290917f0109fc6f55cf40689f02fbaad7af7fe7bbac8a3d2186600afc7d3e10cac602719161010b91815260200190565b60405180910390a3806001600160501b0316837f0559884fd3a460db3073b7fc896cc77986f16e378210ded43186175bf646fc5f8460405161014f91815260200190565b60405180910390a3505050565b634e487b7160e01b5f52604160045260245ffd5b5f5f5f5f60808587031215610183575f5ffd5b84516001600160a01b0381168114610199575f5ffd5b602086015190945060ff811681146101af575f5ffd5b60408601519093506001600160401b038111156101ca575f5ffd5b8501601f810187136101da575f5ffd5b80516001600160401b038111156101f3576101f361015c565b604051601f8201601f19908116603f011681016001600160401b03811182821017156102215761022161015c565b604052818152828201602001891015610238575f5ffd5b8160208401602083015e5f91810160200191909152606096909601519497939650505050565b600181811c9082168061027257607f821691505b60208210810361029057634e487b7160e01b5f52602260045260245ffd5b50919050565b601f8211156102dd57805f5260205f20601f840160051c810160208510156102bb5750805b601f840160051c820191505b818110156102da575f81556001016102c7565b50505b505050565b81516001600160401b038111156102fb576102fb61015c565b61030f81610309845461025e565b84610296565b6020601f821160018114610341575f831561032a5750848201515b5f19600385901b1c1916600184901b1784556102da565b5f84815260208120601f198516915b828110156103705787850151825560209485019460019092019101610350565b508482101561038d57868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b6001600160501b0381811683821601908111156103c757634e487b7160e01b5f52601160045260245ffd5b92915050565b60805160a05161064c6103fb5f395f60c401525f81816101960152818161023d015261031f015261064c5ff3fe608060405234801561000f575f5ffd5b50600436106100a6575f3560e01c80637284e4161161006e5780637284e416146101595780638205bf6a1461016e5780638da5cb5b1461019157806399213cd8146101d05780639a6fc8f5146101e3578063feaf968c1461022a575f5ffd5b80632b1de19b146100aa578063313ce567146100bf57806350d25bcd146100fd57806354fd4d5014610126578063668a0f021461012e575b5f5ffd5b6100bd6100b8366004610514565b610232565b005b6100e67f000000000000000000000000000000000000000000000000000000000000000081565b60405160ff90911681526020015b60405180910390f35b6001546001600160501b03165f908152600260205260409020545b6040519081526020016100f4565b610118600481565b600154610141906001600160501b031681565b6040516001600160501b0390911681526020016100f4565b610161610289565b6040516100f49190610534565b6001546001600160501b03165f9081526002602081905260409091200154610118565b6101b87f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016100f4565b6100bd6101de366004610569565b610314565b6101f66101f1366004610580565b61036a565b604080516001600160501b03968716815260208101959095528401929092526060830152909116608082015260a0016100f4565b6101f66103e6565b336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161461027b576040516330cd747160e01b815260040160405180910390fd5b6102858282610416565b5050565b5f8054610295906105ad565b80601f01602080910402602001604051908101604052809291908181526020018280546102c1906105ad565b801561030c5780601f106102e35761010080835404028352916020019161030c565b820191905f5260205f20905b8154815290600101906020018083116102ef57829003601f168201915b505050505081565b336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161461035d576040516330cd747160e01b815260040160405180910390fd5b6103678142610416565b50565b5f808080806001600160501b038616158061039357506001546001600160501b03908116908716115b156103b05760405162bb258760e81b815260040160405180910390fd5b505050506001600160501b0382165f90815260026020819052604090912080546001820154919092015493949193909250908490565b6001545f908190819081908190610405906001600160501b031661036a565b945094509450945094509091929394565b600180545f9161042f916001600160501b0316906105e5565b600180546001600160501b03831669ffffffffffffffffffff1990911681178255604080516060810182528781524260208083018281528385018a81525f878152600293849052869020945185559051968401969096559451919094015551929350339290917f0109fc6f55cf40689f02fbaad7af7fe7bbac8a3d2186600afc7d3e10cac60271916104c391815260200190565b60405180910390a3806001600160501b0316837f0559884fd3a460db3073b7fc896cc77986f16e378210ded43186175bf646fc5f8460405161050791815260200190565b60405180910390a3505050565b5f5f60408385031215610525575f5ffd5b50508035926020909101359150565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b5f60208284031215610579575f5ffd5b5035919050565b5f60208284031215610590575f5ffd5b81356001600160501b03811681146105a6575f5ffd5b9392505050565b600181811c908216806105c157607f821691505b6020821081036105df57634e487b7160e01b5f52602260045260245ffd5b50919050565b6001600160501b03818116838216019081111561061057634e487b7160e01b5f52601160045260245ffd5b9291505056fea26469706673582212206540ffedc8aaba56bfe48a015e6985d4481a87dbdd61a2d901be55065ac39f9c64736f6c634300081c0033",
}

// PriceFeed is an auto generated Go binding around an Ethereum contract.
type PriceFeed struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *PriceFeed) GetABI() abi.ABI {
	return c.abi
}

// NewPriceFeed creates a new instance of PriceFeed.
func NewPriceFeed() *PriceFeed {
	parsed, err := PriceFeedMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &PriceFeed{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *PriceFeed) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address owner_, uint8 decimals_, string description_, int256 initialAnswer) returns()
func (priceFeed *PriceFeed) PackConstructor(owner_ common.Address, decimals_ uint8, description_ string, initialAnswer *big.Int) []byte {
	enc, err := priceFeed.abi.Pack("", owner_, decimals_, description_, initialAnswer)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() view returns(uint8)
func (priceFeed *PriceFeed) PackDecimals() []byte {
	enc, err := priceFeed.abi.Pack("decimals")
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
func (priceFeed *PriceFeed) TryPackDecimals() ([]byte, error) {
	return priceFeed.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (priceFeed *PriceFeed) UnpackDecimals(data []byte) (uint8, error) {
	out, err := priceFeed.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackDescription is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7284e416.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function description() view returns(string)
func (priceFeed *PriceFeed) PackDescription() []byte {
	enc, err := priceFeed.abi.Pack("description")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDescription is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7284e416.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function description() view returns(string)
func (priceFeed *PriceFeed) TryPackDescription() ([]byte, error) {
	return priceFeed.abi.Pack("description")
}

// UnpackDescription is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7284e416.
//
// Solidity: function description() view returns(string)
func (priceFeed *PriceFeed) UnpackDescription(data []byte) (string, error) {
	out, err := priceFeed.abi.Unpack("description", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackGetRoundData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9a6fc8f5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getRoundData(uint80 roundId_) view returns(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) PackGetRoundData(roundId *big.Int) []byte {
	enc, err := priceFeed.abi.Pack("getRoundData", roundId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetRoundData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9a6fc8f5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getRoundData(uint80 roundId_) view returns(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) TryPackGetRoundData(roundId *big.Int) ([]byte, error) {
	return priceFeed.abi.Pack("getRoundData", roundId)
}

// GetRoundDataOutput serves as a container for the return parameters of contract
// method GetRoundData.
type GetRoundDataOutput struct {
	RoundId         *big.Int
	Answer          *big.Int
	StartedAt       *big.Int
	UpdatedAt       *big.Int
	AnsweredInRound *big.Int
}

// UnpackGetRoundData is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9a6fc8f5.
//
// Solidity: function getRoundData(uint80 roundId_) view returns(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) UnpackGetRoundData(data []byte) (GetRoundDataOutput, error) {
	out, err := priceFeed.abi.Unpack("getRoundData", data)
	outstruct := new(GetRoundDataOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.RoundId = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.Answer = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	outstruct.StartedAt = abi.ConvertType(out[2], new(big.Int)).(*big.Int)
	outstruct.UpdatedAt = abi.ConvertType(out[3], new(big.Int)).(*big.Int)
	outstruct.AnsweredInRound = abi.ConvertType(out[4], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackLatestAnswer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x50d25bcd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function latestAnswer() view returns(int256)
func (priceFeed *PriceFeed) PackLatestAnswer() []byte {
	enc, err := priceFeed.abi.Pack("latestAnswer")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLatestAnswer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x50d25bcd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function latestAnswer() view returns(int256)
func (priceFeed *PriceFeed) TryPackLatestAnswer() ([]byte, error) {
	return priceFeed.abi.Pack("latestAnswer")
}

// UnpackLatestAnswer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x50d25bcd.
//
// Solidity: function latestAnswer() view returns(int256)
func (priceFeed *PriceFeed) UnpackLatestAnswer(data []byte) (*big.Int, error) {
	out, err := priceFeed.abi.Unpack("latestAnswer", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackLatestRound is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x668a0f02.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function latestRound() view returns(uint80)
func (priceFeed *PriceFeed) PackLatestRound() []byte {
	enc, err := priceFeed.abi.Pack("latestRound")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLatestRound is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x668a0f02.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function latestRound() view returns(uint80)
func (priceFeed *PriceFeed) TryPackLatestRound() ([]byte, error) {
	return priceFeed.abi.Pack("latestRound")
}

// UnpackLatestRound is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x668a0f02.
//
// Solidity: function latestRound() view returns(uint80)
func (priceFeed *PriceFeed) UnpackLatestRound(data []byte) (*big.Int, error) {
	out, err := priceFeed.abi.Unpack("latestRound", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackLatestRoundData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfeaf968c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function latestRoundData() view returns(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) PackLatestRoundData() []byte {
	enc, err := priceFeed.abi.Pack("latestRoundData")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLatestRoundData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfeaf968c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function latestRoundData() view returns(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) TryPackLatestRoundData() ([]byte, error) {
	return priceFeed.abi.Pack("latestRoundData")
}

// LatestRoundDataOutput serves as a container for the return parameters of contract
// method LatestRoundData.
type LatestRoundDataOutput struct {
	RoundId         *big.Int
	Answer          *big.Int
	StartedAt       *big.Int
	UpdatedAt       *big.Int
	AnsweredInRound *big.Int
}

// UnpackLatestRoundData is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfeaf968c.
//
// Solidity: function latestRoundData() view returns(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) UnpackLatestRoundData(data []byte) (LatestRoundDataOutput, error) {
	out, err := priceFeed.abi.Unpack("latestRoundData", data)
	outstruct := new(LatestRoundDataOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.RoundId = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.Answer = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	outstruct.StartedAt = abi.ConvertType(out[2], new(big.Int)).(*big.Int)
	outstruct.UpdatedAt = abi.ConvertType(out[3], new(big.Int)).(*big.Int)
	outstruct.AnsweredInRound = abi.ConvertType(out[4], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackLatestTimestamp is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8205bf6a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function latestTimestamp() view returns(uint256)
func (priceFeed *PriceFeed) PackLatestTimestamp() []byte {
	enc, err := priceFeed.abi.Pack("latestTimestamp")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLatestTimestamp is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8205bf6a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function latestTimestamp() view returns(uint256)
func (priceFeed *PriceFeed) TryPackLatestTimestamp() ([]byte, error) {
	return priceFeed.abi.Pack("latestTimestamp")
}

// UnpackLatestTimestamp is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8205bf6a.
//
// Solidity: function latestTimestamp() view returns(uint256)
func (priceFeed *PriceFeed) UnpackLatestTimestamp(data []byte) (*big.Int, error) {
	out, err := priceFeed.abi.Unpack("latestTimestamp", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (priceFeed *PriceFeed) PackOwner() []byte {
	enc, err := priceFeed.abi.Pack("owner")
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
func (priceFeed *PriceFeed) TryPackOwner() ([]byte, error) {
	return priceFeed.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (priceFeed *PriceFeed) UnpackOwner(data []byte) (common.Address, error) {
	out, err := priceFeed.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackSetAnswer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x99213cd8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setAnswer(int256 answer) returns()
func (priceFeed *PriceFeed) PackSetAnswer(answer *big.Int) []byte {
	enc, err := priceFeed.abi.Pack("setAnswer", answer)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetAnswer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x99213cd8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setAnswer(int256 answer) returns()
func (priceFeed *PriceFeed) TryPackSetAnswer(answer *big.Int) ([]byte, error) {
	return priceFeed.abi.Pack("setAnswer", answer)
}

// PackSetRound is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2b1de19b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setRound(int256 answer, uint256 updatedAt) returns()
func (priceFeed *PriceFeed) PackSetRound(answer *big.Int, updatedAt *big.Int) []byte {
	enc, err := priceFeed.abi.Pack("setRound", answer, updatedAt)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetRound is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2b1de19b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setRound(int256 answer, uint256 updatedAt) returns()
func (priceFeed *PriceFeed) TryPackSetRound(answer *big.Int, updatedAt *big.Int) ([]byte, error) {
	return priceFeed.abi.Pack("setRound", answer, updatedAt)
}

// PackVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x54fd4d50.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function version() view returns(uint256)
func (priceFeed *PriceFeed) PackVersion() []byte {
	enc, err := priceFeed.abi.Pack("version")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x54fd4d50.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function version() view returns(uint256)
func (priceFeed *PriceFeed) TryPackVersion() ([]byte, error) {
	return priceFeed.abi.Pack("version")
}

// UnpackVersion is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x54fd4d50.
//
// Solidity: function version() view returns(uint256)
func (priceFeed *PriceFeed) UnpackVersion(data []byte) (*big.Int, error) {
	out, err := priceFeed.abi.Unpack("version", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PriceFeedAnswerUpdated represents a AnswerUpdated event raised by the PriceFeed contract.
type PriceFeedAnswerUpdated struct {
	Current   *big.Int
	RoundId   *big.Int
	UpdatedAt *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const PriceFeedAnswerUpdatedEventName = "AnswerUpdated"

// ContractEventName returns the user-defined event name.
func (PriceFeedAnswerUpdated) ContractEventName() string {
	return PriceFeedAnswerUpdatedEventName
}

// UnpackAnswerUpdatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)
func (priceFeed *PriceFeed) UnpackAnswerUpdatedEvent(log *types.Log) (*PriceFeedAnswerUpdated, error) {
	event := "AnswerUpdated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != priceFeed.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PriceFeedAnswerUpdated)
	if len(log.Data) > 0 {
		if err := priceFeed.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range priceFeed.abi.Events[event].Inputs {
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

// PriceFeedNewRound represents a NewRound event raised by the PriceFeed contract.
type PriceFeedNewRound struct {
	RoundId   *big.Int
	StartedBy common.Address
	StartedAt *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const PriceFeedNewRoundEventName = "NewRound"

// ContractEventName returns the user-defined event name.
func (PriceFeedNewRound) ContractEventName() string {
	return PriceFeedNewRoundEventName
}

// UnpackNewRoundEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt)
func (priceFeed *PriceFeed) UnpackNewRoundEvent(log *types.Log) (*PriceFeedNewRound, error) {
	event := "NewRound"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != priceFeed.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PriceFeedNewRound)
	if len(log.Data) > 0 {
		if err := priceFeed.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range priceFeed.abi.Events[event].Inputs {
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
func (priceFeed *PriceFeed) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], priceFeed.abi.Errors["NoDataPresent"].ID.Bytes()[:4]) {
		return priceFeed.UnpackNoDataPresentError(raw[4:])
	}
	if bytes.Equal(raw[:4], priceFeed.abi.Errors["NotOwner"].ID.Bytes()[:4]) {
		return priceFeed.UnpackNotOwnerError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// PriceFeedNoDataPresent represents a NoDataPresent error raised by the PriceFeed contract.
type PriceFeedNoDataPresent struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NoDataPresent()
func PriceFeedNoDataPresentErrorID() common.Hash {
	return common.HexToHash("0xbb258700699f4449978821f51700c766295ef133e7bb6177607142c8d88db786")
}

// UnpackNoDataPresentError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NoDataPresent()
func (priceFeed *PriceFeed) UnpackNoDataPresentError(raw []byte) (*PriceFeedNoDataPresent, error) {
	out := new(PriceFeedNoDataPresent)
	if err := priceFeed.abi.UnpackIntoInterface(out, "NoDataPresent", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PriceFeedNotOwner represents a NotOwner error raised by the PriceFeed contract.
type PriceFeedNotOwner struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotOwner()
func PriceFeedNotOwnerErrorID() common.Hash {
	return common.HexToHash("0x30cd74712f59d478562d48e2d35de830db72c60a63dd08ae59199eec990b5bc4")
}

// UnpackNotOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotOwner()
func (priceFeed *PriceFeed) UnpackNotOwnerError(raw []byte) (*PriceFeedNotOwner, error) {
	out := new(PriceFeedNotOwner)
	if err := priceFeed.abi.UnpackIntoInterface(out, "NotOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}
