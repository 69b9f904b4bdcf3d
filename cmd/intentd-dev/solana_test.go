package main

import (
	"path/filepath"
	"testing"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet/svm"
)

// `intentd-dev dev` with DEVNET_SOLANA lists the local Solana chain beside the chain file's EVM
// chains (issue 36): at DEVNET_SOLANA_RPC_URL, with SOL, the local USDC mint and the devnet's
// vault as its depository; a file that lists the id already is kept as it is.
func TestDevListsTheLocalSolanaChain(t *testing.T) {
	reg, err := chains.LoadRegistry(filepath.Join("..", "..", "configs", "chains.dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(k string) (string, bool) {
		if k == "DEVNET_SOLANA_RPC_URL" {
			return "http://127.0.0.1:18899", true
		}
		return "", false
	}
	with, err := withLocalSolana(reg, lookup)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := with.Get(solana.ChainID)
	if err != nil || len(with.All()) != len(reg.All())+1 {
		t.Fatalf("the Solana chain is not listed: %v", err)
	}
	if ch.VMType != chains.VMTypeSVM || ch.HTTPRPCURL != "http://127.0.0.1:18899" || ch.Depository != svm.VaultAddress().String() ||
		len(ch.ERC20) != 2 || ch.ERC20[0].Address != svm.USDCMint.String() || ch.Currency.Address != solana.NativeAddress ||
		ch.ERC20[1].Address != svm.WSOLMint.String() || ch.ERC20[1].Decimals != 9 { // issue 36 point 2: SOL and wSOL 9 decimals
		t.Fatalf("the Solana chain: %+v", ch)
	}
	again, err := withLocalSolana(with, lookup)
	if err != nil || again != with {
		t.Fatalf("a registry listing the chain already is changed: %v", err)
	}
}
