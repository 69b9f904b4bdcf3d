package oracle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/internal/redact"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// The oracle's perps exchange chains (vmType hypevm, the family chains/perps): deposits to the
// depository's account on the exchange, which fund withdrawals from it. docs/oracle.md, "Perps
// exchange chains", is the wire contract.
//
// A transfer on the exchange carries no order id. The user binds the nonce of its sendAsset to
// the order by signing the NonceMapping message, which the engine hands over with the
// transfer's hash; the oracle reads the database of neither, only the exchange: it finds the
// transfer in the depository's ledger, requires that it is a send to the depository from the
// message's depositor with the message's nonce, recovers the message's signer (the wallet) for
// the request's order, and signs the deposit (oracleapi.PerpsDepositData).
//
// Depth. The exchange applies a transfer at once and for good; its "block" is the transfer's
// time in seconds, and the head the oracle's clock in seconds (chains/perps.Client), so the chain
// entry's confirmations are counted in seconds as the family's client counts them.

// perpsClients are the oracle's clients of the perps chains, one per chain (no request is made
// until one is used).
type perpsClients struct {
	mu      sync.Mutex
	clients map[uint64]*perps.Client
}

func (p *perpsClients) get(chain *chains.Chain) (*perps.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[chain.ID]; ok {
		return c, nil
	}
	c, err := perps.Dial(chain)
	if err != nil {
		return nil, redact.Error(fmt.Errorf("dial chain %d's exchange: %w", chain.ID, err))
	}
	if p.clients == nil {
		p.clients = map[uint64]*perps.Client{}
	}
	p.clients[chain.ID] = c
	return c, nil
}

// perpsNonceWindow is how far before its nonce a transfer can be in the ledger: the exchange
// refuses a nonce a day or more ahead of its clock (and one two days or more behind), so the
// transfer of a nonce was applied after nonce − 1 day. The ledger is read from there on.
const perpsNonceWindow = 24 * time.Hour

// attestPerpsDeposit is attestDeposit for a perps chain.
func attestPerpsDeposit(ctx context.Context, s *Server, req oracleapi.PerpsDepositAttestationRequest, _ bool) ([]oracleapi.PerpsDepositData, oracleapi.Domain, *oracleapi.Error) {
	chain, err := s.registry.Get(req.ChainID)
	if err != nil || chain.Disabled || chain.VMType != chains.VMTypePerps {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeUnknownChain, "chain %d is not enabled on this oracle", req.ChainID)
	}
	if !common.IsHexAddress(chain.Depository) {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeUnknownChain, "chain %d has no %s account configured", req.ChainID, contractDepository)
	}
	depository := common.HexToAddress(chain.Depository)
	log := s.logger.With(slog.Uint64("chainId", chain.ID), slog.String("transactionId", req.TransactionID.Hex()))
	orphan := req.OrderID == (common.Hash{})
	var m oracleapi.PerpsNonceMapping
	switch {
	case orphan && req.NonceMapping != nil:
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeInvalidRequest, "an orphan (the zero orderId) is asked without a nonceMapping")
	case !orphan && req.NonceMapping == nil:
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeInvalidRequest, "nonceMapping is required: it ties the transfer to orderId")
	case !orphan:
		m = *req.NonceMapping
		// The message first: it costs no read of the exchange.
		if m.ID != req.OrderID {
			return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeInvalidRequest, "nonceMapping.id %s is not the orderId %s", m.ID.Hex(), req.OrderID.Hex())
		}
		x := perps.Exchange{Word: chain.Exchange}
		signer, err := perps.VerifyNonceMapping(x.NonceMappingTypedData(perps.NonceMapping{Wallet: m.Wallet, Depositor: m.Depositor,
			OrderID: m.ID, Nonce: m.Nonce, SignatureChainID: m.SignatureChainID}), m.Signature)
		if err != nil || signer != m.Wallet {
			return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeInvalidRequest,
				"nonceMapping.signature is not the wallet's over the NonceMapping message of this wallet, depositor, nonce and order, signed on chain %d", m.SignatureChainID)
		}
	}

	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	unavailable := func(what string, err error) *oracleapi.Error {
		level := slog.LevelWarn
		if errors.Is(err, context.Canceled) {
			level = slog.LevelDebug
		}
		log.Log(context.Background(), level, "exchange API failed", slog.String("step", what), slog.Any("err", redact.Error(err)))
		return oracleapi.Errorf(oracleapi.CodeChainUnavailable, "chain %d's exchange API failed while reading %s; retry later", chain.ID, what)
	}
	client, err := s.perps.get(chain)
	if err != nil {
		return nil, oracleapi.Domain{}, unavailable("the chain's client", err)
	}
	start := time.UnixMilli(int64(min(m.Nonce, 1<<62))).Add(-perpsNonceWindow)
	if orphan {
		start = time.Unix(0, 0) // no nonce to bound the ledger by: all of it
	}
	ledger, err := client.Ledger(ctx, depository.Hex(), start)
	if err != nil {
		return nil, oracleapi.Domain{}, unavailable("the depository's ledger", err)
	}
	var t *perps.LedgerEntry
	for i := range ledger {
		if h, err := hexutil.Decode(ledger[i].Hash); err == nil && common.BytesToHash(h) == req.TransactionID && len(h) == common.HashLength {
			t = &ledger[i]
			break
		}
	}
	if t == nil {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeTransactionNotFound, "transfer %s is not in the ledger of depository %s on chain %d",
			req.TransactionID.Hex(), depository.Hex(), chain.ID)
	}
	if t.Type != "send" || !common.IsHexAddress(t.Destination) || common.HexToAddress(t.Destination) != depository {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeNoDepositEvents, "transfer %s is not a send to depository %s", req.TransactionID.Hex(), depository.Hex())
	}
	if orphan && common.IsHexAddress(t.User) {
		// An orphan's depositor is its sender, whom its refund pays back.
		m.Depositor, m.Nonce = common.HexToAddress(t.User), t.Nonce
	}
	if !common.IsHexAddress(t.User) || common.HexToAddress(t.User) != m.Depositor {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeInvalidRequest, "transfer %s was sent by %s, not by nonceMapping.depositor %s",
			req.TransactionID.Hex(), t.User, m.Depositor.Hex())
	}
	if t.Nonce != m.Nonce {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeInvalidRequest, "transfer %s has nonce %d, not nonceMapping.nonce %d",
			req.TransactionID.Hex(), t.Nonce, m.Nonce)
	}
	currency, decimals, e := perpsCurrency(ctx, chain, client, t)
	if e != nil {
		if e.Code == oracleapi.CodeChainUnavailable {
			log.Warn("reading the transfer's currency failed", slog.String("message", e.Message))
		}
		return nil, oracleapi.Domain{}, e
	}
	amount, err := perps.ParseAmount(t.Amount, decimals)
	if err != nil {
		return nil, oracleapi.Domain{}, unavailable("the transfer's amount", err)
	}
	block := uint64(max(t.Time.Unix(), 0))
	head, _ := client.Head(ctx)
	var confirmations uint64
	if head >= block {
		confirmations = head - block + 1
	}
	if required := max(chain.FinalConfirmations(), 1); confirmations < required {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeNotConfirmed, "transfer %s has %d of %d confirmations; retry later",
			req.TransactionID.Hex(), confirmations, required)
	}
	log.Info("deposit attested", slog.String("orderId", req.OrderID.Hex()), slog.Uint64("block", block))
	return []oracleapi.PerpsDepositData{{ChainID: chain.ID, Depository: depository, TransactionID: req.TransactionID, Index: 0,
			Block: block, OrderID: req.OrderID, Depositor: m.Depositor, Currency: currency, Amount: oracleapi.NewAmount(amount)}},
		oracleapi.PerpsDomain(s.cfg.Environment, chain.ID), nil
}

// perpsCurrency is the currency the depository received by t and its decimals: perps USDC (16
// zero bytes, 8 decimals) for a transfer to its perps balance, else the token id of t's token
// ("NAME:0x<id>"), followed by the DEX's name for a transfer into a HIP-3 DEX's balance
// (perps.DexCurrency), at the decimals the chain entry lists it with, or the exchange's listing
// says.
func perpsCurrency(ctx context.Context, chain *chains.Chain, client *perps.Client, t *perps.LedgerEntry) (hexutil.Bytes, uint8, *oracleapi.Error) {
	if t.DestinationDex == "" {
		return make(hexutil.Bytes, 16), perps.PerpsUSDCDecimals, nil
	}
	_, idText, ok := strings.Cut(t.Token, ":")
	id, err := hexutil.Decode(idText)
	if !ok || err != nil || len(id) != 16 {
		return nil, 0, oracleapi.Errorf(oracleapi.CodeNoDepositEvents, "transfer's token %q names no 16-byte token id", t.Token)
	}
	currency, err := hexutil.Decode(perps.DexCurrency(hexutil.Encode(id), t.DestinationDex))
	if err != nil {
		return nil, 0, oracleapi.Errorf(oracleapi.CodeNoDepositEvents, "transfer's dex %q cannot name a currency", t.DestinationDex)
	}
	if cur, ok := chain.FindCurrency(hexutil.Encode(currency)); ok {
		return currency, cur.Decimals, nil
	}
	tokens, err := client.SpotTokens(ctx)
	if err != nil {
		return nil, 0, oracleapi.Errorf(oracleapi.CodeChainUnavailable, "chain %d's exchange API failed while reading its tokens; retry later", chain.ID)
	}
	for _, tok := range tokens {
		if strings.EqualFold(tok.TokenID, hexutil.Encode(id)) {
			return currency, tok.WeiDecimals, nil
		}
	}
	return nil, 0, oracleapi.Errorf(oracleapi.CodeNoDepositEvents, "transfer's token %q is not listed by the exchange", t.Token)
}
