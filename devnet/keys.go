package devnet

import (
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Every key in this file is public knowledge. They exist so that a devnet, its contracts and
// the accounts in it come out the same on every machine and every run; never use one of them
// on a chain where anything of value lives.

// DeployerKey is the dev-only key that deploys the project's contracts on every devnet chain.
// Its first three nonces produce DepositoryAddress, OutputSettlerAddress and USDCAddress, and
// later fixed nonces the price feeds, DepositAddressFactoryAddress and BatchExecutorAddress, so
// those addresses are fixed; it also owns TestUSDC (the only account that can mint or block with it) and the price
// feeds (the only account that can post prices).
func DeployerKey() *ecdsa.PrivateKey { return roleKey("deployer") }

// SolverKey is the dev-only key of the solver: it owns the Depository (so it pays refunds),
// holds the devnet's USDC float and has approved the OutputSettler to fill from it. Dev mode
// configures the solver with it.
func SolverKey() *ecdsa.PrivateKey { return roleKey("solver") }

// RelayerKey is the dev-only key of the gasless relayer: it sends (and pays the gas of) the
// EIP-7702 type-4 transactions that run a user's signed batch through BatchExecutorAddress, so
// that a user holding no native gas can act. It is not the solver's key: the relayer holds only
// gas (GenesisETH in genesis), never the solver's float.
func RelayerKey() *ecdsa.PrivateKey { return roleKey("relayer") }

// OracleKey is the dev-only key that signs attestations in dev mode, so that verifiers can be
// configured with OracleAddress without generating and distributing a key.
func OracleKey() *ecdsa.PrivateKey { return roleKey("oracle") }

// OracleCount is how many oracles the development stacks run: three, at 2-of-3, so that the
// embedded default exercises peer aggregation and the engine's quorum.
const OracleCount = 3

// OracleThreshold is the development stacks' ORACLE_SIGNERS_THRESHOLD: 2 of OracleCount.
const OracleThreshold = 2

// OracleKeys are the dev-only keys of the OracleCount oracles; the first is OracleKey.
func OracleKeys() []*ecdsa.PrivateKey {
	out := []*ecdsa.PrivateKey{OracleKey()}
	for i := 2; i <= OracleCount; i++ {
		out = append(out, roleKey(fmt.Sprintf("oracle-%d", i)))
	}
	return out
}

// OracleAddresses are the addresses of OracleKeys, the development stacks' ORACLE_SIGNERS.
func OracleAddresses() []common.Address {
	var out []common.Address
	for _, k := range OracleKeys() {
		out = append(out, crypto.PubkeyToAddress(k.PublicKey))
	}
	return out
}

// DeployerAddress is the address of DeployerKey, for configuration and assertions.
func DeployerAddress() common.Address { return crypto.PubkeyToAddress(DeployerKey().PublicKey) }

// SolverAddress is the address of SolverKey: the Depository's owner and the USDC float holder.
func SolverAddress() common.Address { return crypto.PubkeyToAddress(SolverKey().PublicKey) }

// RelayerAddress is the address of RelayerKey, the sender of relayed type-4 transactions.
func RelayerAddress() common.Address { return crypto.PubkeyToAddress(RelayerKey().PublicKey) }

// ExchangeDepositoryKey is the dev-only key of the engine's depository account on the local perps
// exchange: withdrawals from the exchange are sendAssets to its address, and refunds of them are
// sendAssets out of it, signed with this key.
func ExchangeDepositoryKey() *ecdsa.PrivateKey { return roleKey("exchange-depository") }

// ExchangeDepositoryAddress is ExchangeDepositoryKey's account.
func ExchangeDepositoryAddress() common.Address {
	return crypto.PubkeyToAddress(ExchangeDepositoryKey().PublicKey)
}

// OracleAddress is the address of OracleKey, the signer attestations are checked against in
// dev mode.
func OracleAddress() common.Address { return crypto.PubkeyToAddress(OracleKey().PublicKey) }

// roleKey derives a role's key as keccak256("intentd/devnet/<role>"); a fresh key is returned
// every call so no caller can alter another's copy.
func roleKey(role string) *ecdsa.PrivateKey {
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte("intentd/devnet/" + role)))
	if err != nil {
		// A Keccak-256 output is a valid secp256k1 scalar with overwhelming probability, and
		// the inputs are fixed, so this is checked by the tests once and for all.
		panic(fmt.Sprintf("devnet: %s key: %v", role, err))
	}
	return key
}

// TestMnemonic is the standard, publicly known test mnemonic of Hardhat, Anvil and Foundry.
// The devnet funds its first ten accounts so that a developer can import them into a wallet
// (or reuse scripts written for those tools) and have ETH and USDC to try the service with.
const TestMnemonic = "test test test test test test test test test test test junk"

// TestAccountCount is how many accounts of TestMnemonic the devnet funds.
const TestAccountCount = 10

// Account is a funded devnet account: an address and its (publicly known) private key.
type Account struct {
	Address common.Address
	Key     *ecdsa.PrivateKey
}

var testKeys = sync.OnceValue(func() [][]byte {
	seed, err := mnemonicSeed(TestMnemonic, "")
	if err != nil {
		panic(fmt.Sprintf("devnet: test mnemonic seed: %v", err))
	}
	out := make([][]byte, TestAccountCount)
	for i := range out {
		k, err := deriveKey(seed, ethereumPath(uint32(i)))
		if err != nil {
			panic(fmt.Sprintf("devnet: test account %d: %v", i, err))
		}
		out[i] = k
	}
	return out
})

// TestAccounts returns the first TestAccountCount accounts of TestMnemonic at
// m/44'/60'/0'/0/i — the same accounts Hardhat and Anvil fund — each with its key. Every call
// returns fresh key objects.
func TestAccounts() []Account {
	raw := testKeys()
	out := make([]Account, len(raw))
	for i, k := range raw {
		key, err := crypto.ToECDSA(k)
		if err != nil {
			panic(fmt.Sprintf("devnet: test account %d: %v", i, err))
		}
		out[i] = Account{Address: crypto.PubkeyToAddress(key.PublicKey), Key: key}
	}
	return out
}

// TestAddresses returns the addresses of TestAccounts, for code that needs no keys.
func TestAddresses() []common.Address {
	accts := TestAccounts()
	out := make([]common.Address, len(accts))
	for i, a := range accts {
		out[i] = a.Address
	}
	return out
}

// BIP-39 and BIP-32 derivation, limited to what the devnet needs: the seed of an (assumed
// valid) mnemonic and private child key derivation along a path. The standard library and
// go-ethereum's secp256k1 are enough, so no extra module is needed.

const hardened = uint32(1) << 31

// ethereumPath is BIP-44's m/44'/60'/0'/0/index, the path wallets use for Ethereum accounts.
func ethereumPath(index uint32) []uint32 {
	return []uint32{44 | hardened, 60 | hardened, 0 | hardened, 0, index}
}

// mnemonicSeed is BIP-39's seed: PBKDF2-HMAC-SHA512 over the mnemonic, salted with
// "mnemonic"+passphrase, 2048 rounds, 64 bytes. (The mnemonic is used as given: the test
// mnemonic is already in NFKD form.)
func mnemonicSeed(mnemonic, passphrase string) ([]byte, error) {
	return pbkdf2.Key(sha512.New, mnemonic, []byte("mnemonic"+passphrase), 2048, 64)
}

// deriveKey walks path from the BIP-32 master key of seed and returns the 32-byte private key.
func deriveKey(seed []byte, path []uint32) ([]byte, error) {
	mac := hmac.New(sha512.New, []byte("Bitcoin seed"))
	mac.Write(seed)
	sum := mac.Sum(nil)
	key, chain := sum[:32], sum[32:]
	if !validScalar(new(big.Int).SetBytes(key)) {
		return nil, errors.New("invalid master key")
	}
	for _, index := range path {
		var err error
		key, chain, err = childKey(key, chain, index)
		if err != nil {
			return nil, fmt.Errorf("index %d: %w", index, err)
		}
	}
	return key, nil
}

// childKey is BIP-32's CKDpriv: the private child key and chain code at index.
func childKey(key, chain []byte, index uint32) ([]byte, []byte, error) {
	data := make([]byte, 0, 37)
	if index >= hardened {
		data = append(data, 0)
		data = append(data, key...)
	} else {
		priv, err := crypto.ToECDSA(key)
		if err != nil {
			return nil, nil, err
		}
		data = append(data, crypto.CompressPubkey(&priv.PublicKey)...)
	}
	data = binary.BigEndian.AppendUint32(data, index)

	mac := hmac.New(sha512.New, chain)
	mac.Write(data)
	sum := mac.Sum(nil)

	n := crypto.S256().Params().N
	il := new(big.Int).SetBytes(sum[:32])
	if il.Cmp(n) >= 0 {
		return nil, nil, errors.New("derived tweak out of range")
	}
	child := il.Add(il, new(big.Int).SetBytes(key))
	child.Mod(child, n)
	if !validScalar(child) {
		return nil, nil, errors.New("derived key is zero")
	}
	return child.FillBytes(make([]byte, 32)), sum[32:], nil
}

func validScalar(k *big.Int) bool {
	return k.Sign() > 0 && k.Cmp(crypto.S256().Params().N) < 0
}
