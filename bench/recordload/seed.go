package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/migrations"
	"github.com/intentd/intentd/store"
)

// The seeded population: how many of each, and how they are spread.
const (
	seedIntegrators = 5
	seedKeys        = 20 // spread over the integrators; key i belongs to integrator i % seedIntegrators
	seedUsers       = 200_000
	seedDays        = 180 // requests are created over the last seedDays days
	anonymousShare  = 0.3 // of requests quoted without a key
)

// chains the seeded requests move between (ids only: the records are read, never executed).
var seedChains = []uint64{1, 10, 137, 8453, 42161, 31337, 31338}

// currencies per chain: native and a stablecoin.
var seedCurrencies = []intent.Currency{
	{Address: "0x0000000000000000000000000000000000000000", Symbol: "ETH", Name: "Ether", Decimals: 18,
		Metadata: intent.CurrencyMetadata{Verified: true, IsNative: true}},
	{Address: "0x3F88d0F5403139753a203e6F36BFaE0CeAE3bF42", Symbol: "USDC", Name: "USD Coin", Decimals: 6,
		Metadata: intent.CurrencyMetadata{Verified: true}},
}

// statuses and their shares of the seeded requests (a busy service: most requests succeed).
var seedStatuses = []struct {
	status intent.Status
	share  float64
	fail   intent.FailReason
}{
	{intent.StatusSuccess, 0.84, intent.FailReasonNA},
	{intent.StatusWaiting, 0.06, intent.FailReasonNA},
	{intent.StatusRefund, 0.05, "SOLVER_CAPACITY_EXCEEDED"},
	{intent.StatusFailure, 0.03, "UNKNOWN"},
	{intent.StatusPending, 0.01, intent.FailReasonNA},
	{intent.StatusSubmitted, 0.01, intent.FailReasonNA},
}

// seedConfig is what `recordload seed` does.
type seedConfig struct {
	databaseURL string
	requests    int
	keysFile    string // where the keys' values are written (0600), for `recordload run`
	seed        uint64
}

// seedDB creates the integrators and keys, then COPYs cfg.requests requests and their
// transactions, and ANALYZEs the tables.
func seedDB(ctx context.Context, cfg seedConfig, out io.Writer) error {
	pool, err := pgxpool.New(ctx, cfg.databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := migrations.Apply(ctx, pool); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var have int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM requests`).Scan(&have); err != nil {
		return err
	}
	if _, err := os.Stat(cfg.keysFile); err == nil && have >= cfg.requests {
		fmt.Fprintf(out, "already seeded: %d requests\n", have)
		return nil
	}
	st := store.New(pool)
	by := store.Actor{Name: "recordload", Via: store.ViaCLI}
	var keys []keyInfo
	var integrators []string
	for i := range seedIntegrators {
		in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: fmt.Sprintf("bench integrator %d", i)}, by)
		if err != nil {
			return fmt.Errorf("integrator: %w", err)
		}
		integrators = append(integrators, in.ID)
	}
	for i := range seedKeys {
		value, k, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: integrators[i%seedIntegrators],
			Label: fmt.Sprintf("bench key %d", i), Unlimited: true}, by)
		if err != nil {
			return fmt.Errorf("key: %w", err)
		}
		keys = append(keys, keyInfo{ID: k.ID, Value: value, Integrator: integrators[i%seedIntegrators]})
	}
	if err := writeKeys(cfg.keysFile, keys); err != nil {
		return err
	}
	g := newGenerator(cfg.seed, keys)
	start := time.Now()
	n, err := pool.CopyFrom(ctx, pgx.Identifier{"requests"},
		[]string{"id", "status", "user", "recipient", "origin_chain_id", "destination_chain_id", "order_id",
			"api_key_id", "fail_reason", "refund_fail_reason", "in_tx_hashes", "out_tx_hashes", "version",
			"created_at", "updated_at", "record", "volume_usd"},
		&requestRows{g: g, n: cfg.requests})
	if err != nil {
		return fmt.Errorf("copy requests: %w", err)
	}
	fmt.Fprintf(out, "seeded %d requests in %s\n", n, time.Since(start).Round(time.Second))
	start = time.Now()
	m, err := pool.CopyFrom(ctx, pgx.Identifier{"request_transactions"},
		[]string{"request_id", "direction", "chain_id", "tx_hash", "log_index", "block_number", "status", "kind"},
		pgx.CopyFromRows(g.txs))
	if err != nil {
		return fmt.Errorf("copy transactions: %w", err)
	}
	fmt.Fprintf(out, "seeded %d transactions in %s\n", m, time.Since(start).Round(time.Second))
	if _, err := pool.Exec(ctx, `ANALYZE requests; ANALYZE request_transactions`); err != nil {
		return err
	}
	return nil
}

// keyInfo is a seeded key as `recordload run` needs it. The file holding it is local to the
// machine that ran the benchmark (.data/, ignored by git).
type keyInfo struct {
	ID         string `json:"id"`
	Value      string `json:"value"`
	Integrator string `json:"integrator"`
}

func writeKeys(path string, keys []keyInfo) error {
	b, err := json.Marshal(keys)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

func readKeys(path string) ([]keyInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var keys []keyInfo
	return keys, json.Unmarshal(b, &keys)
}

// generator makes the seeded requests, the same on every run of one seed.
type generator struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	keys  []keyInfo
	users []string
	now   time.Time
	txs   [][]any // request_transactions rows, collected while the requests are made
	block uint64
}

func newGenerator(seed uint64, keys []keyInfo) *generator {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := &generator{rng: rng, keys: keys, now: time.Now().UTC(), block: 20_000_000}
	// A few users make many requests, most make a few (Zipf, as wallets do).
	g.zipf = rand.NewZipf(rng, 1.07, 4, seedUsers-1)
	for i := range seedUsers {
		g.users = append(g.users, address(uint64(i)))
	}
	return g
}

// address is the i-th seeded user, checksummed as records carry it: the busiest users have the
// smallest i.
func address(i uint64) string {
	return common.HexToAddress(fmt.Sprintf("0x%040x", 0xbe0000000000+i)).Hex()
}

func (g *generator) hash() string {
	var b [32]byte
	for i := range 4 {
		v := g.rng.Uint64()
		for j := range 8 {
			b[i*8+j] = byte(v >> (8 * j))
		}
	}
	return "0x" + hex.EncodeToString(b[:])
}

func (g *generator) pickStatus() (intent.Status, intent.FailReason) {
	x := g.rng.Float64()
	for _, s := range seedStatuses {
		if x < s.share {
			return s.status, s.fail
		}
		x -= s.share
	}
	return intent.StatusSuccess, intent.FailReasonNA
}

// request makes one request row (and appends its transactions to g.txs).
func (g *generator) request() []any {
	id := g.hash()
	user := g.users[g.zipf.Uint64()]
	recipient := user
	if g.rng.IntN(10) == 0 {
		recipient = g.users[g.rng.IntN(seedUsers)]
	}
	origin := seedChains[g.rng.IntN(len(seedChains))]
	dest := seedChains[g.rng.IntN(len(seedChains))]
	for dest == origin {
		dest = seedChains[g.rng.IntN(len(seedChains))]
	}
	cin, cout := seedCurrencies[g.rng.IntN(2)], seedCurrencies[g.rng.IntN(2)]
	cin.ChainID, cout.ChainID = origin, dest
	status, fail := g.pickStatus()
	created := g.now.Add(-time.Duration(g.rng.Int64N(int64(seedDays * 24 * time.Hour))))
	updated := created
	if status != intent.StatusWaiting {
		updated = created.Add(time.Duration(2+g.rng.IntN(60)) * time.Second)
	}
	// USD 1 to USD 100,000, most small.
	usd := decimal.NewFromInt(int64(1 + g.rng.ExpFloat64()*400)).Mul(decimal.NewFromInt(int64(1 + g.rng.IntN(250))))
	amountIn := amountOf(usd, cin)
	var apiKey any
	keyName := ""
	if g.rng.Float64() >= anonymousShare {
		k := g.rng.IntN(len(g.keys))
		apiKey, keyName = g.keys[k].ID, fmt.Sprintf("bench key %d", k)
	}
	rec := intent.Record{ID: id, Status: status, User: user, Recipient: recipient, Sender: user, RefundTo: user,
		RequestType: "intent", Features: []string{}, CreatedAt: created.Format(time.RFC3339Nano),
		UpdatedAt: updated.Format(time.RFC3339Nano),
		Data: intent.RecordData{SlippageTolerance: "50", FailReason: fail, RefundFailReason: intent.RefundFailReasonNA,
			TimeEstimate: 3, InTxs: []intent.TxItem{}, OutTxs: []intent.TxItem{},
			CurrencyIn:  &intent.AmountObject{Currency: cin, Amount: amountIn, AmountUsd: usd.StringFixed(2)},
			CurrencyOut: &intent.AmountObject{Currency: cout, Amount: amountOf(usd, cout), AmountUsd: usd.StringFixed(2)},
			Fees: &intent.QuotedFees{Currency: cin, Quoted: intent.FeeComponents{
				Execution: intent.FeeAmount{USD: "0.02", Amount: amountOf(decimal.RequireFromString("0.02"), cin)}}},
			AppFees: &intent.AppFees{Quoted: []intent.AppFeeAmount{}, Actual: []intent.AppFeeAmount{}, Currency: cin},
		},
		Protocol: intent.Protocol{OrderID: g.hash(), HubType: "onchain",
			Solver: intent.ProtocolSolver{Address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", ChainID: dest}},
	}
	if keyName != "" {
		rec.Data.Referrer = "bench"
	}
	var in, out []string
	if status != intent.StatusWaiting {
		g.block += uint64(1 + g.rng.IntN(3))
		h := g.hash()
		in = append(in, h)
		rec.Data.InTxs = append(rec.Data.InTxs, intent.TxItem{TxHash: h, Fee: "21000000000000", Block: g.block,
			Type: "onchain", ChainID: origin, Timestamp: created.Unix() + 2, Status: "success"})
		g.txs = append(g.txs, []any{id, "in", int64(origin), h, 0, int64(g.block), "success", "deposit"})
	}
	switch status {
	case intent.StatusSuccess, intent.StatusRefund, intent.StatusFailure:
		h, kind, chain := g.hash(), "fill", dest
		if status == intent.StatusRefund {
			kind, chain = "refund", origin
		}
		txStatus := "success"
		if status == intent.StatusFailure {
			txStatus = "failure"
		}
		out = append(out, h)
		rec.Data.OutTxs = append(rec.Data.OutTxs, intent.TxItem{TxHash: h, Fee: "42000000000000", Block: g.block + 1,
			Type: "onchain", ChainID: chain, Timestamp: updated.Unix(), Status: txStatus})
		g.txs = append(g.txs, []any{id, "out", int64(chain), h, -1, int64(g.block + 1), txStatus, kind})
	}
	body, _ := json.Marshal(rec) // a struct of strings, numbers and slices: it always marshals
	return []any{id, string(status), user, recipient, int64(origin), int64(dest), rec.Protocol.OrderID,
		apiKey, string(fail), string(intent.RefundFailReasonNA), orNone(in), orNone(out), int64(1),
		created, updated, body, usd}
}

func orNone(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// amountOf is usd's worth of c in its smallest unit, at ETH = USD 3,000 and USDC = USD 1.
func amountOf(usd decimal.Decimal, c intent.Currency) string {
	price := decimal.NewFromInt(1)
	if c.Metadata.IsNative {
		price = decimal.NewFromInt(3000)
	}
	return usd.Div(price).Shift(int32(c.Decimals)).Floor().String()
}

// requestRows streams n generated requests to CopyFrom.
type requestRows struct {
	g   *generator
	n   int
	row []any
}

func (r *requestRows) Next() bool {
	if r.n == 0 {
		return false
	}
	r.n--
	r.row = r.g.request()
	return true
}

func (r *requestRows) Values() ([]any, error) { return r.row, nil }
func (r *requestRows) Err() error             { return nil }
