package exchange

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

// TestViemSignatureVerifies: a sendAsset signed by a wallet with viem (testdata/viemsend.mjs,
// the message as the public SDK signs it: the action's parameters plus type and
// signatureChainId, on the wallet's chain) and posted as {action, nonce, signature {r, s, v}}
// verifies here and moves exactly its amount.
func TestViemSignatureVerifies(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on the PATH: this test needs Node.js 20 or later")
	}
	e2e, err := filepath.Abs(filepath.Join("..", "..", "e2e"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e2e, "node_modules", "viem", "package.json")); err != nil {
		t.Fatal("the e2e suite's packages are not installed: run `make e2e-deps` (npm ci in e2e/)")
	}
	s := startExchange(t)
	key, from := newKey(t)
	_, to := newKey(t)
	if err := s.CreditPerps(from, usd(100)); err != nil {
		t.Fatal(err)
	}
	for i, chainID := range []int{42161, 1} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "viemsend.mjs"), s.URL())
		cmd.Env = append(os.Environ(), "E2E_DIR="+e2e, "WALLET_KEY=0x"+hex.EncodeToString(crypto.FromECDSA(key)),
			"DESTINATION="+to.Hex(), "TOKEN="+s.SpotUSDC().Wire(), "AMOUNT=12.345", "NONCE="+strconv.FormatUint(nowNonce(time.Duration(i)*time.Millisecond), 10),
			"CHAIN_ID="+strconv.Itoa(chainID))
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("viemsend.mjs (chain %d): %v\n%s", chainID, err, out)
		}
		var r reply
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("viemsend.mjs printed %s", out)
		}
		mustOK(t, r)
	}
	// Twice 12.345, and the activation fee once (the destination was new).
	wantPerps(t, s, from, big.NewInt(74_3100_0000))
	wantPerps(t, s, to, big.NewInt(24_6900_0000))
}
