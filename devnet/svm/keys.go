package svm

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/gagliardetto/solana-go"
)

// Every key in this file is public knowledge: they exist so that the local Solana chain, its
// mint and its funded accounts come out the same on every machine and every run, and so that
// configuration can name them statically. Never use one of them where anything of value lives.
// server.mjs derives the same keys; Start checks that both agree.

// Genesis amounts, exported so tests and docs state expectations without magic numbers.
const (
	// USDCDecimals is the USDC mint's number of decimals, as on real USDC.
	USDCDecimals = 6
	// TestAccountCount is how many keypairs of the test mnemonic the chain funds.
	TestAccountCount = 10
	// TestAccountSOL is each test keypair's balance at genesis, in whole SOL.
	TestAccountSOL = 1_000
	// TestAccountUSDC is each test keypair's USDC at genesis (in its associated token account),
	// in base units: 1,000,000 USDC.
	TestAccountUSDC = 1_000_000 * 1_000_000
	// SolverSOL is the solver's balance at genesis, in whole SOL.
	SolverSOL = 10_000
	// SolverUSDC is the solver's USDC float at genesis, in base units: 10,000,000 USDC.
	SolverUSDC = 10_000_000 * 1_000_000
	// WSOLDecimals is wSOL's number of decimals (the native mint's, SOL's).
	WSOLDecimals = 9
	// SolverWSOL is the solver's wSOL at genesis (in its associated token account of the native
	// mint, which holds its rent on top), in lamports: 1,000 wSOL.
	SolverWSOL = 1_000 * LamportsPerSOL
	// TestAccountWSOL is each test keypair's wSOL at genesis, in lamports: 100 wSOL.
	TestAccountWSOL = 100 * LamportsPerSOL
	// DeployerSOL is the deployer's balance at genesis, in whole SOL.
	DeployerSOL = 1_000
	// LamportsPerSOL is the number of lamports in one SOL.
	LamportsPerSOL = 1_000_000_000
	// LamportsPerSignature is the base fee of every signature, as on the real chain.
	LamportsPerSignature = 5_000
	// MaxProcessingAge is how many blocks a blockhash stays valid for.
	MaxProcessingAge = 150
	// FinalizedDepth is how many slots a transaction takes to be finalized here (the distance
	// at which the real chain's root trails its tip).
	FinalizedDepth = 32
	// MaxTransactionSize is the wire limit of a transaction (PACKET_DATA_SIZE).
	MaxTransactionSize = 1232
)

// TestMnemonic is the standard, public test mnemonic of Hardhat and Anvil, which the EVM devnet
// funds too. Its Solana keypairs are at m/44'/501'/i'/0', the path of Phantom and Solflare, so
// a wallet that imports the mnemonic finds them funded.
const TestMnemonic = "test test test test test test test test test test test junk"

// Account is a funded keypair of the local chain; its (public) key included.
type Account struct {
	PublicKey  solana.PublicKey
	PrivateKey solana.PrivateKey
}

// DeployerKey is the dev-only key that is the USDC mint's mint and freeze authority.
func DeployerKey() solana.PrivateKey { return roleKey("deployer") }

// SolverKey is the dev-only key of the solver, which holds a USDC float (SolverUSDC).
func SolverKey() solana.PrivateKey { return roleKey("solver") }

// FaucetKey is the dev-only key that pays requestAirdrop.
func FaucetKey() solana.PrivateKey { return roleKey("faucet") }

// USDCMintKey is the dev-only key whose public key is the USDC mint's address (a mint is created
// at a fresh keypair's address on the real chain too).
func USDCMintKey() solana.PrivateKey { return roleKey("usdc-mint") }

// USDCMint is the address of the local chain's USDC mint (SPL Token, USDCDecimals decimals).
var USDCMint = USDCMintKey().PublicKey()

// VaultKey is the dev-only keypair of the local chain's vault: the engine's Solana depository
// (the chain entry's depository) until a depository program exists, which deposits pay to and
// refunds out of a Solana chain pay from (chains/solana.NewPayout). Genesis does not fund it: it
// holds what deposits bring.
func VaultKey() solana.PrivateKey { return roleKey("vault") }

// VaultAddress is the public key of VaultKey.
func VaultAddress() solana.PublicKey { return VaultKey().PublicKey() }

// SolverAddress is the public key of SolverKey.
func SolverAddress() solana.PublicKey { return SolverKey().PublicKey() }

// DeployerAddress is the public key of DeployerKey.
func DeployerAddress() solana.PublicKey { return DeployerKey().PublicKey() }

// FaucetAddress is the public key of FaucetKey.
func FaucetAddress() solana.PublicKey { return FaucetKey().PublicKey() }

// USDCAccount is owner's associated token account of the USDC mint: where the chain keeps the
// USDC of the solver and of every test keypair.
func USDCAccount(owner solana.PublicKey) solana.PublicKey {
	ata, _, err := solana.FindAssociatedTokenAddress(owner, USDCMint)
	if err != nil {
		panic(fmt.Sprintf("svm: associated token address of %s: %v", owner, err))
	}
	return ata
}

// WSOLMint is the native mint (SPL Token): wSOL, SOL held in a token account.
var WSOLMint = solana.SolMint

// WSOLAccount is owner's associated token account of the native mint: where the chain keeps the
// wSOL of the solver and of every test keypair.
func WSOLAccount(owner solana.PublicKey) solana.PublicKey {
	ata, _, err := solana.FindAssociatedTokenAddress(owner, WSOLMint)
	if err != nil {
		panic(fmt.Sprintf("svm: associated token address of %s: %v", owner, err))
	}
	return ata
}

// roleKey is the key whose ed25519 seed is sha256("intentd/devnet/solana/<role>").
func roleKey(role string) solana.PrivateKey {
	seed := sha256.Sum256([]byte("intentd/devnet/solana/" + role))
	return solana.PrivateKey(ed25519.NewKeyFromSeed(seed[:]))
}

var testSeeds = sync.OnceValue(func() [][]byte {
	seed, err := pbkdf2.Key(sha512.New, TestMnemonic, []byte("mnemonic"), 2048, 64)
	if err != nil {
		panic(fmt.Sprintf("svm: test mnemonic seed: %v", err))
	}
	out := make([][]byte, TestAccountCount)
	for i := range out {
		out[i] = slip10Ed25519(seed, []uint32{44, 501, uint32(i), 0})
	}
	return out
})

// TestAccounts returns the TestAccountCount funded keypairs: TestMnemonic's at m/44'/501'/i'/0'.
// Every call returns fresh keys.
func TestAccounts() []Account {
	seeds := testSeeds()
	out := make([]Account, len(seeds))
	for i, s := range seeds {
		k := solana.PrivateKey(ed25519.NewKeyFromSeed(s))
		out[i] = Account{PublicKey: k.PublicKey(), PrivateKey: k}
	}
	return out
}

// TestAddresses returns the public keys of TestAccounts.
func TestAddresses() []solana.PublicKey {
	accts := TestAccounts()
	out := make([]solana.PublicKey, len(accts))
	for i, a := range accts {
		out[i] = a.PublicKey
	}
	return out
}

// slip10Ed25519 is SLIP-0010's ed25519 derivation along path, every index hardened (ed25519 has
// no other kind): the 32-byte seed of the key at the end.
func slip10Ed25519(seed []byte, path []uint32) []byte {
	mac := hmac.New(sha512.New, []byte("ed25519 seed"))
	mac.Write(seed)
	sum := mac.Sum(nil)
	key, chain := sum[:32], sum[32:]
	for _, index := range path {
		data := make([]byte, 0, 37)
		data = append(data, 0)
		data = append(data, key...)
		data = binary.BigEndian.AppendUint32(data, index|1<<31)
		mac := hmac.New(sha512.New, chain)
		mac.Write(data)
		sum := mac.Sum(nil)
		key, chain = sum[:32], sum[32:]
	}
	return key
}
