package devnet

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/devnet/exchange"
)

// `intentd-dev devnet` with the local perps exchange: its URL in the summary, and the solver and
// every test account funded there with perps and spot USDC, as the info endpoint tells a client.
func TestRunWithExchange(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := testOptions()
	o.Chains = []ChainOptions{{ID: 31337}}
	o.Exchange = &exchange.Options{}
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o, out) }()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Ctrl-C") }, 20*time.Second, 20*time.Millisecond)
	s := out.String()
	require.Contains(t, s, "and a local perps exchange")
	require.Contains(t, s, "ExchangeSignTransaction")
	m := regexp.MustCompile(`perps exchange (http://\S+)`).FindStringSubmatch(s)
	require.NotNil(t, m, "the summary names the exchange's URL")

	info := func(body map[string]any, out any) {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		resp, err := http.Post(m[1]+"/info", "application/json", bytes.NewReader(b))
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(out))
	}
	for who, want := range map[string]string{SolverAddress().Hex(): "10000000.0", TestAddresses()[0].Hex(): "1000000.0", TestAddresses()[9].Hex(): "1000000.0"} {
		var ch struct {
			Withdrawable string `json:"withdrawable"`
		}
		info(map[string]any{"type": "clearinghouseState", "user": who}, &ch)
		require.Equal(t, want, ch.Withdrawable, who)
		var spot struct {
			Balances []struct {
				Coin    string `json:"coin"`
				TokenID string `json:"tokenId"`
				Total   string `json:"total"`
			} `json:"balances"`
		}
		info(map[string]any{"type": "spotClearinghouseState", "user": who}, &spot)
		require.Len(t, spot.Balances, 1, who)
		require.Equal(t, "USDC", spot.Balances[0].Coin)
		require.Equal(t, exchange.DefaultSpotUSDCTokenID, spot.Balances[0].TokenID)
		require.Equal(t, want, spot.Balances[0].Total, who)
	}
	// The solver holds USDC on the DEX xyz too, what fills in that currency are paid from.
	var dex struct {
		Balances []struct {
			TokenID string `json:"tokenId"`
			Total   string `json:"total"`
		} `json:"balances"`
	}
	info(map[string]any{"type": "spotClearinghouseState", "user": SolverAddress().Hex(), "dex": ExchangeDex}, &dex)
	require.Len(t, dex.Balances, 1)
	require.Equal(t, exchange.DefaultSpotUSDCTokenID, dex.Balances[0].TokenID)
	require.Equal(t, "10000000.0", dex.Balances[0].Total)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	t.Log("\n" + s)
}
