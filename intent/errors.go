package intent

import "errors"

// Error sentinels shared across the engine's boundaries, so a package that reaches a dependency
// through an interface can classify its errors without importing the dependency's package.
var (
	// ErrNotFound is returned by the engine's repositories when a row asked for by key does not
	// exist (store.ErrNotFound is this error).
	ErrNotFound = errors.New("not found")
	// ErrUnavailable is wrapped by every error that means a dependency (the database, a chain's
	// RPC, the oracle) could not answer this time: the same call may succeed later, so callers
	// retry it or answer 503, never treat it as a final answer.
	ErrUnavailable = errors.New("unavailable")
	// ErrVoided is returned when asked to replace a solver transaction that was signed for a
	// chain since reset (a new genesis; the stored transaction is voided): nothing is signed at its nonce again.
	ErrVoided = errors.New("the transaction was signed for a chain that has since been reset")
)
