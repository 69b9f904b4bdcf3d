package integration

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/e2e"
)

// recordWant is what a record made by a real intent must say, from the chains and the quote.
type recordWant struct {
	requestID, status, failReason string
	orderID                       string
	user                          common.Address
	deposit                       *types.Receipt // the deposit's receipt on 31337
	depositAmount                 *big.Int
	fill                          *types.Receipt // the solver's fill on the destination, nil when none landed
	refund                        *types.Receipt // the refund on the origin, nil when none landed
	apiKeyName                    string         // "" when the quote had no key
	withdrawable                  bool
	hasRoute                      bool // a quoted request (not a DepositRefund)
}

// The spec's v3 record table, walked field by field on records made by real intents (ETH
// bridge, ETH→USDC swap, an underpaid deposit refunded, a failure, a duplicate deposit and its
// refund request): each field's JSON type, and its value where the chains or the quote know it.
func TestRecordV3FieldsOnRealIntents(t *testing.T) {
	s := startStack(t)
	keyed, key := newKey(t, s, auth.Integrator{Name: "record-owner"})
	ethPrice, err := s.Sys.PriceSource().USDPrice(context.Background(), "ETH")
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, c *e2e.Client, acct devnet.Account, dest common.Address, amount string) (*quote.Response, *e2e.Wallet) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		q, err := c.Quote(ctx, map[string]any{"user": acct.Address.Hex(), "recipient": devnet.TestAccounts()[8].Address.Hex(),
			"originChainId": 31337, "destinationChainId": 31338, "originCurrency": common.Address{}.Hex(),
			"destinationCurrency": dest.Hex(), "amount": amount, "tradeType": "EXACT_INPUT", "includeProtocolData": true})
		if err != nil {
			t.Fatal(err)
		}
		return q, &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
	}
	wait := func(t *testing.T, id string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		if _, _, err := s.API.WaitStatus(ctx, id, "success", "failure", "refund"); err != nil {
			t.Fatal(err)
		}
	}
	check := func(t *testing.T, w recordWant) {
		t.Helper()
		walkRecordV3(t, s, storedRecord(t, s, w.requestID), w, ethPrice)
		walkRecordV2(t, s, w)
	}

	t.Run("ETH bridge, success, quoted with a key", func(t *testing.T) {
		acct := devnet.TestAccounts()[1]
		q, w := run(t, keyed, acct, common.Address{}, "200000000000000000")
		dep, err := w.ExecuteSteps(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		wait(t, q.RequestID)
		check(t, recordWant{requestID: q.RequestID, status: "success", failReason: "N/A", orderID: q.Protocol.V2.OrderID,
			user: acct.Address, deposit: dep, depositAmount: depositValue(t, q), fill: s.fillReceipt(t, q.Protocol.V2.OrderID),
			apiKeyName: key.Label, hasRoute: true})
	})
	t.Run("ETH to USDC swap, success", func(t *testing.T) {
		acct := devnet.TestAccounts()[2]
		q, w := run(t, s.API, acct, devnet.USDCAddress, "300000000000000000")
		dep, err := w.ExecuteSteps(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		wait(t, q.RequestID)
		check(t, recordWant{requestID: q.RequestID, status: "success", failReason: "N/A", orderID: q.Protocol.V2.OrderID,
			user: acct.Address, deposit: dep, depositAmount: depositValue(t, q), fill: s.fillReceipt(t, q.Protocol.V2.OrderID), hasRoute: true})
	})
	t.Run("refund: half the quoted ETH deposited (DEPOSITED_AMOUNT_TOO_LOW_TO_FILL)", func(t *testing.T) {
		acct := devnet.TestAccounts()[3]
		q, w := run(t, s.API, acct, common.Address{}, "100000000000000000")
		d := depositStep(t, q)
		half := new(big.Int).Div(depositValue(t, q), big.NewInt(2))
		d.Value = half.String()
		dep, err := w.SendTx(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		wait(t, q.RequestID)
		check(t, recordWant{requestID: q.RequestID, status: "refund", failReason: string(intent.FailReasonDepositedAmountTooLowToFill),
			orderID: q.Protocol.V2.OrderID, user: acct.Address, deposit: dep, depositAmount: half,
			refund: s.refundReceipt(t, q.RequestID), hasRoute: true})
	})
	t.Run("failure: the order was filled by another party first (ORDER_ALREADY_FILLED)", func(t *testing.T) {
		acct := devnet.TestAccounts()[4]
		q, w := run(t, s.API, acct, common.Address{}, "100000000000000000")
		data, value := evm.FillCalldata(common.HexToHash(q.Protocol.V2.OrderID), common.Address{}, devnet.TestAccounts()[8].Address, big.NewInt(1))
		other := &e2e.Wallet{Key: devnet.TestAccounts()[6].Key, RPCs: s.RPCs}
		if _, err := other.SendTx(context.Background(), quote.TxData{ChainID: 31338, To: devnet.OutputSettlerAddress.Hex(),
			Data: hexutil.Encode(data), Value: value.String()}); err != nil {
			t.Fatal(err)
		}
		dep, err := w.ExecuteSteps(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		wait(t, q.RequestID)
		check(t, recordWant{requestID: q.RequestID, status: "failure", failReason: string(intent.FailReasonOrderAlreadyFilled),
			orderID: q.Protocol.V2.OrderID, user: acct.Address, deposit: dep, depositAmount: depositValue(t, q),
			withdrawable: true, hasRoute: true})
	})
	t.Run("duplicate deposit: the parent fills once, the second deposit is its own refund request", func(t *testing.T) {
		acct := devnet.TestAccounts()[5]
		q, w := run(t, s.API, acct, common.Address{}, "100000000000000000")
		d := depositStep(t, q)
		first, err := w.SendTx(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		second, err := w.SendTx(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		wait(t, q.RequestID)
		child := depositRefundID(t, 31337, second)
		wait(t, child)
		check(t, recordWant{requestID: q.RequestID, status: "success", failReason: "N/A", orderID: q.Protocol.V2.OrderID,
			user: acct.Address, deposit: first, depositAmount: depositValue(t, q), fill: s.fillReceipt(t, q.Protocol.V2.OrderID), hasRoute: true})
		check(t, recordWant{requestID: child, status: "refund", failReason: string(intent.FailReasonOrphanedDepositRefund),
			orderID: "", user: acct.Address, deposit: second, depositAmount: depositValue(t, q), refund: s.refundReceipt(t, child)})
	})
}

func depositValue(t *testing.T, q *quote.Response) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(depositStep(t, q).Value, 10)
	if !ok {
		t.Fatalf("deposit step value %q", depositStep(t, q).Value)
	}
	return v
}

// eventReceipt is the receipt of the one transaction that emitted a contract's event with the
// given first topic on a chain.
func (s *stack) eventReceipt(t *testing.T, chainID uint64, contract common.Address, event, topic common.Hash) *types.Receipt {
	t.Helper()
	c, err := s.Devnet.Chain(chainID).Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	logs, err := c.FilterLogs(context.Background(), ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{contract},
		Topics: [][]common.Hash{{event}, {topic}}})
	if err != nil || len(logs) != 1 {
		t.Fatalf("%d events %s for %s on %d, want 1: %v", len(logs), event, topic, chainID, err)
	}
	r, err := c.TransactionReceipt(context.Background(), logs[0].TxHash)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (s *stack) fillReceipt(t *testing.T, orderID string) *types.Receipt {
	return s.eventReceipt(t, 31338, devnet.OutputSettlerAddress, evm.OutputSettlerABI.GetABI().Events["Fill"].ID, common.HexToHash(orderID))
}

// refundReceipt is the receipt of the request's one refund, under whichever of its payout ids
// it was paid (testkit.RefundIDs).
func (s *stack) refundReceipt(t *testing.T, requestID string) *types.Receipt {
	t.Helper()
	ids, err := testkit.RefundIDs(context.Background(), s.Sys.Pool, requestID)
	if err != nil {
		t.Fatal(err)
	}
	withdrawal := evm.DepositoryABI.GetABI().Events["Withdrawal"].ID
	events := s.Events(t, 31337, devnet.DepositoryAddress, withdrawal)
	for _, id := range ids {
		if events[id] > 0 {
			return s.eventReceipt(t, 31337, devnet.DepositoryAddress, withdrawal, id)
		}
	}
	t.Fatalf("no refund of %s on chain", requestID)
	return nil
}

func (s *stack) blockTime(t *testing.T, chainID uint64, block *big.Int) int64 {
	t.Helper()
	c, err := s.Devnet.Chain(chainID).Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h, err := c.HeaderByNumber(context.Background(), block)
	if err != nil {
		t.Fatal(err)
	}
	return int64(h.Time)
}

// JSON type checks, named by the spec's words.
func isString(t *testing.T, o any, path string) string {
	t.Helper()
	return str(t, o, path)
}

// typed is the value at path as a T (a JSON number, boolean, array or object), what naming it.
func typed[T any](t *testing.T, o any, path, what string) T {
	t.Helper()
	v, ok := get(t, o, path).(T)
	if !ok {
		t.Fatalf("%s is not %s: %#v", path, what, get(t, o, path))
	}
	return v
}

func isNumber(t *testing.T, o any, path string) float64 {
	t.Helper()
	return typed[float64](t, o, path, "a number")
}
func isBool(t *testing.T, o any, path string) bool {
	t.Helper()
	return typed[bool](t, o, path, "a boolean")
}
func isArray(t *testing.T, o any, path string) []any {
	t.Helper()
	return typed[[]any](t, o, path, "an array")
}
func isObject(t *testing.T, o any, path string) obj {
	t.Helper()
	return typed[obj](t, o, path, "an object")
}

func absent(t *testing.T, o obj, key, path string) {
	t.Helper()
	if v, ok := o[key]; ok {
		t.Fatalf("%s.%s is present (%#v), want it omitted", path, key, v)
	}
}

func equal[T comparable](t *testing.T, rule string, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: got %v, want %v", rule, got, want)
	}
}

func sameHex(t *testing.T, rule, got, want string) {
	t.Helper()
	if !strings.EqualFold(got, want) {
		t.Fatalf("%s: got %s, want %s", rule, got, want)
	}
}

func isAmountObject(t *testing.T, o any, path string) {
	t.Helper()
	for _, f := range []string{"amount", "amountFormatted", "amountUsd", "minimumAmount"} {
		isString(t, o, path+"."+f)
	}
	isObject(t, o, path+".currency")
	isNumber(t, o, path+".currency.chainId")
	isString(t, o, path+".currency.address")
}

// walkRecordV3 walks the spec's tables: record, data, transaction item, feeSponsorship, fees,
// platformFee, route, protocol.
func walkRecordV3(t *testing.T, s *stack, rec obj, w recordWant, ethPrice decimal.Decimal) {
	t.Helper()
	// Record.
	equal(t, "id is the requestId", isString(t, rec, "id"), w.requestID)
	equal(t, "status", isString(t, rec, "status"), w.status)
	sameHex(t, "user is the address that initiated", isString(t, rec, "user"), w.user.Hex())
	isString(t, rec, "recipient")
	isString(t, rec, "sender")
	isString(t, rec, "refundTo")
	isString(t, rec, "requestType")
	isArray(t, rec, "features")
	for _, f := range []string{"createdAt", "updatedAt"} {
		if _, err := time.Parse(time.RFC3339Nano, isString(t, rec, f)); err != nil {
			t.Fatalf("%s is not a timestamp: %v", f, err)
		}
	}
	data := isObject(t, rec, "data")

	// data.
	isString(t, data, "slippageTolerance")
	equal(t, "data.failReason", isString(t, data, "failReason"), w.failReason)
	equal(t, "data.refundFailReason is N/A when the refund did not fail", isString(t, data, "refundFailReason"), "N/A")
	isNumber(t, data, "timeEstimate")
	if w.apiKeyName != "" {
		equal(t, "data.apiKeyName is the key's label at quote time", isString(t, data, "apiKeyName"), w.apiKeyName)
	} else {
		absent(t, data, "apiKeyName", "data")
	}
	// No fill of these intents was mined and reverted: failedTxHash, failedTxBlockNumber and
	// failedCallData name only such a fill.
	for _, f := range []string{"failedTxHash", "failedTxBlockNumber", "failedCallData"} {
		absent(t, data, f, "data")
	}

	// Transaction items: inTxs is the deposit; outTxs the fill or the refund, mined.
	inTxs, outTxs := isArray(t, data, "inTxs"), isArray(t, data, "outTxs")
	if len(inTxs) != 1 {
		t.Fatalf("inTxs %v, want the one deposit", inTxs)
	}
	checkTxItem(t, s, inTxs[0], "data.inTxs[0]", 31337, w.deposit, ethPrice)
	out, outChain := w.outReceipts()
	if len(outTxs) != len(out) {
		t.Fatalf("outTxs %v, want %d mined transactions (never a pending item)", outTxs, len(out))
	}
	for i, r := range out {
		checkTxItem(t, s, outTxs[i], "data.outTxs["+strconv.Itoa(i)+"]", outChain, r, ethPrice)
	}

	if !w.hasRoute {
		absent(t, data, "fees", "data")
		absent(t, data, "route", "data")
	} else {
		// fees: quoted and, once the fill landed, actual, each {usd, amount, amountFormatted}.
		for _, phase := range []string{"quoted", "actual"} {
			if phase == "actual" && w.fill == nil {
				// The SDK types fees.actual as an optional object, never null (issue 33, point 8).
				absent(t, get(t, data, "fees").(obj), "actual", "data.fees")
				continue
			}
			for _, c := range []string{"swap", "execution", "platform", "app", "sponsored"} {
				for _, f := range []string{"usd", "amount", "amountFormatted"} {
					isString(t, data, "fees."+phase+"."+c+"."+f)
				}
			}
		}
		if w.fill != nil {
			equal(t, "fees.actual: the fill pays the quoted amounts exactly",
				mustJSON(t, get(t, data, "fees.actual")), mustJSON(t, get(t, data, "fees.quoted")))
		}
		isObject(t, data, "fees.currency")

		// feeSponsorship: these requests sponsor nothing; the quoted phase is there, the actual
		// one (with sponsorPayment) only when a sponsor paid.
		fs := isObject(t, data, "feeSponsorship.quoted")
		isArray(t, fs, "selectedComponents")
		isBool(t, fs, "capHit")
		for _, c := range []string{"execution", "swap", "platform", "app"} {
			isBool(t, fs, "components."+c+".selected")
			for _, part := range []string{"total", "sponsored", "userPays"} {
				for _, f := range []string{"amount", "amountFormatted", "amountUsd", "minimumAmount"} {
					isString(t, fs, "components."+c+"."+part+"."+f)
				}
			}
		}
		isString(t, fs, "sponsoredTotal.amount")
		isString(t, fs, "userPaysTotal.amount")
		isString(t, fs, "maxSubsidizationAmount")
		// Nothing sponsored: feeSponsorship.actual is left out, even after success (the SDK types
		// it as an optional object, never null; issue 33, point 8).
		absent(t, get(t, data, "feeSponsorship").(obj), "actual", "data.feeSponsorship")

		// platformFee.
		pf := isObject(t, data, "platformFee")
		isString(t, pf, "bucket")
		isString(t, pf, "ruleId")
		for _, f := range []string{"serviceFeeBps", "integratorFeeBps", "totalFeeBps"} {
			isNumber(t, pf, f)
		}
		for _, f := range []string{"serviceFee", "integratorFee", "totalPlatformFee"} {
			isAmountObject(t, pf, f)
		}
		isString(t, pf, "integratorFeeRecipient")

		// appFees.
		isArray(t, data, "appFees.quoted")
		isArray(t, data, "appFees.actual")
		isObject(t, data, "appFees.currency")

		// route.
		for _, leg := range []string{"origin", "destination"} {
			isAmountObject(t, data, "route.quoted."+leg+".inputCurrency")
			isAmountObject(t, data, "route.quoted."+leg+".outputCurrency")
			isString(t, data, "route.quoted."+leg+".router")
		}
		isAmountObject(t, data, "route.actual.origin.inputCurrency")
		equal(t, "route.actual.origin.inputCurrency is the real deposited amount",
			isString(t, data, "route.actual.origin.inputCurrency.amount"), w.depositAmount.String())
		sameHex(t, "route.actual.origin.inputCurrency is the deposited currency",
			isString(t, data, "route.actual.origin.inputCurrency.currency.address"), common.Address{}.Hex())
		if w.fill != nil {
			isAmountObject(t, data, "route.actual.origin.outputCurrency")
			isString(t, data, "route.actual.rate")
		} else if get(t, data, "route.actual.origin.outputCurrency") != nil {
			t.Fatalf("a deposit seen with no fill: actual.origin.outputCurrency is null, got %v", get(t, data, "route.actual.origin.outputCurrency"))
		}
		equal(t, "route.actual.destination is the quoted destination (the fill pays exactly what was quoted)",
			mustJSON(t, get(t, data, "route.actual.destination.outputCurrency")), mustJSON(t, get(t, data, "route.quoted.destination.outputCurrency")))
	}

	// protocol.
	p := isObject(t, rec, "protocol")
	if w.orderID != "" {
		equal(t, "protocol.orderId", isString(t, p, "orderId"), w.orderID)
		equal(t, "protocol.hubType is onchain", isString(t, p, "hubType"), "onchain")
		isString(t, p, "solver.address")
		isString(t, p, "solver.protocolChainId")
		isNumber(t, p, "solver.chainId")
	}
	equal(t, "protocol.isWithdrawable: a failed request's attested deposit that nothing took", isBool(t, p, "isWithdrawable"), w.withdrawable)
	origin := isObject(t, p, "deposit.origin")
	equal(t, "protocol.deposit.origin.amount is the deposit's", isString(t, origin, "amount"), w.depositAmount.String())
	equal(t, "protocol.deposit.origin.chainId", isNumber(t, origin, "chainId"), 31337)
	sameHex(t, "protocol.deposit.origin.currency", isString(t, origin, "currency"), common.Address{}.Hex())
	sameHex(t, "protocol.deposit.origin.depositor", isString(t, origin, "depositor"), w.user.Hex())
	sameHex(t, "protocol.deposit.origin.depository", isString(t, origin, "depository"), devnet.DepositoryAddress.Hex())
	if w.orderID != "" {
		sameHex(t, "protocol.deposit.origin.onchainId is the order id passed to the depository", isString(t, origin, "onchainId"), w.orderID)
	} else {
		isString(t, origin, "onchainId")
	}
	sameHex(t, "protocol.deposit.origin.transactionId is the deposit", isString(t, origin, "transactionId"), w.deposit.TxHash.Hex())
	absent(t, isObject(t, p, "deposit"), "service", "protocol.deposit")
	att := isObject(t, p, "deposit.attestation")
	if len(isArray(t, att, "execution.actions")) == 0 {
		t.Fatal("protocol.deposit.attestation.execution.actions is empty")
	}
	isString(t, att, "execution.idempotencyKey")
	// Three oracles run at 2-of-3: the worker relied on the deposit once at least two of them
	// had signed it, and the record lists every accepted signature, one per signer.
	sigs := isArray(t, att, "attestations")
	if len(sigs) < devnet.OracleThreshold || len(sigs) > devnet.OracleCount {
		t.Fatalf("attestations %v, want %d to %d of the oracles' signatures", sigs, devnet.OracleThreshold, devnet.OracleCount)
	}
	seen := map[common.Address]bool{}
	for _, sig := range sigs {
		equal(t, "attestations[].oracleChainId is the attested chain", isString(t, sig, "oracleChainId"), "31337")
		sameHex(t, "attestations[].oracleContract is the attested depository", isString(t, sig, "oracleContract"), devnet.DepositoryAddress.Hex())
		signer := common.HexToAddress(isString(t, sig, "signerAddress"))
		if !slices.Contains(devnet.OracleAddresses(), signer) || seen[signer] {
			t.Fatalf("attestations[].signerAddress %s is not one of the oracles' signers, once each", signer.Hex())
		}
		seen[signer] = true
		if b, err := hexutil.Decode(isString(t, sig, "signature")); err != nil || len(b) != 65 {
			t.Fatalf("attestations[].signature %q is not a 65-byte signature: %v", isString(t, sig, "signature"), err)
		}
	}
	if w.fill == nil && w.refund == nil {
		absent(t, p, "settlement", "protocol")
		return
	}
	fills, refunds := isArray(t, p, "settlement.destination.fills"), isArray(t, p, "settlement.destination.refunds")
	absent(t, isObject(t, p, "settlement"), "service", "protocol.settlement")
	checkSettled := func(rule string, list []any, r *types.Receipt, chainID uint64) {
		t.Helper()
		if r == nil {
			if len(list) != 0 {
				t.Fatalf("%s: %v, want none", rule, list)
			}
			return
		}
		if len(list) != 1 {
			t.Fatalf("%s: %v, want one", rule, list)
		}
		equal(t, rule+" chainId", isNumber(t, list[0], "chainId"), float64(chainID))
		sameHex(t, rule+" transactionId", isString(t, list[0], "transactionId"), r.TxHash.Hex())
	}
	checkSettled("protocol.settlement.destination.fills", fills, w.fill, 31338)
	checkSettled("protocol.settlement.destination.refunds", refunds, w.refund, 31337)
}

// checkTxItem checks a transaction item against the chain's receipt and block.
func checkTxItem(t *testing.T, s *stack, item any, path string, chainID uint64, r *types.Receipt, ethPrice decimal.Decimal) {
	t.Helper()
	sameHex(t, path+".txHash equals the chain's", isString(t, item, "txHash"), r.TxHash.Hex())
	fee := new(big.Int).Mul(r.EffectiveGasPrice, new(big.Int).SetUint64(r.GasUsed))
	equal(t, path+".fee is the total fee in wei (gasUsed × effectiveGasPrice)", isString(t, item, "fee"), fee.String())
	equal(t, path+".feeUsd is the fee at the native currency's price", isString(t, item, "feeUsd"),
		intent.USDValue(fee, 18, ethPrice).StringFixed(6))
	equal(t, path+".block", isNumber(t, item, "block"), float64(r.BlockNumber.Uint64()))
	equal(t, path+".type is onchain", isString(t, item, "type"), "onchain")
	equal(t, path+".chainId", isNumber(t, item, "chainId"), float64(chainID))
	equal(t, path+".timestamp is the block's", isNumber(t, item, "timestamp"), float64(s.blockTime(t, chainID, r.BlockNumber)))
	equal(t, path+".status is success or failure", isString(t, item, "status"), "success")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
