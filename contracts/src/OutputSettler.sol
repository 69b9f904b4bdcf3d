// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {SafeTransfer} from "./SafeTransfer.sol";

/// @title OutputSettler
/// @notice The solver fills orders on the destination chain through this contract. Each order id
/// can be filled once: a second fill of the same order reverts, so no retry, replacement or
/// second worker can pay an order twice.
contract OutputSettler {
    using SafeTransfer for address;

    /// @notice `solver` paid `amount` of `currency` (zero address: native) to `recipient` for `orderId`.
    event Fill(bytes32 indexed orderId, address indexed solver, address indexed recipient, address currency, uint256 amount);

    error ZeroAmount();
    error AlreadyFilled(bytes32 orderId);

    /// @notice The solver that filled each order, zero while unfilled.
    mapping(bytes32 => address) public filledBy;

    /// @notice Pay `msg.value` of the native asset to `recipient` for `orderId`.
    function fillNative(bytes32 orderId, address recipient) external payable {
        if (msg.value == 0) revert ZeroAmount();
        _markFilled(orderId);
        SafeTransfer.safeTransferNative(recipient, msg.value);
        emit Fill(orderId, msg.sender, recipient, address(0), msg.value);
    }

    /// @notice Pay `amount` of `currency` from the solver to `recipient` for `orderId`; the solver
    /// approves this contract once.
    function fillErc20(bytes32 orderId, address currency, address recipient, uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        _markFilled(orderId);
        currency.safeTransferFrom(msg.sender, recipient, amount);
        emit Fill(orderId, msg.sender, recipient, currency, amount);
    }

    function _markFilled(bytes32 orderId) private {
        if (filledBy[orderId] != address(0)) revert AlreadyFilled(orderId);
        filledBy[orderId] = msg.sender;
    }
}
