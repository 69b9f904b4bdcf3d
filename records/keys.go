package records

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/intentd/intentd/intent"
)

// Key names a record field a search can test, as the query parameters and the `filters`
// language name it.
type Key string

// The searchable fields.
const (
	KeyID                 Key = "id"
	KeyOrderID            Key = "orderId"
	KeyUser               Key = "user"
	KeyRecipient          Key = "recipient"
	KeyDepositAddress     Key = "depositAddress"
	KeyOriginChainID      Key = "originChainId"
	KeyDestinationChainID Key = "destinationChainId"
	KeyChainID            Key = "chainId" // either direction
	KeyStatus             Key = "status"
	KeyFailReason         Key = "failReason"
	KeyRefundFailReason   Key = "refundFailReason"
	KeyReferrer           Key = "referrer"
	KeyRequestType        Key = "requestType"
	KeyCurrencyInChainID  Key = "currencyInChainId"
	KeyCurrencyInAddress  Key = "currencyInAddress"
	KeyCurrencyInSymbol   Key = "currencyInSymbol"
	KeyCurrencyOutChainID Key = "currencyOutChainId"
	KeyCurrencyOutAddress Key = "currencyOutAddress"
	KeyCurrencyOutSymbol  Key = "currencyOutSymbol"
	KeyDepositTxHash      Key = "depositTxHash"
	KeyFillTxHash         Key = "fillTxHash"
	KeyRefundTxHash       Key = "refundTxHash"
	KeyTxHash             Key = "hash" // any transaction of the request (v2's hash)
	KeyTerm               Key = "term" // request id, wallet, deposit address or any transaction hash
	// KeyV2User is v2's user: the sender or the recipient.
	KeyV2User Key = "v2user"
)

// kind is how a key's values are read.
type kind int

const (
	kindHash    kind = iota // 0x + 64 hex, compared lower-case
	kindTxHash              // a transaction id: 0x + 64 hex, compared lower-case, or a base58 signature, compared exactly
	kindAddress             // 0x + 40 hex, compared lower-case, or a base58 key, compared exactly
	kindChain               // a chain id
	kindSymbol              // compared lower-case
	kindText                // compared exactly
	kindStatus              // a status value
	kindTerm                // a hash, an address or a request id
)

// keyKinds lists every key a search understands, with its kind. Keys the `filters` language
// accepts are FilterKeys.
var keyKinds = map[Key]kind{
	KeyID: kindHash, KeyOrderID: kindHash, KeyUser: kindAddress, KeyRecipient: kindAddress,
	KeyDepositAddress: kindAddress, KeyOriginChainID: kindChain, KeyDestinationChainID: kindChain,
	KeyChainID: kindChain, KeyStatus: kindStatus, KeyFailReason: kindText, KeyRefundFailReason: kindText,
	KeyReferrer: kindText, KeyRequestType: kindText, KeyCurrencyInChainID: kindChain,
	KeyCurrencyInAddress: kindAddress, KeyCurrencyInSymbol: kindSymbol, KeyCurrencyOutChainID: kindChain,
	KeyCurrencyOutAddress: kindAddress, KeyCurrencyOutSymbol: kindSymbol, KeyDepositTxHash: kindTxHash,
	KeyFillTxHash: kindTxHash, KeyRefundTxHash: kindTxHash, KeyTxHash: kindTxHash, KeyTerm: kindTerm,
	KeyV2User: kindAddress,
}

// FilterKeys are the keys a `filters` group may hold: identity, address, chain, currency and
// status-style fields (ranges, features and API keys are top-level parameters only).
var FilterKeys = []Key{KeyID, KeyOrderID, KeyUser, KeyRecipient, KeyDepositAddress, KeyOriginChainID,
	KeyDestinationChainID, KeyChainID, KeyStatus, KeyFailReason, KeyRefundFailReason, KeyReferrer, KeyRequestType,
	KeyCurrencyInChainID, KeyCurrencyInAddress, KeyCurrencyInSymbol, KeyCurrencyOutChainID, KeyCurrencyOutAddress,
	KeyCurrencyOutSymbol, KeyDepositTxHash, KeyFillTxHash, KeyRefundTxHash}

// isFilterKey reports whether k may appear in a `filters` group.
func isFilterKey(k Key) bool {
	for _, f := range FilterKeys {
		if f == k {
			return true
		}
	}
	return false
}

// maxValueLen bounds one value: the longest a field holds is a 66-character hash; referrers and
// request types are at most 64 characters.
const maxValueLen = 128

// NormalizeValue checks a value of key k and returns it as the search compares it.
func NormalizeValue(k Key, v string) (string, error) {
	knd, ok := keyKinds[k]
	if !ok {
		return "", fmt.Errorf("unknown filter key %q", k)
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return "", fmt.Errorf("%s has an empty value", k)
	}
	if len(v) > maxValueLen {
		return "", fmt.Errorf("%s is longer than %d characters", k, maxValueLen)
	}
	switch knd {
	case kindHash:
		if !intent.IsHash32(v) {
			return "", fmt.Errorf("%s must be a 0x-prefixed 32-byte hex hash", k)
		}
		return strings.ToLower(v), nil
	case kindTxHash:
		if intent.IsBase58Signature(v) {
			return v, nil // a Solana signature: case-sensitive
		}
		if !intent.IsHash32(v) {
			return "", fmt.Errorf("%s must be a 0x-prefixed 32-byte hex hash or a base58 transaction signature", k)
		}
		return strings.ToLower(v), nil
	case kindAddress:
		if intent.IsBase58Key(v) {
			return v, nil // a Solana address: case-sensitive
		}
		if !intent.IsAddress(v) {
			return "", fmt.Errorf("%s must be a 0x-prefixed 20-byte hex address or a base58 address", k)
		}
		if !intent.ChecksumValid(v) {
			return "", fmt.Errorf("%s %s %s", k, v, intent.ErrAddressChecksum)
		}
		return strings.ToLower(v), nil
	case kindChain:
		n, err := strconv.ParseUint(v, 10, 63)
		if err != nil || n == 0 {
			return "", fmt.Errorf("%s must be a chain id (a positive integer)", k)
		}
		return strconv.FormatUint(n, 10), nil
	case kindStatus:
		if !intent.Status(v).Valid() {
			return "", fmt.Errorf("status %q is not a request status", v)
		}
		return v, nil
	case kindTerm:
		if intent.IsBase58Key(v) || intent.IsBase58Signature(v) {
			return v, nil
		}
		return strings.ToLower(v), nil
	case kindSymbol:
		return strings.ToLower(v), nil
	default:
		return v, nil
	}
}
