package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/semaphore"

	"github.com/intentd/intentd/internal/refresh"
)

// Source is where the resolver finds keys (store.Store).
type Source interface {
	// KeyByHash returns the key stored under hash, revoked or not, with the hash as stored,
	// or nil, nil, nil when no key has that hash. Any error means the key could not be checked.
	KeyByHash(ctx context.Context, hash []byte) (*Key, []byte, error)
	// TouchKeys records when keys were last used (key id -> time); a time never moves back.
	TouchKeys(ctx context.Context, used map[string]time.Time) error
}

// ResolverOptions tune a Resolver; the zero value is the production setting.
type ResolverOptions struct {
	// MaxAge is how old a resolved key may be and still be served, and so how long a revoked
	// key keeps working at most on a process that resolved it before. 0 means 5 s.
	MaxAge time.Duration
	// Unknown is how many unknown key hashes are remembered, so a repeated wrong key costs no
	// query; the least recently seen is forgotten first. Known keys live apart and are never
	// evicted by unknown ones. 0 means 10,000.
	Unknown int
	// UnknownTTL is how long an unknown hash is remembered. 0 means 10 minutes (a key value
	// is random: nobody presents one before it is created).
	UnknownTTL time.Duration
	// Lookups bounds the database lookups of keys this process has never found live that run
	// at once, so guessed keys never take more than that many connections. 0 means 4.
	Lookups int64
	// Refreshes bounds, apart, the lookups of keys this process has found live before (a
	// background refresh, or a key unused for longer than MaxAge): a flood of guessed keys
	// queues on Lookups and never delays them. 0 means 4.
	Refreshes int64
	// Known is how many keys found live are remembered as such (their hashes), the least
	// recently used forgotten first; only live keys enter, so it is bounded by the keys in use.
	// 0 means 100,000.
	Known int
	// FlushEvery is how often last-used times are written. 0 means 30 s.
	FlushEvery time.Duration
	Now        func() time.Time
	Logger     *slog.Logger
}

// Resolver turns a presented x-api-key into the Key it stands for. Known keys are cached for at
// most MaxAge (refreshed in the background before that), unknown hashes in a bounded LRU of
// their own; the hash the database returns is compared with the presented one in constant
// time. The lookups of keys never found live (what a guess costs) and those of keys found live
// before take two separate semaphores, so guesses never hold up a real key. Use is recorded in
// memory and written in batches (Run), never on the request path. It is safe for concurrent use.
type Resolver struct {
	src        Source
	opt        ResolverOptions
	known      *refresh.Cache[string, *Key]
	sem        *semaphore.Weighted // lookups of hashes never found live
	refreshSem *semaphore.Weighted // lookups of hashes found live before

	seen *lru.Cache[string, struct{}] // hashes found live at least once (safe for concurrent use)

	unknownMu sync.Mutex
	unknown   *lru.Cache[string, time.Time] // hash -> when it was found unknown

	usedMu sync.Mutex
	used   map[string]time.Time // key id -> last use, not yet written
}

// errUnknownKey is the known-key cache's load error for a hash that is no live key: it drops
// any cached key at once (a revoked key stops at the next refresh) and is never cached there.
var errUnknownKey = errors.New("auth: no such key")

// NewResolver returns a resolver over src.
func NewResolver(src Source, opt ResolverOptions) *Resolver {
	if opt.MaxAge <= 0 {
		opt.MaxAge = 5 * time.Second
	}
	if opt.Unknown <= 0 {
		opt.Unknown = 10_000
	}
	if opt.UnknownTTL <= 0 {
		opt.UnknownTTL = 10 * time.Minute
	}
	if opt.Lookups <= 0 {
		opt.Lookups = 4
	}
	if opt.Refreshes <= 0 {
		opt.Refreshes = 4
	}
	if opt.Known <= 0 {
		opt.Known = 100_000
	}
	if opt.FlushEvery <= 0 {
		opt.FlushEvery = 30 * time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	unknown, _ := lru.New[string, time.Time](opt.Unknown) // sizes are positive: no error
	seen, _ := lru.New[string, struct{}](opt.Known)
	r := &Resolver{src: src, opt: opt, sem: semaphore.NewWeighted(opt.Lookups), refreshSem: semaphore.NewWeighted(opt.Refreshes),
		seen: seen, unknown: unknown, used: map[string]time.Time{}}
	r.known = refresh.New(r.load, refresh.Options{Fresh: opt.MaxAge * 4 / 5, MaxAge: opt.MaxAge, Now: opt.Now,
		Drop: func(err error) bool { return errors.Is(err, errUnknownKey) }})
	return r
}

// Resolve returns the live key value stands for, or nil, nil when it stands for none (not a
// key, unknown, revoked). An error means the key could not be checked (the database did not
// answer): the caller must not treat the request as anonymous.
func (r *Resolver) Resolve(ctx context.Context, value string) (*Key, error) {
	if !WellFormed(value) {
		return nil, nil
	}
	hash := string(Hash(value))
	if r.isUnknown(hash) {
		return nil, nil
	}
	k, err := r.known.Get(ctx, hash)
	switch {
	case errors.Is(err, errUnknownKey):
		r.unknownMu.Lock()
		r.unknown.Add(hash, r.opt.Now())
		r.unknownMu.Unlock()
		return nil, nil
	case err != nil:
		return nil, err
	}
	r.usedMu.Lock()
	r.used[k.ID] = r.opt.Now()
	r.usedMu.Unlock()
	return k, nil
}

// LookupGate is asked before the database is asked about a key this process has never found
// live (the lookup a guessed key costs): the API counts it against the caller's unknown-key limit
// there, and an error refuses the lookup (Resolve returns it). It is asked once per lookup:
// requests that present one key at the same moment share its lookup, and so its one count. A
// key found live before, a hash found unknown lately (answered from memory) and a value that
// cannot be a key never reach it.
type LookupGate func(ctx context.Context) error

type lookupGateKey struct{}

// WithLookupGate returns ctx carrying gate, for Resolve.
func WithLookupGate(ctx context.Context, gate LookupGate) context.Context {
	return context.WithValue(ctx, lookupGateKey{}, gate)
}

// isUnknown reports whether hash was found unknown less than UnknownTTL ago.
func (r *Resolver) isUnknown(hash string) bool {
	r.unknownMu.Lock()
	defer r.unknownMu.Unlock()
	at, ok := r.unknown.Get(hash)
	if ok && r.opt.Now().Sub(at) >= r.opt.UnknownTTL {
		r.unknown.Remove(hash)
		return false
	}
	return ok
}

// load asks the source for hash: at most Refreshes at once for a hash found live before, at
// most Lookups at once for any other, once the LookupGate of the request that started the load
// (its context's) lets it.
func (r *Resolver) load(ctx context.Context, hash string) (*Key, error) {
	sem := r.sem
	if r.seen.Contains(hash) {
		sem = r.refreshSem
	} else if gate, ok := ctx.Value(lookupGateKey{}).(LookupGate); ok && gate != nil {
		if err := gate(ctx); err != nil {
			return nil, err
		}
	}
	if err := sem.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	defer sem.Release(1)
	k, stored, err := r.src.KeyByHash(ctx, []byte(hash))
	switch {
	case err != nil:
		return nil, err
	case k == nil || k.RevokedAt != nil,
		// The database matched on an index; the key is taken only if the stored hash is the
		// presented one, compared in constant time.
		subtle.ConstantTimeCompare(stored, []byte(hash)) != 1:
		r.seen.Remove(hash)
		return nil, errUnknownKey
	}
	r.seen.Add(hash, struct{}{})
	return k, nil
}

// Run writes last-used times every FlushEvery until ctx ends, then once more.
func (r *Resolver) Run(ctx context.Context) {
	t := time.NewTicker(r.opt.FlushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := r.Flush(ctx); err != nil && ctx.Err() == nil {
				r.opt.Logger.Warn("api keys: last-used times not written; retried at the next flush", "error", err)
			}
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := r.Flush(fctx); err != nil {
				r.opt.Logger.Warn("api keys: last-used times not written at shutdown", "error", err)
			}
			return
		}
	}
}

// Flush writes the last-used times recorded since the last flush in one batch. On failure
// they are kept for the next one.
func (r *Resolver) Flush(ctx context.Context) error {
	r.usedMu.Lock()
	batch := r.used
	r.used = map[string]time.Time{}
	r.usedMu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := r.src.TouchKeys(ctx, batch)
	if err != nil {
		r.usedMu.Lock()
		for id, at := range batch {
			if cur, ok := r.used[id]; !ok || at.After(cur) {
				r.used[id] = at
			}
		}
		r.usedMu.Unlock()
	}
	return err
}
