package intent

// FailReason is the spec's failReason vocabulary: why a request failed or was refunded. It is
// N/A until a failure is recorded. The values are a wire contract: clients switch on them.
type FailReason string

// Every failReason value of the spec, in the spec's order.
const (
	FailReasonUnknown                          FailReason = "UNKNOWN"
	FailReasonSlippage                         FailReason = "SLIPPAGE"
	FailReasonAmountTooLowToRefund             FailReason = "AMOUNT_TOO_LOW_TO_REFUND"
	FailReasonDepositAddressMismatch           FailReason = "DEPOSIT_ADDRESS_MISMATCH"
	FailReasonDepositChainMismatch             FailReason = "DEPOSIT_CHAIN_MISMATCH"
	FailReasonIncorrectDepositCurrency         FailReason = "INCORRECT_DEPOSIT_CURRENCY"
	FailReasonDoubleSpend                      FailReason = "DOUBLE_SPEND"
	FailReasonSolverCapacityExceeded           FailReason = "SOLVER_CAPACITY_EXCEEDED"
	FailReasonSolverBalanceTooLow              FailReason = "SOLVER_BALANCE_TOO_LOW"
	FailReasonDepositedAmountTooLowToFill      FailReason = "DEPOSITED_AMOUNT_TOO_LOW_TO_FILL"
	FailReasonNegativeNewAmountAfterFees       FailReason = "NEGATIVE_NEW_AMOUNT_AFTER_FEES"
	FailReasonNoQuotes                         FailReason = "NO_QUOTES"
	FailReasonMissingRevertData                FailReason = "MISSING_REVERT_DATA"
	FailReasonReverseSwapFailed                FailReason = "REVERSE_SWAP_FAILED"
	FailReasonGenerateSwapFailed               FailReason = "GENERATE_SWAP_FAILED"
	FailReasonTooLittleReceived                FailReason = "TOO_LITTLE_RECEIVED"
	FailReasonExecutionReverted                FailReason = "EXECUTION_REVERTED"
	FailReasonNewCalldataIncludesHigherRentFee FailReason = "NEW_CALLDATA_INCLUDES_HIGHER_RENT_FEE"
	FailReasonTransactionReverted              FailReason = "TRANSACTION_REVERTED"
	FailReasonTransactionTooLarge              FailReason = "TRANSACTION_TOO_LARGE"
	FailReasonOriginCurrencyMismatch           FailReason = "ORIGIN_CURRENCY_MISMATCH"
	FailReasonNoInternalSwapRoutesFound        FailReason = "NO_INTERNAL_SWAP_ROUTES_FOUND"
	FailReasonSwapUsesTooMuchGas               FailReason = "SWAP_USES_TOO_MUCH_GAS"
	FailReasonInsufficientFundsForRent         FailReason = "INSUFFICIENT_FUNDS_FOR_RENT"
	FailReasonSponsorBalanceTooLow             FailReason = "SPONSOR_BALANCE_TOO_LOW"
	FailReasonOrderExpired                     FailReason = "ORDER_EXPIRED"
	FailReasonOrderIsCancelled                 FailReason = "ORDER_IS_CANCELLED"
	FailReasonTransferFromFailed               FailReason = "TRANSFER_FROM_FAILED"
	FailReasonTransferFailed                   FailReason = "TRANSFER_FAILED"
	FailReasonSignatureExpired                 FailReason = "SIGNATURE_EXPIRED"
	FailReasonInvalidSignature                 FailReason = "INVALID_SIGNATURE"
	FailReasonInsufficientNativeTokensSupplied FailReason = "INSUFFICIENT_NATIVE_TOKENS_SUPPLIED"
	FailReasonTransferAmountExceedsAllowance   FailReason = "TRANSFER_AMOUNT_EXCEEDS_ALLOWANCE"
	FailReasonTransferAmountExceedsBalance     FailReason = "TRANSFER_AMOUNT_EXCEEDS_BALANCE"
	FailReasonInvalidSender                    FailReason = "INVALID_SENDER"
	FailReasonAccountAbstractionInvalidNonce   FailReason = "ACCOUNT_ABSTRACTION_INVALID_NONCE"
	FailReasonAccountAbstractionSignatureError FailReason = "ACCOUNT_ABSTRACTION_SIGNATURE_ERROR"
	FailReasonNftMarketInexactFraction         FailReason = "NFT_MARKET_INEXACT_FRACTION"
	FailReasonTokenNotTransferable             FailReason = "TOKEN_NOT_TRANSFERABLE"
	FailReasonZeroSellAmount                   FailReason = "ZERO_SELL_AMOUNT"
	FailReasonMintNotActive                    FailReason = "MINT_NOT_ACTIVE"
	FailReasonErc1155TooManyRequested          FailReason = "ERC_1155_TOO_MANY_REQUESTED"
	FailReasonIncorrectPayment                 FailReason = "INCORRECT_PAYMENT"
	FailReasonInvalidGasPrice                  FailReason = "INVALID_GAS_PRICE"
	FailReasonDexProtocolError                 FailReason = "DEX_PROTOCOL_ERROR"
	FailReasonOrderAlreadyFilled               FailReason = "ORDER_ALREADY_FILLED"
	FailReasonNftMarketInvalidFulfiller        FailReason = "NFT_MARKET_INVALID_FULFILLER"
	FailReasonInvalidSigner                    FailReason = "INVALID_SIGNER"
	FailReasonMintQuantityExceedsMaxPerWallet  FailReason = "MINT_QUANTITY_EXCEEDS_MAX_PER_WALLET"
	FailReasonMintQuantityExceedsMaxSupply     FailReason = "MINT_QUANTITY_EXCEEDS_MAX_SUPPLY"
	FailReasonAggregatorInvalidTokenAccount    FailReason = "AGGREGATOR_INVALID_TOKEN_ACCOUNT"
	FailReasonInvalidNonce                     FailReason = "INVALID_NONCE"
	FailReasonAccountAbstractionGasLimit       FailReason = "ACCOUNT_ABSTRACTION_GAS_LIMIT"
	FailReasonContractPaused                   FailReason = "CONTRACT_PAUSED"
	FailReasonSwapImpactTooHigh                FailReason = "SWAP_IMPACT_TOO_HIGH"
	FailReasonInsufficientPoolLiquidity        FailReason = "INSUFFICIENT_POOL_LIQUIDITY"
	FailReasonPoolCapExceeded                  FailReason = "POOL_CAP_EXCEEDED"
	FailReasonTtlExpired                       FailReason = "TTL_EXPIRED"
	FailReasonDepositConfirmationTimeout       FailReason = "DEPOSIT_CONFIRMATION_TIMEOUT"
	FailReasonOrphanedDepositRefund            FailReason = "ORPHANED_DEPOSIT_REFUND"
	FailReasonGaslessPermitBalanceTooLow       FailReason = "GASLESS_PERMIT_BALANCE_TOO_LOW"
	FailReasonManualAdminRefund                FailReason = "MANUAL_ADMIN_REFUND"
	FailReasonQuotedGasLimitExceeded           FailReason = "QUOTED_GAS_LIMIT_EXCEEDED"
	FailReasonDestinationTokenTransferRejected FailReason = "DESTINATION_TOKEN_TRANSFER_REJECTED"
	FailReasonDepositReorged                   FailReason = "DEPOSIT_REORGED"
	FailReasonBlockedWallet                    FailReason = "BLOCKED_WALLET"
	FailReasonProtocolDeadlineExpired          FailReason = "PROTOCOL_DEADLINE_EXPIRED"
	FailReasonTransactionNotIncluded           FailReason = "TRANSACTION_NOT_INCLUDED"
	FailReasonTransactionSubmissionFailed      FailReason = "TRANSACTION_SUBMISSION_FAILED"
	FailReasonNA                               FailReason = "N/A"
)

// failReasons is the set of valid values, for validation at the edges.
var failReasons = map[FailReason]bool{
	FailReasonUnknown:                          true,
	FailReasonSlippage:                         true,
	FailReasonAmountTooLowToRefund:             true,
	FailReasonDepositAddressMismatch:           true,
	FailReasonDepositChainMismatch:             true,
	FailReasonIncorrectDepositCurrency:         true,
	FailReasonDoubleSpend:                      true,
	FailReasonSolverCapacityExceeded:           true,
	FailReasonSolverBalanceTooLow:              true,
	FailReasonDepositedAmountTooLowToFill:      true,
	FailReasonNegativeNewAmountAfterFees:       true,
	FailReasonNoQuotes:                         true,
	FailReasonMissingRevertData:                true,
	FailReasonReverseSwapFailed:                true,
	FailReasonGenerateSwapFailed:               true,
	FailReasonTooLittleReceived:                true,
	FailReasonExecutionReverted:                true,
	FailReasonNewCalldataIncludesHigherRentFee: true,
	FailReasonTransactionReverted:              true,
	FailReasonTransactionTooLarge:              true,
	FailReasonOriginCurrencyMismatch:           true,
	FailReasonNoInternalSwapRoutesFound:        true,
	FailReasonSwapUsesTooMuchGas:               true,
	FailReasonInsufficientFundsForRent:         true,
	FailReasonSponsorBalanceTooLow:             true,
	FailReasonOrderExpired:                     true,
	FailReasonOrderIsCancelled:                 true,
	FailReasonTransferFromFailed:               true,
	FailReasonTransferFailed:                   true,
	FailReasonSignatureExpired:                 true,
	FailReasonInvalidSignature:                 true,
	FailReasonInsufficientNativeTokensSupplied: true,
	FailReasonTransferAmountExceedsAllowance:   true,
	FailReasonTransferAmountExceedsBalance:     true,
	FailReasonInvalidSender:                    true,
	FailReasonAccountAbstractionInvalidNonce:   true,
	FailReasonAccountAbstractionSignatureError: true,
	FailReasonNftMarketInexactFraction:         true,
	FailReasonTokenNotTransferable:             true,
	FailReasonZeroSellAmount:                   true,
	FailReasonMintNotActive:                    true,
	FailReasonErc1155TooManyRequested:          true,
	FailReasonIncorrectPayment:                 true,
	FailReasonInvalidGasPrice:                  true,
	FailReasonDexProtocolError:                 true,
	FailReasonOrderAlreadyFilled:               true,
	FailReasonNftMarketInvalidFulfiller:        true,
	FailReasonInvalidSigner:                    true,
	FailReasonMintQuantityExceedsMaxPerWallet:  true,
	FailReasonMintQuantityExceedsMaxSupply:     true,
	FailReasonAggregatorInvalidTokenAccount:    true,
	FailReasonInvalidNonce:                     true,
	FailReasonAccountAbstractionGasLimit:       true,
	FailReasonContractPaused:                   true,
	FailReasonSwapImpactTooHigh:                true,
	FailReasonInsufficientPoolLiquidity:        true,
	FailReasonPoolCapExceeded:                  true,
	FailReasonTtlExpired:                       true,
	FailReasonDepositConfirmationTimeout:       true,
	FailReasonOrphanedDepositRefund:            true,
	FailReasonGaslessPermitBalanceTooLow:       true,
	FailReasonManualAdminRefund:                true,
	FailReasonQuotedGasLimitExceeded:           true,
	FailReasonDestinationTokenTransferRejected: true,
	FailReasonDepositReorged:                   true,
	FailReasonBlockedWallet:                    true,
	FailReasonProtocolDeadlineExpired:          true,
	FailReasonTransactionNotIncluded:           true,
	FailReasonTransactionSubmissionFailed:      true,
	FailReasonNA:                               true,
}

// Valid reports whether r is one of the spec's failReason values.
func (r FailReason) Valid() bool { return failReasons[r] }

// RefundFailReason says why the refund leg of a request failed; N/A when none was recorded.
type RefundFailReason string

// The refundFailReason values of the spec, plus N/A.
const (
	RefundFailReasonNA                         RefundFailReason = "N/A"
	RefundFailReasonAmountTooLowToRefund       RefundFailReason = "AMOUNT_TOO_LOW_TO_REFUND"
	RefundFailReasonNegativeNewAmountAfterFees RefundFailReason = "NEGATIVE_NEW_AMOUNT_AFTER_FEES"
	RefundFailReasonSwapCurrencyNotOnOrigin    RefundFailReason = "SWAP_CURRENCY_NOT_ON_ORIGIN"
	RefundFailReasonRefundRecipientIsVasp      RefundFailReason = "REFUND_RECIPIENT_IS_VASP"
	RefundFailReasonRefundRecipientIsBlocked   RefundFailReason = "REFUND_RECIPIENT_IS_BLOCKED"
	RefundFailReasonManualRefundRequired       RefundFailReason = "MANUAL_REFUND_REQUIRED"
)

// Valid reports whether r is one of the spec's refundFailReason values (N/A included).
func (r RefundFailReason) Valid() bool {
	switch r {
	case RefundFailReasonNA, RefundFailReasonAmountTooLowToRefund, RefundFailReasonNegativeNewAmountAfterFees,
		RefundFailReasonSwapCurrencyNotOnOrigin, RefundFailReasonRefundRecipientIsVasp,
		RefundFailReasonRefundRecipientIsBlocked, RefundFailReasonManualRefundRequired:
		return true
	}
	return false
}

// ForStatus is the failReason clients see for a request in status s: the recorded reason on
// failure and refund (UNKNOWN when none or an unknown one was recorded), N/A in every other
// status. The status endpoint, the workflow's failures and the read model all use it, so the
// N/A and UNKNOWN rules of the spec live here only.
func (r FailReason) ForStatus(s Status) FailReason {
	switch s {
	case StatusFailure, StatusRefund:
		if r == "" || r == FailReasonNA || !r.Valid() {
			return FailReasonUnknown
		}
		return r
	default:
		return FailReasonNA
	}
}

// OrNA is the refundFailReason to show: N/A when none was recorded.
func (r RefundFailReason) OrNA() RefundFailReason {
	if r == "" {
		return RefundFailReasonNA
	}
	return r
}
