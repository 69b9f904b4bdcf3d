package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 33, point 10: "A new genesis must reset what the engine holds for the old chain (nonce
// allocation, outstanding signed transactions of that chain that can never land …) … a request
// whose fill was signed on the old chain must not be paid twice". After ResetChain: the old
// transactions are voided, commit nothing, are never replaced; the next signing starts from the
// new chain's nonce (0 again, the same nonce as an old transaction); the request signed before
// gets its voided transaction back, not a second one; a second ResetChain with the same genesis
// changes nothing.
func TestANewGenesisVoidsTheOldChainsTransactionsAndStartsItsNoncesAgain(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	ids := []string{fmt.Sprintf("0x%064x", 1), fmt.Sprintf("0x%064x", 2)}
	for _, id := range ids {
		if _, err := pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
			destination_chain_id, order_id, record) VALUES ($1, 'submitted', '0xu', '0xr', 31337, 31338, $1, '{}')`, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SetCursor(ctx, store.Cursor{ChainID: 31338, GenesisHash: "0xold", Block: 500, BlockHash: "0xb"}); err != nil {
		t.Fatal(err)
	}
	held := &intent.Holdings{Native: big.NewInt(1_000_000)}
	pays := intent.Commitment{Amount: big.NewInt(600_000)}
	sign := func(tag string) func(uint64) (string, []byte, error) {
		return func(nonce uint64) (string, []byte, error) {
			return fmt.Sprintf("0x%s-%d", tag, nonce), []byte{byte(nonce)}, nil
		}
	}
	old, err := st.PrepareSolverTx(ctx, ids[0], "fill", 31338, "0xSolver", 0, pays, held, sign("old"))
	if err != nil || old.Nonce != 0 {
		t.Fatalf("the old chain's fill: %+v, %v", old, err)
	}

	if reset, _, err := st.ResetChain(ctx, 31338, "0xold"); err != nil || reset {
		t.Fatalf("the same genesis reset the chain (%v, %v)", reset, err)
	}
	reset, voided, err := st.ResetChain(ctx, 31338, "0xnew")
	if err != nil || !reset || voided != 1 {
		t.Fatalf("reset %v, voided %d, %v; want one transaction voided", reset, voided, err)
	}
	if again, _, err := st.ResetChain(ctx, 31338, "0xnew"); err != nil || again {
		t.Fatalf("a second reset to the same genesis changed something (%v, %v)", again, err)
	}
	if c, err := st.Cursor(ctx, 31338); err != nil || c.GenesisHash != "0xnew" || c.Block != 0 {
		t.Fatalf("the cursor after the reset: %+v, %v", c, err)
	}

	// Nonce 0 again, and the old fill's 600,000 no longer held against the balance of 1,000,000.
	fresh, err := st.PrepareSolverTx(ctx, ids[1], "fill", 31338, "0xSolver", 0, pays, held, sign("new"))
	if err != nil || fresh.Nonce != 0 || fresh.Voided {
		t.Fatalf("the new chain's first fill: %+v, %v; want nonce 0, the old fill committing nothing", fresh, err)
	}
	// The request signed for the old chain gets its voided fill back: nothing signed twice.
	back, err := st.PrepareSolverTx(ctx, ids[0], "fill", 31338, "0xSolver", 0, pays, held, sign("twice"))
	if err != nil || back.Hash != old.Hash || !back.Voided {
		t.Fatalf("the old request asked again: %+v, %v; want its voided fill", back, err)
	}
	_, err = st.ReplaceSolverTx(ctx, ids[0], "fill", 0, false, func(store.SolverTx) (string, []byte, *big.Int, error) {
		t.Fatal("a voided transaction was replaced")
		return "", nil, nil, nil
	})
	if !errors.Is(err, intent.ErrVoided) {
		t.Fatalf("replacing the voided fill: %v, want intent.ErrVoided", err)
	}
}
