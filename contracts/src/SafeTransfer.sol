// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title SafeTransfer
/// @notice Token and native transfers (and approvals) that revert on failure, including for tokens
/// that return nothing from transfer, transferFrom and approve. A revert from the token is passed
/// through unchanged, so callers see the token's own reason (for example a blocked recipient).
library SafeTransfer {
    error NativeTransferFailed();
    error TokenTransferFailed();

    function safeTransfer(address token, address to, uint256 amount) internal {
        _call(token, abi.encodeWithSelector(0xa9059cbb, to, amount));
    }

    function safeTransferFrom(address token, address from, address to, uint256 amount) internal {
        _call(token, abi.encodeWithSelector(0x23b872dd, from, to, amount));
    }

    function safeApprove(address token, address spender, uint256 amount) internal {
        _call(token, abi.encodeWithSelector(0x095ea7b3, spender, amount));
    }

    function safeTransferNative(address to, uint256 amount) internal {
        (bool ok, ) = to.call{value: amount}("");
        if (!ok) revert NativeTransferFailed();
    }

    function _call(address token, bytes memory data) private {
        if (token.code.length == 0) revert TokenTransferFailed();
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        if (ret.length != 0 && !abi.decode(ret, (bool))) revert TokenTransferFailed();
    }
}
