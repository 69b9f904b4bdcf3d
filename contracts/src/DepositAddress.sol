// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Depository} from "./Depository.sol";
import {SafeTransfer} from "./SafeTransfer.sol";

/// @title DepositAddress
/// @notice The code behind every deposit address. DepositAddressFactory deploys each deposit
/// address as an EIP-1167 minimal proxy (a clone) of this contract, at the CREATE2 address
/// derived from an order id and a depositor. A user pays the order by sending the native asset or
/// an ERC-20 to that address, before it has code or after; the factory's sweep then has the clone
/// deposit the payment into the depository for that order, in the depositor's name.
///
/// Invariant: the funds at a deposit address can only ever be deposited under the order id and
/// the depositor the address was derived from. A clone keeps neither (every clone runs this same
/// code and has no storage): it takes them from its only caller, the factory, and the factory
/// calls a clone only at the address computeDepositAddress gives for the very order id and
/// depositor it passes. CREATE2 ties that address to the salt keccak256(abi.encode(orderId,
/// depositor)), so no other pair reaches the same clone.
///
/// Native transfers: before deployment the address is a plain account and a 21,000-gas transfer
/// is enough. Once deployed, a transfer runs the proxy, which delegates to receive below, so a
/// sender that fixes the gas at 21,000 fails; a wallet that estimates the gas does not.
contract DepositAddress {
    using SafeTransfer for address;

    error NotFactory();
    error BalanceUnreadable(address currency);
    error ZeroAmount();
    error InsufficientBalance(address currency, uint256 balance, uint256 amount);

    /// @notice The factory that deployed this implementation: the only caller a clone sweeps for.
    address public immutable factory;
    /// @notice The depository every clone deposits into.
    Depository public immutable depository;

    /// @dev Immutables live in the code, so every clone (which runs this code) reads the same
    /// factory and depository.
    constructor(Depository depository_) {
        factory = msg.sender;
        depository = depository_;
    }

    /// @notice Deposit exactly `amount` of this address's `currency` (the zero address: the native
    /// asset) into the depository for `orderId` in `depositor`'s name. It reverts when the address
    /// holds less, so a sweep never moves less than it names, and it moves nothing beyond it: what
    /// else the address holds (another payment, not swept yet) stays for its own sweep. Only the
    /// factory may call it (see the invariant above).
    function sweep(bytes32 orderId, address depositor, address currency, uint256 amount) external {
        if (msg.sender != factory) revert NotFactory();
        if (amount == 0) revert ZeroAmount();
        if (currency == address(0)) {
            if (address(this).balance < amount) revert InsufficientBalance(currency, address(this).balance, amount);
            depository.depositNativeFor{value: amount}(depositor, orderId);
        } else {
            uint256 balance = _balanceOf(currency);
            if (balance < amount) revert InsufficientBalance(currency, balance, amount);
            // The depository pulls exactly `amount`, which leaves the allowance at zero again.
            currency.safeApprove(address(depository), amount);
            depository.depositErc20For(depositor, orderId, currency, amount);
        }
    }

    /// @notice A plain native transfer is a deposit waiting for the next sweep.
    receive() external payable {}

    /// @dev ERC-20 balanceOf(address(this)), without an interface (which would be a build artifact
    /// of its own).
    function _balanceOf(address currency) private view returns (uint256) {
        (bool ok, bytes memory ret) = currency.staticcall(abi.encodeWithSelector(0x70a08231, address(this)));
        if (!ok || ret.length < 32) revert BalanceUnreadable(currency);
        return abi.decode(ret, (uint256));
    }
}
