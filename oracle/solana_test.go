package oracle

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// The Solana chains of the oracle (issue 36, point 5), on the real local chain (devnet/svm) and
// real HTTP: deposits and fills attested by three oracles at 2 of 3, and the refusals.

// svmSlotTime keeps confirmations to tens of milliseconds.
const svmSlotTime = 50 * time.Millisecond

// solanaChainEntry is the local chain's registry entry with vault as its depository.
func solanaChainEntry(rpcURL string, vault solanago.PublicKey, confirmations uint64) chains.Chain {
	return chains.Chain{ID: solana.ChainID, Name: "solana", VMType: chains.VMTypeSVM, HTTPRPCURL: rpcURL,
		Depository: vault.String(), Confirmations: confirmations,
		Currency: chains.Currency{ID: "sol", Symbol: "SOL", Address: solana.NativeAddress, Decimals: solana.NativeDecimals},
		ERC20:    []chains.Currency{{ID: "usdc", Symbol: "USDC", Address: svm.USDCMint.String(), Decimals: svm.USDCDecimals}}}
}

// solanaCluster starts an oracle of each chain entry (one registry each), each with the others
// as PEERS and all of them as ORACLE_SIGNERS at threshold.
func solanaCluster(t *testing.T, threshold int, entries ...chains.Chain) []*node {
	t.Helper()
	n := len(entries)
	nodes := make([]*node, n)
	lns := make([]net.Listener, n)
	addrs := make([]common.Address, n)
	for i := range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		key, err := crypto.GenerateKey()
		require.NoError(t, err)
		lns[i] = ln
		nodes[i] = &node{url: "http://" + ln.Addr().String(), key: key, addr: crypto.PubkeyToAddress(key.PublicKey), logs: &syncBuffer{}}
		addrs[i] = nodes[i].addr
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for i := range n {
		var peers []string
		for j := range n {
			if j != i {
				peers = append(peers, nodes[j].url)
			}
		}
		env := map[string]string{EnvEnvironment: "test", EnvPrivateKey: hex.EncodeToString(crypto.FromECDSA(nodes[i].key)),
			EnvRateLimitMax: "1000", EnvAPIKeys: testAPIKey + ":peer", EnvPeerRequestTimeoutMS: "5000",
			EnvPeers: peersOf(peers...), EnvOracleSigners: signersOf(addrs...), EnvOracleSignersThreshold: strconv.Itoa(threshold)}
		cfg, err := ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		require.NoError(t, err)
		srv, err := NewServer(cfg, registry(t, entries[i]), debugLogger(nodes[i].logs))
		require.NoError(t, err)
		nodes[i].srv = srv
		wg.Add(1)
		go func() { defer wg.Done(); _ = srv.Serve(ctx, lns[i]) }()
	}
	return nodes
}

// svmEnv is the local chain and what the tests send to it.
type svmEnv struct {
	chain *svm.Chain
	rpc   *rpc.Client
}

func startSVM(t *testing.T) *svmEnv {
	t.Helper()
	c, err := svm.Start(t.Context(), svm.Options{SlotTime: svmSlotTime})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	cl := c.Client()
	t.Cleanup(func() { _ = cl.Close() })
	return &svmEnv{chain: c, rpc: cl}
}

// send compiles ixs paid by payer, signs with keys, sends and waits until confirmed.
func (e *svmEnv) send(t *testing.T, ixs []solanago.Instruction, payer solanago.PublicKey, keys ...solanago.PrivateKey) solanago.Signature {
	t.Helper()
	return e.sendWith(t, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed}, ixs, payer, keys...)
}

// sendWith is send with opts (SkipPreflight lands a transaction that fails, with its error).
func (e *svmEnv) sendWith(t *testing.T, opts rpc.TransactionOpts, ixs []solanago.Instruction, payer solanago.PublicKey, keys ...solanago.PrivateKey) solanago.Signature {
	t.Helper()
	bh, err := e.rpc.GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
	require.NoError(t, err)
	tx, _, err := solana.CompileAndMeasure(ixs, payer, bh.Value.Blockhash)
	require.NoError(t, err)
	_, err = tx.Sign(func(pub solanago.PublicKey) *solanago.PrivateKey {
		for _, k := range keys {
			if k.PublicKey().Equals(pub) {
				return &k
			}
		}
		return nil
	})
	require.NoError(t, err)
	sig, err := e.rpc.SendTransactionWithOpts(t.Context(), tx, opts)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		st, err := e.rpc.GetSignatureStatuses(t.Context(), false, sig)
		require.NoError(t, err)
		s := st.Value[0]
		return s != nil && s.ConfirmationStatus != rpc.ConfirmationStatusProcessed
	}, 10*time.Second, svmSlotTime, "%s not confirmed", sig)
	return sig
}

// deposit pays the vault amount of currency from user for order, as the deposit step does.
func (e *svmEnv) deposit(t *testing.T, c *solana.Client, user svm.Account, order string, currency intent.Currency, amount int64) solanago.Signature {
	t.Helper()
	ixs, err := c.DepositInstructions(t.Context(), user.PublicKey, chains.FundingOrder{OrderID: order, User: user.PublicKey.String(),
		Currency: currency, Amount: big.NewInt(amount)})
	require.NoError(t, err)
	return e.send(t, ixs, user.PublicKey, user.PrivateKey)
}

func svmOrder(tag string) common.Hash { return crypto.Keccak256Hash([]byte("solana-order-" + tag)) }

func solanaDepositBody(sig solanago.Signature, extra string) string {
	return `{"chainId":` + strconv.FormatUint(solana.ChainID, 10) + `,"transactionId":"` + sig.String() + `"` + extra + `}`
}

// attestSolana posts body to path at n with the test key and, on 200, decodes and verifies an
// attestation of T.
func attestSolana[T oracleapi.Message](t *testing.T, n *node, path, body string) (response, *oracleapi.Attestation[T]) {
	t.Helper()
	r := do(t, http.MethodPost, n.url+path, body, map[string]string{oracleapi.HeaderAPIKey: testAPIKey})
	if r.status != http.StatusOK {
		return r, nil
	}
	var att oracleapi.Attestation[T]
	require.NoError(t, json.Unmarshal(r.body, &att), string(r.body))
	require.NoError(t, oracleapi.VerifyAttestation(&att), "every signature returned verifies")
	return r, &att
}

func TestSolanaDepositsAndFillsAttestedAtTwoOfThree(t *testing.T) {
	env := startSVM(t)
	vaultKey, err := solanago.NewRandomPrivateKey()
	require.NoError(t, err)
	vault := vaultKey.PublicKey()
	entry := solanaChainEntry(env.chain.RPCURL, vault, 3)
	nodes := solanaCluster(t, 2, entry, entry, entry)
	allow := []common.Address{nodes[0].addr, nodes[1].addr, nodes[2].addr}
	cl, err := solana.Dial(&entry)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cl.Close() })
	domain := oracleapi.SolanaDomain("test", solana.ChainID)

	sol := intent.Currency{Address: solana.NativeAddress, Symbol: "SOL", Decimals: solana.NativeDecimals}
	usdc := intent.Currency{Address: svm.USDCMint.String(), Symbol: "USDC", Decimals: svm.USDCDecimals}
	cases := []struct {
		name     string
		user     svm.Account
		currency intent.Currency
		amount   int64
		index    uint64 // the transfer's instruction: after the vault's token account's creation for USDC
	}{
		{"SOL", svm.TestAccounts()[1], sol, 1_500_000_000, 0},
		{"USDC", svm.TestAccounts()[2], usdc, 12_345_678, 1},
	}
	sigs := map[string]solanago.Signature{}
	for _, tc := range cases {
		t.Run("deposit "+tc.name, func(t *testing.T) {
			order := svmOrder(tc.name)
			sig := env.deposit(t, cl, tc.user, order.Hex(), tc.currency, tc.amount)
			sigs[tc.name] = sig
			body := solanaDepositBody(sig, `,"orderId":"`+order.Hex()+`","requestPeerSignatures":true`)
			var r response
			var att *oracleapi.SolanaDepositAttestation
			// The chain's 3 confirmations take three slots; a peer that reads the chain a slot
			// behind the asked oracle refuses that one answer: asked until two have signed, as the
			// engine asks.
			require.Eventually(t, func() bool {
				r, att = attestSolana[oracleapi.SolanaDepositData](t, nodes[0], oracleapi.PathDepositAttestation, body)
				return r.status != http.StatusConflict && (r.status != http.StatusOK || len(oracleapi.Quorum(att, allow)) >= 2)
			}, 10*time.Second, svmSlotTime)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			assert.True(t, att.Domain.Equal(domain), "domain %+v", att.Domain)
			require.Len(t, att.Messages, 1)
			m := att.Messages[0].Data
			currency, _ := key32(tc.currency.Address)
			want := oracleapi.SolanaDepositData{ChainID: solana.ChainID, Depository: common.Hash(vault), TransactionID: sig[:],
				InstructionIndex: tc.index, Slot: m.Slot, OrderID: order, Depositor: common.Hash(tc.user.PublicKey),
				Currency: currency, Amount: oracleapi.NewAmount(big.NewInt(tc.amount))}
			assert.Equal(t, want, m)
			b, err := cl.TxBlock(t.Context(), sig.String())
			require.NoError(t, err)
			assert.Equal(t, b.Number, m.Slot, "the slot the transaction landed in")
			if tc.name == "SOL" {
				assert.Equal(t, common.Hash{}, m.Currency, "SOL is the System Program id, 32 zero bytes")
			}
			quorum := oracleapi.Quorum(att, allow)
			assert.GreaterOrEqual(t, len(quorum), 2, "two of the three oracles signed: %v", quorum)

			// Every oracle signs the same digest: a single oracle's answer has its own signer.
			r1, one := attestSolana[oracleapi.SolanaDepositData](t, nodes[1], oracleapi.PathDepositAttestation, solanaDepositBody(sig, ""))
			require.Equal(t, http.StatusOK, r1.status, string(r1.body))
			assert.Equal(t, m, one.Messages[0].Data)
			assert.Equal(t, nodes[1].addr, one.Messages[0].Signatures[0].Signer)
		})
	}

	t.Run("refusals", func(t *testing.T) {
		sig := sigs["SOL"]
		for _, rc := range []struct {
			name, body string
			status     int
			code       string
		}{
			{"another order", solanaDepositBody(sig, `,"orderId":"`+svmOrder("other").Hex()+`"`), http.StatusNotFound, oracleapi.CodeNoDepositEvents},
			{"another instruction", solanaDepositBody(sig, `,"logIndex":1`), http.StatusNotFound, oracleapi.CodeNoDepositEvents},
			{"unknown transaction", solanaDepositBody(solanago.SignatureFromBytes(make([]byte, 64)), ""), http.StatusNotFound, oracleapi.CodeTransactionNotFound},
			{"not base58", `{"chainId":792703809,"transactionId":"0x` + hex.EncodeToString(make([]byte, 64)) + `"}`, http.StatusBadRequest, oracleapi.CodeInvalidRequest},
		} {
			r := do(t, http.MethodPost, nodes[0].url+oracleapi.PathDepositAttestation, rc.body, nil)
			require.Equal(t, rc.status, r.status, "%s: %s", rc.name, r.body)
			assert.Equal(t, rc.code, r.errorBody(t).Code, rc.name)
		}
		// The EVM-only attestations refuse a Solana chain rather than dial it as an EVM node.
		r := do(t, http.MethodPost, nodes[0].url+oracleapi.PathWithdrawalAttestation, attestBody(solana.ChainID, common.Hash{1}), nil)
		require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
		assert.Equal(t, oracleapi.CodeUnknownChain, r.errorBody(t).Code)
	})

	t.Run("failed transaction", func(t *testing.T) {
		// A deposit of more than the user has, landed without preflight: it failed, its fee
		// charged. Neither route signs anything of it.
		user := svm.TestAccounts()[6]
		order := svmOrder("failed")
		ixs, err := cl.DepositInstructions(t.Context(), user.PublicKey, chains.FundingOrder{OrderID: order.Hex(), User: user.PublicKey.String(),
			Currency: sol, Amount: new(big.Int).SetUint64(1 << 62)})
		require.NoError(t, err)
		sig := env.sendWith(t, rpc.TransactionOpts{SkipPreflight: true}, ixs, user.PublicKey, user.PrivateKey)
		fill := `{"chainId":792703809,"transactionId":"` + sig.String() + `","orderId":"` + order.Hex() + `","recipient":"` + vault.String() +
			`","currency":"` + solana.NativeAddress + `","minimumAmount":"1"}`
		for path, body := range map[string]string{oracleapi.PathDepositAttestation: solanaDepositBody(sig, ""), oracleapi.PathSolverFillAttestation: fill} {
			var r response
			require.Eventually(t, func() bool {
				r = do(t, http.MethodPost, nodes[1].url+path, body, map[string]string{oracleapi.HeaderAPIKey: testAPIKey})
				return r.status != http.StatusConflict
			}, 10*time.Second, svmSlotTime)
			require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s: %s", path, r.body)
			assert.Equal(t, oracleapi.CodeTransactionReverted, r.errorBody(t).Code, path)
		}
	})

	t.Run("not deep enough", func(t *testing.T) {
		// The same chain with confirmations no slot count reaches: the deposit is refused with
		// the EVM path's retryable 409.
		deep := solanaCluster(t, 1, solanaChainEntry(env.chain.RPCURL, vault, 1_000_000))
		r := do(t, http.MethodPost, deep[0].url+oracleapi.PathDepositAttestation, solanaDepositBody(sigs["SOL"], ""), nil)
		require.Equal(t, http.StatusConflict, r.status, string(r.body))
		e := r.errorBody(t)
		assert.Equal(t, oracleapi.CodeNotConfirmed, e.Code)
		assert.Contains(t, e.Message, "of 1000000 confirmations")
	})

	t.Run("fill", func(t *testing.T) {
		solver := svm.SolverKey()
		recipientKey, err := solanago.NewRandomPrivateKey()
		require.NoError(t, err)
		recipient := recipientKey.PublicKey()
		order := svmOrder("fill")
		const amount = 250_000_000
		sig := env.send(t, []solanago.Instruction{
			system.NewTransferInstruction(amount, solver.PublicKey(), recipient).Build(),
			solana.MemoInstruction(order.Hex()),
		}, solver.PublicKey(), solver)
		fillBody := func(to solanago.PublicKey, minimum int64, extra string) string {
			return `{"chainId":792703809,"transactionId":"` + sig.String() + `","orderId":"` + order.Hex() + `","recipient":"` + to.String() +
				`","currency":"` + solana.NativeAddress + `","minimumAmount":"` + strconv.FormatInt(minimum, 10) + `"` + extra + `}`
		}
		var r response
		var att *oracleapi.SolanaSolverFillAttestation
		require.Eventually(t, func() bool {
			r, att = attestSolana[oracleapi.SolanaSolverFillData](t, nodes[2], oracleapi.PathSolverFillAttestation,
				fillBody(recipient, amount, `,"requestPeerSignatures":true`))
			return r.status != http.StatusConflict && (r.status != http.StatusOK || len(oracleapi.Quorum(att, allow)) >= 2)
		}, 10*time.Second, svmSlotTime)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		require.Len(t, att.Messages, 1)
		m := att.Messages[0].Data
		assert.Equal(t, oracleapi.SolanaSolverFillData{ChainID: solana.ChainID, TransactionID: sig[:], InstructionIndex: 0, Slot: m.Slot,
			OrderID: order, Solver: common.Hash(solver.PublicKey()), Recipient: common.Hash(recipient),
			Amount: oracleapi.NewAmount(big.NewInt(amount))}, m)
		assert.True(t, att.Domain.Equal(domain))
		assert.GreaterOrEqual(t, len(oracleapi.Quorum(att, allow)), 2)

		// Another recipient, more than was paid, another order: refused.
		stranger := svm.TestAccounts()[5].PublicKey
		r = do(t, http.MethodPost, nodes[2].url+oracleapi.PathSolverFillAttestation, fillBody(stranger, amount, ""), nil)
		require.Equal(t, http.StatusUnprocessableEntity, r.status, string(r.body))
		assert.Equal(t, oracleapi.CodeExpectationMismatch, r.errorBody(t).Code)
		assert.Contains(t, r.errorBody(t).Message, "it pays "+recipient.String())
		r = do(t, http.MethodPost, nodes[2].url+oracleapi.PathSolverFillAttestation, fillBody(recipient, amount+1, ""), nil)
		require.Equal(t, http.StatusUnprocessableEntity, r.status, string(r.body))
		assert.Equal(t, oracleapi.CodeExpectationMismatch, r.errorBody(t).Code)
		other := `{"chainId":792703809,"transactionId":"` + sig.String() + `","orderId":"` + svmOrder("x").Hex() + `","recipient":"` + recipient.String() +
			`","currency":"` + solana.NativeAddress + `","minimumAmount":"1"}`
		r = do(t, http.MethodPost, nodes[2].url+oracleapi.PathSolverFillAttestation, other, nil)
		assert.Equal(t, oracleapi.CodeNoMatchingEvent, r.errorBody(t).Code, string(r.body))
		// With force and a key, the mismatching fill is attested as it is.
		r, att = attestSolana[oracleapi.SolanaSolverFillData](t, nodes[2], oracleapi.PathSolverFillAttestation, fillBody(stranger, amount, `,"force":true`))
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.Equal(t, common.Hash(recipient), att.Messages[0].Data.Recipient)
	})
}

// TestSolanaQuorumWithOneOracleDown: of three oracles, one cannot read the chain (its RPC is
// down); the two others still make the 2 of 3, a USDC fill's included.
func TestSolanaQuorumWithOneOracleDown(t *testing.T) {
	env := startSVM(t)
	vault := svm.TestAccounts()[8].PublicKey
	entry := solanaChainEntry(env.chain.RPCURL, vault, 2)
	down := entry
	down.HTTPRPCURL = "http://127.0.0.1:1"
	nodes := solanaCluster(t, 2, down, entry, entry)
	allow := []common.Address{nodes[0].addr, nodes[1].addr, nodes[2].addr}

	// A USDC fill as the solver's payout makes it: the recipient's token account created
	// idempotently, transferChecked from the payer's, a memo of the order.
	payer := svm.TestAccounts()[4]
	recipientKey, err := solanago.NewRandomPrivateKey()
	require.NoError(t, err)
	recipient := recipientKey.PublicKey()
	ata, _, err := solanago.FindAssociatedTokenAddress(recipient, svm.USDCMint)
	require.NoError(t, err)
	order := svmOrder("usdc-fill")
	const amount = 7_000_000
	sig := env.send(t, []solanago.Instruction{
		solana.CreateATAIdempotent(payer.PublicKey, recipient, svm.USDCMint),
		token.NewTransferCheckedInstruction(amount, svm.USDCDecimals, svm.USDCAccount(payer.PublicKey), svm.USDCMint, ata, payer.PublicKey, nil).Build(),
		solana.MemoInstruction(order.Hex()),
	}, payer.PublicKey, payer.PrivateKey)
	body := `{"chainId":792703809,"transactionId":"` + sig.String() + `","orderId":"` + order.Hex() + `","recipient":"` + recipient.String() +
		`","currency":"` + svm.USDCMint.String() + `","minimumAmount":"` + strconv.Itoa(amount) + `","requestPeerSignatures":true}`
	var r response
	var att *oracleapi.SolanaSolverFillAttestation
	// Asked until both readers signed: a peer slower than the aggregation's wait (a loaded
	// machine) leaves its signature out of one answer, not of the next.
	require.Eventually(t, func() bool {
		r, att = attestSolana[oracleapi.SolanaSolverFillData](t, nodes[0], oracleapi.PathSolverFillAttestation, body)
		return r.status == http.StatusOK && len(oracleapi.Quorum(att, allow)) == 2
	}, 20*time.Second, svmSlotTime, "last answer: %d %s", r.status, r.body)
	m := att.Messages[0].Data
	assert.Equal(t, oracleapi.SolanaSolverFillData{ChainID: solana.ChainID, TransactionID: sig[:], InstructionIndex: 1, Slot: m.Slot,
		OrderID: order, Solver: common.Hash(payer.PublicKey), Recipient: common.Hash(recipient), Currency: common.Hash(svm.USDCMint),
		Amount: oracleapi.NewAmount(big.NewInt(amount))}, m)
	quorum := oracleapi.Quorum(att, allow)
	assert.ElementsMatch(t, []common.Address{nodes[1].addr, nodes[2].addr}, quorum, "the two oracles that read the chain")
	assert.Contains(t, nodes[0].logs.String(), "local attestation failed")
	assert.NotContains(t, nodes[0].logs.String(), testAPIKey)

	// The oracle that cannot read the chain says so itself, never signs.
	r = do(t, http.MethodPost, nodes[0].url+oracleapi.PathSolverFillAttestation, strings.Replace(body, `"requestPeerSignatures":true`, `"requestPeerSignatures":false`, 1), nil)
	require.Equal(t, http.StatusServiceUnavailable, r.status, string(r.body))
	assert.Equal(t, oracleapi.CodeChainUnavailable, r.errorBody(t).Code)
}

// The Solana chain of a chain file: its RPC from SOLANA_RPC_URL, listed by GET /chains/v1 as
// solana-vm beside the EVM chain.
func TestSolanaChainFileEntryIsListed(t *testing.T) {
	vars := map[string]string{EnvEnvironment: "solana", EnvChainsConfigDir: "testdata", "ETHEREUM_RPC_URL": "http://127.0.0.1:1"}
	cfg := mustConfig(t, vars)
	_, err := cfg.LoadChains()
	require.ErrorContains(t, err, "SOLANA_RPC_URL")

	vars["SOLANA_RPC_URL"] = "http://127.0.0.1:2"
	cfg = mustConfig(t, vars)
	reg, err := cfg.LoadChains()
	require.NoError(t, err)
	ch, err := reg.Get(solana.ChainID)
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:2", ch.HTTPRPCURL)
	_, hs := newTestServer(t, cfg, reg, nil)
	r := do(t, http.MethodGet, hs.URL+oracleapi.PathChains, "", nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"chains":[
		{"id":31337,"name":"devnet","vmType":"ethereum-vm","depository":"0x1111111111111111111111111111111111111111",
		 "outputSettler":"0x2222222222222222222222222222222222222222","confirmations":2},
		{"id":792703809,"name":"solana","vmType":"solana-vm","depository":"GQm4ZYTwtrAgqT8EUPZ7R4ZiXaiuNSbxDFZgiHsyfYjm",
		 "confirmations":32}]}`, string(r.body))
}

// The Solana variants' schemas are published as components and enforced: a Solana body that
// fails them is refused before any chain is read.
func TestSolanaSchemasArePublishedAndEnforced(t *testing.T) {
	vault := svm.TestAccounts()[7].PublicKey
	_, hs := newTestServer(t, mustConfig(t, map[string]string{EnvAPIKeys: testAPIKey + ":engine"}), registry(t, solanaChainEntry("http://127.0.0.1:1", vault, 1)), nil)
	key := map[string]string{oracleapi.HeaderAPIKey: testAPIKey}
	r := do(t, http.MethodGet, hs.URL+oracleapi.PathDocumentation+"/openapi.json", "", nil)
	require.Equal(t, http.StatusOK, r.status)
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(r.body, &doc))
	for _, name := range []string{"SolanaDepositoryDepositsRequest", "SolanaDepositoryDepositsResponse", "SolanaSolverFillsRequest", "SolanaSolverFillsResponse"} {
		assert.Contains(t, doc.Components.Schemas, name)
	}
	assert.Contains(t, string(doc.Components.Schemas["SolanaDepositoryDepositsResponse"]), "instructionIndex")

	for _, body := range []string{
		`{"chainId":792703809,"transactionId":"0OIl"}`, // not base58
		`{"chainId":792703809,"transactionId":"` + solanago.SignatureFromBytes(make([]byte, 64)).String() + `","orderId":"nope"}`,
	} {
		r := do(t, http.MethodPost, hs.URL+oracleapi.PathDepositAttestation, body, key)
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %s", body, r.body)
		assert.Equal(t, oracleapi.CodeInvalidRequest, r.errorBody(t).Code)
	}
	r = do(t, http.MethodPost, hs.URL+oracleapi.PathSolverFillAttestation, `{"chainId":792703809,"transactionId":"`+
		solanago.SignatureFromBytes(make([]byte, 64)).String()+`","orderId":"`+svmOrder("a").Hex()+`","recipient":"0x1111111111111111111111111111111111111111","currency":"`+
		solana.NativeAddress+`","minimumAmount":"1"}`, key)
	require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
	assert.Equal(t, oracleapi.CodeInvalidRequest, r.errorBody(t).Code)
}
