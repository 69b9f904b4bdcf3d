package oracle

import (
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/oracle/oracleapi"
)

// BenchmarkDepositAttestation is one oracle answering POST /attestations/depository-deposits/v1
// for a confirmed deposit, no peers: the HTTP round trip, the chain reads and the signing. Its CPU
// per answer (ns/op on two cores, with the simulated chain in the same process) is what a block
// that confirms fifty deposits costs each oracle fifty times.
func BenchmarkDepositAttestation(b *testing.B) {
	tc := startChain(b, testChainID)
	cfg := mustConfig(b, map[string]string{EnvAPIKeys: testAPIKey + ":engine"})
	_, hs := newTestServer(b, cfg, registry(b, tc.chainConfig(1)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	url := hs.URL + oracleapi.PathDepositAttestation
	key := map[string]string{oracleapi.HeaderAPIKey: testAPIKey}
	txHash := tc.depositNative(b, crypto.Keccak256Hash([]byte("order-bench")), big.NewInt(1e17))
	tc.commit(1)
	body := attestBody(testChainID, txHash)
	for b.Loop() {
		if r := do(b, http.MethodPost, url, body, key); r.status != http.StatusOK {
			b.Fatalf("status %d: %s", r.status, r.body)
		}
	}
}
