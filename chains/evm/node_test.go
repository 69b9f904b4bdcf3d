package evm_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"log/slog"
	"math/big"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
)

// startChain runs one devnet chain (go-ethereum's simulated backend over HTTP JSON-RPC, the
// project's contracts deployed) that seals blocks only when the test says so, and returns the
// engine's client of it.
func startChain(t testing.TB) (*devnet.Chain, *evm.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := devnet.Start(ctx, devnet.Options{Chains: []devnet.ChainOptions{{ID: 31337}}, BlockTime: time.Hour,
		FeedHeartbeat: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	reg, err := d.Registry()
	if err != nil {
		t.Fatal(err)
	}
	ch, err := reg.Get(31337)
	if err != nil {
		t.Fatal(err)
	}
	c, err := evm.Dial(ch)
	if err != nil {
		t.Fatal(err)
	}
	return d.Chain(31337), c
}

// transfer signs a transfer of value wei to `to` at nonce, paying tip over twice the base fee.
func transfer(t *testing.T, c *evm.Client, key *ecdsa.PrivateKey, nonce uint64, to common.Address, value, tip *big.Int) *types.Transaction {
	t.Helper()
	fees, err := c.SuggestFees(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	id := new(big.Int).SetUint64(c.Chain().ID)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce,
		GasTipCap: tip, GasFeeCap: fees.FeeCap(tip), Gas: 21_000, To: &to, Value: value})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// requireKind fails unless err is a *chains.Error of kind want (and of no other kind).
func requireKind(t *testing.T, what string, err, want error) {
	t.Helper()
	var ce *chains.Error
	if !errors.As(err, &ce) || !errors.Is(err, want) {
		t.Fatalf("%s = %v, want a *chains.Error of kind %v", what, err, want)
	}
	for _, other := range []error{chains.ErrUnavailable, chains.ErrNotFound, chains.ErrInsufficientFunds, chains.ErrNonce} {
		if other != want && !errors.Is(want, other) && errors.Is(err, other) {
			t.Fatalf("%s = %v is also %v", what, err, other)
		}
	}
	t.Logf("%s: %v", what, err)
}

// The client classifies what a real node answers: every kind of error is produced here by
// go-ethereum's own RPC server, over HTTP, the way the engine reaches a chain.
func TestClientClassifiesTheNodesAnswers(t *testing.T) {
	chain, c := startChain(t)
	ctx := context.Background()
	accounts := devnet.TestAccounts()
	user := accounts[1]
	broke, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	brokeAddr := crypto.PubkeyToAddress(broke.PublicKey)
	tip := big.NewInt(params.GWei)
	oneETH := big.NewInt(params.Ether)

	t.Run("a custom error of the project's contracts is a revert with its name and selector", func(t *testing.T) {
		depository := devnet.DepositoryAddress
		withdraw := evm.DepositoryABI.PackWithdraw([32]byte{1}, common.Address{}, user.Address, big.NewInt(1))
		_, err := c.EstimateGas(ctx, ethereum.CallMsg{From: user.Address, To: &depository, Data: withdraw})
		var rev *chains.RevertError
		notOwner := evm.DepositoryABI.GetABI().Errors["NotOwner"].ID
		if !errors.As(err, &rev) || rev.Name != "NotOwner" || rev.Selector != [4]byte(notOwner[:4]) {
			t.Fatalf("estimate of a withdraw by a stranger = %#v, want the revert NotOwner", err)
		}
		if _, err := c.CallContract(ctx, ethereum.CallMsg{From: user.Address, To: &depository, Data: withdraw}); !errors.As(err, &rev) || rev.Name != "NotOwner" {
			t.Fatalf("call of a withdraw by a stranger = %v, want the revert NotOwner", err)
		}
	})

	t.Run("a token's error passed through a fill is a revert with the token's error name", func(t *testing.T) {
		err := c.SimulateFill(ctx, brokeAddr.Hex(), devnet.USDCAddress.Hex(), user.Address.Hex())
		var rev *chains.RevertError
		if !errors.As(err, &rev) || rev.Name != "InsufficientAllowance" || rev.Blocked {
			t.Fatalf("simulated USDC fill from an account without allowance = %v, want the revert InsufficientAllowance", err)
		}
	})

	t.Run("a sender that cannot pay is insufficient funds", func(t *testing.T) {
		to := user.Address
		_, err := c.EstimateGas(ctx, ethereum.CallMsg{From: brokeAddr, To: &to, Value: oneETH})
		requireKind(t, "estimate of a transfer from an empty account", err, chains.ErrInsufficientFunds)
		err = c.SendTransaction(ctx, transfer(t, c, broke, 0, user.Address, oneETH, tip))
		requireKind(t, "send of a transfer from an empty account", err, chains.ErrInsufficientFunds)
	})

	t.Run("nonce refusals", func(t *testing.T) {
		err := c.SendTransaction(ctx, transfer(t, c, devnet.DeployerKey(), 0, user.Address, big.NewInt(1), tip))
		requireKind(t, "send at a mined nonce", err, chains.ErrNonceTooLow)

		nonce, err := c.NonceAt(ctx, user.Address)
		if err != nil {
			t.Fatal(err)
		}
		first := transfer(t, c, user.Key, nonce, accounts[2].Address, big.NewInt(1), tip)
		if err := c.SendTransaction(ctx, first); err != nil {
			t.Fatal(err)
		}
		requireKind(t, "send of a pending transaction again", c.SendTransaction(ctx, first), chains.ErrAlreadyKnown)
		same := transfer(t, c, user.Key, nonce, accounts[2].Address, big.NewInt(2), tip)
		requireKind(t, "send of another transaction at a pending nonce with the same fees", c.SendTransaction(ctx, same),
			chains.ErrReplacementUnderpriced)
		if known, err := c.TransactionKnown(ctx, first.Hash()); err != nil || !known {
			t.Fatalf("pending transaction known = %v, %v", known, err)
		}
		chain.Mine()
		r, err := c.Receipt(ctx, first.Hash())
		if err != nil || r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("receipt of the mined transaction = %v, %v", r, err)
		}
		if h, err := c.HeaderByHash(ctx, r.BlockHash); err != nil || h.Number.Cmp(r.BlockNumber) != 0 {
			t.Fatalf("header of the receipt's block = %v, %v", h, err)
		}
	})

	t.Run("what the chain does not have is not found", func(t *testing.T) {
		nowhere := common.HexToHash("0x0badc0de")
		_, err := c.Receipt(ctx, nowhere)
		requireKind(t, "receipt of an unknown transaction", err, chains.ErrNotFound)
		if !errors.Is(err, ethereum.NotFound) {
			t.Fatalf("receipt of an unknown transaction = %v, want it to carry ethereum.NotFound", err)
		}
		_, err = c.DepositsInTx(ctx, nowhere.Hex())
		requireKind(t, "deposits of an unknown transaction", err, chains.ErrNotFound)
		_, err = c.HeaderByHash(ctx, nowhere)
		requireKind(t, "header of an unknown block", err, chains.ErrNotFound)
		head, err := c.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.BlockHash(ctx, head+1000)
		requireKind(t, "hash of a block past the head", err, chains.ErrNotFound)
		if known, err := c.TransactionKnown(ctx, nowhere); err != nil || known {
			t.Fatalf("unknown transaction known = %v, %v", known, err)
		}
	})

	t.Run("fees are the node's tip and its latest base fee", func(t *testing.T) {
		fees, err := c.SuggestFees(ctx)
		if err != nil || fees.Tip == nil || fees.BaseFee == nil || fees.BaseFee.Sign() <= 0 {
			t.Fatalf("fees = %+v, %v", fees, err)
		}
		want := new(big.Int).Add(new(big.Int).Mul(fees.BaseFee, big.NewInt(2)), tip)
		if got := fees.FeeCap(tip); got.Cmp(want) != 0 {
			t.Fatalf("fee cap = %s, want %s", got, want)
		}
	})
}

// A chain nobody answers for is unavailable, which is also the domain's intent.ErrUnavailable.
func TestClientUnreachableIsUnavailable(t *testing.T) {
	c, err := evm.Dial(&chains.Chain{ID: 31337, VMType: chains.VMTypeEVM, HTTPRPCURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = c.Head(ctx)
	requireKind(t, "head of an unreachable chain", err, chains.ErrUnavailable)
	if !errors.Is(err, intent.ErrUnavailable) {
		t.Fatalf("head of an unreachable chain = %v, want intent.ErrUnavailable", err)
	}
	_, err = c.EstimateGas(ctx, ethereum.CallMsg{})
	requireKind(t, "estimate on an unreachable chain", err, chains.ErrUnavailable)
}
