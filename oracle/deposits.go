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
	"github.com/intentd/intentd/oracle/oracleapi"
)

// rpcTimeout bounds all chain reads of one attestation, so a hung RPC endpoint yields a 503
// the caller can retry instead of a request that never ends.
const rpcTimeout = 15 * time.Second

var (
	depositoryABI  = bindings.NewDepository()
	depositEventID = depositoryABI.GetABI().Events[bindings.DepositoryDepositEventName].ID
)

// evmReader is the slice of ethclient the oracle reads deposits with.
type evmReader interface {
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
	verified bool
}

func newClientPool() *clientPool {
	return &clientPool{
		hc:      &http.Client{Timeout: rpcTimeout},
		clients: map[uint64]*pooledClient{},
	}
}

func (p *clientPool) get(ctx context.Context, chain *chains.Chain) (evmReader, error) {
	p.mu.Lock()
	pc, ok := p.clients[chain.ID]
	if !ok {
		rc, err := rpc.DialOptions(context.Background(), chain.HTTPRPCURL, rpc.WithHTTPClient(p.hc))
		if err != nil {
			p.mu.Unlock()
			return nil, fmt.Errorf("dial chain %d RPC: %w", chain.ID, err)
		}
		pc = &pooledClient{client: ethclient.NewClient(rc)}
		p.clients[chain.ID] = pc
	}
	verified := pc.verified
	p.mu.Unlock()
	if verified {
		return pc.client, nil
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
	return pc.client, nil
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
// signs every Deposit event the chain's depository emitted in it.
func (s *Server) attestDeposit(ctx context.Context, req oracleapi.DepositAttestationRequest) (*oracleapi.DepositAttestation, *oracleapi.Error) {
	chain, err := s.registry.Get(req.ChainID)
	if err != nil || chain.Disabled {
		return nil, oracleapi.Errorf(oracleapi.CodeUnknownChain, "chain %d is not enabled on this oracle", req.ChainID)
	}
	if chain.Depository == "" {
		return nil, oracleapi.Errorf(oracleapi.CodeUnknownChain, "chain %d has no depository configured", req.ChainID)
	}
	depository := common.HexToAddress(chain.Depository)
	log := s.logger.With(slog.Uint64("chainId", chain.ID), slog.String("transactionId", req.TransactionID.Hex()))

	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	unavailable := func(what string, err error) *oracleapi.Error {
		log.Warn("chain RPC failed", slog.String("step", what), slog.Any("err", err))
		return oracleapi.Errorf(oracleapi.CodeChainUnavailable, "chain %d RPC failed while reading %s; retry later", chain.ID, what)
	}

	reader, err := s.clients.get(ctx, chain)
	if err != nil {
		if errors.Is(err, errChainIDMismatch) {
			log.Error("chain misconfigured", slog.Any("err", err))
		}
		return nil, unavailable("the chain id", err)
	}

	receipt, err := reader.TransactionReceipt(ctx, req.TransactionID)
	if errors.Is(err, ethereum.NotFound) || isIndexing(err) {
		// No receipt: unknown, or known but not yet mined (then the caller retries). A node
		// still building its transaction index cannot tell yet; the pool is asked first.
		indexing := isIndexing(err)
		_, pending, terr := reader.TransactionByHash(ctx, req.TransactionID)
		switch {
		case terr == nil && pending:
			return nil, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "transaction %s is pending; retry once it is mined", req.TransactionID.Hex())
		case isIndexing(terr) || (indexing && errors.Is(terr, ethereum.NotFound)):
			return nil, unavailable("the transaction (the node is still indexing transactions)", terr)
		case errors.Is(terr, ethereum.NotFound):
			return nil, oracleapi.Errorf(oracleapi.CodeTransactionNotFound, "transaction %s not found on chain %d", req.TransactionID.Hex(), chain.ID)
		case terr != nil:
			return nil, unavailable("the transaction", terr)
		default:
			return nil, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "transaction %s has no receipt yet; retry later", req.TransactionID.Hex())
		}
	}
	if err != nil {
		return nil, unavailable("the receipt", err)
	}
	if receipt.Status != types.ReceiptStatusSuccessful {
		return nil, oracleapi.Errorf(oracleapi.CodeTransactionReverted, "transaction %s reverted", req.TransactionID.Hex())
	}
	if receipt.BlockNumber == nil {
		return nil, unavailable("the receipt", errors.New("receipt has no block number"))
	}
	block := receipt.BlockNumber.Uint64()

	head, err := reader.BlockNumber(ctx)
	if err != nil {
		return nil, unavailable("the head block", err)
	}
	required := max(chain.Confirmations, 1)
	var confirmations uint64
	if head >= block {
		confirmations = head - block + 1
	}
	if confirmations < required {
		return nil, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "transaction %s has %d of %d confirmations; retry later",
			req.TransactionID.Hex(), confirmations, required)
	}

	header, err := reader.HeaderByNumber(ctx, new(big.Int).SetUint64(block))
	switch {
	case errors.Is(err, ethereum.NotFound):
		return nil, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "block %d of transaction %s is no longer canonical; retry later", block, req.TransactionID.Hex())
	case err != nil:
		return nil, unavailable("the block header", err)
	case header.Hash() != receipt.BlockHash:
		log.Warn("receipt block is not canonical", slog.Uint64("block", block), slog.String("blockHash", receipt.BlockHash.Hex()))
		return nil, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "block %d of transaction %s is no longer canonical; retry later", block, req.TransactionID.Hex())
	}

	var messages []oracleapi.DepositMessage
	for _, l := range receipt.Logs {
		if l.Removed || l.Address != depository || len(l.Topics) == 0 || l.Topics[0] != depositEventID {
			continue
		}
		ev, err := depositoryABI.UnpackDepositEvent(l)
		if err != nil {
			log.Warn("skipping undecodable Deposit log", slog.Uint64("logIndex", uint64(l.Index)), slog.Any("err", err))
			continue
		}
		data := oracleapi.DepositData{
			ChainID:       chain.ID,
			Depository:    depository,
			TransactionID: req.TransactionID,
			LogIndex:      uint64(l.Index),
			BlockNumber:   block,
			BlockHash:     receipt.BlockHash,
			OrderID:       common.Hash(ev.OrderId),
			Depositor:     ev.Depositor,
			Currency:      ev.Currency,
			Amount:        ev.Amount,
		}
		sig, err := s.sign(data)
		if err != nil {
			log.Error("signing failed", slog.Any("err", err))
			return nil, oracleapi.Errorf(oracleapi.CodeInternal, "signing failed")
		}
		messages = append(messages, oracleapi.DepositMessage{Data: data, Signatures: []oracleapi.Signature{sig}})
	}
	if len(messages) == 0 {
		return nil, oracleapi.Errorf(oracleapi.CodeNoDepositEvents, "transaction %s emitted no Deposit event from depository %s", req.TransactionID.Hex(), depository.Hex())
	}
	if req.RequestPeerSignatures && len(s.cfg.Peers) > 0 {
		log.Debug("peer signatures requested; peer aggregation is not implemented, returning the local signature only")
	}
	log.Info("deposit attested", slog.Int("deposits", len(messages)), slog.Uint64("block", block), slog.Uint64("confirmations", confirmations))
	return &oracleapi.DepositAttestation{Messages: messages, Domain: oracleapi.OracleDomain}, nil
}

// isIndexing recognises geth's "transaction indexing is in progress" answer (a node that started
// recently): a lookup that cannot be answered yet, not a missing transaction.
func isIndexing(err error) bool {
	return err != nil && strings.Contains(err.Error(), "indexing is in progress")
}
