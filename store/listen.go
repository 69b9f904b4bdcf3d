package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// ListenStatus listens on StatusChannel until ctx ends, calling notice for every notification
// in commit order. It holds one connection of the pool for itself and reconnects with backoff
// when it loses it; connected is called each time the LISTEN is in place (the first time too),
// after which no notification is missed: a listener that was away catches up from the outbox
// (OutboxEventsSince) from the moment it lost the connection.
func (s *Store) ListenStatus(ctx context.Context, connected func(), notice func(StatusNotice)) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = 100*time.Millisecond, 5*time.Second, 0
	for ctx.Err() == nil {
		err := s.listenOnce(ctx, func() { b.Reset(); connected() }, notice)
		if ctx.Err() != nil {
			break
		}
		_ = err // the caller sees the gap through connected; the next attempt is logged by the pool
		select {
		case <-ctx.Done():
		case <-time.After(b.NextBackOff()):
		}
	}
	return ctx.Err()
}

func (s *Store) listenOnce(ctx context.Context, connected func(), notice func(StatusNotice)) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer func() {
		// A connection that was listening goes back to the pool only once it no longer is.
		if _, err := conn.Exec(context.Background(), "UNLISTEN *"); err != nil {
			_ = conn.Hijack().Close(context.Background())
			return
		}
		conn.Release()
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+StatusChannel); err != nil {
		return err
	}
	connected()
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		var sn StatusNotice
		if json.Unmarshal([]byte(n.Payload), &sn) == nil && sn.ID > 0 {
			notice(sn)
		}
	}
}
