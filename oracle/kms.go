package oracle

import (
	"context"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	kmstypes "github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// kmsSettings name the KMS key of the aws-kms signing mode.
type kmsSettings struct {
	keyID, region, endpoint string
}

// kmsAPI is the part of the AWS KMS client the signer uses.
type kmsAPI interface {
	GetPublicKey(ctx context.Context, in *kms.GetPublicKeyInput, opts ...func(*kms.Options)) (*kms.GetPublicKeyOutput, error)
	Sign(ctx context.Context, in *kms.SignInput, opts ...func(*kms.Options)) (*kms.SignOutput, error)
}

// kmsSigner signs with an ECC_SECG_P256K1 key held in AWS KMS: KMS signs the digest (message type
// DIGEST, ECDSA_SHA_256) and returns a DER signature, which is normalised to Ethereum's form:
// r‖s‖v with s in the lower half of the curve order and v recovered against the key's public
// key.
type kmsSigner struct {
	api   kmsAPI
	keyID string
	pub   []byte // uncompressed public key, 65 bytes
	addr  common.Address
}

// secp256k1OID is the named curve of an ECC_SECG_P256K1 key's SubjectPublicKeyInfo.
var secp256k1OID = asn1.ObjectIdentifier{1, 3, 132, 0, 10}

// newKMSSigner reads the key's public key, so the signer's address is known before it signs.
func newKMSSigner(ctx context.Context, api kmsAPI, keyID string) (*kmsSigner, error) {
	out, err := api.GetPublicKey(ctx, &kms.GetPublicKeyInput{KeyId: aws.String(keyID)})
	if err != nil {
		return nil, fmt.Errorf("KMS GetPublicKey: %w", err)
	}
	var spki struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}
	if _, err := asn1.Unmarshal(out.PublicKey, &spki); err != nil {
		return nil, fmt.Errorf("KMS public key is not a SubjectPublicKeyInfo: %w", err)
	}
	var curve asn1.ObjectIdentifier
	if _, err := asn1.Unmarshal(spki.Algorithm.Parameters.FullBytes, &curve); err != nil || !curve.Equal(secp256k1OID) {
		return nil, errors.New("KMS key is not an ECC_SECG_P256K1 (secp256k1) key")
	}
	pub, err := crypto.UnmarshalPubkey(spki.PublicKey.Bytes)
	if err != nil {
		return nil, fmt.Errorf("KMS public key: %w", err)
	}
	return &kmsSigner{api: api, keyID: keyID, pub: crypto.FromECDSAPub(pub), addr: crypto.PubkeyToAddress(*pub)}, nil
}

func (s *kmsSigner) Address() common.Address { return s.addr }

// SignDigest asks KMS to sign the digest and normalises the DER answer.
func (s *kmsSigner) SignDigest(ctx context.Context, digest common.Hash) ([]byte, error) {
	out, err := s.api.Sign(ctx, &kms.SignInput{KeyId: aws.String(s.keyID), Message: digest.Bytes(),
		MessageType: kmstypes.MessageTypeDigest, SigningAlgorithm: kmstypes.SigningAlgorithmSpecEcdsaSha256})
	if err != nil {
		return nil, fmt.Errorf("KMS Sign: %w", err)
	}
	return normaliseDER(digest, out.Signature, s.pub)
}

var (
	secp256k1N     = crypto.S256().Params().N
	secp256k1HalfN = new(big.Int).Rsh(secp256k1N, 1)
)

// normaliseDER turns a DER ECDSA signature over digest into r‖s‖v: s is flipped into the lower
// half of the order (Ethereum and OpenZeppelin refuse the other, malleable, half), and v is the
// recovery id that recovers pub, plus 27.
func normaliseDER(digest common.Hash, der, pub []byte) ([]byte, error) {
	var rs struct{ R, S *big.Int }
	rest, err := asn1.Unmarshal(der, &rs)
	if err != nil || len(rest) > 0 || rs.R == nil || rs.S == nil || rs.R.Sign() <= 0 || rs.S.Sign() <= 0 ||
		rs.R.Cmp(secp256k1N) >= 0 || rs.S.Cmp(secp256k1N) >= 0 {
		return nil, errors.New("KMS signature is not a valid DER ECDSA signature")
	}
	if rs.S.Cmp(secp256k1HalfN) > 0 {
		rs.S = new(big.Int).Sub(secp256k1N, rs.S)
	}
	sig := make([]byte, 65)
	rs.R.FillBytes(sig[:32])
	rs.S.FillBytes(sig[32:64])
	for v := byte(0); v < 2; v++ {
		sig[64] = v
		got, err := crypto.Ecrecover(digest.Bytes(), sig)
		if err == nil && string(got) == string(pub) {
			sig[64] = v + 27
			return sig, nil
		}
	}
	return nil, errors.New("KMS signature does not recover to the key's public key")
}

// ConnectSigner makes the configured signer ready: in aws-kms mode it opens the KMS client
// (credentials from the AWS SDK's default chain), reads the key's public key and address, and
// checks that address against ORACLE_SIGNERS as the spec's startup validation requires. In raw
// mode the signer is ready already and nothing is done.
func (c *Config) ConnectSigner(ctx context.Context) error {
	if c.kms == nil || c.signer != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion(c.kms.region))
	if err != nil {
		return fmt.Errorf("oracle configuration: %s: AWS configuration: %w", EnvSigningModule, err)
	}
	client := kms.NewFromConfig(awsCfg, func(o *kms.Options) {
		if c.kms.endpoint != "" {
			o.BaseEndpoint = aws.String(c.kms.endpoint)
		}
	})
	return c.useKMS(ctx, client)
}

// useKMS makes the KMS key behind api the signer (ConnectSigner; tests pass their client).
func (c *Config) useKMS(ctx context.Context, api kmsAPI) error {
	signer, err := newKMSSigner(ctx, api, c.kms.keyID)
	if err != nil {
		return fmt.Errorf("oracle configuration: %s: %w", EnvAWSKMSKeyID, err)
	}
	if len(c.OracleSigners) > 0 && !containsAddress(c.OracleSigners, signer.Address()) {
		return fmt.Errorf("oracle configuration: %s: does not list this oracle's signer %s", EnvOracleSigners, signer.Address().Hex())
	}
	c.signer = signer
	return nil
}
