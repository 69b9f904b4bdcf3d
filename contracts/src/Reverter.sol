// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Reverter
/// @notice For tests only (chains/evm/trace_test.go deploys it; the devnet does not): each
/// function fails in one of the ways a call can revert, so that the decoding of a simulated
/// call's trace and revert (chains/evm/trace.go) is proven against a real chain.
contract Reverter {
    /// @notice A custom error with arguments, known to the decoder through this contract's ABI.
    error AmountTooLarge(address account, uint256 amount, uint256 limit);

    /// @notice Reverts with Error(string).
    function failWithString() external pure {
        revert("Reverter: refused");
    }

    /// @notice Reverts with Panic(0x12): a division by zero when `b` is 0.
    function divide(uint256 a, uint256 b) external pure returns (uint256) {
        return a / b;
    }

    /// @notice Reverts with the custom error AmountTooLarge(account, amount, limit).
    function failWithCustomError(address account, uint256 amount, uint256 limit) external pure {
        revert AmountTooLarge(account, amount, limit);
    }

    /// @notice Reverts with a custom error that no ABI declares: selector 0xdeadbeef and one
    /// word, 42.
    function failWithUnknownError() external pure {
        assembly {
            mstore(0, shl(224, 0xdeadbeef))
            mstore(4, 42)
            revert(0, 36)
        }
    }

    /// @notice Reverts with no data at all.
    function failEmpty() external pure {
        assembly {
            revert(0, 0)
        }
    }

    /// @notice Calls `other.failWithCustomError(account, amount, limit)`, whose revert bubbles up:
    /// the failing branch is two frames deep.
    function callOther(Reverter other, address account, uint256 amount, uint256 limit) external view {
        other.failWithCustomError(account, amount, limit);
    }
}
