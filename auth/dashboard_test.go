package auth

import (
	"strings"
	"testing"
)

// Issue 39: "password hashed with a well-kept KDF": argon2id in the PHC format, a salt per hash,
// checked with the parameters it was made with; a missing hash checks a dummy and never matches.
func TestPasswordsAreHashedWithArgon2idAndCheckedInConstantWork(t *testing.T) {
	h1, err := HashPassword("correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := HashPassword("correct horse battery staple")
	if !strings.HasPrefix(h1, "$argon2id$v=19$m=19456,t=2,p=1$") || h1 == h2 || strings.Contains(h1, "horse") {
		t.Fatalf("hashes %q %q", h1, h2)
	}
	if !PasswordMatches(h1, "correct horse battery staple") || PasswordMatches(h1, "correct horse battery stapler") ||
		PasswordMatches("", "") || PasswordMatches("$argon2id$v=19$m=1,t=1,p=1$$", "") || PasswordMatches("plain", "plain") {
		t.Fatal("a password check answered wrongly")
	}
	// Weaker parameters of an older hash are read from the hash itself.
	old := strings.Replace(h1, "m=19456,t=2", "m=8192,t=1", 1)
	if PasswordMatches(old, "correct horse battery staple") {
		t.Fatal("a hash was checked with parameters it was not made with")
	}
}

// The CSRF token is the session's own: another session's token, or none, does not match.
func TestTheCSRFTokenIsTheSessionsOwn(t *testing.T) {
	a, _ := NewSecretToken()
	b, _ := NewSecretToken()
	if !WellFormedToken(a) || WellFormedToken(a+"x") || a == b {
		t.Fatalf("tokens %q %q", a, b)
	}
	if !CSRFMatches(a, CSRFToken(a)) || CSRFMatches(a, CSRFToken(b)) || CSRFMatches(a, "") || CSRFToken(a) == a {
		t.Fatal("the CSRF token is not the session's own")
	}
}

func TestEmailsAreComparedInLowerCaseAndBare(t *testing.T) {
	for in, want := range map[string]string{" Owner@Acme.Example ": "owner@acme.example", "a.b+c@d.co": "a.b+c@d.co"} {
		if got, err := NormalizeEmail(in); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "owner", "Owner <o@a.example>", "o@a.example, p@a.example", strings.Repeat("a", 250) + "@b.co"} {
		if _, err := NormalizeEmail(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
