// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {SafeTransfer} from "./SafeTransfer.sol";

/// @title Depository
/// @notice Receives user deposits on the origin chain. Every deposit names the 32-byte order id
/// it pays for, so the solver can tie the funds to exactly one intent. The owner (the solver's
/// treasury) pays refunds out of it; each payout id can be used once, so a retried refund never
/// pays twice.
contract Depository {
    using SafeTransfer for address;

    /// @notice A deposit for `orderId`. `currency` is the zero address for the native asset.
    event Deposit(bytes32 indexed orderId, address indexed depositor, address indexed currency, uint256 amount);

    /// @notice A payout (refund) made by the owner under the once-only `id`.
    event Withdrawal(bytes32 indexed id, address indexed recipient, address indexed currency, uint256 amount);

    error ZeroAmount();
    error NotOwner();
    error AlreadyWithdrawn(bytes32 id);

    address public immutable owner;
    mapping(bytes32 => bool) public withdrawn;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice Deposit the native asset for `orderId`.
    function depositNative(bytes32 orderId) external payable {
        if (msg.value == 0) revert ZeroAmount();
        emit Deposit(orderId, msg.sender, address(0), msg.value);
    }

    /// @notice Deposit `amount` of the ERC-20 `currency` for `orderId`; needs an allowance first.
    function depositErc20(bytes32 orderId, address currency, uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        currency.safeTransferFrom(msg.sender, address(this), amount);
        emit Deposit(orderId, msg.sender, currency, amount);
    }

    /// @notice Deposit the native asset for `orderId` on behalf of `depositor`: the caller pays,
    /// the deposit (and any refund of it) is `depositor`'s. A deposit address sweeping what a user
    /// sent to it names that user. Naming someone else gives away nothing but the caller's own
    /// funds, so anyone may call it; but the depositor is then only the caller's word, so a check
    /// of who paid (screening) must look at the transaction's sender, or for a deposit address at
    /// the transfers into it.
    function depositNativeFor(address depositor, bytes32 orderId) external payable {
        if (msg.value == 0) revert ZeroAmount();
        emit Deposit(orderId, depositor, address(0), msg.value);
    }

    /// @notice Deposit `amount` of the ERC-20 `currency` for `orderId` on behalf of `depositor`,
    /// taken from the caller, which approves this contract first (see depositNativeFor).
    function depositErc20For(address depositor, bytes32 orderId, address currency, uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        currency.safeTransferFrom(msg.sender, address(this), amount);
        emit Deposit(orderId, depositor, currency, amount);
    }

    /// @notice Pay `amount` of `currency` to `recipient` once for `id`.
    function withdraw(bytes32 id, address currency, address recipient, uint256 amount) external {
        if (msg.sender != owner) revert NotOwner();
        if (withdrawn[id]) revert AlreadyWithdrawn(id);
        withdrawn[id] = true;
        if (currency == address(0)) {
            SafeTransfer.safeTransferNative(recipient, amount);
        } else {
            currency.safeTransfer(recipient, amount);
        }
        emit Withdrawal(id, recipient, currency, amount);
    }
}
