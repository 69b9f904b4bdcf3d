// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DepositAddress} from "./DepositAddress.sol";
import {Depository} from "./Depository.sol";

/// @title DepositAddressFactory
/// @notice Counterfactual deposit addresses: one address per order id and depositor, known before
/// anything is deployed there, so a user can pay an order with a plain transfer from any wallet or
/// exchange. The address is the CREATE2 address of an EIP-1167 minimal proxy of `implementation`
/// (a DepositAddress) with the salt keccak256(abi.encode(orderId, depositor)); with this factory at
/// the same address on several chains (the devnet deploys it from one deployer at a fixed nonce),
/// the deposit address is the same on all of them. sweep deploys the proxy when needed and
/// deposits one payment's amount into the depository for the order (see DepositAddress for the
/// invariant that keeps an address's funds on its own order).
///
/// Only the sweeper (the solver, fixed at deployment) sweeps. Every sweep is then a transaction
/// the engine signed for exactly one request and one payment, so the depository deposit a sweep
/// makes belongs to the request whose sweep transaction made it, and no one can move a payment
/// into the depository before the request that owns it does (the engine would have to guess
/// which request a deposit it did not make belongs to).
contract DepositAddressFactory {
    /// @notice `amount` of `currency` (zero address: native) held at `depositAddress` was
    /// deposited into the depository for `orderId` in `depositor`'s name.
    event Swept(
        bytes32 indexed orderId,
        address indexed depositor,
        address indexed depositAddress,
        address currency,
        uint256 amount
    );

    error DeployFailed(address depositAddress);
    error NotSweeper();

    /// @notice The depository the deposit addresses deposit into.
    address public immutable depository;
    /// @notice The only account that may sweep (the solver).
    address public immutable sweeper;
    /// @notice The DepositAddress every deposit address is a clone of, deployed by this factory's
    /// constructor (so at this factory's first CREATE address, nonce 1).
    address public immutable implementation;
    /// @dev keccak256 of the clone's creation code, the last input of every CREATE2 address.
    bytes32 private immutable cloneCodeHash;

    constructor(Depository depository_, address sweeper_) {
        depository = address(depository_);
        sweeper = sweeper_;
        address impl = address(new DepositAddress(depository_));
        implementation = impl;
        cloneCodeHash = keccak256(_cloneCode(impl));
    }

    /// @notice The deposit address of `orderId` and `depositor`, whether deployed yet or not.
    function computeDepositAddress(bytes32 orderId, address depositor) public view returns (address) {
        bytes32 h = keccak256(abi.encodePacked(bytes1(0xff), address(this), _salt(orderId, depositor), cloneCodeHash));
        return address(uint160(uint256(h)));
    }

    /// @notice Deploy the deposit address of `orderId` and `depositor` if it has no code yet, then
    /// deposit exactly `amount` of `currency` (the zero address: the native asset) that it holds
    /// into the depository for `orderId` in `depositor`'s name, and emit Swept. Reverts when the
    /// address holds less than `amount`, or `amount` is zero. Returns the deposit address.
    /// @dev Only the sweeper: a sweep can only move an address's funds to the order and depositor
    /// the address was derived from, and the sweeper chooses which payment and when.
    function sweep(bytes32 orderId, address depositor, address currency, uint256 amount)
        external
        returns (address depositAddress)
    {
        if (msg.sender != sweeper) revert NotSweeper();
        depositAddress = computeDepositAddress(orderId, depositor);
        if (depositAddress.code.length == 0) _deploy(orderId, depositor, depositAddress);
        DepositAddress(payable(depositAddress)).sweep(orderId, depositor, currency, amount);
        emit Swept(orderId, depositor, depositAddress, currency, amount);
    }

    /// @dev CREATE2 of the clone. Whatever the address already holds (native or tokens sent
    /// before deployment) stays there.
    function _deploy(bytes32 orderId, address depositor, address want) private {
        bytes memory code = _cloneCode(implementation);
        bytes32 salt = _salt(orderId, depositor);
        address deployed;
        assembly {
            deployed := create2(0, add(code, 32), mload(code), salt)
        }
        if (deployed != want) revert DeployFailed(want);
    }

    function _salt(bytes32 orderId, address depositor) private pure returns (bytes32) {
        return keccak256(abi.encode(orderId, depositor));
    }

    /// @dev EIP-1167's creation code of a minimal proxy of `impl`: 10 bytes that return the 45
    /// bytes of runtime code, which delegate every call (and plain transfer) to `impl`.
    function _cloneCode(address impl) private pure returns (bytes memory) {
        return abi.encodePacked(hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", impl, hex"5af43d82803e903d91602b57fd5bf3");
    }
}
