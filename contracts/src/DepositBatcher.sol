// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Depository} from "./Depository.sol";

/// @title DepositBatcher
/// @notice Test contract (devnet only): one transaction that makes many deposits into a
/// depository, as an attacker or a batching wallet would. The depository sees this contract as
/// the depositor, so refunds of those deposits come back here; it accepts them. The engine's tests
/// use it to show that the work one transaction of many deposits causes (transaction hints,
/// attestations) grows with the deposits, never with their square, and that junk deposits cost
/// the solver nothing.
contract DepositBatcher {
    error WrongValue(uint256 sent, uint256 expected);

    /// @notice Deposit `amountEach` wei into `depository` for each of `orderIds`, in order; the
    /// value sent must be exactly their sum.
    function depositNativeMany(address depository, bytes32[] calldata orderIds, uint256 amountEach) external payable {
        uint256 expected = amountEach * orderIds.length;
        if (msg.value != expected) revert WrongValue(msg.value, expected);
        for (uint256 i = 0; i < orderIds.length; i++) {
            Depository(depository).depositNative{value: amountEach}(orderIds[i]);
        }
    }

    /// @notice Make `count` deposits of 1 unit of `currency` into `depository`, each for its own
    /// random-looking order id (keccak256(salt, i)), as an attacker would to turn one transaction
    /// into as many orphaned deposits. The currency must let this contract transfer without a
    /// balance or an allowance (GasBurnerToken does).
    function depositMany(address depository, address currency, uint256 count, bytes32 salt) external {
        for (uint256 i = 0; i < count; i++) {
            Depository(depository).depositErc20(keccak256(abi.encode(salt, i)), currency, 1);
        }
    }

    /// @notice Refunds of the batched deposits are paid back here.
    receive() external payable {}
}
