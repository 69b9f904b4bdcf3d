package oracle

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/internal/redact"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// The oracle's Solana chains (issue 36, point 5): deposits to a chain's vault and solvers' fills,
// read through the Solana family (chains/solana) and signed as the Solana messages of
// oracleapi (SolanaDepositData, SolanaSolverFillData) under the same EIP-712 scheme, peer
// aggregation and quorum rules as the EVM ones. docs/oracle.md, "Solana chains", is the wire
// contract.
//
// Depth. A Solana transaction is attested once its slot has the chain entry's confirmations
// counted in slots below the head at commitment confirmed: confirmations = head − slot + 1, as
// an EVM block's are counted, refused with the same 409 TRANSACTION_NOT_CONFIRMED while short.
// Slots rather than the node's "finalized" flag because the chain entry's confirmations stay
// the operator's one knob for every family (GET /chains/v1 publishes it, and a Solana entry of
// 32 is finality's depth on a real cluster: a confirmed slot is finalized 31 slots later), the
// head and the slot are on the scale the family's client already counts in (chains/solana,
// client.go), and a node whose finalized view lags says nothing the count does not. The
// transaction itself must be at least confirmed (a supermajority voted on it) and successful.

// solanaClients are the oracle's Solana clients, one per chain: the family's client (the
// head, the deposits of a transaction) and a solana-go RPC client of the same endpoint for what
// the family does not read for the oracle (a signature's status, a fill's instructions).
type solanaClients struct {
	mu      sync.Mutex
	clients map[uint64]*solanaClient
}

type solanaClient struct {
	family *solana.Client
	rpc    *rpc.Client
}

// get returns chain's clients, dialled once (no request is made).
func (p *solanaClients) get(chain *chains.Chain) (*solanaClient, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[chain.ID]; ok {
		return c, nil
	}
	fam, err := solana.Dial(chain)
	if err != nil {
		return nil, redact.Error(fmt.Errorf("dial chain %d RPC: %w", chain.ID, err))
	}
	if p.clients == nil {
		p.clients = map[uint64]*solanaClient{}
	}
	c := &solanaClient{family: fam, rpc: rpc.New(chain.HTTPRPCURL)}
	p.clients[chain.ID] = c
	return c, nil
}

func (p *solanaClients) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, c := range p.clients {
		_ = c.family.Close()
		_ = c.rpc.Close()
		delete(p.clients, id)
	}
}

// variant is the endpoint that serves body: e's Solana variant when the body's chainId names a
// Solana chain, its perps variant when it names a perps exchange's chain, else e. Only chainId
// is read here; the chosen variant validates the whole body.
func (s *Server) variant(e *endpoint, body []byte) *endpoint {
	if e.svm == nil && e.perps == nil {
		return e
	}
	var head struct {
		ChainID uint64 `json:"chainId"`
	}
	if json.Unmarshal(body, &head) != nil {
		return e
	}
	ch, err := s.registry.Get(head.ChainID)
	if err != nil || ch.Disabled {
		return e
	}
	switch {
	case ch.VMType == chains.VMTypeSVM && e.svm != nil:
		return e.svm
	case ch.VMType == chains.VMTypePerps && e.perps != nil:
		return e.perps
	}
	return e
}

// solanaTx is a successful Solana transaction at least the chain's confirmations deep.
type solanaTx struct {
	chain         *chains.Chain
	client        *solanaClient
	sig           solanago.Signature
	slot          uint64
	confirmations uint64
	log           *slog.Logger
}

func (t *solanaTx) unavailable(what string, err error) *oracleapi.Error {
	level := slog.LevelWarn
	if errors.Is(err, context.Canceled) {
		level = slog.LevelDebug
	}
	t.log.Log(context.Background(), level, "chain RPC failed", slog.String("step", what), slog.Any("err", redact.Error(err)))
	return oracleapi.Errorf(oracleapi.CodeChainUnavailable, "chain %d RPC failed while reading %s; retry later", t.chain.ID, what)
}

// readSolanaTx requires, in order, the refusals of readTransaction: a known transaction (404),
// confirmed (409), successful (422) and the chain's confirmations counted in slots (409).
// needVault asks for a chain with a depository (deposits).
func (s *Server) readSolanaTx(ctx context.Context, id uint64, txID string, needVault bool) (*solanaTx, *oracleapi.Error) {
	chain, err := s.registry.Get(id)
	if err != nil || chain.Disabled || chain.VMType != chains.VMTypeSVM {
		return nil, oracleapi.Errorf(oracleapi.CodeUnknownChain, "chain %d is not enabled on this oracle", id)
	}
	if needVault && chain.Depository == "" {
		return nil, oracleapi.Errorf(oracleapi.CodeUnknownChain, "chain %d has no %s configured", id, contractDepository)
	}
	sig, err := solanago.SignatureFromBase58(txID)
	if err != nil {
		return nil, oracleapi.Errorf(oracleapi.CodeInvalidRequest, "transactionId is not a base58 Solana signature")
	}
	t := &solanaTx{chain: chain, sig: sig, log: s.logger.With(slog.Uint64("chainId", id), slog.String("transactionId", txID))}
	if t.client, err = s.solana.get(chain); err != nil {
		return nil, t.unavailable("the chain's client", err)
	}
	statuses, err := t.client.rpc.GetSignatureStatuses(ctx, true, sig)
	if err != nil {
		return nil, t.unavailable("the transaction's status", err)
	}
	var st *rpc.SignatureStatusesResult
	if len(statuses.Value) > 0 {
		st = statuses.Value[0]
	}
	switch {
	case st == nil:
		return nil, oracleapi.Errorf(oracleapi.CodeTransactionNotFound, "transaction %s not found on chain %d", txID, id)
	case st.ConfirmationStatus == rpc.ConfirmationStatusProcessed || st.ConfirmationStatus == "":
		return nil, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "transaction %s is processed but not confirmed; retry later", txID)
	case st.Err != nil:
		return nil, oracleapi.Errorf(oracleapi.CodeTransactionReverted, "transaction %s failed", txID)
	}
	t.slot = st.Slot
	head, err := t.client.family.Head(ctx)
	if err != nil {
		return nil, t.unavailable("the head slot", err)
	}
	required := max(chain.FinalConfirmations(), 1)
	if head >= t.slot {
		t.confirmations = head - t.slot + 1
	}
	if t.confirmations < required {
		return nil, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "transaction %s has %d of %d confirmations; retry later", txID, t.confirmations, required)
	}
	return t, nil
}

// key32 is a base58 Solana key as the 32 bytes the messages sign; ok false when it is not one.
func key32(s string) (common.Hash, bool) {
	k, err := solanago.PublicKeyFromBase58(s)
	if err != nil {
		return common.Hash{}, false
	}
	return common.Hash(k), true
}

// attestSolanaDeposit is attestDeposit for a Solana chain: the deposits of the transaction
// (chains/solana's DepositsInTx: top-level transfers to the vault with a memo of the order id),
// those the request names, in instruction order.
func attestSolanaDeposit(ctx context.Context, s *Server, req oracleapi.SolanaDepositAttestationRequest, _ bool) ([]oracleapi.SolanaDepositData, oracleapi.Domain, *oracleapi.Error) {
	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	t, e := s.readSolanaTx(ctx, req.ChainID, req.TransactionID, true)
	if e != nil {
		return nil, oracleapi.Domain{}, e
	}
	vault, ok := key32(t.chain.Depository)
	if !ok {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeUnknownChain, "chain %d has no Solana vault configured", t.chain.ID)
	}
	deposits, err := t.client.family.DepositsInTx(ctx, req.TransactionID)
	if errors.Is(err, chains.ErrNotFound) {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "transaction %s is not readable at commitment confirmed yet; retry later", req.TransactionID)
	}
	if err != nil {
		return nil, oracleapi.Domain{}, t.unavailable("the transaction", err)
	}
	var messages []oracleapi.SolanaDepositData
	for _, d := range deposits {
		order := common.HexToHash(d.OrderID)
		if (req.LogIndex != nil && uint64(d.LogIndex) != *req.LogIndex) || (req.OrderID != nil && order != *req.OrderID) {
			continue
		}
		depositor, ok1 := key32(d.Depositor)
		currency, ok2 := key32(d.Currency)
		amount, ok3 := new(big.Int).SetString(d.Amount, 10)
		if !ok1 || !ok2 || !ok3 {
			t.log.Warn("skipping an unreadable deposit", slog.Uint64("instruction", uint64(d.LogIndex)))
			continue
		}
		messages = append(messages, oracleapi.SolanaDepositData{ChainID: t.chain.ID, Depository: vault, TransactionID: t.sig[:],
			InstructionIndex: uint64(d.LogIndex), Slot: d.BlockNumber, OrderID: order, Depositor: depositor, Currency: currency,
			Amount: oracleapi.NewAmount(amount)})
	}
	if len(messages) == 0 {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeNoDepositEvents, "transaction %s holds no deposit%s to vault %s",
			req.TransactionID, solanaSelection(req), t.chain.Depository)
	}
	if len(messages) > oracleapi.MaxMessagesPerAnswer {
		return nil, oracleapi.Domain{}, tooManyEvents(len(messages), "deposits"+solanaSelection(req), "name the deposit with logIndex or orderId")
	}
	t.log.Info("deposit attested", slog.Int("deposits", len(messages)), slog.Uint64("slot", t.slot), slog.Uint64("confirmations", t.confirmations))
	return messages, oracleapi.SolanaDomain(s.cfg.Environment, t.chain.ID), nil
}

// solanaSelection describes the deposits a request names, for its refusals: "" for every one.
func solanaSelection(req oracleapi.SolanaDepositAttestationRequest) string {
	var out string
	if req.LogIndex != nil {
		out += fmt.Sprintf(" at instruction %d", *req.LogIndex)
	}
	if req.OrderID != nil {
		out += " for order " + req.OrderID.Hex()
	}
	return out
}

// solanaTransfer is one top-level transfer of a transaction: SOL (a System Program transfer) or
// an SPL token (transferChecked; to is the destination token account).
type solanaTransfer struct {
	index          int
	from, to, mint solanago.PublicKey // mint zero (the System Program id) for SOL
	amount         uint64
}

// System Program and SPL Token instruction tags of the transfers read here (as chains/solana's
// funding reads them).
const (
	svmSystemTransfer       = 2  // u32 LE tag, u64 lamports; [from, to]
	svmTokenTransferChecked = 12 // u8 tag, u64 amount, u8 decimals; [source, mint, destination, authority]
)

// readTransfers reads the transaction's memos and top-level transfers.
func readTransfers(tx *solanago.Transaction, loaded rpc.LoadedAddresses) (memos []string, transfers []solanaTransfer) {
	keys := append(append(append(solanago.PublicKeySlice{}, tx.Message.AccountKeys...), loaded.Writable...), loaded.ReadOnly...)
	key := func(i uint16) (solanago.PublicKey, bool) {
		if int(i) >= len(keys) {
			return solanago.PublicKey{}, false
		}
		return keys[i], true
	}
	for i, ix := range tx.Message.Instructions {
		program, ok := key(ix.ProgramIDIndex)
		if !ok {
			continue
		}
		var accts []solanago.PublicKey
		for _, a := range ix.Accounts {
			k, ok := key(a)
			if !ok {
				accts = nil
				break
			}
			accts = append(accts, k)
		}
		data := []byte(ix.Data)
		switch {
		case program.Equals(solanago.MemoProgramID) || program.Equals(solana.MemoProgramV1):
			memos = append(memos, string(data))
		case program.Equals(solanago.SystemProgramID):
			if len(data) == 12 && binary.LittleEndian.Uint32(data) == svmSystemTransfer && len(accts) >= 2 {
				transfers = append(transfers, solanaTransfer{index: i, from: accts[0], to: accts[1], amount: binary.LittleEndian.Uint64(data[4:])})
			}
		case program.Equals(solanago.TokenProgramID):
			if len(data) == 10 && data[0] == svmTokenTransferChecked && len(accts) >= 4 {
				transfers = append(transfers, solanaTransfer{index: i, from: accts[3], mint: accts[1], to: accts[2], amount: binary.LittleEndian.Uint64(data[1:])})
			}
		}
	}
	return memos, transfers
}

// attestSolanaFill is attestFill for a Solana chain: the transaction must carry a memo of the
// order id and a top-level transfer paying the recipient (SOL to the wallet; a token to the
// wallet's associated token account of the mint) at least the minimum. The transfer attested is
// the first that meets the request; without one, the first transfer is the fill the request is
// compared with (EXPECTATION_MISMATCH, or with force attested as it is: a token transfer to an
// account that is not the recipient's associated one names that account as the recipient).
func attestSolanaFill(ctx context.Context, s *Server, req oracleapi.SolanaSolverFillAttestationRequest, authed bool) ([]oracleapi.SolanaSolverFillData, oracleapi.Domain, *oracleapi.Error) {
	recipient, err1 := solanago.PublicKeyFromBase58(req.Recipient)
	currency, err2 := solanago.PublicKeyFromBase58(req.Currency)
	if err1 != nil || err2 != nil {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeInvalidRequest, "recipient and currency must be base58 Solana keys")
	}
	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	t, e := s.readSolanaTx(ctx, req.ChainID, req.TransactionID, false)
	if e != nil {
		return nil, oracleapi.Domain{}, e
	}
	v := uint64(0)
	res, err := t.client.rpc.GetTransaction(ctx, t.sig, &rpc.GetTransactionOpts{Encoding: solanago.EncodingBase64,
		Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &v})
	if errors.Is(err, rpc.ErrNotFound) {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "transaction %s is not readable at commitment confirmed yet; retry later", req.TransactionID)
	}
	if err != nil {
		return nil, oracleapi.Domain{}, t.unavailable("the transaction", err)
	}
	if res.Meta == nil || res.Meta.Err != nil {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeTransactionReverted, "transaction %s failed", req.TransactionID)
	}
	tx, err := res.Transaction.GetTransaction()
	if err != nil {
		return nil, oracleapi.Domain{}, t.unavailable("the transaction", fmt.Errorf("decode: %w", err))
	}
	memos, transfers := readTransfers(tx, res.Meta.LoadedAddresses)
	order := req.OrderID.Hex()
	named := false
	for _, m := range memos {
		named = named || m == order
	}
	if !named || len(transfers) == 0 {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeNoMatchingEvent, "transaction %s holds no transfer with a memo of order %s", req.TransactionID, order)
	}
	// The recipient a transfer pays: the wallet for SOL, the wallet whose associated token
	// account of the mint it credits for a token, else the token account itself.
	paid := func(tr solanaTransfer) solanago.PublicKey {
		if tr.mint.IsZero() {
			return tr.to
		}
		if ata, _, err := solanago.FindAssociatedTokenAddress(recipient, tr.mint); err == nil && ata.Equals(tr.to) {
			return recipient
		}
		return tr.to
	}
	chosen := transfers[0]
	for _, tr := range transfers {
		if solanaMismatch(recipient, currency, req.MinimumAmount.Int(), paid(tr), tr.mint, new(big.Int).SetUint64(tr.amount)) == "" {
			chosen = tr
			break
		}
	}
	amount := new(big.Int).SetUint64(chosen.amount)
	if why := solanaMismatch(recipient, currency, req.MinimumAmount.Int(), paid(chosen), chosen.mint, amount); why != "" {
		if !(req.Force && authed) {
			return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeExpectationMismatch, "the fill does not meet the request: %s (force with an API key attests it as it is)", why)
		}
		t.log.Warn("forced attestation of a fill that does not meet the request", slog.String("mismatch", why))
	}
	t.log.Info("fill attested", slog.String("id", order), slog.Uint64("slot", t.slot), slog.Bool("forced", req.Force && authed))
	return []oracleapi.SolanaSolverFillData{{ChainID: t.chain.ID, TransactionID: t.sig[:], InstructionIndex: uint64(chosen.index),
		Slot: t.slot, OrderID: req.OrderID, Solver: common.Hash(chosen.from), Recipient: common.Hash(paid(chosen)),
		Currency: common.Hash(chosen.mint), Amount: oracleapi.NewAmount(amount)}}, oracleapi.SolanaDomain(s.cfg.Environment, t.chain.ID), nil
}

// solanaMismatch describes how a transfer fails the request, in base58, "" when it meets it.
func solanaMismatch(recipient, currency solanago.PublicKey, minimum *big.Int, paid, mint solanago.PublicKey, amount *big.Int) string {
	switch {
	case !paid.Equals(recipient):
		return fmt.Sprintf("it pays %s, not %s", paid, recipient)
	case !mint.Equals(currency):
		return fmt.Sprintf("it pays currency %s, not %s", mint, currency)
	case amount.Cmp(minimum) < 0:
		return fmt.Sprintf("it pays %s, less than the minimum %s", amount, minimum)
	}
	return ""
}
