// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title GasBurnerToken
/// @notice A worthless token shaped like the attack of the security review's H1, for tests only:
/// transferFrom always succeeds for a few hundred gas, so depositing it is cheap, while transfer,
/// which the depository's withdraw calls to refund it, burns `burn` gas first. A solver that
/// refunded it with the gas its estimate asks for would pay that much for each deposit.
contract GasBurnerToken {
    string public constant name = "Gas Burner";
    string public constant symbol = "BURN";
    uint8 public constant decimals = 18;

    /// @notice The gas transfer burns.
    uint256 public immutable burn;

    constructor(uint256 burn_) {
        burn = burn_;
    }

    function balanceOf(address) external pure returns (uint256) {
        return 1;
    }

    function transferFrom(address, address, uint256) external pure returns (bool) {
        return true;
    }

    function transfer(address, uint256) external view returns (bool) {
        uint256 stop = gasleft() - burn;
        while (gasleft() > stop) {}
        return true;
    }
}
