package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/mail"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// The integrator dashboard's people (docs/dashboard.md): users of an integrator with a role,
// who sign in with an email and a password or with a one-time link, and hold a session. This
// file has what is decided without the database: roles, the password's hash, the tokens.

// Role is what a dashboard user may do.
type Role string

// Roles. An owner manages the team and the keys; a developer the keys and their webhooks; a
// support user sees requests, and of the keys their labels only.
const (
	RoleOwner     Role = "owner"
	RoleDeveloper Role = "developer"
	RoleSupport   Role = "support"
)

// CheckRole refuses a role that is none of the three.
func CheckRole(r Role) error {
	switch r {
	case RoleOwner, RoleDeveloper, RoleSupport:
		return nil
	}
	return invalidf("role must be owner, developer or support")
}

// ManagesKeys reports whether r may see and change keys and webhooks (support may not).
func (r Role) ManagesKeys() bool { return r == RoleOwner || r == RoleDeveloper }

// DashboardUser is a person of an integrator who signs in to the dashboard. The password's
// hash never leaves the store.
type DashboardUser struct {
	ID           string
	IntegratorID string
	Email        string
	Role         Role
	HasPassword  bool
	CreatedAt    time.Time
	LastSignIn   *time.Time
	// Operator marks a user of the engine's own staff (set by the admin API only): the
	// dashboard links them to a request's workflow.
	Operator bool
}

// DashboardUserView is what the dashboard, the admin API and the audit trail show of a user.
type DashboardUserView struct {
	ID           string     `json:"id"`
	IntegratorID string     `json:"integratorId"`
	Email        string     `json:"email"`
	Role         Role       `json:"role"`
	HasPassword  bool       `json:"hasPassword"`
	CreatedAt    time.Time  `json:"createdAt"`
	LastSignIn   *time.Time `json:"lastSignInAt"`
	Operator     bool       `json:"operator"`
}

// View is the user as shown.
func (u *DashboardUser) View() DashboardUserView {
	return DashboardUserView{ID: u.ID, IntegratorID: u.IntegratorID, Email: u.Email, Role: u.Role, HasPassword: u.HasPassword,
		CreatedAt: u.CreatedAt, LastSignIn: u.LastSignIn, Operator: u.Operator}
}

// MaxEmailLen bounds an email address (RFC 5321's path limit).
const MaxEmailLen = 254

// NormalizeEmail is an email address as it is stored and compared: trimmed, lower case, a bare
// address (no display name). Anything else is refused.
func NormalizeEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || len(s) > MaxEmailLen || !utf8.ValidString(s) {
		return "", invalidf("email must be an email address")
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return "", invalidf("email must be an email address")
	}
	return s, nil
}

// Passwords are bounded: long enough to resist guessing, short enough that hashing one is cheap.
const (
	MinPasswordLen = 12
	MaxPasswordLen = 256
)

// CheckPassword refuses a password outside the bounds.
func CheckPassword(p string) error {
	if n := utf8.RuneCountInString(p); n < MinPasswordLen || len(p) > MaxPasswordLen {
		return invalidf("a password has %d to %d characters", MinPasswordLen, MaxPasswordLen)
	}
	return nil
}

// The password hash: argon2id with OWASP's minimum parameters for it (19 MiB, two passes, one
// lane), a 16-byte salt and a 32-byte key, encoded in the PHC string format so that a hash
// made with other parameters is still checked with its own.
const (
	argonMemoryKiB = 19 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonKeyLen    = 32
	argonSaltLen   = 16
)

// argonSlots bounds the password hashes computed at once in a process: each takes 19 MiB, so a
// burst of sign-ins (from many clients, each within its limit) waits its turn rather than taking
// the memory of hundreds of hashes.
var argonSlots = make(chan struct{}, 4)

// idKey is argon2.IDKey in one of argonSlots.
func idKey(password, salt []byte, passes, mem uint32, threads uint8, keyLen uint32) []byte {
	argonSlots <- struct{}{}
	defer func() { <-argonSlots }()
	return argon2.IDKey(password, salt, passes, mem, threads, keyLen)
}

// HashPassword is the stored form of a password: $argon2id$v=19$m=…,t=…,p=…$salt$key.
func HashPassword(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("auth: random salt: %w", err)
	}
	key := idKey([]byte(password), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemoryKiB, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// dummyHash is checked when there is no hash to check (an unknown email, a user without a
// password), so that such a sign-in takes as long as a wrong password and the two answer alike.
// It is made at its first use, so that the processes that never check a password never pay
// for it.
var dummyHash = sync.OnceValue(func() string {
	h, err := HashPassword("not a password of anyone: a fixed dummy")
	if err != nil {
		panic(err)
	}
	return h
})

// PasswordMatches reports whether password is the one hashed as encoded. An empty encoded (no
// user, no password) checks a dummy hash and reports false, in the time a real check takes.
func PasswordMatches(encoded, password string) bool {
	if encoded == "" {
		PasswordMatches(dummyHash(), password)
		return false
	}
	var version int
	var mem, passes uint32
	var threads uint8
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &passes, &threads); err != nil || threads == 0 || passes == 0 ||
		mem > 1<<20 {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := idKey([]byte(password), salt, passes, mem, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// NewSecretToken is a session's or a one-time link's token: 256 random bits, base64url. It is
// given once (a cookie, a link) and stored only as its TokenHash.
func NewSecretToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("auth: random token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// TokenHash is how a session or link token is stored and looked up: its SHA-256 (256 random
// bits need no stretching).
func TokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// WellFormedToken reports whether s can be a NewSecretToken at all, so a malformed cookie or
// link is refused without a database query.
func WellFormedToken(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == 32
}

// CSRFToken is the session's CSRF token: derived from the session token (an HMAC under it), so
// it is never stored, cannot be computed without the cookie, and dies with the session. The
// dashboard reads it from GET /dashboard/api/me and sends it as X-CSRF-Token.
func CSRFToken(sessionToken string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("intentd dashboard csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CSRFMatches compares a presented CSRF token with the session's in constant time.
func CSRFMatches(sessionToken, presented string) bool {
	want := CSRFToken(sessionToken)
	return presented != "" && subtle.ConstantTimeCompare([]byte(want), []byte(presented)) == 1
}
