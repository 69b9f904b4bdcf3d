package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
)

// KeyPrefix starts every key value, so a leaked key is easy to recognise (secret scanners,
// logs) and a value that is not one of ours is refused without a database query.
const KeyPrefix = "ik_"

// keyHexLen is the length of a key value's random part: 32 bytes (256 bits) as hex.
const keyHexLen = 64

// prefixLen is how much of a key value is kept in plain text to recognise it in lists: the
// prefix and 6 hex characters (24 of the 256 bits).
const prefixLen = len(KeyPrefix) + 6

// NewKeyValue makes a new key value: KeyPrefix and 64 hex characters from crypto/rand. It is
// returned once to whoever creates the key and never stored; Hash and DisplayPrefix are what is.
func NewKeyValue() (string, error) {
	var b [keyHexLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("auth: random key: %w", err)
	}
	return KeyPrefix + hex.EncodeToString(b[:]), nil
}

// Hash is how a key value is stored and looked up: its SHA-256. Key values carry 256 bits of
// entropy, so no stretching is needed (there is nothing to brute-force).
func Hash(value string) []byte {
	h := sha256.Sum256([]byte(value))
	return h[:]
}

// DisplayPrefix is the part of a key value shown in lists and the audit trail.
func DisplayPrefix(value string) string {
	if len(value) < prefixLen {
		return value
	}
	return value[:prefixLen]
}

// WellFormed reports whether s can be a key value at all (KeyPrefix and 64 lowercase hex
// characters), so the resolver refuses anything else without asking the database.
func WellFormed(s string) bool {
	if len(s) != len(KeyPrefix)+keyHexLen || !strings.HasPrefix(s, KeyPrefix) {
		return false
	}
	for _, c := range s[len(KeyPrefix):] {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ErrInvalid is wrapped by every refusal of a value given to a key or an integrator (a label
// too long, an unknown tier, a bad address): the caller's mistake, answered 400.
var ErrInvalid = errors.New("invalid")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Bounds of the free-text fields (the dashboard shows them; the audit keeps them).
const (
	MaxLabelLen = 100
	MaxNameLen  = 200
)

var environmentRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// DefaultEnvironment is a new key's environment when none is named.
const DefaultEnvironment = "production"

// CheckLabel checks a key's label or an integrator's name: printable text, not blank, at most
// max characters.
func CheckLabel(field, s string, max int) error {
	switch {
	case strings.TrimSpace(s) == "":
		return invalidf("%s must not be empty", field)
	case !utf8.ValidString(s) || utf8.RuneCountInString(s) > max:
		return invalidf("%s must be at most %d characters of text", field, max)
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return invalidf("%s must not contain control characters", field)
	}
	return nil
}

// CheckEnvironment checks a key's environment: a short lowercase word such as "production",
// "staging" or "dev".
func CheckEnvironment(env string) error {
	if !environmentRE.MatchString(env) {
		return invalidf("environment %q must be a lowercase word of up to 32 characters (a-z, 0-9, - and _), e.g. production", env)
	}
	return nil
}

// CheckLimits checks a key's tier and own limits: a known tier, and for each named bucket a
// positive count per positive period. Custom limits need the custom tier or override the
// tier's for the buckets they name.
func CheckLimits(tier Tier, limits map[string]Rate) error {
	if !tier.Valid() {
		return invalidf("tier %q must be one of %s, %s, %s", tier, TierDefault, TierElevated, TierCustom)
	}
	for bucket, r := range limits {
		if bucket == "" || len(bucket) > 64 {
			return invalidf("a limit's bucket name must be 1 to 64 characters")
		}
		if r.Count <= 0 || r.Period <= 0 {
			return invalidf("limit %q must be a positive count per positive period", bucket)
		}
	}
	if tier == TierCustom && len(limits) == 0 {
		return invalidf("tier custom needs at least one limit")
	}
	return nil
}

// CheckIntegrator checks an integrator's profile and writes its addresses in checksum form: a
// name, payout and sponsorship addresses that are EVM addresses or empty, and a sponsorship
// wallet named together with its chain.
func CheckIntegrator(in *Integrator) error {
	if err := CheckLabel("name", in.Name, MaxNameLen); err != nil {
		return err
	}
	for _, a := range []struct {
		field string
		value *string
	}{{"payoutAddress", &in.PayoutAddress}, {"sponsorWallet", &in.SponsorWallet}} {
		if *a.value == "" {
			continue
		}
		v := *a.value
		if strings.HasPrefix(v, "0X") {
			v = "0x" + v[2:] // the prefix's other spelling, as go-ethereum reads it
		}
		if !intent.IsAddress(v) || len(v) != 42 || intent.IsZeroAddress(v) {
			return invalidf("%s %q must be a 0x-prefixed EVM address (not the zero address), or empty for none", a.field, *a.value)
		}
		if !intent.ChecksumValid(*a.value) {
			return invalidf("%s %s %s", a.field, *a.value, intent.ErrAddressChecksum)
		}
		*a.value = intent.ChecksumAddress(*a.value)
	}
	if (in.SponsorWallet == "") != (in.SponsorChainID == 0) {
		return invalidf("sponsorWallet and sponsorChainId are set together (or both left empty)")
	}
	return nil
}

// maxUSD bounds a single sponsorship top-up or adjustment: a typo of a few zeros is refused.
var maxUSD = decimal.New(1, 9) // USD 1,000,000,000

// CheckUSD checks a USD amount moved on a sponsorship balance: not zero, at most 6 decimal
// places, and under USD 1,000,000,000 either way.
func CheckUSD(field string, d decimal.Decimal) error {
	switch {
	case d.IsZero():
		return invalidf("%s must not be zero", field)
	case d.Exponent() < -6 && !d.Equal(d.Round(6)):
		return invalidf("%s must have at most 6 decimal places", field)
	case d.Abs().GreaterThanOrEqual(maxUSD):
		return invalidf("%s must be below USD %s", field, maxUSD)
	}
	return nil
}
