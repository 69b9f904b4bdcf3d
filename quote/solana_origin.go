package quote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/intentd/intentd/chains"
)

// The origin leg of a quote from a chain whose deposit is one transaction the user's wallet
// compiles and sends as the quote hands it out (a Solana-type chain: issue 36, point 3). Such a
// family compiles the transaction in its FundingSteps and measures it against the chain's wire
// limit (chains/solana: 1232 bytes), answering *chains.TxTooLargeError when it does not fit;
// this file turns that into the spec's 400 SOLANA_TX_TOO_LARGE, on /quote and /quote/v2 (the
// steps the quote returns) and on /price, which returns no steps but refuses a route whose
// deposit could not be sent all the same.
//
// What of the request changes the transaction. The deposit pays the origin currency itself to
// the solver's vault (no swap on the origin: the solver pays the destination from its own
// float), so its size depends on the currency (a SOL transfer, or an SPL transferChecked with
// the vault's associated token account created when it has none) and on the order id's memo,
// and on nothing else the request says: maxRouteLength, includedOriginSwapSources and forBundle
// shape an origin swap route, which this build never puts in the transaction, so they are
// accepted and change nothing here.

// measuresDeposit reports whether a quote from ch compiles and measures its deposit even when
// it hands out no steps (/price): a chain whose family writes the deposit as one transaction
// with a hard wire limit (vmType svm). EVM deposits have no such limit, and /price reads
// nothing of the origin chain for them.
func measuresDeposit(ch *chains.Chain) bool { return ch.VMType == chains.VMTypeSVM }

// measureDeposit is /price's check of a Solana-origin quote: the deposit transaction /quote
// would return, compiled and measured by the origin's family, and refused as /quote refuses it
// (SOLANA_TX_TOO_LARGE). /price builds no order and stores nothing, so the transaction carries a
// random order id of the real shape (0x and 64 hex digits, as the order's hash always is): its
// memo is as long as the quote's, and the transaction as large.
func (e *Engine) measureDeposit(ctx context.Context, q *quoted) *Error {
	if !measuresDeposit(q.in.chain) || q.v.UseDepositAddress {
		return nil
	}
	var id [32]byte
	if _, err := rand.Read(id[:]); err != nil {
		return unknown(err, "could not create an order id")
	}
	requestID, err := NewRequestID()
	if err != nil {
		return unknown(err, "could not create a request id")
	}
	_, qerr := e.fundingSteps(ctx, q, requestID, "0x"+hex.EncodeToString(id[:]))
	return qerr
}

// fundingError is the quote's answer when the origin's family gives no funding steps: a deposit
// transaction over the chain's wire limit is SOLANA_TX_TOO_LARGE, with the spec's message (the
// measured size and the bytes over: "Generated Solana transaction is 1416 bytes, 184 over
// Solana's 1232 byte limit, so it cannot be signed or broadcast."); anything else is the chain
// being unavailable.
func fundingError(ch *chains.Chain, err error) *Error {
	var tooLarge *chains.TxTooLargeError
	if errors.As(err, &tooLarge) {
		return failure(CodeSolanaTxTooLarge, err, "%s", tooLarge.Error())
	}
	return unavailable(err, "chain %d is unavailable", ch.ID)
}
