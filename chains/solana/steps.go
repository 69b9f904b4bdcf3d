package solana

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// The Solana family's side of a quote (chains.Steps). A Solana origin is funded by one
// transaction the user's wallet signs and sends: a payment to the solver's vault (the chain
// file's depository, a base58 address) of SOL by a System Program transfer, or of an SPL token
// (USDC) by a transferChecked from the user's associated token account to the vault's (created
// in the same transaction, idempotently, when the vault has none yet), and a Memo instruction
// whose text is the order id (0x-hex), which binds the payment to its order: the family's
// funding (funding.go) finds deposits by it. The step carries the instructions in the public
// SDK's shape (intent.SVMInstruction), which the wallet compiles with itself as fee payer; the
// quote compiles the same transaction first (a v0 message with a recent blockhash) and measures
// it, so that a step is only handed out when it fits the chain's 1232-byte wire limit
// (CompileAndMeasure, *chains.TxTooLargeError).

// MaxTransactionSize is Solana's wire limit of a transaction, signatures included
// (PACKET_DATA_SIZE).
const MaxTransactionSize = 1232

// MemoProgramV1 is the first Memo program, whose memos the RPC reports beside the current one's
// (solanago.MemoProgramID); funding reads both.
var MemoProgramV1 = solanago.MustPublicKeyFromBase58("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo")

// orderIDPattern is an order id as the engine writes it (intent.OrderData.ID): 0x and 64 hex
// digits, lower case.
var orderIDPattern = regexp.MustCompile(`^0x[0-9a-f]{64}$`)

// FundingSteps returns the one step that funds o from this chain: "deposit", a transaction of
// the user's paying o.Amount of o.Currency to the vault under a memo of the order id. The
// transaction is compiled against a recent blockhash and measured first: a
// *chains.TxTooLargeError when it would exceed MaxTransactionSize, chains.ErrUnavailable when
// the chain could not be read.
func (c *Client) FundingSteps(ctx context.Context, o chains.FundingOrder) ([]intent.Step, error) {
	user, err := solanago.PublicKeyFromBase58(o.User)
	if err != nil {
		return nil, fmt.Errorf("user %q: %w", o.User, errNotAddress)
	}
	ixs, err := c.DepositInstructions(ctx, user, o)
	if err != nil {
		return nil, err
	}
	bh, err := c.rpc.GetLatestBlockhash(ctx, commitment)
	if err != nil {
		return nil, c.classify("get latest blockhash", err)
	}
	if _, _, err := CompileAndMeasure(ixs, user, bh.Value.Blockhash); err != nil {
		return nil, err
	}
	data := intent.TxData{From: o.User, To: c.chain.Depository, Value: o.Amount.String(), ChainID: c.chain.ID,
		SVMTx: &intent.SVMTx{Instructions: StepInstructions(ixs), AddressLookupTableAddresses: &[]string{}}}
	return []intent.Step{{ID: "deposit", Action: "Confirm transaction in your wallet", Kind: intent.StepKindTransaction,
		RequestID: o.RequestID, Description: fmt.Sprintf("Deposit %s %s", intent.FormatUnits(o.Amount, o.Currency.Decimals), o.Currency.Symbol),
		Items: []intent.StepItem{{Status: intent.StepItemIncomplete, Data: data}}}}, nil
}

// DepositInstructions returns the instructions of o's deposit paid by user: the payment to the
// vault (with, for an SPL token, the idempotent creation of the vault's associated token
// account when it has none yet: the one read this makes) and the memo of the order id, last.
func (c *Client) DepositInstructions(ctx context.Context, user solanago.PublicKey, o chains.FundingOrder) ([]solanago.Instruction, error) {
	vault, err := c.vault()
	if err != nil {
		return nil, err
	}
	orderID := strings.ToLower(o.OrderID)
	if !orderIDPattern.MatchString(orderID) {
		return nil, fmt.Errorf("order id %q is not 0x and 64 hex digits", o.OrderID)
	}
	if o.Amount == nil || o.Amount.Sign() <= 0 || !o.Amount.IsUint64() {
		return nil, fmt.Errorf("amount %v is not a positive 64-bit amount of base units", o.Amount)
	}
	amount := o.Amount.Uint64()
	var ixs []solanago.Instruction
	if o.Currency.Address == NativeAddress {
		ixs = append(ixs, system.NewTransferInstruction(amount, user, vault).Build())
	} else {
		mint, err := solanago.PublicKeyFromBase58(o.Currency.Address)
		if err != nil {
			return nil, fmt.Errorf("currency %q: %w", o.Currency.Address, errNotAddress)
		}
		dest, err := associatedTokenAddress(vault, mint)
		if err != nil {
			return nil, err
		}
		source, err := associatedTokenAddress(user, mint)
		if err != nil {
			return nil, err
		}
		exists, err := c.accountExists(ctx, dest)
		if err != nil {
			return nil, err
		}
		if !exists {
			ixs = append(ixs, CreateATAIdempotent(user, vault, mint))
		}
		ixs = append(ixs, token.NewTransferCheckedInstruction(amount, o.Currency.Decimals, source, mint, dest, user, nil).Build())
	}
	return append(ixs, MemoInstruction(orderID)), nil
}

// MemoInstruction is a Memo program instruction of text, signed by no one (the memo binds the
// order to the transaction; the payment's own signature is the user's). The program takes the
// data as the text itself (solana-go's memo builder would prefix its length).
func MemoInstruction(text string) solanago.Instruction {
	return solanago.NewInstruction(solanago.MemoProgramID, solanago.AccountMetaSlice{}, []byte(text))
}

// CreateATAIdempotent is the Associated Token Account program's CreateIdempotent (instruction 1)
// of owner's account of mint, paid by payer: a no-op when the account exists already, so a
// deposit that carries it never fails because another one created the account first. (solana-go's
// builder makes the non-idempotent Create.)
func CreateATAIdempotent(payer, owner, mint solanago.PublicKey) solanago.Instruction {
	ata, _ := associatedTokenAddress(owner, mint)
	return solanago.NewInstruction(solanago.SPLAssociatedTokenAccountProgramID, solanago.AccountMetaSlice{
		solanago.Meta(payer).WRITE().SIGNER(),
		solanago.Meta(ata).WRITE(),
		solanago.Meta(owner),
		solanago.Meta(mint),
		solanago.Meta(solanago.SystemProgramID),
		solanago.Meta(solanago.TokenProgramID),
	}, []byte{1})
}

// associatedTokenAddress is owner's associated token account of mint (SPL Token).
func associatedTokenAddress(owner, mint solanago.PublicKey) (solanago.PublicKey, error) {
	ata, _, err := solanago.FindAssociatedTokenAddress(owner, mint)
	if err != nil {
		return solanago.PublicKey{}, fmt.Errorf("associated token account of %s for mint %s: %w", owner, mint, err)
	}
	return ata, nil
}

// CompileAndMeasure compiles ixs into the transaction a wallet sends: a v0 message (no address
// lookup tables) paid by payer with blockhash, with a signature slot for each signer the message
// requires (one for a deposit: the user's). It returns the transaction, its signatures zero, and
// its serialized size; a *chains.TxTooLargeError carrying the size when it exceeds
// MaxTransactionSize.
func CompileAndMeasure(ixs []solanago.Instruction, payer solanago.PublicKey, blockhash solanago.Hash) (*solanago.Transaction, int, error) {
	tx, err := solanago.NewTransaction(ixs, blockhash, solanago.TransactionPayer(payer))
	if err != nil {
		return nil, 0, fmt.Errorf("compile transaction: %w", err)
	}
	tx.Message.SetVersion(solanago.MessageVersionV0)
	tx.Signatures = make([]solanago.Signature, tx.Message.Header.NumRequiredSignatures)
	wire, err := tx.MarshalBinary()
	if err != nil {
		return nil, 0, fmt.Errorf("serialize transaction: %w", err)
	}
	if len(wire) > MaxTransactionSize {
		return tx, len(wire), &chains.TxTooLargeError{Size: len(wire), Limit: MaxTransactionSize}
	}
	return tx, len(wire), nil
}

// StepInstructions writes ixs in the SDK's shape: base58 keys, data in hex.
func StepInstructions(ixs []solanago.Instruction) []intent.SVMInstruction {
	out := make([]intent.SVMInstruction, 0, len(ixs))
	for _, ix := range ixs {
		data, _ := ix.Data()
		keys := make([]intent.SVMAccountMeta, 0, len(ix.Accounts()))
		for _, a := range ix.Accounts() {
			keys = append(keys, intent.SVMAccountMeta{Pubkey: a.PublicKey.String(), IsSigner: a.IsSigner, IsWritable: a.IsWritable})
		}
		out = append(out, intent.SVMInstruction{Keys: keys, ProgramID: ix.ProgramID().String(), Data: hex.EncodeToString(data)})
	}
	return out
}

// vault is the chain's vault, the address deposits pay: its chain file's depository.
func (c *Client) vault() (solanago.PublicKey, error) {
	v, err := solanago.PublicKeyFromBase58(c.chain.Depository)
	if err != nil {
		return solanago.PublicKey{}, fmt.Errorf("%w: chain %d's depository %q is not a Solana address", chains.ErrUnsupported, c.chain.ID, c.chain.Depository)
	}
	return v, nil
}

// accountExists reports whether the chain holds an account at a.
func (c *Client) accountExists(ctx context.Context, a solanago.PublicKey) (bool, error) {
	_, err := c.rpc.GetAccountInfoWithOpts(ctx, a, &rpc.GetAccountInfoOpts{Commitment: commitment, Encoding: solanago.EncodingBase64})
	if errors.Is(err, rpc.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, c.classify("get account info", err)
	}
	return true, nil
}

// FillSignatures is how many signatures a fill carries: the solver's alone (it pays the fee too).
const FillSignatures = 1

// FillCost is the fee of a fill, in lamports: FillSignatures × LamportsPerSignature plus the
// priority fee at the chain's current compute-unit price (GasPrice, the fee of one signature's
// transaction). It is not all a fill of a token may cost the solver: paying a recipient that has
// no token account of the mint yet creates it, and its rent (about 0.002 SOL, a deposit the
// account holds rather than a fee) is the spec's separate "rent" component (RecipientRent).
func (c *Client) FillCost(ctx context.Context, currency string) (*big.Int, error) {
	p, err := c.GasPrice(ctx)
	if err != nil {
		return nil, err
	}
	return new(big.Int).Add(p, big.NewInt((FillSignatures-1)*LamportsPerSignature)), nil
}

// EmptyAccountSize is the data size of a wallet (a System account): its rent-exempt minimum
// (getMinimumBalanceForRentExemption(0), 890,880 lamports) is the least a new one may hold.
const EmptyAccountSize = 0

// RecipientRent (chains.Steps) is what paying recipient in currency needs beyond the fill's fee,
// read fresh from the chain. An SPL token: when the recipient's associated token account of the
// mint does not exist, the fill creates it (payout.go) and the solver pays its rent, the
// rent-exempt minimum of TokenAccountSize bytes (TokenAccountRent): that is Rent. SOL: the fill
// creates nothing (a System transfer to a new address makes the account of the lamports it
// carries), but the chain refuses a transfer that leaves a recipient holding less than the
// rent-exempt minimum of an empty account (InsufficientFundsForRent): MinPayment is what the
// recipient lacks of it, nil when it holds it already. chains.ErrUnavailable when the chain
// could not be read.
func (c *Client) RecipientRent(ctx context.Context, currency, recipient string) (chains.RecipientRent, error) {
	owner, err := solanago.PublicKeyFromBase58(recipient)
	if err != nil {
		return chains.RecipientRent{}, fmt.Errorf("recipient %q: %w", recipient, errNotAddress)
	}
	if currency == NativeAddress {
		bal, err := c.rpc.GetBalance(ctx, owner, commitment)
		if err != nil {
			return chains.RecipientRent{}, c.classify("get balance", err)
		}
		min, err := c.rpc.GetMinimumBalanceForRentExemption(ctx, EmptyAccountSize, commitment)
		if err != nil {
			return chains.RecipientRent{}, c.classify("get minimum balance for rent exemption", err)
		}
		r := chains.RecipientRent{Rent: new(big.Int)}
		if bal.Value < min {
			r.MinPayment = new(big.Int).SetUint64(min - bal.Value)
		}
		return r, nil
	}
	mint, err := solanago.PublicKeyFromBase58(currency)
	if err != nil {
		return chains.RecipientRent{}, fmt.Errorf("currency %q: %w", currency, errNotAddress)
	}
	ata, err := associatedTokenAddress(owner, mint)
	if err != nil {
		return chains.RecipientRent{}, err
	}
	exists, err := c.accountExists(ctx, ata)
	if err != nil {
		return chains.RecipientRent{}, err
	}
	if exists {
		return chains.RecipientRent{Rent: new(big.Int)}, nil
	}
	rent, err := TokenAccountRent(ctx, c.rpc, c.chain.ID)
	if err != nil {
		return chains.RecipientRent{}, err
	}
	return chains.RecipientRent{Rent: new(big.Int).SetUint64(rent)}, nil
}

// A fill simulation's outcome is reused as the EVM family's is (evm.fillSimFresh).
const (
	fillSimFresh  = 20 * time.Second
	fillSimMaxAge = time.Minute
)

// fillSimKey names one simulated fill: who pays, in what, to whom.
type fillSimKey struct{ solver, currency, recipient string }

// SimulateFill (chains.Steps) runs a fill of currency from solver to recipient through
// simulateTransaction (signatures not verified, the blockhash replaced by the node's latest):
// for SOL a transfer of the rent-exempt minimum of an empty account (a smaller one to a new
// account fails for rent, which a real fill of a real amount would not), for an SPL token the
// idempotent creation of the recipient's associated token account and a transferChecked of one
// base unit from the solver's. A *chains.RevertError when the chain would refuse it (Blocked when
// the recipient's token account is frozen), a *chains.Error of kind chains.ErrUnavailable when
// the chain could not be asked. Outcomes are reused for fillSimFresh.
func (c *Client) SimulateFill(ctx context.Context, solver, currency, recipient string) error {
	revert, err := c.fillSims.Get(ctx, fillSimKey{solver, currency, recipient})
	if err != nil {
		return err
	}
	return revert
}

// simulateFill returns the simulated outcome first (nil or a *chains.RevertError) and a failure
// to simulate second.
func (c *Client) simulateFill(ctx context.Context, k fillSimKey) (error, error) { //nolint:staticcheck // two errors on purpose, see above
	ixs, err := c.fillInstructions(ctx, k)
	if err != nil {
		return nil, err
	}
	solver, _ := solanago.PublicKeyFromBase58(k.solver)
	tx, _, err := CompileAndMeasure(ixs, solver, solanago.Hash{})
	if err != nil {
		return nil, err
	}
	out, err := c.rpc.SimulateTransactionWithOpts(ctx, tx, &rpc.SimulateTransactionOpts{Commitment: commitment, ReplaceRecentBlockhash: true})
	if err != nil {
		return nil, c.classify("simulate transaction", err)
	}
	if out.Value == nil || out.Value.Err == nil {
		return nil, nil
	}
	return simulationRevert(out.Value.Err, out.Value.Logs), nil
}

// fillInstructions are the instructions SimulateFill runs.
func (c *Client) fillInstructions(ctx context.Context, k fillSimKey) ([]solanago.Instruction, error) {
	solver, err := solanago.PublicKeyFromBase58(k.solver)
	if err != nil {
		return nil, fmt.Errorf("solver %q: %w", k.solver, errNotAddress)
	}
	recipient, err := solanago.PublicKeyFromBase58(k.recipient)
	if err != nil {
		return nil, fmt.Errorf("recipient %q: %w", k.recipient, errNotAddress)
	}
	if k.currency == NativeAddress {
		rent, err := c.rpc.GetMinimumBalanceForRentExemption(ctx, 0, commitment)
		if err != nil {
			return nil, c.classify("get minimum balance for rent exemption", err)
		}
		return []solanago.Instruction{system.NewTransferInstruction(rent, solver, recipient).Build()}, nil
	}
	mint, err := solanago.PublicKeyFromBase58(k.currency)
	if err != nil {
		return nil, fmt.Errorf("currency %q: %w", k.currency, errNotAddress)
	}
	cur, ok := c.chain.FindCurrency(k.currency)
	if !ok {
		return nil, fmt.Errorf("%w: currency %s is not one of chain %d's", chains.ErrUnsupported, k.currency, c.chain.ID)
	}
	source, err := associatedTokenAddress(solver, mint)
	if err != nil {
		return nil, err
	}
	dest, err := associatedTokenAddress(recipient, mint)
	if err != nil {
		return nil, err
	}
	return []solanago.Instruction{CreateATAIdempotent(solver, recipient, mint),
		token.NewTransferCheckedInstruction(1, cur.Decimals, source, mint, dest, solver, nil).Build()}, nil
}

// frozenLog is what SPL Token logs when an account it would move tokens to or from is frozen
// (TokenError::AccountFrozen): the token's freeze authority blocks it.
const frozenLog = "Account is frozen"

// simulationRevert is the *chains.RevertError of a failed simulation: Name the transaction
// error's name ("InsufficientFundsForRent", "InstructionError"), Reason the error as the node
// wrote it and the last program log.
func simulationRevert(txErr any, logs []string) *chains.RevertError {
	raw, _ := json.Marshal(txErr)
	r := &chains.RevertError{Reason: string(raw)}
	switch e := txErr.(type) {
	case string:
		r.Name = e
	case map[string]any:
		for name := range e {
			r.Name = name
		}
	}
	if len(logs) > 0 {
		r.Reason += ": " + logs[len(logs)-1]
	}
	for _, l := range logs {
		if strings.Contains(l, frozenLog) {
			r.Blocked = true
		}
	}
	return r
}

// DepositAddressSteps is chains.ErrUnsupported: the family has no deposit addresses yet.
func (c *Client) DepositAddressSteps(chains.FundingOrder, string) (string, []intent.Step, error) {
	return "", nil, fmt.Errorf("%w: chain %d (svm) has no deposit addresses", chains.ErrUnsupported, c.chain.ID)
}

// SweepCost is chains.ErrUnsupported: the family has no deposit addresses to sweep.
func (c *Client) SweepCost(context.Context, string) (*big.Int, error) {
	return nil, fmt.Errorf("%w: chain %d (svm) has no deposit addresses", chains.ErrUnsupported, c.chain.ID)
}
