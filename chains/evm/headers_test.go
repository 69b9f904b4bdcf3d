package evm_test

import (
	"context"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	dto "github.com/prometheus/client_model/go"

	"github.com/intentd/intentd/internal/metrics"
)

// A header is what its hash commits to: the fills of one block, closing at once, each read their
// block's timestamp, and the node is asked for that header once.
func TestAHeaderReadByHashIsReadOnceForEveryCaller(t *testing.T) {
	_, c := startChain(t)
	ctx := context.Background()
	latest, err := c.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.BlockHash(ctx, latest)
	if err != nil {
		t.Fatal(err)
	}
	hash := common.HexToHash(h)
	reads := func() float64 {
		var m dto.Metric
		if err := metrics.ChainRPCRequests.WithLabelValues("31337", "eth_getBlockByHash").Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetCounter().GetValue()
	}
	before := reads()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			h, err := c.HeaderByHash(ctx, hash)
			if err != nil || h.Hash() != hash {
				t.Errorf("header %v, %v", h, err)
			}
		})
	}
	wg.Wait()
	if h, err := c.HeaderByHash(ctx, hash); err != nil || h.Hash() != hash {
		t.Fatalf("header %v, %v", h, err)
	}
	if got := reads() - before; got != 1 {
		t.Fatalf("21 reads of one header asked the node %v times, want once", got)
	}
}
