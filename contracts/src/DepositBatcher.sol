// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

interface IDepository {
    function depositErc20(bytes32 orderId, address currency, uint256 amount) external;
}

/// @title DepositBatcher
/// @notice For tests only: makes `count` deposits of 1 unit of `currency` into `depository` in
/// one transaction, each for its own random-looking order id (keccak256(salt, i)), as an attacker
/// would to turn one transaction into as many orphaned deposits. The batcher is the depositor;
/// the currency must let it transfer without a balance or an allowance (GasBurnerToken does).
contract DepositBatcher {
    function depositMany(address depository, address currency, uint256 count, bytes32 salt) external {
        for (uint256 i = 0; i < count; i++) {
            IDepository(depository).depositErc20(keccak256(abi.encode(salt, i)), currency, 1);
        }
    }
}
