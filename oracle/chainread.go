package oracle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/internal/httpclient"
	"github.com/intentd/intentd/internal/redact"
	"github.com/intentd/intentd/internal/sharedread"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// rpcTimeout bounds all chain reads of one attestation, so a hung RPC endpoint yields a 503
// the caller can retry instead of a request that never ends.
const rpcTimeout = 15 * time.Second

var (
	depositoryABI  = bindings.NewDepository()
	depositEventID = depositoryABI.GetABI().Events[bindings.DepositoryDepositEventName].ID
)

// evmReader is the slice of ethclient the oracle reads chains with.
type evmReader interface {
	CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
	ChainID(ctx context.Context) (*big.Int, error)
	BlockNumber(ctx context.Context) (uint64, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error)
	TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error)
}

// readerSource hands out the reader of a chain; clientPool in production, a stub in tests that
// need chain answers a live node cannot be made to give on demand (a reorg mid-request).
type readerSource interface {
	get(ctx context.Context, chain *chains.Chain) (evmReader, error)
	close()
}

// errChainIDMismatch means the configured RPC endpoint serves another chain: attesting through
// it would sign facts of the wrong chain, so the chain is unavailable until fixed.
var errChainIDMismatch = errors.New("RPC endpoint serves a different chain id")

// clientPool holds one RPC client per chain, created on first use and reused. A client is
// handed out only after its endpoint's chain id was checked against the registry.
type clientPool struct {
	hc *http.Client

	mu      sync.Mutex
	clients map[uint64]*pooledClient
}

type pooledClient struct {
	client   *ethclient.Client
	reader   *sharedReads
	verified bool
}

func newClientPool() *clientPool {
	return &clientPool{
		hc:      httpclient.New(rpcTimeout),
		clients: map[uint64]*pooledClient{},
	}
}

// get returns chain's reader. Every error it or the reader returns has the RPC URL redacted
// (internal/redact): the URL usually carries the provider's key, and these errors are logged and
// reach /readyz.
func (p *clientPool) get(ctx context.Context, chain *chains.Chain) (evmReader, error) {
	r, err := p.open(ctx, chain)
	if err != nil {
		return nil, redact.Error(err)
	}
	return redactingReader{r}, nil
}

func (p *clientPool) open(ctx context.Context, chain *chains.Chain) (evmReader, error) {
	p.mu.Lock()
	pc, ok := p.clients[chain.ID]
	if !ok {
		rc, err := rpc.DialOptions(context.Background(), chain.HTTPRPCURL, rpc.WithHTTPClient(p.hc))
		if err != nil {
			p.mu.Unlock()
			return nil, fmt.Errorf("dial chain %d RPC: %w", chain.ID, err)
		}
		c := ethclient.NewClient(rc)
		pc = &pooledClient{client: c, reader: &sharedReads{Client: c}}
		p.clients[chain.ID] = pc
	}
	verified := pc.verified
	p.mu.Unlock()
	if verified {
		return pc.reader, nil
	}
	id, err := pc.client.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("read chain id: %w", err)
	}
	if !id.IsUint64() || id.Uint64() != chain.ID {
		return nil, fmt.Errorf("%w: configured %d, endpoint reports %s", errChainIDMismatch, chain.ID, id)
	}
	p.mu.Lock()
	pc.verified = true
	p.mu.Unlock()
	return pc.reader, nil
}

// redactingReader redacts the RPC URL from every error of the reader it wraps.
type redactingReader struct{ r evmReader }

func (r redactingReader) CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error) {
	out, err := r.r.CallContract(ctx, call, blockNumber)
	return out, redact.Error(err)
}

func (r redactingReader) ChainID(ctx context.Context) (*big.Int, error) {
	id, err := r.r.ChainID(ctx)
	return id, redact.Error(err)
}

func (r redactingReader) BlockNumber(ctx context.Context) (uint64, error) {
	n, err := r.r.BlockNumber(ctx)
	return n, redact.Error(err)
}

func (r redactingReader) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	h, err := r.r.HeaderByNumber(ctx, number)
	return h, redact.Error(err)
}

func (r redactingReader) TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error) {
	rc, err := r.r.TransactionReceipt(ctx, txHash)
	return rc, redact.Error(err)
}

func (r redactingReader) TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error) {
	tx, pending, err := r.r.TransactionByHash(ctx, hash)
	return tx, pending, redact.Error(err)
}

// sharedReads is a chain's client whose reads of the head and of a header by number are shared
// by the attestations that ask for them at the same moment (internal/sharedread): the block that
// confirms fifty deposits makes fifty attestations at once, and each of them reads the head and,
// for deposits of one block, the same header. A caller that joins a read already under way gets
// an answer as of when that read was sent, at most one read's time before it asked: a head read
// earlier is lower (fewer confirmations: a refusal, never the attestation of a shallow deposit),
// and a header read before the caller's receipt either is the receipt's block or has the
// attestation refused as not canonical, as when a reorg comes a moment after two fresh reads.
type sharedReads struct {
	*ethclient.Client
	reads sharedread.Group
}

// BlockNumber returns the head, sharing a read under way.
func (r *sharedReads) BlockNumber(ctx context.Context) (uint64, error) {
	return sharedread.Do(ctx, &r.reads, "head", 0, r.Client.BlockNumber)
}

// HeaderByNumber returns the canonical header at number (the latest for nil, not shared),
// sharing a read of the same number under way. The header is shared: callers only read it.
func (r *sharedReads) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	if number == nil {
		return r.Client.HeaderByNumber(ctx, nil)
	}
	return sharedread.Do(ctx, &r.reads, "header:"+number.String(), 0, func(ctx context.Context) (*types.Header, error) {
		return r.Client.HeaderByNumber(ctx, number)
	})
}

func (p *clientPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, pc := range p.clients {
		pc.client.Close()
		delete(p.clients, id)
	}
}

// attestDeposit reads the transaction, checks it is successful, canonical and deep enough, and
// returns the Deposit events the chain's depository emitted in it that the request names (its
// logIndex, its orderId, both, or neither: every one), in log order. Only those are decoded and
// signed: a transaction of hundreds of deposits costs each caller one signature.
//
// With sweptPaymentTransactionId the transaction is read once it is mined in a canonical block
// (one confirmation), and its deposits are attested before their own depth only when the named
// payment carries them (sweptPayment: each is a sweep's, the payment paid the swept address and
// its block has the depth); otherwise the answer is as without the field.
func attestDeposit(ctx context.Context, s *Server, req oracleapi.DepositAttestationRequest, _ bool) ([]oracleapi.DepositData, oracleapi.Domain, *oracleapi.Error) {
	need := s.depositDepth
	var full uint64 // the depth the deposits need, counted from the payment's block
	if req.SweptPaymentTransactionID != nil {
		need = func(ctx context.Context, r *chainRead, receipt *types.Receipt) uint64 {
			full = s.depositDepth(ctx, r, receipt)
			return 1
		}
	}
	tx, e := s.readTransactionAt(ctx, req.ChainID, req.TransactionID, contractDepository, need)
	if e != nil {
		return nil, oracleapi.Domain{}, e
	}
	early := req.SweptPaymentTransactionID != nil && tx.confirmations < max(full, 1)
	var messages []oracleapi.DepositData
	for _, l := range tx.logs(depositEventID) {
		// Deposit(bytes32 indexed orderId, …): the order id is the first topic.
		if (req.LogIndex != nil && uint64(l.Index) != *req.LogIndex) ||
			(req.OrderID != nil && (len(l.Topics) < 2 || l.Topics[1] != *req.OrderID)) {
			continue
		}
		ev, err := depositoryABI.UnpackDepositEvent(l)
		if err != nil {
			tx.log.Warn("skipping undecodable Deposit log", slog.Uint64("logIndex", uint64(l.Index)), slog.Any("err", err))
			continue
		}
		messages = append(messages, oracleapi.DepositData{
			ChainID: tx.chain.ID, Depository: tx.contract, TransactionID: req.TransactionID, LogIndex: uint64(l.Index),
			BlockNumber: tx.block, BlockHash: tx.receipt.BlockHash, OrderID: common.Hash(ev.OrderId),
			Depositor: ev.Depositor, Currency: ev.Currency, Amount: oracleapi.NewAmount(ev.Amount),
		})
	}
	if len(messages) == 0 {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeNoDepositEvents, "transaction %s emitted no Deposit event%s from depository %s",
			req.TransactionID.Hex(), depositSelection(req), tx.contract.Hex())
	}
	if len(messages) > oracleapi.MaxMessagesPerAnswer {
		return nil, oracleapi.Domain{}, tooManyEvents(len(messages), "Deposit events"+depositSelection(req), "name the deposit with logIndex or orderId")
	}
	if early {
		if why, e := s.sweptPayment(ctx, tx, *req.SweptPaymentTransactionID, messages, full); e != nil {
			return nil, oracleapi.Domain{}, e
		} else if why != "" {
			return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeNotConfirmed,
				"transaction %s has %d of %d confirmations, and payment %s does not count for it: %s; retry later",
				req.TransactionID.Hex(), tx.confirmations, full, req.SweptPaymentTransactionID.Hex(), why)
		}
		tx.log.Info("sweep's deposit attested at its payment's depth", slog.String("payment", req.SweptPaymentTransactionID.Hex()))
	}
	tx.log.Info("deposit attested", slog.Int("deposits", len(messages)), slog.Uint64("block", tx.block), slog.Uint64("confirmations", tx.confirmations))
	return messages, tx.domain(s), nil
}

// depositSelection describes the deposits a request names, for its refusals: "" for every one.
func depositSelection(req oracleapi.DepositAttestationRequest) string {
	var out string
	if req.LogIndex != nil {
		out += fmt.Sprintf(" at log %d", *req.LogIndex)
	}
	if req.OrderID != nil {
		out += " for order " + req.OrderID.Hex()
	}
	return out
}

// contractKind names which of a chain's contracts an attestation is about.
type contractKind string

const (
	contractDepository    contractKind = "depository"
	contractOutputSettler contractKind = "outputSettler"
)

// enabledChain returns the chain and its contract of kind; an unknown or disabled chain, or one
// without that contract, is UNKNOWN_CHAIN.
func (s *Server) enabledChain(id uint64, kind contractKind) (*chains.Chain, common.Address, *oracleapi.Error) {
	chain, err := s.registry.Get(id)
	if err != nil || chain.Disabled {
		return nil, common.Address{}, oracleapi.Errorf(oracleapi.CodeUnknownChain, "chain %d is not enabled on this oracle", id)
	}
	if chain.VMType != chains.VMTypeEVM {
		return nil, common.Address{}, oracleapi.Errorf(oracleapi.CodeUnknownChain, "chain %d is a %s chain; this attestation is served for %s chains only",
			id, vmFamily(chain), oracleapi.VMFamilyEthereum)
	}
	addr := chain.Depository
	if kind == contractOutputSettler {
		addr = chain.OutputSettler
	}
	if addr == "" {
		return nil, common.Address{}, oracleapi.Errorf(oracleapi.CodeUnknownChain, "chain %d has no %s configured", id, kind)
	}
	return chain, common.HexToAddress(addr), nil
}

// chainRead is one attestation's view of a chain: its reader within rpcTimeout and a logger
// naming the chain.
type chainRead struct {
	chain    *chains.Chain
	kind     contractKind
	contract common.Address
	reader   evmReader
	log      *slog.Logger
}

// domain is the EIP-712 domain of facts about the read's contract.
func (r *chainRead) domain(s *Server) oracleapi.Domain {
	return oracleapi.NewDomain(s.cfg.Environment, r.chain.ID, r.contract)
}

func (r *chainRead) unavailable(what string, err error) *oracleapi.Error {
	level := slog.LevelWarn
	if errors.Is(err, context.Canceled) {
		// The caller went away (an aggregating peer that had enough signatures): not the chain's
		// failure.
		level = slog.LevelDebug
	}
	r.log.Log(context.Background(), level, "chain RPC failed", slog.String("step", what), slog.Any("err", err))
	return oracleapi.Errorf(oracleapi.CodeChainUnavailable, "chain %d RPC failed while reading %s; retry later", r.chain.ID, what)
}

// openChain returns the read of chain id's contract of kind. Its reader is the chain's pooled
// client, checked once against the configured chain id: a chain whose endpoint does not work
// fails only the attestations that read it (CHAIN_UNAVAILABLE).
func (s *Server) openChain(ctx context.Context, id uint64, kind contractKind, attrs ...any) (*chainRead, *oracleapi.Error) {
	chain, contract, e := s.enabledChain(id, kind)
	if e != nil {
		return nil, e
	}
	r := &chainRead{chain: chain, kind: kind, contract: contract, log: s.logger.With(slog.Uint64("chainId", chain.ID)).With(attrs...)}
	reader, err := s.clients.get(ctx, chain)
	if err != nil {
		if errors.Is(err, errChainIDMismatch) {
			r.log.Error("chain misconfigured", slog.Any("err", err))
		}
		return nil, r.unavailable("the chain id", err)
	}
	r.reader = reader
	return r, nil
}

// txRead is a successful transaction in a canonical block at least the chain's confirmations
// deep.
type txRead struct {
	*chainRead
	receipt       *types.Receipt
	block         uint64
	confirmations uint64
}

// logs are the receipt's logs of event emitted by the read's contract (logs of other contracts
// and removed logs are ignored), in log order.
func (t *txRead) logs(event common.Hash) []*types.Log {
	var out []*types.Log
	for _, l := range t.receipt.Logs {
		if !l.Removed && l.Address == t.contract && len(l.Topics) > 0 && l.Topics[0] == event {
			out = append(out, l)
		}
	}
	return out
}

// readTransaction reads the transaction's receipt on chain id and requires, in order: a
// receipt (unknown: 404, pending: 409), success (422), the chain's confirmations (409) and a
// canonical block (409).
func (s *Server) readTransaction(ctx context.Context, id uint64, txHash common.Hash, kind contractKind) (*txRead, *oracleapi.Error) {
	return s.readTransactionAt(ctx, id, txHash, kind, nil)
}

// readTransactionAt is readTransaction with the confirmations the transaction needs given by
// need, from its read's chain and receipt (nil: the chain's confirmations); need may ask for
// fewer than the chain's only for deposits, by their value (depositDepth).
func (s *Server) readTransactionAt(ctx context.Context, id uint64, txHash common.Hash, kind contractKind,
	need func(ctx context.Context, r *chainRead, receipt *types.Receipt) uint64) (*txRead, *oracleapi.Error) {
	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	r, e := s.openChain(ctx, id, kind, slog.String("transactionId", txHash.Hex()))
	if e != nil {
		return nil, e
	}
	reader, chain := r.reader, r.chain
	receipt, err := reader.TransactionReceipt(ctx, txHash)
	if errors.Is(err, ethereum.NotFound) || isIndexing(err) {
		// No receipt: unknown, or known but not yet mined (then the caller retries). A node
		// still building its transaction index cannot tell yet; the pool is asked first.
		indexing := isIndexing(err)
		_, pending, terr := reader.TransactionByHash(ctx, txHash)
		switch {
		case terr == nil && pending:
			return nil, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "transaction %s is pending; retry once it is mined", txHash.Hex())
		case isIndexing(terr) || (indexing && errors.Is(terr, ethereum.NotFound)):
			return nil, r.unavailable("the transaction (the node is still indexing transactions)", terr)
		case errors.Is(terr, ethereum.NotFound):
			return nil, oracleapi.Errorf(oracleapi.CodeTransactionNotFound, "transaction %s not found on chain %d", txHash.Hex(), chain.ID)
		case terr != nil:
			return nil, r.unavailable("the transaction", terr)
		default:
			return nil, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "transaction %s has no receipt yet; retry later", txHash.Hex())
		}
	}
	if err != nil {
		return nil, r.unavailable("the receipt", err)
	}
	if receipt.Status != types.ReceiptStatusSuccessful {
		return nil, oracleapi.Errorf(oracleapi.CodeTransactionReverted, "transaction %s reverted", txHash.Hex())
	}
	if receipt.BlockNumber == nil {
		return nil, r.unavailable("the receipt", errors.New("receipt has no block number"))
	}
	block := receipt.BlockNumber.Uint64()
	required := r.chain.FinalConfirmations()
	if need != nil {
		required = need(ctx, r, receipt)
	}
	confirmations, e := r.deepEnough(ctx, block, required, "transaction "+txHash.Hex())
	if e != nil {
		return nil, e
	}
	header, err := reader.HeaderByNumber(ctx, new(big.Int).SetUint64(block))
	switch {
	case errors.Is(err, ethereum.NotFound):
		return nil, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "block %d of transaction %s is no longer canonical; retry later", block, txHash.Hex())
	case err != nil:
		return nil, r.unavailable("the block header", err)
	case header.Hash() != receipt.BlockHash:
		r.log.Warn("receipt block is not canonical", slog.Uint64("block", block), slog.String("blockHash", receipt.BlockHash.Hex()))
		return nil, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "block %d of transaction %s is no longer canonical; retry later", block, txHash.Hex())
	}
	return &txRead{chainRead: r, receipt: receipt, block: block, confirmations: confirmations}, nil
}

// deepEnough checks that block has the required confirmations (head − block + 1, at least 1:
// the chain's, a configured 0 counting as 1, or a deposit's tier) and returns them; what names
// the fact in the 409.
func (r *chainRead) deepEnough(ctx context.Context, block, required uint64, what string) (uint64, *oracleapi.Error) {
	head, err := r.reader.BlockNumber(ctx)
	if err != nil {
		return 0, r.unavailable("the head block", err)
	}
	required = max(required, 1)
	var confirmations uint64
	if head >= block {
		confirmations = head - block + 1
	}
	if confirmations < required {
		return 0, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "%s has %d of %d confirmations; retry later", what, confirmations, required)
	}
	return confirmations, nil
}

// isIndexing recognises geth's "transaction indexing is in progress" answer (a node that started
// recently): a lookup that cannot be answered yet, not a missing transaction.
func isIndexing(err error) bool {
	return err != nil && strings.Contains(err.Error(), "indexing is in progress")
}
