// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title BatchExecutor
/// @notice An EIP-7702 delegate for EOAs: an EOA that set its code to this contract (a type-4
/// transaction carrying its authorization) runs a batch of calls as itself, so one transaction
/// can approve a token and deposit it with `msg.sender` = the EOA. The transaction may be sent
/// and paid for by anyone (a relayer), which is how a user without native gas acts.
///
/// Security model. Under EIP-7702 this code runs in the EOA's context: `address(this)` is the
/// EOA, storage is the EOA's, and ANYONE may call the EOA. So every entry point that moves the
/// EOA's assets must prove the EOA's consent:
///   - `execute(calls)` only when the EOA calls itself (`msg.sender == address(this)`: the user
///     sent its own type-4 or ordinary transaction to its own address);
///   - `execute(calls, nonce, deadline, signature)` from anyone, with an EIP-712 signature over
///     the exact calls, a nonce and a deadline that recovers to the EOA itself. The domain's
///     verifyingContract is address(this) (the EOA) and its chainId the current chain, so a
///     signature is valid for one account on one chain only. Each nonce can be used once (it is
///     consumed before any call is made, so a call re-entering with the same signature fails),
///     and a batch past its deadline is refused, so a relayer cannot hold a signed batch back
///     indefinitely. The relayer is not part of the signed data: whoever submits the batch, the
///     calls made are exactly the signed ones. The relayer does choose the gas: a call starved
///     of it fails, and a failing call reverts the whole batch, nonce included, so a batch runs
///     entirely or not at all (and its signature stays usable until the deadline).
/// The contract has no constructor state and no immutables: they would belong to this
/// deployment, not to the EOAs that delegate to it. Its own storage lives at an ERC-7201
/// namespaced slot so that it cannot collide with storage an earlier or later delegate of the
/// same EOA left behind.
contract BatchExecutor {
    /// @notice One call of a batch: `value` wei and `data` to `to`.
    struct Call {
        address to;
        uint256 value;
        bytes data;
    }

    /// @custom:storage-location erc7201:intentd.BatchExecutor
    struct BatchExecutorStorage {
        /// @dev Nonces of signed batches already executed (unordered: any unused nonce is valid).
        mapping(uint256 => bool) usedNonces;
    }

    /// @notice A batch was executed under a signed `nonce`.
    event BatchExecuted(uint256 indexed nonce);

    error InvalidSignature();
    error NonceUsed();
    error Expired();
    error Unauthorized();

    /// @dev keccak256(abi.encode(uint256(keccak256("intentd.BatchExecutor")) - 1)) & ~bytes32(uint256(0xff))
    bytes32 private constant STORAGE_SLOT = 0xc417cff70f73caf857f7b678d356a8303414b8f405668c9c44f91ac87442c100;

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("BatchExecutor");
    bytes32 private constant VERSION_HASH = keccak256("1");
    bytes32 private constant CALL_TYPEHASH = keccak256("Call(address to,uint256 value,bytes data)");
    bytes32 private constant EXECUTE_TYPEHASH =
        keccak256("Execute(Call[] calls,uint256 nonce,uint256 deadline)Call(address to,uint256 value,bytes data)");

    /// @dev secp256k1n / 2: signatures with a larger s are the malleated twin of a valid one.
    uint256 private constant HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    /// @notice Runs `calls` in order; only the account itself may call it.
    function execute(Call[] calldata calls) external payable {
        if (msg.sender != address(this)) revert Unauthorized();
        _run(calls);
    }

    /// @notice Runs `calls` in order for anyone holding the account's EIP-712 signature of them
    /// under an unused `nonce` and an unexpired `deadline` (a Unix time, inclusive).
    function execute(Call[] calldata calls, uint256 nonce, uint256 deadline, bytes calldata signature) external {
        if (block.timestamp > deadline) revert Expired();
        BatchExecutorStorage storage $ = _storage();
        if ($.usedNonces[nonce]) revert NonceUsed();
        if (_recover(digest(calls, nonce, deadline), signature) != address(this)) revert InvalidSignature();
        // Effects before interactions: the nonce is spent before the first call can re-enter.
        $.usedNonces[nonce] = true;
        emit BatchExecuted(nonce);
        _run(calls);
    }

    /// @notice Whether the signed-batch `nonce` was used by this account.
    function nonceUsed(uint256 nonce) external view returns (bool) {
        return _storage().usedNonces[nonce];
    }

    /// @notice The EIP-712 domain separator of this account on this chain (computed on every
    /// call: the account and the chain are those of the call, never of the deployment).
    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice The EIP-712 digest the account signs for a batch.
    function digest(Call[] calldata calls, uint256 nonce, uint256 deadline) public view returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            hashes[i] = keccak256(abi.encode(CALL_TYPEHASH, calls[i].to, calls[i].value, keccak256(calls[i].data)));
        }
        bytes32 structHash =
            keccak256(abi.encode(EXECUTE_TYPEHASH, keccak256(abi.encodePacked(hashes)), nonce, deadline));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }

    /// @notice Lets the account keep receiving the native asset (a refund, a transfer) while
    /// delegated: without it, code at the address would refuse plain transfers.
    receive() external payable {}

    /// @dev Makes every call; the first failure reverts the whole batch with its revert data.
    function _run(Call[] calldata calls) private {
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory ret) = calls[i].to.call{value: calls[i].value}(calls[i].data);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(ret, 0x20), mload(ret))
                }
            }
        }
    }

    /// @dev ecrecover of a 65-byte (r, s, v) signature, refusing malleable (high-s) signatures,
    /// any other length and v other than 27 or 28; a failed recovery is address(0), which is
    /// never address(this).
    function _recover(bytes32 hash, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) revert InvalidSignature();
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_N || (v != 27 && v != 28)) revert InvalidSignature();
        return ecrecover(hash, v, r, s);
    }

    function _storage() private pure returns (BatchExecutorStorage storage $) {
        assembly {
            $.slot := STORAGE_SLOT
        }
    }
}
