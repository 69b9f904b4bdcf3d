package evm

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/chains/evm/bindings"
)

// Counterfactual deposit addresses (contracts/src/DepositAddressFactory.sol). The address a user
// pays an order to with a plain transfer is the CREATE2 address, under the factory, of an
// EIP-1167 minimal proxy of the factory's DepositAddress implementation, salted with
// keccak256(abi.encode(orderId, depositor)). Nothing but those four values goes into it, so it is
// known offline, before anything is deployed there, and it is the same on every chain where the
// factory sits at the same address. The factory's sweep (only the solver may send it) deploys
// the proxy when needed and deposits one payment's amount into the depository for that order, in
// the depositor's name; the contracts keep an address's funds on the order it was derived from.

// DepositAddressFactoryABI is the factory's ABI (sweep, computeDepositAddress, the Swept event).
var DepositAddressFactoryABI = bindings.NewDepositAddressFactory()

// EIP-1167's creation code of a minimal proxy is cloneCodePrefix, the implementation's 20 bytes,
// cloneCodeSuffix: 10 bytes that return the 45 bytes of runtime code after them, which delegate
// every call to the implementation.
var (
	cloneCodePrefix = common.FromHex("3d602d80600a3d3981f3363d3d373d3d3d363d73")
	cloneCodeSuffix = common.FromHex("5af43d82803e903d91602b57fd5bf3")
)

// DepositAddress is the deposit address of orderID and depositor under the DepositAddressFactory
// at factory whose implementation is implementation (DepositAddressImplementation(factory) for
// the project's factory), computed offline: what the factory's computeDepositAddress(orderID,
// depositor) returns, whether the address has been deployed or not.
func DepositAddress(factory, implementation common.Address, orderID common.Hash, depositor common.Address) common.Address {
	return crypto.CreateAddress2(factory, DepositAddressSalt(orderID, depositor), crypto.Keccak256(CloneCode(implementation)))
}

// DepositAddressImplementation is the DepositAddress the project's factory at factory deployed
// in its constructor: the factory's first CREATE address (a contract's nonce starts at 1,
// EIP-161).
func DepositAddressImplementation(factory common.Address) common.Address {
	return crypto.CreateAddress(factory, 1)
}

// DepositAddressSalt is the CREATE2 salt of the deposit address of orderID and depositor:
// keccak256(abi.encode(orderId, depositor)).
func DepositAddressSalt(orderID common.Hash, depositor common.Address) common.Hash {
	return crypto.Keccak256Hash(orderID.Bytes(), common.LeftPadBytes(depositor.Bytes(), 32))
}

// CloneCode is EIP-1167's creation code of a minimal proxy of implementation (55 bytes); a
// deployed deposit address's code is its last 45.
func CloneCode(implementation common.Address) []byte {
	code := make([]byte, 0, len(cloneCodePrefix)+common.AddressLength+len(cloneCodeSuffix))
	code = append(code, cloneCodePrefix...)
	code = append(code, implementation.Bytes()...)
	return append(code, cloneCodeSuffix...)
}

// PackSweep is the calldata of the factory's sweep(orderId, depositor, currency, amount): it
// deploys the deposit address of orderID and depositor if it has no code yet and deposits
// exactly amount of currency (the zero address: native) from it into the depository for orderID
// in depositor's name. Only the factory's sweeper (the solver) may send it.
func PackSweep(orderID common.Hash, depositor, currency common.Address, amount *big.Int) []byte {
	return DepositAddressFactoryABI.PackSweep(orderID, depositor, currency, amount)
}
