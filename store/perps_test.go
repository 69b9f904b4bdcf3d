package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// perpsWithdrawal stores a request from chain 1337 whose order id is order.
func perpsWithdrawal(t *testing.T, st *store.Store, n int, user string) (requestID, orderID string) {
	t.Helper()
	requestID, orderID = fmt.Sprintf("0x%064x", n), fmt.Sprintf("0x%064x", 0x0d00+n)
	if err := st.InsertQuote(context.Background(), intent.NewQuote{
		Record:  intent.Record{ID: requestID, Status: intent.StatusWaiting, User: user, Recipient: user},
		OrderID: orderID, ExpiresAt: time.Now().Add(time.Minute), Origin: 1337, Dest: 31338, VolumeUSD: decimal.NewFromInt(10)}); err != nil {
		t.Fatal(err)
	}
	return requestID, orderID
}

// "The deposit must use exactly the nonce of the authorization; otherwise the transfer cannot be
// tied to the requestId": one nonce per order, one order per depositor's nonce, binding the same
// again is the binding stored, and the matcher finds the order by the depositor's nonce.
func TestANonceIsBoundToOneOrderAndAnOrderToOneNonce(t *testing.T) {
	ctx := context.Background()
	st := store.New(testenv.Pool(t))
	const wallet = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
	req1, order1 := perpsWithdrawal(t, st, 1, wallet)
	req2, order2 := perpsWithdrawal(t, st, 2, wallet)

	ref, err := st.RequestByOrderID(ctx, order1)
	if err != nil || ref.ID != req1 || ref.Origin != 1337 || ref.Destination != 31338 || ref.User != wallet {
		t.Fatalf("request by order id: %+v %v", ref, err)
	}
	if _, err := st.RequestByOrderID(ctx, "0xnone"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown order: %v", err)
	}

	m := store.PerpsNonceMapping{OrderID: order1, RequestID: req1, Wallet: wallet, Depositor: wallet, Nonce: 1770329064777,
		SignatureChainID: 1, Signature: "0xsig1"}
	first, err := st.BindPerpsNonce(ctx, m)
	if err != nil || first.Wallet != "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23" || first.Signature != "0xsig1" || first.CreatedAt.IsZero() {
		t.Fatalf("bind: %+v %v", first, err)
	}
	again := m
	again.SignatureChainID, again.Signature = 42161, "0xsig2" // the same binding, signed on another chain
	if got, err := st.BindPerpsNonce(ctx, again); err != nil || *got != *first {
		t.Fatalf("the same again: %+v %v, want the first %+v", got, err, first)
	}

	otherNonce := m
	otherNonce.Nonce++
	nonceReused := m
	nonceReused.OrderID, nonceReused.RequestID = order2, req2
	for name, c := range map[string]store.PerpsNonceMapping{"the order with another nonce": otherNonce, "the nonce for another order": nonceReused} {
		var conflict *store.NonceMappingConflict
		if _, err := st.BindPerpsNonce(ctx, c); !errors.As(err, &conflict) || !errors.Is(err, store.ErrNonceMappingConflict) || conflict.Stored != *first {
			t.Errorf("%s: %v, want a conflict naming %+v", name, err, first)
		}
	}
	// Another depositor's same nonce is another transfer.
	other := nonceReused
	other.Depositor = "0x00000000000000000000000000000000000000aa"
	if _, err := st.BindPerpsNonce(ctx, other); err != nil {
		t.Fatalf("another depositor's nonce: %v", err)
	}

	got, err := st.PerpsNonceMapping(ctx, "0x2C7536E3605D9C16A7A3D7B1898E529396A65C23", 1770329064777)
	if err != nil || *got != *first {
		t.Fatalf("by nonce: %+v %v", got, err)
	}
	if _, err := st.PerpsNonceMapping(ctx, wallet, 1770329064778); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unbound nonce: %v", err)
	}
}

// Concurrent bindings of one nonce to different orders: exactly one stands, the others are
// conflicts naming it.
func TestConcurrentBindingsOfOneNonceLeaveOne(t *testing.T) {
	ctx := context.Background()
	st := store.New(testenv.Pool(t))
	const wallet, n = "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23", 8
	var wg sync.WaitGroup
	results := make([]error, n)
	for i := range n {
		req, order := perpsWithdrawal(t, st, 10+i, wallet)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = st.BindPerpsNonce(ctx, store.PerpsNonceMapping{OrderID: order, RequestID: req, Wallet: wallet, Depositor: wallet,
				Nonce: 42, SignatureChainID: 1, Signature: "0xsig"})
		}()
	}
	wg.Wait()
	stood := 0
	for _, err := range results {
		switch {
		case err == nil:
			stood++
		case !errors.Is(err, store.ErrNonceMappingConflict):
			t.Fatalf("a binding failed otherwise: %v", err)
		}
	}
	if stood != 1 {
		t.Fatalf("%d bindings of one nonce stand, want 1", stood)
	}
}
