package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Status (GET /intents/status/v3) is one indexed read: under a burst of concurrent polls the
// reads share queries, and each caller still gets its own request's row, or ErrNotFound for an
// id that does not exist, never another's.
func TestStatusUnderConcurrentPollsAnswersEachRequestItsOwnRow(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	const n = 50
	for i := range n {
		if _, err := pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
			destination_chain_id, order_id, record) VALUES ($1, 'pending', '0xu', '0xr', $2, 31338, $3, '{}')`,
			fmt.Sprintf("0x%064x", i), 1000+i, fmt.Sprint("order", i)); err != nil {
			t.Fatal(err)
		}
	}
	st := store.New(pool)
	var wg sync.WaitGroup
	for round := range 20 {
		for i := range n + 5 { // five ids of every round do not exist
			wg.Add(1)
			go func() {
				defer wg.Done()
				row, err := st.Status(ctx, fmt.Sprintf("0x%064x", i))
				switch {
				case i >= n && !errors.Is(err, store.ErrNotFound):
					t.Errorf("round %d, unknown id %d: %v, want ErrNotFound", round, i, err)
				case i < n && err != nil:
					t.Errorf("round %d, id %d: %v", round, i, err)
				case i < n && row.OriginChainID != uint64(1000+i):
					t.Errorf("round %d, id %d: got the row of origin %d", round, i, row.OriginChainID)
				}
			}()
		}
	}
	wg.Wait()
}
