package reliability

import (
	"context"
	"fmt"
	"math/big"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet/svm"
)

// solanaPaid is what the Solana family kept of a request's payments (table solana_payments):
// the signatures of its attempts by kind.
type solanaPaid map[string][]string

// solanaPayments reads every kept Solana payment attempt, by request.
func (r *rig) solanaPayments(ctx context.Context) map[string]solanaPaid {
	out := map[string]solanaPaid{}
	if r.Solana == nil {
		return out
	}
	rows, err := r.pool.Query(ctx, `SELECT request_id, kind, signature FROM solana_payments ORDER BY request_id, kind, attempt`)
	if err != nil {
		r.t.Fatalf("solana payments: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		var req, kind, sig string
		if err := rows.Scan(&req, &kind, &sig); err != nil {
			r.t.Fatal(err)
		}
		if out[req] == nil {
			out[req] = solanaPaid{}
		}
		out[req][kind] = append(out[req][kind], sig)
	}
	return out
}

// solBalance is owner's balance of currency on the local Solana chain (read directly, never
// through a fault proxy): lamports for SOL, the base units of its associated token account for
// the USDC mint (0 without one).
func (r *rig) solBalance(ctx context.Context, currency string, owner solanago.PublicKey) (*big.Int, error) {
	cl := rpc.New(r.Solana.RPCURL)
	if currency == solana.NativeAddress {
		b, err := cl.GetBalance(ctx, owner, rpc.CommitmentConfirmed)
		if err != nil {
			return nil, err
		}
		return new(big.Int).SetUint64(b.Value), nil
	}
	b, err := cl.GetTokenAccountBalance(ctx, svm.USDCAccount(owner), rpc.CommitmentConfirmed)
	if err != nil {
		return new(big.Int), nil // no token account: nothing paid
	}
	v, _ := new(big.Int).SetString(b.Value.Amount, 10)
	return v, nil
}

// solTouched is the signatures of the transactions that touched owner's account of currency on
// the local Solana chain: the wallet's for SOL, its associated token account's for USDC. A
// fresh wallet's are exactly the engine's payments to it.
func (r *rig) solTouched(ctx context.Context, currency string, owner solanago.PublicKey) ([]string, error) {
	account := owner
	if currency != solana.NativeAddress {
		account = svm.USDCAccount(owner)
	}
	sigs, err := rpc.New(r.Solana.RPCURL).GetSignaturesForAddressWithOpts(ctx, account,
		&rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(sigs))
	for i, s := range sigs {
		out[i] = s.Signature.String()
	}
	return out, nil
}

// checkSolana checks the money of a sol-dest or sol-origin intent (issue 36, "Done when": the
// reliability suite includes Solana intents with nothing lost or paid twice) and counts into f:
//   - success: the recipient holds exactly the quoted output, paid by exactly one fill (on
//     Solana the recipient's account was touched by one transaction, a fill signature the engine
//     kept for the request; on 31337 one Fill event of the order), and nothing was refunded;
//   - refund (allowed only when the fill could not be sent or included, as for EVM intents):
//     no fill, and refundTo holds exactly the deposit back, once.
//
// evmFills and evmRefunds are the order's Fill events on its EVM destination (sol-origin) and the
// request's refunds by the depository on 31337 (sol-dest).
func (r *rig) checkSolana(ctx context.Context, c *intentCase, row readRow, f *figures, evmFills, evmRefunds int, kept solanaPaid) []string {
	t := r.t
	var why []string
	fail := func(format string, a ...any) { why = append(why, fmt.Sprintf(format, a...)) }
	isKept := func(kind, sig string) bool {
		for _, s := range kept[kind] {
			if s == sig {
				return true
			}
		}
		return false
	}
	switch c.Kind {
	case "sol-dest":
		got, err := r.solBalance(ctx, c.solCurrency(), c.SolRecipient)
		if err != nil {
			fail("recipient %s balance: %v", c.SolRecipient, err)
			return why
		}
		touched, err := r.solTouched(ctx, c.solCurrency(), c.SolRecipient)
		if err != nil {
			fail("recipient %s signatures: %v", c.SolRecipient, err)
			return why
		}
		f.DoubleFills += max(0, len(touched)-1)
		if len(kept["refund"]) > 0 {
			fail("Solana refunds kept %v for an intent whose refunds are on 31337", kept["refund"])
		}
		switch row.Status {
		case "success":
			if got.Cmp(c.AmountOut) != 0 {
				f.WrongBalances++
				fail("Solana recipient %s holds %s %s, quoted output %s", c.SolRecipient, got, c.solCurrency(), c.AmountOut)
			}
			if len(touched) != 1 || !isKept("fill", touched[0]) || len(row.OutTxs) != 1 || row.OutTxs[0] != touched[0] {
				fail("Solana recipient %s touched by %v, kept fills %v, read model's fills %v: want one fill, the same in all three",
					c.SolRecipient, touched, kept["fill"], row.OutTxs)
			}
			if evmRefunds != 0 {
				f.StrayRefunds += evmRefunds
				fail("%d refunds on 31337 of a filled intent", evmRefunds)
			}
		case "refund":
			if len(touched) != 0 || got.Sign() != 0 {
				f.StrayFills += len(touched)
				fail("the Solana recipient of a refunded intent holds %s, touched by %v", got, touched)
			}
			if evmRefunds != 1 {
				fail("%d refunds on 31337, want 1", evmRefunds)
			}
			if got := r.Balance(t, 31337, c.currency(), c.RefundTo); got.Cmp(c.Deposited) != 0 {
				f.WrongBalances++
				fail("refundTo holds %s, want %s back", got, c.Deposited)
			}
		default:
			fail("Solana recipient touched by %v holds %s; %d refunds on 31337; kept Solana payments %v", touched, got, evmRefunds, kept)
		}
	case "sol-origin":
		back, err := r.solBalance(ctx, c.solCurrency(), c.SolRefundTo)
		if err != nil {
			fail("refundTo %s balance: %v", c.SolRefundTo, err)
			return why
		}
		touched, err := r.solTouched(ctx, c.solCurrency(), c.SolRefundTo)
		if err != nil {
			fail("refundTo %s signatures: %v", c.SolRefundTo, err)
			return why
		}
		f.DoubleRefunds += max(0, len(touched)-1)
		if len(kept["fill"]) > 0 {
			fail("Solana fills kept %v for an intent filled on 31337", kept["fill"])
		}
		got := r.Balance(t, 31337, c.currency(), c.Recipient)
		switch row.Status {
		case "success":
			if evmFills != 1 || len(touched) != 0 {
				f.StrayRefunds += len(touched)
				fail("%d fills on 31337 and %d refunds on Solana (%v), want 1 fill and no refund", evmFills, len(touched), touched)
			}
			if got.Cmp(c.AmountOut) != 0 {
				f.WrongBalances++
				fail("recipient holds %s on 31337, quoted output %s", got, c.AmountOut)
			}
		case "refund":
			if evmFills != 0 || got.Sign() != 0 {
				f.StrayFills += evmFills
				fail("%d fills on 31337 of a refunded intent, its recipient holds %s", evmFills, got)
			}
			if len(touched) != 1 || !isKept("refund", touched[0]) || back.Cmp(c.Deposited) != 0 {
				f.WrongBalances++
				fail("Solana refundTo %s holds %s (want %s back) touched by %v, kept refunds %v: want one refund",
					c.SolRefundTo, back, c.Deposited, touched, kept["refund"])
			}
		default:
			fail("%d fills on 31337, Solana refundTo touched by %v holds %s; kept Solana payments %v", evmFills, touched, back, kept)
		}
	}
	return why
}

// checkVault checks that nothing paid to the Solana vault was lost (issue 36, "nothing lost"):
// genesis does not fund the vault (devnet/svm), so after the run it holds exactly the sol-origin
// deposits, SOL in lamports and USDC in its associated token account, less those refunded (a
// refund pays out of the vault, its fee paid by the solver). It returns the differences.
func (r *rig) checkVault(ctx context.Context, live []*intentCase, rows map[string]readRow) []string {
	want := map[string]*big.Int{solana.NativeAddress: new(big.Int), svm.USDCMint.String(): new(big.Int)}
	n := 0
	for _, c := range live {
		if c.Kind != "sol-origin" || c.SolDeposit == "" {
			continue
		}
		n++
		if rows[c.RequestID].Status != "refund" {
			want[c.solCurrency()].Add(want[c.solCurrency()], c.Deposited)
		}
	}
	if n == 0 {
		return nil
	}
	var out []string
	for cur, w := range want {
		got, err := r.solBalance(ctx, cur, svm.VaultAddress())
		if err != nil {
			out = append(out, fmt.Sprintf("the vault's %s: %v", cur, err))
		} else if got.Cmp(w) != 0 {
			out = append(out, fmt.Sprintf("the vault holds %s of %s, the %d sol-origin deposits not refunded %s", got, cur, n, w))
		}
	}
	return out
}
