package oracle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/oracle/oracleapi"
)

var (
	withdrawalEventID = depositoryABI.GetABI().Events[bindings.DepositoryWithdrawalEventName].ID
	outputSettlerABI  = bindings.NewOutputSettler()
	fillEventID       = outputSettlerABI.GetABI().Events["Fill"].ID
)

// endpoints are the attestation routes, in the spec's order. Each names the codes it answers
// with besides INVALID_REQUEST, UNKNOWN_CHAIN, RATE_LIMITED, CHAIN_UNAVAILABLE, INTERNAL_ERROR
// and TOO_MANY_EVENTS, which every one may.
func endpoints() []*endpoint {
	txCodes := []string{oracleapi.CodeTransactionNotFound, oracleapi.CodeNotConfirmed, oracleapi.CodeTransactionReverted}
	deposits := newEndpoint(oracleapi.PathDepositAttestation, "Attest the deposits of a Solana transaction",
		"One message per deposit to the chain's vault in the transaction (a top-level transfer of SOL or of an SPL token with a memo of the order id), in instruction order, once its slot has the chain's confirmations.",
		append(txCodes, oracleapi.CodeNoDepositEvents), attestSolanaDeposit)
	fills := newEndpoint(oracleapi.PathSolverFillAttestation, "Attest a solver's fill on a Solana chain",
		"A top-level transfer of the transaction, which carries a memo of orderId, paying recipient at least minimumAmount of currency.",
		append(txCodes, oracleapi.CodeNoMatchingEvent, oracleapi.CodeExpectationMismatch, oracleapi.CodeUnauthorized), attestSolanaFill)
	eps := []*endpoint{
		newEndpoint(oracleapi.PathDepositAttestation, "Attest the Deposit events of a transaction",
			fmt.Sprintf("One message per Deposit event the chain's depository emitted in the transaction, in log order, once the transaction has the chain's confirmations in a canonical block. logIndex and orderId (optional) name the deposit wanted: only the events at that log index or for that order (with both, matching both) are attested. An answer carries at most %d messages (TOO_MANY_EVENTS beyond).", oracleapi.MaxMessagesPerAnswer),
			append(txCodes, oracleapi.CodeNoDepositEvents), attestDeposit),
		newEndpoint(oracleapi.PathWithdrawalAttestation, "Attest the Withdrawal events of a transaction",
			"One message per Withdrawal (payout) event the chain's depository emitted in the transaction, in log order.",
			append(txCodes, oracleapi.CodeNoMatchingEvent), attestWithdrawals),
		newEndpoint(oracleapi.PathSolverFillAttestation, "Attest a solver's fill of an order",
			"The output settler's Fill event for orderId in the transaction, which must pay recipient at least minimumAmount of currency. force (valid x-api-key only) attests a fill that does not meet those expectations as it is.",
			append(txCodes, oracleapi.CodeNoMatchingEvent, oracleapi.CodeExpectationMismatch, oracleapi.CodeUnauthorized), attestFill),
		newEndpoint(oracleapi.PathSolverRefund, "Attest a solver's refund",
			"The depository's Withdrawal event under refundId in the transaction, which must pay recipient at least minimumAmount of currency. force works as for fills.",
			append(txCodes, oracleapi.CodeNoMatchingEvent, oracleapi.CodeExpectationMismatch, oracleapi.CodeUnauthorized), attestRefund),
		newEndpoint(oracleapi.PathWithdrawalInitiation, "Authorize the withdrawal of a deposit to its depositor",
			"The deposit at logIndex of the transaction is confirmed, its withdrawal id (keccak256(abi.encode(chainId, depository, transactionId, logIndex))), which the engine's refunds of the deposit pay under too, is unspent in the depository, and its order has no fill on any of the oracle's chains: the message is the payload of Depository.withdraw(withdrawalId, currency, depositor, amount).",
			append(txCodes, oracleapi.CodeNoDepositEvents, oracleapi.CodeAlreadyWithdrawn, oracleapi.CodeOrderAlreadyFilled), attestWithdrawalInitiation),
		newEndpoint(oracleapi.PathWithdrawalInitiated, "Attest that the depository executed a withdrawal",
			"The depository's once-only flag of withdrawalId is set in the block the chain's confirmations below its head.",
			[]string{oracleapi.CodeWithdrawalNotInitiated}, attestWithdrawalInitiated),
	}
	eps[0].svm, eps[2].svm = deposits, fills
	eps[0].perps = newEndpoint(oracleapi.PathDepositAttestation, "Attest a deposit to the depository's account on a perps exchange",
		"The sendAsset transfer transactionId in the depository's ledger on the exchange, sent by nonceMapping.depositor with nonce nonceMapping.nonce, whose NonceMapping message nonceMapping.wallet signed for orderId: one message.",
		append(txCodes, oracleapi.CodeNoDepositEvents), attestPerpsDeposit)
	return eps
}

func attestWithdrawals(ctx context.Context, s *Server, req oracleapi.WithdrawalAttestationRequest, _ bool) ([]oracleapi.WithdrawalData, oracleapi.Domain, *oracleapi.Error) {
	tx, e := s.readTransaction(ctx, req.ChainID, req.TransactionID, contractDepository)
	if e != nil {
		return nil, oracleapi.Domain{}, e
	}
	var out []oracleapi.WithdrawalData
	for _, l := range tx.logs(withdrawalEventID) {
		ev, err := depositoryABI.UnpackWithdrawalEvent(l)
		if err != nil {
			tx.log.Warn("skipping undecodable Withdrawal log", slog.Uint64("logIndex", uint64(l.Index)), slog.Any("err", err))
			continue
		}
		out = append(out, oracleapi.WithdrawalData{ChainID: tx.chain.ID, Depository: tx.contract, TransactionID: req.TransactionID,
			LogIndex: uint64(l.Index), BlockNumber: tx.block, BlockHash: tx.receipt.BlockHash, WithdrawalID: common.Hash(ev.Id),
			Recipient: ev.Recipient, Currency: ev.Currency, Amount: oracleapi.NewAmount(ev.Amount)})
	}
	if len(out) == 0 {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeNoMatchingEvent, "transaction %s emitted no Withdrawal event from depository %s",
			req.TransactionID.Hex(), tx.contract.Hex())
	}
	tx.log.Info("withdrawal attested", slog.Int("withdrawals", len(out)), slog.Uint64("block", tx.block))
	return out, tx.domain(s), nil
}

// expectation is what a fill or refund must meet unless forced.
type expectation struct {
	recipient, currency common.Address
	minimum             *big.Int
}

// mismatch describes how a payment fails the expectation, "" when it meets it.
func (x expectation) mismatch(recipient, currency common.Address, amount *big.Int) string {
	switch {
	case recipient != x.recipient:
		return fmt.Sprintf("it pays %s, not %s", recipient.Hex(), x.recipient.Hex())
	case currency != x.currency:
		return fmt.Sprintf("it pays currency %s, not %s", currency.Hex(), x.currency.Hex())
	case amount.Cmp(x.minimum) < 0:
		return fmt.Sprintf("it pays %s, less than the minimum %s", amount, x.minimum)
	}
	return ""
}

// checkPayment applies the expectation to the one event found, with force overriding a
// mismatch (logged: a forced attestation is an operator's decision and should be findable).
func checkPayment(log *slog.Logger, what string, x expectation, force bool, recipient, currency common.Address, amount *big.Int) *oracleapi.Error {
	why := x.mismatch(recipient, currency, amount)
	if why == "" {
		return nil
	}
	if force {
		log.Warn("forced attestation of a "+what+" that does not meet the request", slog.String("mismatch", why))
		return nil
	}
	return oracleapi.Errorf(oracleapi.CodeExpectationMismatch, "the %s does not meet the request: %s (force with an API key attests it as it is)", what, why)
}

// payment is a Fill or a refund's Withdrawal found in a transaction.
type payment struct {
	log                         *types.Log
	solver, recipient, currency common.Address
	amount                      *big.Int
}

// findPayment returns the transaction's log of event whose first indexed topic is id (the
// order or refund id), decoded by unpack, once it meets the request's expectation (or is
// forced); what names it in messages.
func findPayment(tx *txRead, what string, event, id common.Hash, unpack func(*types.Log) (payment, error),
	x expectation, force bool) (*payment, *oracleapi.Error) {
	for _, l := range tx.logs(event) {
		if len(l.Topics) < 2 || l.Topics[1] != id {
			continue
		}
		p, err := unpack(l)
		if err != nil {
			tx.log.Warn("skipping an undecodable "+what+" log", slog.Uint64("logIndex", uint64(l.Index)), slog.Any("err", err))
			continue
		}
		if e := checkPayment(tx.log, what, x, force, p.recipient, p.currency, p.amount); e != nil {
			return nil, e
		}
		p.log = l
		tx.log.Info(what+" attested", slog.String("id", id.Hex()), slog.Uint64("block", tx.block), slog.Bool("forced", force))
		return &p, nil
	}
	return nil, oracleapi.Errorf(oracleapi.CodeNoMatchingEvent, "transaction %s emitted no %s under id %s from %s %s",
		tx.receipt.TxHash.Hex(), what, id.Hex(), tx.kind, tx.contract.Hex())
}

func attestFill(ctx context.Context, s *Server, req oracleapi.SolverFillAttestationRequest, authed bool) ([]oracleapi.SolverFillData, oracleapi.Domain, *oracleapi.Error) {
	tx, e := s.readTransaction(ctx, req.ChainID, req.TransactionID, contractOutputSettler)
	if e != nil {
		return nil, oracleapi.Domain{}, e
	}
	p, e := findPayment(tx, "fill", fillEventID, req.OrderID, func(l *types.Log) (payment, error) {
		ev, err := outputSettlerABI.UnpackFillEvent(l)
		if err != nil {
			return payment{}, err
		}
		return payment{solver: ev.Solver, recipient: ev.Recipient, currency: ev.Currency, amount: ev.Amount}, nil
	}, expectation{recipient: req.Recipient, currency: req.Currency, minimum: req.MinimumAmount.Int()}, req.Force && authed)
	if e != nil {
		return nil, oracleapi.Domain{}, e
	}
	return []oracleapi.SolverFillData{{ChainID: tx.chain.ID, OutputSettler: tx.contract, TransactionID: req.TransactionID,
		LogIndex: uint64(p.log.Index), BlockNumber: tx.block, BlockHash: tx.receipt.BlockHash, OrderID: req.OrderID, Solver: p.solver,
		Recipient: p.recipient, Currency: p.currency, Amount: oracleapi.NewAmount(p.amount)}}, tx.domain(s), nil
}

func attestRefund(ctx context.Context, s *Server, req oracleapi.SolverRefundAttestationRequest, authed bool) ([]oracleapi.SolverRefundData, oracleapi.Domain, *oracleapi.Error) {
	tx, e := s.readTransaction(ctx, req.ChainID, req.TransactionID, contractDepository)
	if e != nil {
		return nil, oracleapi.Domain{}, e
	}
	p, e := findPayment(tx, "refund", withdrawalEventID, req.RefundID, func(l *types.Log) (payment, error) {
		ev, err := depositoryABI.UnpackWithdrawalEvent(l)
		if err != nil {
			return payment{}, err
		}
		return payment{recipient: ev.Recipient, currency: ev.Currency, amount: ev.Amount}, nil
	}, expectation{recipient: req.Recipient, currency: req.Currency, minimum: req.MinimumAmount.Int()}, req.Force && authed)
	if e != nil {
		return nil, oracleapi.Domain{}, e
	}
	return []oracleapi.SolverRefundData{{ChainID: tx.chain.ID, Depository: tx.contract, TransactionID: req.TransactionID,
		LogIndex: uint64(p.log.Index), BlockNumber: tx.block, BlockHash: tx.receipt.BlockHash, RefundID: req.RefundID,
		Recipient: p.recipient, Currency: p.currency, Amount: oracleapi.NewAmount(p.amount)}}, tx.domain(s), nil
}

func attestWithdrawalInitiation(ctx context.Context, s *Server, req oracleapi.WithdrawalInitiationRequest, _ bool) ([]oracleapi.WithdrawalInitiationData, oracleapi.Domain, *oracleapi.Error) {
	tx, e := s.readTransaction(ctx, req.ChainID, req.TransactionID, contractDepository)
	if e != nil {
		return nil, oracleapi.Domain{}, e
	}
	for _, l := range tx.logs(depositEventID) {
		if uint64(l.Index) != req.LogIndex {
			continue
		}
		ev, err := depositoryABI.UnpackDepositEvent(l)
		if err != nil {
			return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeNoDepositEvents, "the Deposit log %d of transaction %s cannot be decoded", req.LogIndex, req.TransactionID.Hex())
		}
		id := oracleapi.WithdrawalIDOf(tx.chain.ID, tx.contract, req.TransactionID, req.LogIndex)
		ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
		defer cancel()
		if e := s.payable(ctx, tx, id, req, common.Hash(ev.OrderId)); e != nil {
			return nil, oracleapi.Domain{}, e
		}
		tx.log.Info("withdrawal initiation attested", slog.String("withdrawalId", id.Hex()))
		return []oracleapi.WithdrawalInitiationData{{ChainID: tx.chain.ID, Depository: tx.contract, WithdrawalID: id,
			DepositTransactionID: req.TransactionID, DepositLogIndex: req.LogIndex, OrderID: common.Hash(ev.OrderId),
			Recipient: ev.Depositor, Currency: ev.Currency, Amount: oracleapi.NewAmount(ev.Amount)}}, tx.domain(s), nil
	}
	return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeNoDepositEvents, "transaction %s has no Deposit event from depository %s at log %d",
		req.TransactionID.Hex(), tx.contract.Hex(), req.LogIndex)
}

// payable refuses the withdrawal authorization of a deposit that can no longer be paid back: a
// quorum of these signatures authorizes Depository.withdraw, and whoever relies on it (a
// settlement contract, an operator's runbook, a verifier) must never pay a deposit twice.
//
//   - Refunded: the deposit's withdrawal id is spent. The engine refunds a deposit under this
//     same id (activities.RefundInput names its deposit), so a refund and a withdrawal spend one once-only flag.
//     Refunds made before the engine did (under keccak256("intentd.refund:" ‖ requestId)) are
//     found for the deposits no order took, whose requestId derives from the deposit; the
//     refunds of quoted orders then are not (their requestId is the engine's alone):
//     docs/oracle.md.
//   - Filled: the order has a Fill in the output settler of any chain the oracle serves. An
//     order id does not name its destination, so every enabled chain with an output settler is
//     read, and one that cannot be read makes the answer CHAIN_UNAVAILABLE, never a signature.
func (s *Server) payable(ctx context.Context, tx *txRead, id common.Hash, req oracleapi.WithdrawalInitiationRequest, orderID common.Hash) *oracleapi.Error {
	legacy := intent.RefundID(intent.DepositRefundRequestID(tx.chain.ID, req.TransactionID.Hex(), uint(req.LogIndex)))
	for _, spentID := range []common.Hash{id, legacy} {
		spent, oe := tx.withdrawn(ctx, spentID, nil)
		if oe != nil {
			return oe
		}
		if spent {
			return oracleapi.Errorf(oracleapi.CodeAlreadyWithdrawn, "the deposit was already withdrawn or refunded (payout id %s is spent)", spentID.Hex())
		}
	}
	for _, ch := range s.registry.Enabled() {
		if ch.OutputSettler == "" || ch.VMType != chains.VMTypeEVM {
			continue
		}
		r, e := s.openChain(ctx, ch.ID, contractOutputSettler, slog.String("orderId", orderID.Hex()))
		if e != nil {
			if e.Code == oracleapi.CodeUnknownChain {
				continue
			}
			return e
		}
		settler := r.contract
		out, err := r.reader.CallContract(ctx, ethereum.CallMsg{To: &settler, Data: outputSettlerABI.PackFilledBy(orderID)}, nil)
		if err != nil {
			return r.unavailable("the order's fill", err)
		}
		solver, err := outputSettlerABI.UnpackFilledBy(out)
		if err != nil {
			return r.unavailable("the order's fill", errors.New("the output settler's answer cannot be decoded"))
		}
		if solver != (common.Address{}) {
			return oracleapi.Errorf(oracleapi.CodeOrderAlreadyFilled, "order %s was filled on chain %d by %s: the deposit is not withdrawable",
				orderID.Hex(), ch.ID, solver.Hex())
		}
	}
	return nil
}

func attestWithdrawalInitiated(ctx context.Context, s *Server, req oracleapi.WithdrawalInitiatedRequest, _ bool) ([]oracleapi.WithdrawalInitiatedData, oracleapi.Domain, *oracleapi.Error) {
	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	r, e := s.openChain(ctx, req.ChainID, contractDepository, slog.String("withdrawalId", req.WithdrawalID.Hex()))
	if e != nil {
		return nil, oracleapi.Domain{}, e
	}
	head, err := r.reader.BlockNumber(ctx)
	if err != nil {
		return nil, oracleapi.Domain{}, r.unavailable("the head block", err)
	}
	// The state confirmations−1 blocks below the head: the block with the chain's
	// confirmations, so a withdrawal a reorg could still undo is not attested.
	depth := max(r.chain.Confirmations, 1) - 1
	if head < depth {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeWithdrawalNotInitiated, "the chain is shorter than its confirmations")
	}
	spent, oe := r.withdrawn(ctx, req.WithdrawalID, new(big.Int).SetUint64(head-depth))
	if oe != nil {
		return nil, oracleapi.Domain{}, oe
	}
	if !spent {
		return nil, oracleapi.Domain{}, oracleapi.Errorf(oracleapi.CodeWithdrawalNotInitiated,
			"withdrawal %s is not executed in a block with %d confirmations", req.WithdrawalID.Hex(), depth+1)
	}
	r.log.Info("withdrawal initiated attested", slog.Uint64("block", head-depth))
	return []oracleapi.WithdrawalInitiatedData{{ChainID: r.chain.ID, Depository: r.contract, WithdrawalID: req.WithdrawalID}}, r.domain(s), nil
}

// withdrawn reads Depository.withdrawn(id) at block (nil: the head).
func (r *chainRead) withdrawn(ctx context.Context, id common.Hash, block *big.Int) (bool, *oracleapi.Error) {
	contract := r.contract
	out, err := r.reader.CallContract(ctx, ethereum.CallMsg{To: &contract, Data: depositoryABI.PackWithdrawn(id)}, block)
	if err != nil {
		return false, r.unavailable("the withdrawal state", err)
	}
	spent, err := depositoryABI.UnpackWithdrawn(out)
	if err != nil {
		return false, r.unavailable("the withdrawal state", errors.New("the depository's answer cannot be decoded"))
	}
	return spent, nil
}
