package perps

import (
	"context"
	"encoding/json"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
)

// "nonce is a millisecond-timestamp-like number and must equal the sendAsset nonce", and the
// engine binds each nonce to one order: two withdrawal quotes of one user in the same
// millisecond get different nonces, each step pair sharing its own.
func TestTwoWithdrawalQuotesInOneMillisecondGetTheirOwnNonces(t *testing.T) {
	ch := devnet.ExchangeChainConfig("http://127.0.0.1:1")
	c, err := Dial(&ch)
	if err != nil {
		t.Fatal(err)
	}
	at := time.UnixMilli(1770329064777)
	c.now = func() time.Time { return at }
	usdc := ch.Currency
	order := func(id string) chains.FundingOrder {
		return chains.FundingOrder{RequestID: id, OrderID: id, User: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
			Currency: intent.Currency{Address: usdc.Address, Decimals: usdc.Decimals}, Amount: big.NewInt(1_000_000_000)}
	}
	nonces := func(steps []intent.Step) (authorize, deposit uint64) {
		t.Helper()
		var a struct {
			Sign struct {
				Value struct {
					Nonce uint64 `json:"nonce"`
				} `json:"value"`
			} `json:"sign"`
		}
		var d struct {
			Nonce uint64 `json:"nonce"`
		}
		for i, dst := range []any{&a, &d} {
			b, _ := json.Marshal(steps[i].Items[0].Data)
			if err := json.Unmarshal(b, dst); err != nil {
				t.Fatal(err)
			}
		}
		return a.Sign.Value.Nonce, d.Nonce
	}
	first, err := c.FundingSteps(context.Background(), order("0x"+string(make64('1'))))
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.FundingSteps(context.Background(), order("0x"+string(make64('2'))))
	if err != nil {
		t.Fatal(err)
	}
	a1, d1 := nonces(first)
	a2, d2 := nonces(second)
	if a1 != d1 || a2 != d2 {
		t.Fatalf("authorize and deposit nonces differ: %d/%d, %d/%d", a1, d1, a2, d2)
	}
	if a1 != uint64(at.UnixMilli()) || a2 == a1 {
		t.Fatalf("nonces %d and %d in one millisecond (%d): want the time, then another", a1, a2, at.UnixMilli())
	}
}

// The nonces a client gives are distinct under concurrent quotes, and never below the clock.
func TestWithdrawalNoncesAreDistinctUnderConcurrency(t *testing.T) {
	var n withdrawalNonces
	at := time.UnixMilli(1770329064777)
	var mu sync.Mutex
	seen := map[uint64]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				v := n.next(at)
				mu.Lock()
				if seen[v] || v < uint64(at.UnixMilli()) {
					t.Errorf("nonce %d given twice or below the clock", v)
				}
				seen[v] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if later := n.next(at.Add(time.Hour)); later != uint64(at.Add(time.Hour).UnixMilli()) {
		t.Errorf("an hour later the nonce is %d, want the clock's %d", later, at.Add(time.Hour).UnixMilli())
	}
}

func make64(c byte) []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return b
}
