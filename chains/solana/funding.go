package solana

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// The Solana family's funding (chains.Funding). A request is funded by a transaction that pays
// the chain's vault (its chain file's depository) and carries a memo of the order id (the
// deposit step, steps.go). The family has no program of its own to emit an event, so a deposit
// is read off the transaction itself: each top-level instruction that moves money to the vault
// (a System Program transfer of SOL to it; an SPL Token transferChecked to its associated token
// account of the mint) in a successful transaction whose memos name exactly one
// order id is one intent.Deposit:
//
//   - TxHash is the transaction's signature (base58), LogIndex the instruction's index in the
//     message, BlockNumber the slot (client.go: a slot is the family's block), BlockHash empty
//     (no answer that names a transaction names its block's hash);
//   - Depositor is whose money moved: the transfer's source (SOL) or the token account's owner
//     (the transfer's authority), which the deposit step makes the fee payer too;
//   - Currency is NativeAddress or the mint, Amount the base units moved.
//
// What it does not see: a payment without a memo, or with memos of two order ids (it cannot say
// which order it pays, and the engine's refund of unclaimed deposits works from Deposit too, so
// nothing is returned rather than a guess); a transfer a program makes by cross-program
// invocation (only top-level instructions are read); a token payment by the plain Transfer
// instruction, which names no mint (the deposit step uses transferChecked), or to a token account
// of the vault other than its associated one. Deposits finds the transactions through
// getSignaturesForAddress of the vault and of its associated token accounts of the chain's
// listed SPL currencies, newest first, paging back to the range's first slot: a scan far behind
// the tip pages through everything after it.

// memoPrograms are the Memo programs whose instructions carry an order id.
var memoPrograms = map[solanago.PublicKey]bool{solanago.MemoProgramID: true, MemoProgramV1: true}

// signaturesPage is how many signatures one getSignaturesForAddress returns (the RPC's most).
const signaturesPage = 1000

// Deposits returns the deposits in slots [from, to], in the chain's order (slot, then the order
// the node lists the transactions in, then instruction).
func (c *Client) Deposits(ctx context.Context, from, to uint64) ([]intent.Deposit, error) {
	if from > to {
		return nil, nil
	}
	addrs, err := c.depositAddresses()
	if err != nil {
		return nil, err
	}
	type found struct {
		sig  solanago.Signature
		slot uint64
	}
	seen := map[solanago.Signature]bool{}
	var txs []found
	for _, a := range addrs {
		sigs, err := c.signaturesIn(ctx, a, from, to)
		if err != nil {
			return nil, err
		}
		for _, s := range sigs {
			if !seen[s.Signature] {
				seen[s.Signature] = true
				txs = append(txs, found{s.Signature, s.Slot})
			}
		}
	}
	sort.SliceStable(txs, func(i, j int) bool { return txs[i].slot < txs[j].slot })
	var out []intent.Deposit
	for _, t := range txs {
		ds, err := c.depositsInTx(ctx, t.sig)
		if errors.Is(err, chains.ErrNotFound) {
			continue // listed at confirmed, then gone: not a deposit of this range after all
		}
		if err != nil {
			return nil, err
		}
		out = append(out, ds...)
	}
	return out, nil
}

// signaturesIn returns the successful transactions touching a in slots [from, to], oldest first.
func (c *Client) signaturesIn(ctx context.Context, a solanago.PublicKey, from, to uint64) ([]*rpc.TransactionSignature, error) {
	limit := signaturesPage
	opts := &rpc.GetSignaturesForAddressOpts{Limit: &limit, Commitment: commitment}
	var out []*rpc.TransactionSignature
	for {
		page, err := c.rpc.GetSignaturesForAddressWithOpts(ctx, a, opts)
		if err != nil {
			return nil, c.classify("get signatures for address", err)
		}
		done := len(page) < limit
		for _, s := range page {
			if s.Slot < from {
				done = true
				break
			}
			if s.Slot <= to && s.Err == nil {
				out = append(out, s)
			}
		}
		if done || len(page) == 0 {
			break
		}
		opts.Before = page[len(page)-1].Signature
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// depositAddresses are the accounts a deposit writes to: the vault and its associated token
// account of each SPL currency the chain lists.
func (c *Client) depositAddresses() ([]solanago.PublicKey, error) {
	vault, err := c.vault()
	if err != nil {
		return nil, err
	}
	out := []solanago.PublicKey{vault}
	for _, cur := range c.chain.ERC20 {
		mint, err := solanago.PublicKeyFromBase58(cur.Address)
		if err != nil {
			continue
		}
		ata, err := associatedTokenAddress(vault, mint)
		if err != nil {
			return nil, err
		}
		out = append(out, ata)
	}
	return out, nil
}

// DepositsInTx returns the deposits of one transaction (its base58 signature); none when it
// failed, chains.ErrNotFound while it is not confirmed.
func (c *Client) DepositsInTx(ctx context.Context, tx string) ([]intent.Deposit, error) {
	sig, err := solanago.SignatureFromBase58(tx)
	if err != nil {
		return nil, fmt.Errorf("transaction %q: %w", tx, errNotTxID)
	}
	return c.depositsInTx(ctx, sig)
}

func (c *Client) depositsInTx(ctx context.Context, sig solanago.Signature) ([]intent.Deposit, error) {
	res, err := c.getTransaction(ctx, sig)
	if err != nil {
		return nil, err
	}
	if res.Meta == nil || res.Meta.Err != nil {
		return nil, nil
	}
	tx, err := res.Transaction.GetTransaction()
	if err != nil {
		return nil, &chains.Error{Kind: chains.ErrUnavailable, ChainID: c.chain.ID, Op: "get transaction", Err: fmt.Errorf("decode %s: %w", sig, err)}
	}
	vault, err := c.vault()
	if err != nil {
		return nil, err
	}
	return ParseDeposits(c.chain.ID, vault, sig, res.Slot, tx, res.Meta.LoadedAddresses), nil
}

// getTransaction reads a confirmed transaction (base64, any version); chains.ErrNotFound while
// it is not confirmed.
func (c *Client) getTransaction(ctx context.Context, sig solanago.Signature) (*rpc.GetTransactionResult, error) {
	v := uint64(0)
	res, err := c.rpc.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{Encoding: solanago.EncodingBase64, Commitment: commitment,
		MaxSupportedTransactionVersion: &v})
	if err != nil {
		return nil, c.classify("get transaction", err)
	}
	return res, nil
}

// ParseDeposits returns the deposits to vault of one successful transaction (see the top of this
// file); loaded are the accounts its address lookup tables added, after the message's own.
func ParseDeposits(chainID uint64, vault solanago.PublicKey, sig solanago.Signature, slot uint64, tx *solanago.Transaction, loaded rpc.LoadedAddresses) []intent.Deposit {
	keys := append(append(append(solanago.PublicKeySlice{}, tx.Message.AccountKeys...), loaded.Writable...), loaded.ReadOnly...)
	key := func(i uint16) (solanago.PublicKey, bool) {
		if int(i) >= len(keys) {
			return solanago.PublicKey{}, false
		}
		return keys[i], true
	}
	orderID := ""
	for _, ix := range tx.Message.Instructions {
		if p, ok := key(ix.ProgramIDIndex); !ok || !memoPrograms[p] {
			continue
		}
		text := string(ix.Data)
		if !orderIDPattern.MatchString(text) {
			continue
		}
		if orderID != "" && orderID != text {
			return nil // two orders named: which one the payment is for cannot be told
		}
		orderID = text
	}
	if orderID == "" {
		return nil
	}
	var out []intent.Deposit
	for i, ix := range tx.Message.Instructions {
		program, ok := key(ix.ProgramIDIndex)
		if !ok {
			continue
		}
		accts := make([]solanago.PublicKey, 0, len(ix.Accounts))
		for _, a := range ix.Accounts {
			k, ok := key(a)
			if !ok {
				accts = nil
				break
			}
			accts = append(accts, k)
		}
		currency, depositor, amount, ok := transferTo(vault, program, accts, ix.Data)
		if !ok {
			continue
		}
		out = append(out, intent.Deposit{ChainID: chainID, TxHash: sig.String(), LogIndex: uint(i), BlockNumber: slot,
			OrderID: orderID, Depositor: depositor, Currency: currency, Amount: strconv.FormatUint(amount, 10),
			Family: string(chains.VMTypeSVM)})
	}
	return out
}

// System Program and SPL Token instruction tags of the transfers a deposit is made of.
const (
	systemTransfer        = 2  // u32 LE tag, u64 lamports; [from, to]
	tokenTransferChecked  = 12 // u8 tag, u64 amount, u8 decimals; [source, mint, destination, authority]
	systemTransferDataLen = 12
)

// transferTo reads one instruction as a payment to vault: the currency (NativeAddress or the
// mint), whose money moved, and how much; ok false when it is not one.
func transferTo(vault, program solanago.PublicKey, accts []solanago.PublicKey, data []byte) (currency, depositor string, amount uint64, ok bool) {
	switch {
	case program.Equals(solanago.SystemProgramID):
		if len(data) != systemTransferDataLen || binary.LittleEndian.Uint32(data) != systemTransfer || len(accts) < 2 || !accts[1].Equals(vault) {
			return "", "", 0, false
		}
		return NativeAddress, accts[0].String(), binary.LittleEndian.Uint64(data[4:]), true
	case program.Equals(solanago.TokenProgramID):
		if len(data) == 10 && data[0] == tokenTransferChecked && len(accts) >= 4 {
			mint, dest := accts[1], accts[2]
			if ata, err := associatedTokenAddress(vault, mint); err == nil && dest.Equals(ata) {
				return mint.String(), accts[3].String(), binary.LittleEndian.Uint64(data[1:]), true
			}
		}
	}
	return "", "", 0, false
}

// TxBlock returns the slot a transaction is in (Hash empty: no answer that names a transaction
// names its block's hash); chains.ErrNotFound while it is not confirmed.
func (c *Client) TxBlock(ctx context.Context, tx string) (chains.Block, error) {
	sig, err := solanago.SignatureFromBase58(tx)
	if err != nil {
		return chains.Block{}, fmt.Errorf("transaction %q: %w", tx, errNotTxID)
	}
	st, err := c.status(ctx, sig)
	if err != nil {
		return chains.Block{}, err
	}
	if st == nil || st.ConfirmationStatus == rpc.ConfirmationStatusProcessed {
		return chains.Block{}, &chains.Error{Kind: chains.ErrNotFound, ChainID: c.chain.ID, Op: "get signature statuses", Err: fmt.Errorf("%s is not confirmed", tx)}
	}
	return chains.Block{Number: st.Slot}, nil
}

// TxKnown reports whether the node knows the transaction: processed, confirmed or in its
// history. (A Solana node keeps no pool a client can query: a transaction it has not processed
// is unknown.)
func (c *Client) TxKnown(ctx context.Context, tx string) (bool, error) {
	sig, err := solanago.SignatureFromBase58(tx)
	if err != nil {
		return false, fmt.Errorf("transaction %q: %w", tx, errNotTxID)
	}
	st, err := c.status(ctx, sig)
	return st != nil, err
}

// status is a signature's status, its history searched; nil when the node has none.
func (c *Client) status(ctx context.Context, sig solanago.Signature) (*rpc.SignatureStatusesResult, error) {
	out, err := c.rpc.GetSignatureStatuses(ctx, true, sig)
	if err != nil {
		return nil, c.classify("get signature statuses", err)
	}
	if len(out.Value) == 0 {
		return nil, nil
	}
	return out.Value[0], nil
}

// TxFacts (chains.TxFactsReader) reads a confirmed transaction's slot, the fee it paid in
// lamports and, withTime, its block's time, all from getTransaction; chains.ErrNotFound while it
// is not confirmed.
func (c *Client) TxFacts(ctx context.Context, tx string, withTime bool) (*chains.TxFacts, error) {
	sig, err := solanago.SignatureFromBase58(tx)
	if err != nil {
		return nil, fmt.Errorf("transaction %q: %w", tx, errNotTxID)
	}
	res, err := c.getTransaction(ctx, sig)
	if err != nil {
		return nil, err
	}
	f := &chains.TxFacts{Block: res.Slot}
	if res.Meta != nil {
		f.Fee = new(big.Int).SetUint64(res.Meta.Fee)
	}
	if withTime && res.BlockTime != nil {
		f.Timestamp = int64(*res.BlockTime)
	}
	return f, nil
}
