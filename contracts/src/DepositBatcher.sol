// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Depository} from "./Depository.sol";

/// @title DepositBatcher
/// @notice Test contract (devnet only): one transaction that makes many native deposits into a
/// depository, one per order id, `amountEach` wei each. The depository sees this contract as
/// the depositor, so refunds of those deposits come back here; it accepts them. The engine's
/// tests use it to show that the work one transaction of many deposits causes (transaction
/// hints, attestations) grows with the deposits, never with their square.
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

    /// @notice Refunds of the batched deposits are paid back here.
    receive() external payable {}
}
