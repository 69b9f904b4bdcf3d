package oracle

import (
	"context"
	"encoding/asn1"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	kmstypes "github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// localKMSModule is the local AWS KMS emulator the KMS signer is tested against (a Go module
// on the module proxy; it supports ECC_SECG_P256K1 keys and Sign).
const localKMSModule = "github.com/nsmithuk/local-kms@v0.0.0-20260228092603-2a5e92d09ab6"

// startLocalKMS builds the emulator once per machine (into the temporary folder) and runs it on
// a loopback port; it returns its endpoint.
func startLocalKMS(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the local KMS emulator")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the local KMS emulator with")
	}
	bin := filepath.Join(os.TempDir(), "intentd-local-kms", "local-kms")
	if _, err := os.Stat(bin); err != nil {
		build := exec.Command(goBin, "install", localKMSModule)
		build.Env = append(os.Environ(), "GOBIN="+filepath.Dir(bin), "GOFLAGS=", "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		require.NoError(t, err, "build the local KMS emulator: %s", out)
	}
	port := freePort(t)
	cmd := exec.Command(bin)
	cmd.Env = []string{"PORT=" + strconv.Itoa(port), "KMS_REGION=eu-west-1", "KMS_ACCOUNT_ID=111122223333", "KMS_DATA_PATH=" + t.TempDir()}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}, 20*time.Second, 50*time.Millisecond)
	return "http://" + addr
}

// The spec's cloud KMS signing mode: an ECC_SECG_P256K1 key in (an emulator of) AWS KMS signs
// every attestation through the AWS SDK's KMS client, and the signature is normalised to
// Ethereum's r‖s‖v: low s, v recovered, the key's address recovered from it.
func TestKMSSignerAgainstLocalKMS(t *testing.T) {
	endpoint := startLocalKMS(t)
	ctx := context.Background()
	api := kms.New(kms.Options{Region: "eu-west-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	key, err := api.CreateKey(ctx, &kms.CreateKeyInput{KeySpec: kmstypes.KeySpecEccSecgP256k1, KeyUsage: kmstypes.KeyUsageTypeSignVerify})
	require.NoError(t, err)
	keyID := *key.KeyMetadata.KeyId

	// ConnectSigner as `intentd oracle` runs it: credentials from the AWS SDK's default chain.
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	kmsEnv := map[string]string{EnvSigningModule: SigningModuleAWSKMS, EnvPrivateKey: "", EnvAWSKMSKeyID: keyID,
		EnvAWSKMSKeyRegion: "eu-west-1", EnvAWSKMSEndpoint: endpoint, EnvRateLimitMax: "1000"}
	cfg := mustConfig(t, kmsEnv)
	require.NoError(t, cfg.ConnectSigner(ctx))
	addr := cfg.SignerAddress()
	require.NotEqual(t, common.Address{}, addr)

	// Many digests, so that KMS's high-s signatures (about half) are normalised too.
	for i := range 40 {
		digest := crypto.Keccak256Hash([]byte{byte(i)})
		sig, err := cfg.signer.SignDigest(ctx, digest)
		require.NoError(t, err)
		require.Len(t, sig, 65)
		require.Contains(t, []byte{27, 28}, sig[64])
		require.LessOrEqual(t, new(big.Int).SetBytes(sig[32:64]).Cmp(secp256k1HalfN), 0, "low s")
		got, err := oracleapi.RecoverDigestSigner(digest, sig)
		require.NoError(t, err)
		require.Equal(t, addr, got)
	}

	// The KMS signer serves attestations like a raw key.
	stub := twoDepositReader()
	srv, err := NewServer(cfg, registry(t, chains.Chain{ID: testChainID, Name: "stub", HTTPRPCURL: "http://127.0.0.1:1",
		Depository: stubDepository.Hex(), Currency: chains.Currency{Symbol: "ETH", Decimals: 18}}), nil)
	require.NoError(t, err)
	srv.clients = stub
	hs := newHTTPServer(t, srv)
	r := do(t, http.MethodPost, hs+oracleapi.PathDepositAttestation, attestBody(testChainID, peerTx), nil)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	att := decodeAttestation(t, r.body)
	for _, m := range att.Messages {
		assert.Equal(t, addr, m.Signatures[0].Signer)
	}

	// Startup validation holds for a KMS signer: it must be in ORACLE_SIGNERS.
	kmsEnv[EnvOracleSigners] = addrA
	cfg = mustConfig(t, kmsEnv)
	require.ErrorContains(t, cfg.ConnectSigner(ctx), "does not list this oracle's signer "+addr.Hex())
	// A key that is not secp256k1 is refused.
	p256, err := api.CreateKey(ctx, &kms.CreateKeyInput{KeySpec: kmstypes.KeySpecEccNistP256, KeyUsage: kmstypes.KeyUsageTypeSignVerify})
	require.NoError(t, err)
	delete(kmsEnv, EnvOracleSigners)
	kmsEnv[EnvAWSKMSKeyID] = *p256.KeyMetadata.KeyId
	cfg = mustConfig(t, kmsEnv)
	require.ErrorContains(t, cfg.ConnectSigner(ctx), "secp256k1")
}

// normaliseDER flips a high s into the lower half and recovers v, whatever KMS returned.
func TestNormaliseDER(t *testing.T) {
	key := testOracleKey(t)
	digest := crypto.Keccak256Hash([]byte("digest"))
	want, err := crypto.Sign(digest.Bytes(), key)
	require.NoError(t, err)
	want[64] += 27
	r, s := new(big.Int).SetBytes(want[:32]), new(big.Int).SetBytes(want[32:64])
	pub := crypto.FromECDSAPub(&key.PublicKey)
	for name, sv := range map[string]*big.Int{"low s": s, "high s": new(big.Int).Sub(secp256k1N, s)} {
		der, err := asn1.Marshal(struct{ R, S *big.Int }{r, sv})
		require.NoError(t, err)
		got, err := normaliseDER(digest, der, pub)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
	_, err = normaliseDER(digest, []byte{0x30, 0x00}, pub)
	assert.Error(t, err)
	other, err := crypto.GenerateKey()
	require.NoError(t, err)
	der, _ := asn1.Marshal(struct{ R, S *big.Int }{r, s})
	_, err = normaliseDER(digest, der, crypto.FromECDSAPub(&other.PublicKey))
	assert.ErrorContains(t, err, "does not recover")
}
