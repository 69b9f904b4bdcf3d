// Command intentload drives whole intents through a running engine, the way wallets do, and
// reports the throughput and the latency anatomy of each intent. N wallets (the devnet's funded
// test accounts) send -intents intents each, at -rate intents a second in all (open loop: intent i
// is due at start + i/rate, whatever happened to the ones before it). Each intent asks the API for
// a quote to a fresh recipient, signs the quote's steps with the wallet's own nonce sequence and
// broadcasts them without waiting for receipts, so one wallet keeps many deposits in flight.
//
// It times each intent from the chains and from the engine's own event stream:
//
//   - the block that mined the deposit, and the block that mined the fill, as first seen by a
//     watcher polling each chain's head every few milliseconds;
//   - the fill's arrival in the destination node's transaction pool (its broadcast), from a
//     pending-transaction filter the same watcher polls;
//   - the transitions pending, submitted and success, from the status events of GET /ws (one
//     connection following every request of the API key; updatedAt is the engine's clock, the
//     same machine's).
//
// and checks every outcome on chain: each intent ends in success, its deposit transaction
// succeeded, and its recipient (an address used for nothing else) holds exactly the quoted
// output, so an intent paid twice or not at all is found. A run with an intent lost, failed or
// paid wrongly exits 1.
//
// Routes (devnet chains 31337 -> 31338): bridge (ETH -> ETH), usdc (USDC -> USDC; each wallet
// approves the depository once before the run), swap (ETH -> USDC) and deposit-address (ETH ->
// ETH through a strict deposit address, issue 35: each quote asks for useDepositAddress with the
// wallet as refundTo, and the wallet pays the address by a plain transfer, no calldata; the
// engine sees it, sweeps the address into the depository and fills on the sweep's deposit),
// and the local Solana chain's (issue 36, point 6; `intentd-dev devnet` runs it, -solana-rpc):
// solana-origin (SOL on 792703809 -> ETH on 31337: the wallets are the local chain's funded test
// keypairs, each deposit compiled from the quote's instructions, signed and sent by a Go Solana
// wallet without waiting for it) and solana-dest (ETH on 31337 -> SOL to a fresh base58
// recipient, each checked by its lamports). The local Solana chain has no transaction pool (it
// executes a transaction as it arrives) and no block's list of signatures: a Solana
// transaction's block is its slot (getSignatureStatuses, after the run), a slot "seen" when the
// chain first answers a later one (the slot closed), and a Solana fill's arrival is the engine's
// submitted status (its broadcast).
//
// Usage:
//
//	go run ./bench/intentload -wallets 10 -intents 60 -rate 50
//
// `make bench-intents` starts a fresh `intentd-dev dev` and runs it (BENCHMARKS.md).
package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	solanago "github.com/gagliardetto/solana-go"
	solrpc "github.com/gagliardetto/solana-go/rpc"
	"github.com/gorilla/websocket"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/httpclient"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/testkit/e2e"
)

type config struct {
	api, apiKey       string
	rpcs              map[uint64]string
	wallets, perWal   int
	rate              float64
	route             string
	amount            string
	origin, dest      uint64
	confirmations     uint64
	timeout           time.Duration
	jsonOut           bool
	trace             string
	allowRefunds      bool
	currencyIn, outCu common.Address
	// inCurrency and outCurrency are the quote's currencies as written (base58 on Solana).
	inCurrency, outCurrency string
	solanaRPC               string
	targets                 targets
}

func main() {
	var c config
	var rpcs string
	flag.StringVar(&c.api, "api", "http://127.0.0.1:8080", "the API's base URL")
	flag.StringVar(&c.apiKey, "api-key", os.Getenv("INTENTD_API_KEY"), "API key (default $INTENTD_API_KEY; never printed)")
	flag.StringVar(&rpcs, "rpc", "31337=http://127.0.0.1:8545,31338=http://127.0.0.1:8546", "chain=JSON-RPC URL, comma separated")
	flag.IntVar(&c.wallets, "wallets", 10, "wallets sending at once (the devnet's test accounts)")
	flag.IntVar(&c.perWal, "intents", 20, "intents per wallet")
	flag.Float64Var(&c.rate, "rate", 0, "intents a second in all (open loop); 0 sends each wallet's intents back to back")
	flag.StringVar(&c.route, "route", "bridge", "bridge (ETH), usdc (USDC), swap (ETH -> USDC), deposit-address (ETH, a strict deposit address paid by a plain transfer), "+
		"solana-origin (SOL -> ETH) or solana-dest (ETH -> SOL)")
	flag.StringVar(&c.solanaRPC, "solana-rpc", "http://127.0.0.1:8899", "the local Solana chain's JSON-RPC URL (the solana-* routes)")
	flag.StringVar(&c.amount, "amount", "", "amount in per intent, smallest unit (default 0.01 ETH, 10 USDC or 0.1 SOL)")
	flag.Uint64Var(&c.confirmations, "confirmations", 2, "confirmations the origin chain requires (configs/chains.dev.json)")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Minute, "give up on intents not ended after this long")
	flag.BoolVar(&c.jsonOut, "json", false, "print the summary as JSON too")
	flag.StringVar(&c.trace, "trace", "", "write each intent's timings to this CSV file (ms from its last confirmation's block)")
	flag.BoolVar(&c.allowRefunds, "allow-refunds", false, "a refund is a correct end (a burst larger than the solver's inventory): "+
		"its recipient must then hold nothing")
	flag.Float64Var(&c.targets.steady, "want-steady", 0, "target: the steady rate at least this many intents a second (0: no target)")
	flag.DurationVar(&c.targets.successP99, "want-success-p99", 0, "target: deposit mined -> success p99 at most this (0: no target)")
	flag.DurationVar(&c.targets.engineP99, "want-engine-p99", 0,
		"target: the engine's share (last confirmation's block -> fill in the destination node's pool) p99 at most this (0: no target)")
	flag.DurationVar(&c.targets.chainP99, "want-chain-p99", 0,
		"target, deposit-address route: transfer mined -> success less the engine's share p99 at most this (0: no target)")
	flag.Parse()
	c.origin, c.dest = 31337, 31338
	c.rpcs = map[uint64]string{}
	for _, kv := range strings.Split(rpcs, ",") {
		k, v, ok := strings.Cut(kv, "=")
		id, err := strconv.ParseUint(k, 10, 64)
		if !ok || err != nil {
			fatalf("-rpc: %q is not chain=url", kv)
		}
		c.rpcs[id] = v
	}
	accounts := devnet.TestAccounts()
	if c.wallets < 1 || c.wallets > len(accounts) {
		fatalf("-wallets: 1 to %d (the devnet's funded accounts)", len(accounts))
	}
	switch c.route {
	case "bridge":
		c.currencyIn, c.outCu = common.Address{}, common.Address{}
		c.amount = or(c.amount, "10000000000000000")
	case "usdc":
		c.currencyIn, c.outCu = devnet.USDCAddress, devnet.USDCAddress
		c.amount = or(c.amount, "10000000")
	case "swap":
		c.currencyIn, c.outCu = common.Address{}, devnet.USDCAddress
		c.amount = or(c.amount, "10000000000000000")
	case routeDepositAddress:
		c.currencyIn, c.outCu = common.Address{}, common.Address{}
		c.amount = or(c.amount, "10000000000000000")
	case routeSolanaOrigin:
		c.origin, c.dest = devnet.SolanaChainID, 31337
		c.inCurrency, c.outCu = solanaNative, common.Address{}
		c.amount = or(c.amount, "100000000")
		c.confirmations = 1 // devnet.SolanaChainConfig
	case routeSolanaDest:
		c.origin, c.dest = 31337, devnet.SolanaChainID
		c.currencyIn, c.outCurrency = common.Address{}, solanaNative
		c.amount = or(c.amount, "10000000000000000")
	default:
		fatalf("-route: bridge, usdc, swap, deposit-address, solana-origin or solana-dest")
	}
	c.inCurrency, c.outCurrency = or(c.inCurrency, c.currencyIn.Hex()), or(c.outCurrency, c.outCu.Hex())
	if c.origin == devnet.SolanaChainID && c.wallets > svm.TestAccountCount {
		fatalf("-wallets: 1 to %d (the local Solana chain's funded keypairs)", svm.TestAccountCount)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c); err != nil {
		fatalf("%v", err)
	}
}

// routeDepositAddress is the route paid by plain transfers to strict deposit addresses.
const routeDepositAddress = "deposit-address"

// The local Solana chain's routes: SOL -> ETH on 31337, and ETH on 31337 -> SOL.
const (
	routeSolanaOrigin = "solana-origin"
	routeSolanaDest   = "solana-dest"
	// solanaNative is SOL's address in a quote: the System Program's id.
	solanaNative = "11111111111111111111111111111111"
)

// txID is a transaction's id on chain as the run keys it: a Solana signature as written
// (base58, case-sensitive), an EVM hash in its canonical lower-case hex.
func txID(chain uint64, h string) string {
	if chain == devnet.SolanaChainID {
		return h
	}
	return common.HexToHash(h).Hex()
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "intentload: "+format+"\n", args...)
	os.Exit(1)
}

// intentRun is one intent's facts as they come in.
type intentRun struct {
	wallet    int
	due       time.Time
	quoted    time.Time
	sent      time.Time
	requestID string
	// recipient is the recipient as the quote has it: an EVM address, or base58 on Solana.
	recipient string
	amountOut *big.Int
	deposit   string // txID
	err       error
	// inTxs are the request's incoming transactions as the stream named them (txID): on the
	// deposit-address route the plain transfer (deposit) and then the engine's sweep.
	inTxs []string

	// From the stream: the engine's time of each status (updatedAt) and the final status.
	status    map[string]time.Time
	final     string
	reason    string
	fillHash  string // txID
	endedSeen time.Time
}

type load struct {
	cfg     config
	api     *e2e.Client
	clients map[uint64]*ethclient.Client
	watch   map[uint64]chainWatch
	sol     *solrpc.Client // the local Solana chain (the solana-* routes)

	mu      sync.Mutex
	runs    []*intentRun
	byID    map[string]*intentRun
	pending map[string][]event // events that came before their request's quote was recorded
	ended   int
	done    chan struct{}
}

type event struct {
	Status     string   `json:"status"`
	InTxHashes []string `json:"inTxHashes"`
	TxHashes   []string `json:"txHashes"`
	UpdatedAt  int64    `json:"updatedAt"`
	RequestID  string   `json:"requestId"`
	FailReason string   `json:"failReason"`
}

func run(ctx context.Context, c config) error {
	l := &load{cfg: c, api: &e2e.Client{BaseURL: c.api, APIKey: c.apiKey, HTTP: httpclient.New(30 * time.Second)}, clients: map[uint64]*ethclient.Client{},
		watch: map[uint64]chainWatch{}, byID: map[string]*intentRun{}, pending: map[string][]event{}, done: make(chan struct{})}
	for id, u := range c.rpcs {
		rc, err := rpc.DialOptions(ctx, u, rpc.WithHTTPClient(httpclient.New(0)))
		if err != nil {
			return fmt.Errorf("chain %d: %w", id, err)
		}
		ec := ethclient.NewClient(rc)
		l.clients[id] = ec
		w := &watcher{ec: ec, blocks: map[uint64]time.Time{}, txs: map[common.Hash]uint64{}, pool: map[common.Hash]time.Time{}}
		if err := w.start(ctx, u); err != nil {
			return fmt.Errorf("chain %d: %w", id, err)
		}
		l.watch[id] = w
	}
	if c.origin == devnet.SolanaChainID || c.dest == devnet.SolanaChainID {
		l.sol = solrpc.NewWithCustomRPCClient(solrpc.NewWithLimiter(c.solanaRPC, 1000, 1000))
		w := &solWatcher{rpc: l.sol, slots: map[uint64]time.Time{}, sigs: map[string]uint64{}}
		if err := w.start(ctx); err != nil {
			return fmt.Errorf("the local Solana chain at %s: %w", c.solanaRPC, err)
		}
		l.watch[devnet.SolanaChainID] = w
	}
	if err := l.stream(ctx); err != nil {
		return err
	}
	wallets := make([]sender, c.wallets)
	for i := range wallets {
		if c.origin == devnet.SolanaChainID {
			wallets[i] = &solWallet{w: &e2e.SolanaWallet{Key: svm.TestAccounts()[i].PrivateKey, RPC: l.sol}}
			continue
		}
		w, err := newWallet(ctx, devnet.TestAccounts()[i].Key, l.clients[c.origin], c.origin)
		if err != nil {
			return err
		}
		if c.route == "usdc" {
			if err := w.approve(ctx, devnet.USDCAddress, devnet.DepositoryAddress); err != nil {
				return err
			}
		}
		wallets[i] = w
	}
	total := c.wallets * c.perWal
	l.runs = make([]*intentRun, total)
	cpu0 := readCPU()
	load0 := loadavg()
	start := time.Now().Add(200 * time.Millisecond)
	for i := range l.runs {
		due := start
		if c.rate > 0 {
			due = start.Add(time.Duration(float64(i) / c.rate * float64(time.Second)))
		}
		l.runs[i] = &intentRun{wallet: i % c.wallets, due: due, status: map[string]time.Time{}}
	}
	var wg sync.WaitGroup
	for wi, w := range wallets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := wi; i < total; i += c.wallets {
				l.send(ctx, w, l.runs[i])
			}
		}()
	}
	wg.Wait()
	sentAll := time.Now()
	failedSends := 0
	for _, r := range l.runs {
		if r.err != nil {
			failedSends++
		}
	}
	// Every intent ends, or the timeout passes; the stream is backed by a status poll for
	// anything it missed.
	deadline := time.NewTimer(c.timeout)
	defer deadline.Stop()
	poll := time.NewTicker(5 * time.Second)
	defer poll.Stop()
wait:
	for {
		l.mu.Lock()
		finished := l.ended+failedSends >= total
		l.mu.Unlock()
		if finished {
			break
		}
		select {
		case <-ctx.Done():
			break wait
		case <-deadline.C:
			break wait
		case <-l.done:
		case <-poll.C:
			l.pollStragglers(ctx, sentAll)
		}
	}
	cpu1 := readCPU()
	load1 := loadavg()
	// The fills' blocks: give the watcher a moment to see the last one.
	time.Sleep(300 * time.Millisecond)
	if w, ok := l.watch[devnet.SolanaChainID].(*solWatcher); ok {
		// A Solana transaction's slot is asked for once the run is over (getSignatureStatuses,
		// by the batch), not while the engine is measured.
		time.Sleep(time.Second) // the last slot closes
		l.mu.Lock()
		var sigs []string
		for _, r := range l.runs {
			if c.origin == devnet.SolanaChainID && r.deposit != "" {
				sigs = append(sigs, r.deposit)
			}
			if c.dest == devnet.SolanaChainID && r.fillHash != "" {
				sigs = append(sigs, r.fillHash)
			}
		}
		l.mu.Unlock()
		w.resolve(ctx, sigs)
	}
	problems := l.verify(ctx)
	s := l.summarise(cpu0, cpu1, load0, load1)
	s.Problems = problems
	s.Targets = c.targets.checkChain(c.targets.check(s.Steady, s.successP99, s.engineP99, len(problems)), s.chainP99)
	s.print(os.Stdout)
	if c.jsonOut {
		b, _ := json.MarshalIndent(s, "", "  ")
		fmt.Println(string(b))
	}
	if c.trace != "" {
		if err := l.writeTrace(c.trace); err != nil {
			return err
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d intents are wrong (see above)", len(problems))
	}
	return nil
}

// sweep is the request's incoming transaction after its deposit: on the deposit-address route
// the engine's sweep of the address. Called under l.mu.
func (r *intentRun) sweep() (string, bool) {
	for _, h := range r.inTxs {
		if h != r.deposit {
			return h, true
		}
	}
	return "", false
}

// send quotes one intent and broadcasts its steps from w.
func (l *load) send(ctx context.Context, w sender, r *intentRun) {
	if d := time.Until(r.due); d > 0 {
		select {
		case <-ctx.Done():
			r.err = ctx.Err()
			return
		case <-time.After(d):
		}
	}
	if l.cfg.dest == devnet.SolanaChainID {
		r.recipient = solanago.NewWallet().PublicKey().String()
	} else {
		key, _ := crypto.GenerateKey()
		r.recipient = crypto.PubkeyToAddress(key.PublicKey).Hex()
	}
	body := map[string]any{"user": w.address(), "recipient": r.recipient,
		"originChainId": l.cfg.origin, "destinationChainId": l.cfg.dest,
		"originCurrency": l.cfg.inCurrency, "destinationCurrency": l.cfg.outCurrency,
		"amount": l.cfg.amount, "tradeType": "EXACT_INPUT"}
	if l.cfg.route == routeDepositAddress {
		body["useDepositAddress"], body["strict"], body["refundTo"] = true, true, w.address()
	}
	q, err := l.api.Quote(ctx, body)
	if err != nil {
		r.err = err
		return
	}
	r.quoted = time.Now()
	r.amountOut, _ = new(big.Int).SetString(q.Details.CurrencyOut.Amount, 10)
	id := strings.ToLower(q.RequestID)
	l.mu.Lock()
	r.requestID = id
	l.byID[id] = r
	early := l.pending[id]
	delete(l.pending, id)
	l.mu.Unlock()
	for _, e := range early {
		l.record(e)
	}
	for _, s := range q.Steps {
		if s.Kind != "transaction" {
			r.err = fmt.Errorf("step %s of kind %s", s.ID, s.Kind)
			return
		}
		for _, it := range s.Items {
			h, err := w.sendStep(ctx, it.Data)
			if err != nil {
				r.err = fmt.Errorf("step %s: %w", s.ID, err)
				return
			}
			r.deposit = h
		}
	}
	r.sent = time.Now()
}

// stream opens the websocket and follows every request of the key.
func (l *load) stream(ctx context.Context) error {
	u, err := url.Parse(l.cfg.api)
	if err != nil {
		return err
	}
	u.Scheme = strings.Replace(u.Scheme, "http", "ws", 1)
	u.Path = "/ws"
	u.RawQuery = url.Values{"apiKey": {l.cfg.apiKey}}.Encode()
	conn, _, err := websocket.DefaultDialer.DialContext(ctx, u.String(), nil)
	if err != nil {
		return fmt.Errorf("websocket: %w", err)
	}
	if err := conn.WriteJSON(map[string]any{"type": "subscribe", "event": "request.status.updated"}); err != nil {
		return err
	}
	ready := make(chan error, 1)
	go func() {
		defer func() { _ = conn.Close() }()
		acked := false
		for {
			var m struct {
				Type   string          `json:"type"`
				Status string          `json:"status"`
				Event  string          `json:"event"`
				Data   json.RawMessage `json:"data"`
			}
			if err := conn.ReadJSON(&m); err != nil {
				if !acked {
					ready <- err
				} else if ctx.Err() == nil {
					fmt.Fprintf(os.Stderr, "intentload: websocket closed: %v (the status poll takes over)\n", err)
				}
				return
			}
			switch {
			case m.Type == "subscribe" && !acked:
				acked = true
				if m.Status != "success" {
					ready <- fmt.Errorf("websocket subscribe: %s", m.Data)
					return
				}
				ready <- nil
			case m.Event == "request.status.updated":
				var e event
				if json.Unmarshal(m.Data, &e) == nil {
					l.record(e)
				}
			}
		}
	}()
	select {
	case err := <-ready:
		return err
	case <-time.After(10 * time.Second):
		return errors.New("websocket: no answer to subscribe in 10 s")
	}
}

// record takes one status of a request.
func (l *load) record(e event) {
	id := strings.ToLower(e.RequestID)
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.byID[id]
	if !ok {
		l.pending[id] = append(l.pending[id], e)
		return
	}
	if _, seen := r.status[e.Status]; !seen {
		r.status[e.Status] = time.UnixMilli(e.UpdatedAt)
	}
	for _, h := range e.InTxHashes {
		if x := txID(l.cfg.origin, h); !slices.Contains(r.inTxs, x) {
			r.inTxs = append(r.inTxs, x)
		}
	}
	if _, seen := r.status["routed"]; !seen && len(e.InTxHashes) > 0 {
		// The first event that names the deposit: the workflow has it (waiting, with the
		// deposit recorded).
		r.status["routed"] = time.UnixMilli(e.UpdatedAt)
	}
	if intent.Status(e.Status).Terminal() && r.final == "" {
		r.final, r.reason, r.endedSeen = e.Status, e.FailReason, time.Now()
		if e.Status == "success" && len(e.TxHashes) > 0 {
			r.fillHash = txID(l.cfg.dest, e.TxHashes[len(e.TxHashes)-1])
		}
		l.ended++
		select {
		case l.done <- struct{}{}:
		default:
		}
	}
}

// pollStragglers reads the status of intents the stream has not ended, sent a while ago.
func (l *load) pollStragglers(ctx context.Context, sentAll time.Time) {
	if time.Since(sentAll) < 10*time.Second {
		return
	}
	l.mu.Lock()
	var ids []string
	for id, r := range l.byID {
		if r.final == "" && r.err == nil {
			ids = append(ids, id)
		}
	}
	l.mu.Unlock()
	for _, id := range ids {
		st, code, err := l.api.Status(ctx, id)
		if err != nil || code != 200 || !intent.Status(st.Status).Terminal() {
			continue
		}
		l.record(event{Status: st.Status, TxHashes: st.TxHashes, UpdatedAt: st.UpdatedAt, RequestID: id, FailReason: st.FailReason})
	}
}

// verify checks every intent on chain; it returns one line per wrong intent.
func (l *load) verify(ctx context.Context) []string {
	var problems []string
	for i, r := range l.runs {
		fail := func(format string, args ...any) {
			problems = append(problems, fmt.Sprintf("intent %d (%s): %s", i, r.requestID, fmt.Sprintf(format, args...)))
		}
		if r.err != nil {
			fail("not sent: %v", r.err)
			continue
		}
		if (r.final == "refund" || r.final == "failure") && r.reason == "" {
			// The stream's events carry no failReason: the status endpoint has it.
			if st, _, err := l.api.Status(ctx, r.requestID); err == nil {
				r.reason = st.FailReason
			}
		}
		if r.final == "refund" && l.cfg.allowRefunds {
			// Refunded instead of filled: the recipient must have received nothing.
			if got, err := l.received(ctx, r.recipient); err != nil || got.Sign() != 0 {
				fail("refunded (%s), yet its recipient holds %v (error %v)", r.reason, got, err)
			}
			continue
		}
		if r.final != "success" {
			fail("ended %q %s", or(r.final, "never"), r.reason)
			continue
		}
		if err := l.depositSucceeded(ctx, r.deposit); err != nil {
			fail("deposit %s: %v", r.deposit, err)
			continue
		}
		got, err := l.received(ctx, r.recipient)
		if err != nil {
			fail("recipient balance: %v", err)
			continue
		}
		if got.Cmp(r.amountOut) != 0 {
			fail("recipient %s holds %s, the quote promised %s (paid twice or wrongly)", r.recipient, got, r.amountOut)
		}
	}
	return problems
}

// depositSucceeded checks the deposit succeeded on the origin chain.
func (l *load) depositSucceeded(ctx context.Context, id string) error {
	if l.cfg.origin == devnet.SolanaChainID {
		sig, err := solanago.SignatureFromBase58(id)
		if err != nil {
			return err
		}
		st, err := l.sol.GetSignatureStatuses(ctx, true, sig)
		if err != nil {
			return err
		}
		if len(st.Value) != 1 || st.Value[0] == nil {
			return errors.New("not found on the chain")
		}
		if st.Value[0].Err != nil {
			return fmt.Errorf("failed on chain: %v", st.Value[0].Err)
		}
		return nil
	}
	rc, err := l.clients[l.cfg.origin].TransactionReceipt(ctx, common.HexToHash(id))
	if err != nil {
		return err
	}
	if rc.Status != types.ReceiptStatusSuccessful {
		return errors.New("reverted")
	}
	return nil
}

// received is what the recipient (used for nothing else) holds of the route's output: lamports
// on Solana (solana-dest: SOL), else the EVM currency's balance.
func (l *load) received(ctx context.Context, recipient string) (*big.Int, error) {
	if l.cfg.dest == devnet.SolanaChainID {
		pk, err := solanago.PublicKeyFromBase58(recipient)
		if err != nil {
			return nil, err
		}
		b, err := l.sol.GetBalance(ctx, pk, solrpc.CommitmentConfirmed)
		if err != nil {
			return nil, err
		}
		return new(big.Int).SetUint64(b.Value), nil
	}
	return balance(ctx, l.clients[l.cfg.dest], l.cfg.outCu, common.HexToAddress(recipient))
}

// balance is who's balance of currency (the zero address: the native coin).
func balance(ctx context.Context, ec *ethclient.Client, currency, who common.Address) (*big.Int, error) {
	if currency == (common.Address{}) {
		return ec.BalanceAt(ctx, who, nil)
	}
	out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &currency, Data: evm.ERC20ABI.PackBalanceOf(who)}, nil)
	if err != nil {
		return nil, err
	}
	return evm.ERC20ABI.UnpackBalanceOf(out)
}

// wallet sends transactions from one key with its own nonce sequence, without waiting for
// receipts.
type wallet struct {
	key     *ecdsa.PrivateKey
	addr    common.Address
	ec      *ethclient.Client
	chainID *big.Int
	nonce   uint64
	feeCap  *big.Int
	tip     *big.Int
	gas     map[common.Address]uint64 // gas limit by destination, estimated once
}

func newWallet(ctx context.Context, key *ecdsa.PrivateKey, ec *ethclient.Client, chainID uint64) (*wallet, error) {
	w := &wallet{key: key, addr: crypto.PubkeyToAddress(key.PublicKey), ec: ec, chainID: new(big.Int).SetUint64(chainID),
		gas: map[common.Address]uint64{}}
	var err error
	if w.nonce, err = ec.PendingNonceAt(ctx, w.addr); err != nil {
		return nil, err
	}
	if w.tip, err = ec.SuggestGasTipCap(ctx); err != nil {
		return nil, err
	}
	head, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	// Room for the base fee to rise while the run fills blocks.
	w.feeCap = new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(4)), w.tip)
	return w, nil
}

// sender is a wallet of the origin chain: it pays a quote's step item and returns the
// transaction's txID, without waiting for it.
type sender interface {
	address() string
	sendStep(ctx context.Context, d quote.TxData) (string, error)
}

func (w *wallet) address() string { return w.addr.Hex() }

func (w *wallet) sendStep(ctx context.Context, d quote.TxData) (string, error) {
	h, err := w.send(ctx, d)
	if err != nil {
		return "", err
	}
	return h.Hex(), nil
}

func (w *wallet) send(ctx context.Context, d quote.TxData) (common.Hash, error) {
	to := common.HexToAddress(d.To)
	data, err := hexutil.Decode(d.Data)
	if err != nil {
		return common.Hash{}, err
	}
	value, ok := new(big.Int).SetString(or(d.Value, "0"), 10)
	if !ok {
		return common.Hash{}, fmt.Errorf("step value %q", d.Value)
	}
	gas, ok := w.gas[to]
	if !ok && len(data) == 0 && value.Sign() > 0 {
		// A plain transfer (a deposit address's step): every address is fresh, so an estimate
		// per intent would be a call per intent; an address without code takes 21,000 gas.
		gas, ok = plainTransferGas, true
	}
	if !ok {
		est, err := w.ec.EstimateGas(ctx, ethereum.CallMsg{From: w.addr, To: &to, Data: data, Value: value})
		if err != nil {
			return common.Hash{}, fmt.Errorf("estimate: %w", err)
		}
		gas = est * 3 / 2
		w.gas[to] = gas
	}
	tx, err := types.SignNewTx(w.key, types.LatestSignerForChainID(w.chainID), &types.DynamicFeeTx{ChainID: w.chainID,
		Nonce: w.nonce, GasTipCap: w.tip, GasFeeCap: w.feeCap, Gas: gas, To: &to, Value: value, Data: data})
	if err != nil {
		return common.Hash{}, err
	}
	if err := w.ec.SendTransaction(ctx, tx); err != nil {
		return common.Hash{}, err
	}
	w.nonce++
	return tx.Hash(), nil
}

// plainTransferGas is a value transfer's gas to an address without code.
const plainTransferGas = 21_000

// approve lets spender take any amount of token from the wallet, and waits until it is mined.
func (w *wallet) approve(ctx context.Context, token, spender common.Address) error {
	data := evm.ERC20ABI.PackApprove(spender, intent.MaxUint256)
	h, err := w.send(ctx, quote.TxData{To: token.Hex(), Data: hexutil.Encode(data), Value: "0"})
	if err != nil {
		return fmt.Errorf("approve: %w", err)
	}
	for {
		if rc, err := w.ec.TransactionReceipt(ctx, h); err == nil {
			if rc.Status != types.ReceiptStatusSuccessful {
				return errors.New("approve reverted")
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// watcher records when each block of a chain is first seen, which block mined each
// transaction, and when each transaction reached the node's pool.
type watcher struct {
	ec     *ethclient.Client
	mu     sync.Mutex
	blocks map[uint64]time.Time
	txs    map[common.Hash]uint64
	pool   map[common.Hash]time.Time
	next   uint64
}

func (w *watcher) start(ctx context.Context, rpcURL string) error {
	head, err := w.ec.BlockNumber(ctx)
	if err != nil {
		return err
	}
	w.next = head + 1
	if u, ok := websocketURL(rpcURL); ok {
		err := w.subscribe(ctx, u)
		if err == nil {
			return nil
		}
		fmt.Fprintf(os.Stderr, "intentload: %s: no subscriptions (%v); polling the node instead\n", u, err)
	}
	return w.poll(ctx)
}

// websocketURL is the websocket endpoint beside an HTTP JSON-RPC URL (the devnet serves both on
// one port); false for a URL that is not HTTP.
func websocketURL(rpcURL string) (string, bool) {
	switch {
	case strings.HasPrefix(rpcURL, "http://"):
		return "ws://" + strings.TrimPrefix(rpcURL, "http://"), true
	case strings.HasPrefix(rpcURL, "https://"):
		return "wss://" + strings.TrimPrefix(rpcURL, "https://"), true
	}
	return "", false
}

// subscribe follows the chain's new heads and the transactions entering its pool by websocket
// subscriptions (eth_subscribe newHeads, newPendingTransactions): the node tells the watcher at
// once, instead of being asked a few hundred times a second on the cores the engine runs on.
func (w *watcher) subscribe(ctx context.Context, wsURL string) error {
	rc, err := rpc.DialContext(ctx, wsURL)
	if err != nil {
		return err
	}
	heads := make(chan *types.Header, 64)
	hs, err := rc.EthSubscribe(ctx, heads, "newHeads")
	if err != nil {
		rc.Close()
		return err
	}
	pooled := make(chan common.Hash, 4096)
	ps, err := rc.EthSubscribe(ctx, pooled, "newPendingTransactions")
	if err != nil {
		hs.Unsubscribe()
		rc.Close()
		return err
	}
	ec := ethclient.NewClient(rc)
	// Two readers, so that a block's read never holds back the pool's notifications' times.
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case h := <-pooled:
				w.pooledAt(time.Now(), h)
			}
		}
	}()
	go func() {
		defer rc.Close()
		defer hs.Unsubscribe()
		defer ps.Unsubscribe()
		for {
			select {
			case <-ctx.Done():
				return
			case err := <-hs.Err():
				fmt.Fprintf(os.Stderr, "intentload: %s: head subscription ended (%v); polling the node instead\n", wsURL, err)
				_ = w.poll(ctx)
				return
			case err := <-ps.Err():
				fmt.Fprintf(os.Stderr, "intentload: %s: pool subscription ended (%v); polling the node instead\n", wsURL, err)
				_ = w.poll(ctx)
				return
			case h := <-heads:
				w.readBlocks(ctx, ec, h.Number.Uint64(), time.Now())
			}
		}
	}()
	return nil
}

// poll follows the chain by asking: its pool's new transactions every 10 ms (a pending
// transaction filter), its head every 20 ms.
func (w *watcher) poll(ctx context.Context) error {
	var filter string
	if err := w.ec.Client().CallContext(ctx, &filter, "eth_newPendingTransactionFilter"); err != nil {
		return fmt.Errorf("pending transaction filter: %w", err)
	}
	go every(ctx, 10*time.Millisecond, func() {
		var hashes []common.Hash
		if err := w.ec.Client().CallContext(ctx, &hashes, "eth_getFilterChanges", filter); err != nil {
			return
		}
		w.pooledAt(time.Now(), hashes...)
	})
	go every(ctx, 20*time.Millisecond, func() {
		head, err := w.ec.BlockNumber(ctx)
		if err != nil {
			return
		}
		w.readBlocks(ctx, w.ec, head, time.Now())
	})
	return nil
}

// pooledAt records the hashes as seen in the node's pool at seen, unless seen before.
func (w *watcher) pooledAt(seen time.Time, hashes ...common.Hash) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, h := range hashes {
		if _, ok := w.pool[h]; !ok {
			w.pool[h] = seen
		}
	}
}

// readBlocks records the blocks up to head not yet read as seen at seen, with the transactions
// each mined; a block the node does not serve yet is read on the next call.
func (w *watcher) readBlocks(ctx context.Context, ec *ethclient.Client, head uint64, seen time.Time) {
	for ; w.next <= head; w.next++ {
		// The block's transaction hashes only: the full transactions would have the node
		// encode (and recover the sender of) every one, on the cores the engine runs on.
		var b *struct {
			Transactions []common.Hash `json:"transactions"`
		}
		if err := ec.Client().CallContext(ctx, &b, "eth_getBlockByNumber", hexutil.EncodeUint64(w.next), false); err != nil || b == nil {
			return
		}
		w.mu.Lock()
		w.blocks[w.next] = seen
		for _, h := range b.Transactions {
			w.txs[h] = w.next
		}
		w.mu.Unlock()
	}
}

// every runs fn every d until ctx ends.
func every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fn()
	}
}

// chainWatch is what a run knows of a chain's blocks: which block mined a transaction (by
// txID) and when each block was first seen, and when a transaction reached the node's pool.
type chainWatch interface {
	mined(id string) (uint64, time.Time, bool)
	pooled(id string) (time.Time, bool)
	seen(n uint64) (time.Time, bool)
}

// mined returns the block that mined h and when it was first seen.
func (w *watcher) mined(id string) (uint64, time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, ok := w.txs[common.HexToHash(id)]
	if !ok {
		return 0, time.Time{}, false
	}
	return n, w.blocks[n], true
}

// pooled returns when h was first seen in the node's pool.
func (w *watcher) pooled(id string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.pool[common.HexToHash(id)]
	return t, ok
}

func (w *watcher) seen(n uint64) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.blocks[n]
	return t, ok
}

// cpuTimes are the machine's busy and total jiffies (/proc/stat).
type cpuTimes struct{ busy, total uint64 }

func readCPU() cpuTimes {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	var t cpuTimes
	for i, f := range strings.Fields(line)[1:] {
		v, _ := strconv.ParseUint(f, 10, 64)
		t.total += v
		if i != 3 && i != 4 { // idle, iowait
			t.busy += v
		}
	}
	return t
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}

// coresBusy is how many of the machine's cores were busy on average between a and b.
func coresBusy(a, b cpuTimes) float64 {
	if b.total <= a.total {
		return 0
	}
	return float64(b.busy-a.busy) / float64(b.total-a.total) * float64(runtime.NumCPU())
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(float64(len(s)-1)*p/100 + 0.5)
	return s[i]
}
