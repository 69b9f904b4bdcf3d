package devnet

import (
	"crypto/ecdsa"
	"encoding/hex"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
)

// The well-known Hardhat/Anvil accounts of the test mnemonic.
var hardhatAccounts = []string{
	"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
	"0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
	"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
	"0x90F79bf6EB2c4f870365E785982E1f101E93b906",
	"0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
	"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
	"0x976EA74026E726554dB657fA54763abd0C3a0aa9",
	"0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
	"0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f",
	"0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
}

func TestTestAccountsAreHardhatAccounts(t *testing.T) {
	accts := TestAccounts()
	require.Len(t, accts, len(hardhatAccounts))
	for i, a := range accts {
		require.Equal(t, common.HexToAddress(hardhatAccounts[i]), a.Address, "account %d", i)
		require.Equal(t, a.Address, crypto.PubkeyToAddress(a.Key.PublicKey), "account %d key", i)
	}
	// Account 0's key, as every Hardhat/Anvil user has seen it printed.
	require.Equal(t, "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
		hex.EncodeToString(crypto.FromECDSA(accts[0].Key)))
	require.Equal(t, hardhatAccounts[1], TestAddresses()[1].Hex())
}

// BIP-32 test vector 1, which covers hardened and normal steps from a raw seed.
func TestBIP32Vector1(t *testing.T) {
	seed, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f")
	h := hardened
	cases := []struct {
		path []uint32
		key  string
	}{
		{nil, "e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35"},
		{[]uint32{0 | h}, "edb2e14f9ee77d26dd93b4ecede8d16ed408ce149b6cd80b0715a2d911a0afea"},
		{[]uint32{0 | h, 1}, "3c6cb8d0f6a264c91ea8b5030fadaa8e538b020f0a387421a12de9319dc93368"},
		{[]uint32{0 | h, 1, 2 | h}, "cbce0d719ecf7431d88e6a89fa1483e02e35092af60c042b1df2ff59fa424dca"},
		{[]uint32{0 | h, 1, 2 | h, 2}, "0f479245fb19a38a1954c5c7c0ebab2f9bdfd96a17563ef28a6a4b1a2a764ef4"},
		{[]uint32{0 | h, 1, 2 | h, 2, 1000000000}, "471b76e389e528d6de6d816857e012c5455051cad6660850e58372a6c3e6e7c8"},
	}
	for _, c := range cases {
		k, err := deriveKey(seed, c.path)
		require.NoError(t, err)
		require.Equal(t, c.key, hex.EncodeToString(k), "path %v", c.path)
	}
}

func TestRoleKeys(t *testing.T) {
	for role, key := range map[string]func() common.Address{
		"deployer": DeployerAddress, "solver": SolverAddress, "oracle": OracleAddress, "relayer": RelayerAddress,
	} {
		want, err := crypto.ToECDSA(crypto.Keccak256([]byte("intentd/devnet/" + role)))
		require.NoError(t, err)
		require.Equal(t, crypto.PubkeyToAddress(want.PublicKey), key(), role)
	}
	require.NotEqual(t, DeployerAddress(), SolverAddress())
	require.NotEqual(t, SolverAddress(), OracleAddress())
	for _, other := range []common.Address{DeployerAddress(), SolverAddress(), OracleAddress()} {
		require.NotEqual(t, other, RelayerAddress(), "the relayer's key is its own")
	}
	// A caller changing its copy must not change the key.
	k := SolverKey()
	*k = ecdsa.PrivateKey{}
	require.Equal(t, SolverAddress(), crypto.PubkeyToAddress(SolverKey().PublicKey))

	require.Equal(t, crypto.CreateAddress(DeployerAddress(), 0), DepositoryAddress)
	require.Equal(t, crypto.CreateAddress(DeployerAddress(), 1), OutputSettlerAddress)
	require.Equal(t, crypto.CreateAddress(DeployerAddress(), 2), USDCAddress)
	require.Equal(t, crypto.CreateAddress(DeployerAddress(), solFeedNonce+1), BatchExecutorAddress())
}
