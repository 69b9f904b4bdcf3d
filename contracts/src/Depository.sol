// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {SafeTransfer} from "./SafeTransfer.sol";

/// @notice What the Depository asks the DepositAddressFactory: the deposit address of an order id
/// and depositor.
interface IDepositAddresses {
    function computeDepositAddress(bytes32 orderId, address depositor) external view returns (address);
}

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
    error NotDepositAddress();

    address public immutable owner;
    /// @notice The factory whose deposit addresses alone may deposit on behalf of a depositor.
    address public immutable depositAddressFactory;
    mapping(bytes32 => bool) public withdrawn;

    constructor(address owner_, address depositAddressFactory_) {
        owner = owner_;
        depositAddressFactory = depositAddressFactory_;
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

    /// @notice Deposit the native asset for `orderId` on behalf of `depositor`: the deposit (and
    /// any refund of it) is `depositor`'s. Only the deposit address of (`orderId`, `depositor`)
    /// may call it (the factory's computeDepositAddress): a deposit address sweeping what was sent
    /// to it. So the depositor of a Deposit event is never a caller's word: either the caller
    /// itself, or the salt of the deposit address that paid, whose order id it also is.
    function depositNativeFor(address depositor, bytes32 orderId) external payable {
        _onlyDepositAddress(orderId, depositor);
        if (msg.value == 0) revert ZeroAmount();
        emit Deposit(orderId, depositor, address(0), msg.value);
    }

    /// @notice Deposit `amount` of the ERC-20 `currency` for `orderId` on behalf of `depositor`,
    /// taken from the caller, which approves this contract first; only the deposit address of
    /// (`orderId`, `depositor`) may call it (see depositNativeFor).
    function depositErc20For(address depositor, bytes32 orderId, address currency, uint256 amount) external {
        _onlyDepositAddress(orderId, depositor);
        if (amount == 0) revert ZeroAmount();
        currency.safeTransferFrom(msg.sender, address(this), amount);
        emit Deposit(orderId, depositor, currency, amount);
    }

    function _onlyDepositAddress(bytes32 orderId, address depositor) private view {
        if (msg.sender != IDepositAddresses(depositAddressFactory).computeDepositAddress(orderId, depositor)) {
            revert NotDepositAddress();
        }
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
