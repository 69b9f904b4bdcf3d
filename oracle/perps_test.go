package oracle

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/exchange"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// The perps exchange's deposits (the spec's "two exchange-chain families"): a user's sendAsset
// to the depository's account on the local exchange (devnet/exchange, real HTTP), bound to its
// order by the NonceMapping message the user signed, attested by three oracles at 2 of 3; and
// every mapping or transfer that does not hold refused with nothing signed.

// perpsEnv is the local exchange and the depository's account on it.
type perpsEnv struct {
	ex         *exchange.Server
	entry      chains.Chain
	depository common.Address
	key        *ecdsa.PrivateKey // the depository's
}

func startPerps(t *testing.T) *perpsEnv {
	t.Helper()
	ex, err := devnet.StartExchange(t.Context(), exchange.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ex.Close() })
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	dep := crypto.PubkeyToAddress(key.PublicKey)
	entry := devnet.ExchangeChainConfig(ex.URL())
	entry.Depository = dep.Hex()
	return &perpsEnv{ex: ex, entry: entry, depository: dep, key: key}
}

var perpsNonce = time.Now().UnixMilli()

// nextNonce is a fresh nonce (milliseconds, the exchange's rule), distinct for every transfer.
func nextNonce() uint64 { perpsNonce++; return uint64(perpsNonce) }

// send has key's account send amount of token from sourceDex to to's destinationDex with nonce,
// through the exchange's HTTP API, and returns the transfer's hash.
func (e *perpsEnv) send(t *testing.T, key *ecdsa.PrivateKey, to common.Address, srcDex, dstDex, amount string, nonce uint64) common.Hash {
	t.Helper()
	a := exchange.SendAsset{SignatureChainID: "0xa4b1", ExchangeChain: exchange.ExchangeChain, Destination: to.Hex(),
		SourceDex: srcDex, DestinationDex: dstDex, Token: e.ex.SpotUSDC().Wire(), Amount: amount, Nonce: nonce}
	sig, err := exchange.Sign(key, e.ex.Name(), a)
	require.NoError(t, err)
	body, err := json.Marshal(map[string]any{"action": exchange.Action(e.ex.Name(), a), "nonce": nonce, "signature": sig})
	require.NoError(t, err)
	resp, err := http.Post(e.ex.URL()+"/exchange", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var reply struct {
		Status   string `json:"status"`
		Response any    `json:"response"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&reply))
	require.Equal(t, "ok", reply.Status, "%v", reply.Response)
	from := crypto.PubkeyToAddress(key.PublicKey)
	for _, tr := range e.ex.Transfers(from) {
		if tr.User == from && tr.Nonce == nonce {
			return tr.Hash
		}
	}
	t.Fatalf("transfer of nonce %d not in the ledger", nonce)
	return common.Hash{}
}

// signMapping is the NonceMapping message binding depositor's nonce to order, signed by key
// (the wallet it names is wallet) on chain 1, as a wallet signs the authorize step.
func signMapping(t *testing.T, key *ecdsa.PrivateKey, wallet, depositor common.Address, order common.Hash, nonce uint64) oracleapi.PerpsNonceMapping {
	t.Helper()
	m := perps.NonceMapping{Wallet: wallet, Depositor: depositor, OrderID: order, Nonce: nonce, SignatureChainID: 1}
	hash, _, err := apitypes.TypedDataAndHash(perps.Default().NonceMappingTypedData(m))
	require.NoError(t, err)
	sig, err := crypto.Sign(hash, key)
	require.NoError(t, err)
	sig[64] += 27
	return oracleapi.PerpsNonceMapping{Wallet: wallet, Depositor: depositor, Nonce: nonce, ID: order, SignatureChainID: 1, Signature: sig}
}

func perpsBody(t *testing.T, tx, order common.Hash, m oracleapi.PerpsNonceMapping, peers bool) string {
	t.Helper()
	b, err := json.Marshal(oracleapi.PerpsDepositAttestationRequest{ChainID: devnet.ExchangeChainID, TransactionID: tx, OrderID: order,
		NonceMapping: &m, RequestPeerSignatures: peers})
	require.NoError(t, err)
	return string(b)
}

func perpsOrder(tag string) common.Hash { return crypto.Keccak256Hash([]byte("perps-order-" + tag)) }

func TestPerpsDepositsAttestedAtTwoOfThree(t *testing.T) {
	env := startPerps(t)
	nodes := solanaCluster(t, 2, env.entry, env.entry, env.entry)
	allow := []common.Address{nodes[0].addr, nodes[1].addr, nodes[2].addr}
	domain := oracleapi.PerpsDomain("test", devnet.ExchangeChainID)
	spotID, err := hexutil.Decode(env.ex.SpotUSDC().ID.Hex())
	require.NoError(t, err)

	cases := []struct {
		name           string
		user           devnet.Account
		srcDex, dstDex string
		amount         string
		units          int64
		currency       hexutil.Bytes
	}{
		{"perps USDC", devnet.TestAccounts()[1], "", "", "12.5", 1_250_000_000, make(hexutil.Bytes, 16)},
		{"spot USDC", devnet.TestAccounts()[2], "spot", "spot", "3.00000001", 300_000_001, spotID},
		{"perps USDC to spot", devnet.TestAccounts()[5], "", "spot", "2", 200_000_000, spotID},
		// "HIP-3 DEX tokens: spot address + hex(DEX name)": USDC into the depository's xyz balance.
		{"perps USDC to the DEX xyz", devnet.TestAccounts()[6], "", devnet.ExchangeDex, "4", 400_000_000,
			append(append(hexutil.Bytes{}, spotID...), devnet.ExchangeDex...)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			user := crypto.PubkeyToAddress(tc.user.Key.PublicKey)
			order := perpsOrder(tc.name)
			nonce := nextNonce()
			tx := env.send(t, tc.user.Key, env.depository, tc.srcDex, tc.dstDex, tc.amount, nonce)
			mapping := signMapping(t, tc.user.Key, user, user, order, nonce)
			var r response
			var att *oracleapi.PerpsDepositAttestation
			require.Eventually(t, func() bool {
				r, att = attestSolana[oracleapi.PerpsDepositData](t, nodes[0], oracleapi.PathDepositAttestation, perpsBody(t, tx, order, mapping, true))
				return r.status == http.StatusOK && len(oracleapi.Quorum(att, allow)) >= 2
			}, 10*time.Second, 50*time.Millisecond, "last answer: %d %s", r.status, r.body)
			assert.True(t, att.Domain.Equal(domain), "domain %+v", att.Domain)
			require.Len(t, att.Messages, 1)
			m := att.Messages[0].Data
			var block uint64
			for _, tr := range env.ex.Transfers(env.depository) {
				if tr.Hash == tx {
					block = uint64(tr.Time.Unix())
				}
			}
			assert.Equal(t, oracleapi.PerpsDepositData{ChainID: devnet.ExchangeChainID, Depository: env.depository, TransactionID: tx,
				Index: 0, Block: block, OrderID: order, Depositor: user, Currency: tc.currency,
				Amount: oracleapi.NewAmount(big.NewInt(tc.units))}, m)
			assert.GreaterOrEqual(t, len(oracleapi.Quorum(att, allow)), 2, "two of the three oracles signed")

			// The engine's client: the same deposit in the family-neutral form.
			c := oracleapi.NewClient(nodes[1].url, testAPIKey, nil)
			fa, err := c.AttestPerpsDeposit(t.Context(), devnet.ExchangeChainID, tx, order, &mapping)
			require.NoError(t, err)
			assert.True(t, fa.Domain.Equal(oracleapi.FundingDomain(string(chains.VMTypePerps), "test", devnet.ExchangeChainID, env.depository.Hex())))
			require.Len(t, fa.Facts, 1)
			f := fa.Facts[0]
			assert.Equal(t, env.depository.Hex(), f.Depository)
			assert.Equal(t, hexutil.Encode(tx[:]), f.TransactionID)
			assert.Equal(t, user.Hex(), f.Depositor)
			assert.Equal(t, tc.currency.String(), f.Currency)
			assert.Equal(t, big.NewInt(tc.units), f.Amount)
			assert.Equal(t, block, f.BlockNumber)
			assert.NotEmpty(t, f.Signatures)
		})
	}

	t.Run("refusals sign nothing", func(t *testing.T) {
		userAcct, other := devnet.TestAccounts()[3], devnet.TestAccounts()[4]
		user := crypto.PubkeyToAddress(userAcct.Key.PublicKey)
		order := perpsOrder("refusals")
		nonce := nextNonce()
		tx := env.send(t, userAcct.Key, env.depository, "", "", "5", nonce)
		// A transfer to another account than the depository.
		elsewhereNonce := nextNonce()
		elsewhere := env.send(t, userAcct.Key, crypto.PubkeyToAddress(other.Key.PublicKey), "", "", "5", elsewhereNonce)
		good := signMapping(t, userAcct.Key, user, user, order, nonce)
		// A transfer out of the depository, in its ledger.
		require.NoError(t, env.ex.CreditPerps(env.depository, big.NewInt(100_000_000)))
		outNonce := nextNonce()
		out := env.send(t, env.key, user, "", "", "1", outNonce)
		otherID := good
		otherID.ID = perpsOrder("another")

		signed := func() float64 {
			return testutil.ToFloat64(metrics.OracleSignatures.WithLabelValues(oracleapi.PathDepositAttestation))
		}
		before := signed()
		for _, rc := range []struct {
			name   string
			body   string
			status int
			code   string
		}{
			{"a mapping signed by another key", perpsBody(t, tx, order, signMapping(t, other.Key, user, user, order, nonce), true),
				http.StatusBadRequest, oracleapi.CodeInvalidRequest},
			{"a mapping whose nonce differs from the transfer's", perpsBody(t, tx, order, signMapping(t, userAcct.Key, user, user, order, nonce+1), true),
				http.StatusBadRequest, oracleapi.CodeInvalidRequest},
			{"a mapping of another depositor", perpsBody(t, tx, order, signMapping(t, other.Key, crypto.PubkeyToAddress(other.Key.PublicKey),
				crypto.PubkeyToAddress(other.Key.PublicKey), order, nonce), true), http.StatusBadRequest, oracleapi.CodeInvalidRequest},
			{"a mapping of another order", perpsBody(t, tx, order, otherID, true), http.StatusBadRequest, oracleapi.CodeInvalidRequest},
			{"a transfer to another account", perpsBody(t, elsewhere, order, signMapping(t, userAcct.Key, user, user, order, elsewhereNonce), true),
				http.StatusNotFound, oracleapi.CodeTransactionNotFound},
			{"a transfer out of the depository", perpsBody(t, out, order, signMapping(t, userAcct.Key, user, user, order, outNonce), true),
				http.StatusNotFound, oracleapi.CodeNoDepositEvents},
			{"an unknown hash", perpsBody(t, crypto.Keccak256Hash([]byte("no such transfer")), order, good, true),
				http.StatusNotFound, oracleapi.CodeTransactionNotFound},
		} {
			r := do(t, http.MethodPost, nodes[0].url+oracleapi.PathDepositAttestation, rc.body, map[string]string{oracleapi.HeaderAPIKey: testAPIKey})
			require.Equal(t, rc.status, r.status, "%s: %s", rc.name, r.body)
			assert.Equal(t, rc.code, r.errorBody(t).Code, rc.name)
			assert.NotContains(t, string(r.body), "signatures", rc.name)
		}
		assert.Equal(t, before, signed(), "no oracle signed anything")

		// The good mapping is attested, to show the refusals were about what they changed (once
		// its second is over: 409 TRANSACTION_NOT_CONFIRMED until then, as for any deposit).
		r, att := attestSolana[oracleapi.PerpsDepositData](t, nodes[2], oracleapi.PathDepositAttestation, perpsBody(t, tx, order, good, false))
		for end := time.Now().Add(10 * time.Second); r.status == http.StatusConflict && time.Now().Before(end); {
			time.Sleep(200 * time.Millisecond)
			r, att = attestSolana[oracleapi.PerpsDepositData](t, nodes[2], oracleapi.PathDepositAttestation, perpsBody(t, tx, order, good, false))
		}
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.Equal(t, oracleapi.NewAmount(big.NewInt(500_000_000)), att.Messages[0].Data.Amount)
		assert.Equal(t, nodes[2].addr, att.Messages[0].Signatures[0].Signer)

		// The EVM-only attestations refuse a perps chain rather than dial it as an EVM node.
		r = do(t, http.MethodPost, nodes[0].url+oracleapi.PathWithdrawalAttestation, attestBody(devnet.ExchangeChainID, tx), nil)
		require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
		assert.Equal(t, oracleapi.CodeUnknownChain, r.errorBody(t).Code)
	})
}

// A perps chain entry may be written with the spec's family identifier (the exchange's word and
// -vm) or hypevm; GET /chains/v1 names it by the family identifier, and its readiness probe asks
// the exchange.
func TestPerpsChainIsListedByItsFamily(t *testing.T) {
	env := startPerps(t)
	entry := env.entry
	entry.VMType = "exchange-vm"
	reg := registry(t, entry)
	ch, err := reg.Get(devnet.ExchangeChainID)
	require.NoError(t, err)
	assert.Equal(t, chains.VMTypePerps, ch.VMType)
	assert.Equal(t, string(chains.PerpsFamily("Foo")), oracleapi.PerpsFamily("Foo"), "one rule on both sides")
	srv, hs := newTestServer(t, mustConfig(t, nil), reg, nil)
	r := do(t, http.MethodGet, hs.URL+oracleapi.PathChains, "", nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"chains":[{"id":1337,"name":"perps-local","vmType":"exchange-vm","depository":"`+env.depository.Hex()+`","confirmations":1}]}`, string(r.body))
	for _, p := range srv.Probes() {
		assert.NoError(t, p.Check(t.Context()), p.Name)
	}
}

// The perps variant's schemas are published as components and enforced: a body that fails them
// is refused before the exchange is read.
func TestPerpsSchemasArePublishedAndEnforced(t *testing.T) {
	entry := devnet.ExchangeChainConfig("http://127.0.0.1:1")
	entry.Depository = "0x1111111111111111111111111111111111111111"
	_, hs := newTestServer(t, mustConfig(t, map[string]string{EnvAPIKeys: testAPIKey + ":engine"}), registry(t, entry), nil)
	r := do(t, http.MethodGet, hs.URL+oracleapi.PathDocumentation+"/openapi.json", "", nil)
	require.Equal(t, http.StatusOK, r.status)
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(r.body, &doc))
	require.Contains(t, doc.Components.Schemas, "PerpsDepositoryDepositsResponse")
	assert.Contains(t, string(doc.Components.Schemas["PerpsDepositoryDepositsRequest"]), "nonceMapping")

	tx, order := crypto.Keccak256Hash([]byte("t")), perpsOrder("schema")
	key := map[string]string{oracleapi.HeaderAPIKey: testAPIKey}
	for name, body := range map[string]string{
		"no mapping":        `{"chainId":1337,"transactionId":"` + tx.Hex() + `","orderId":"` + order.Hex() + `"}`,
		"a Solana-style id": `{"chainId":1337,"transactionId":"5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW","orderId":"` + order.Hex() + `"}`,
		"a short signature": perpsBody(t, tx, order, oracleapi.PerpsNonceMapping{Wallet: common.Address{1}, Depositor: common.Address{1}, Nonce: 1,
			ID: order, SignatureChainID: 1, Signature: []byte{1, 2}}, false),
	} {
		r := do(t, http.MethodPost, hs.URL+oracleapi.PathDepositAttestation, body, key)
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %s", name, r.body)
		assert.Equal(t, oracleapi.CodeInvalidRequest, r.errorBody(t).Code, name)
	}
}
