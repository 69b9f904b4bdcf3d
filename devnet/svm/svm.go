// Package svm runs the devnet's local Solana chain, for `intentd-dev devnet` and the tests:
// litesvm (the Solana runtime as a library, from the npm registry) behind a Solana JSON-RPC
// server of ours, server.mjs in this directory, started as a Node.js child process. solana-go's
// rpc client and @solana/kit talk to it as to a real RPC node.
//
// It is a local runtime, not a validator: one process, state in memory only (a restart is a new
// chain with a new genesis hash), no consensus, no gossip, no websocket subscriptions. It
// advances a slot every SlotTime with a blockhash of its own, keeps each blockhash valid for
// MaxProcessingAge blocks and refuses a transaction whose blockhash is older, reports commitment
// by age (confirmed one slot after landing, finalized FinalizedDepth slots after), and answers
// with the real RPC's shapes and errors. At genesis it holds a USDC mint (USDCMint, 6 decimals)
// and funded keypairs, all from public seeds (keys.go).
//
// The Node packages (litesvm 1.5.0, @solana/kit 8) are pinned in package-lock.json here and
// installed by `make solana-deps` (npm ci), which `make test`, `make run` and `make devnet`
// depend on.
package svm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

const (
	// DefaultPort is where `intentd-dev devnet` serves the chain's JSON-RPC: the port of a
	// Solana validator's RPC, which wallets and tools try on localhost.
	DefaultPort = 8899
	// DefaultSlotTime is the real chain's target slot time.
	DefaultSlotTime = 400 * time.Millisecond
	// startTimeout bounds the wait for the server's ready line.
	startTimeout = 60 * time.Second
)

// Options configures Start. The zero value of every field has a usable default.
type Options struct {
	// Host is the interface the RPC listens on; empty means 127.0.0.1.
	Host string
	// Port is the RPC's port; 0 picks a free one (tests), DefaultPort is `intentd-dev devnet`'s.
	Port int
	// SlotTime is how often a slot passes; 0 means SOLANA_SLOT_MS from the environment, else
	// DefaultSlotTime. Tests shorten it to see blockhashes expire (150 slots) in seconds.
	SlotTime time.Duration
	// Dir is the directory of server.mjs and its node_modules; empty means PackageDir().
	Dir string
	// Node is the Node.js executable; empty means "node" from PATH.
	Node string
	// Logger receives the server's error output; nil means slog.Default().
	Logger *slog.Logger
}

// Chain is a running local Solana chain. It runs until the context given to Start is done or
// Close is called.
type Chain struct {
	// RPCURL is the HTTP JSON-RPC endpoint, e.g. http://127.0.0.1:8899.
	RPCURL string
	// GenesisHash is this run's genesis hash (getGenesisHash): new at every start.
	GenesisHash solana.Hash
	// SlotTime is how often a slot passes.
	SlotTime time.Duration
	// Litesvm is the version of the litesvm package the server runs.
	Litesvm string

	cmd       *exec.Cmd
	stdin     io.Closer
	done      chan struct{} // closed when the process has exited
	waitErr   error
	stderr    *tailBuffer
	closeOnce sync.Once
}

// ErrNotInstalled is returned (wrapped) by Start when Node.js or the package's node_modules are
// missing; the message says how to install them.
var ErrNotInstalled = errors.New("not installed")

// PackageDir is the directory of server.mjs: this source file's directory when the source tree
// is where it was built (tests, bin/intentd-dev in a checkout), else devnet/svm under the
// nearest directory above the working directory that holds it.
func PackageDir() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok {
		dir := filepath.Dir(file)
		if fileExists(filepath.Join(dir, "server.mjs")) {
			return dir, nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if dir := filepath.Join(d, "devnet", "svm"); fileExists(filepath.Join(dir, "server.mjs")) {
			return dir, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("solana localnet: devnet/svm/server.mjs not found above %s: run from the repository", wd)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ready is the server's "ready" line: where it serves and the keys it funded.
type ready struct {
	URL          string     `json:"url"`
	GenesisHash  string     `json:"genesisHash"`
	SlotMs       float64    `json:"slotMs"`
	Litesvm      string     `json:"litesvm"`
	USDCMint     string     `json:"usdcMint"`
	USDCDecimals int        `json:"usdcDecimals"`
	Deployer     readyKey   `json:"deployer"`
	Solver       readyKey   `json:"solver"`
	Faucet       readyKey   `json:"faucet"`
	TestAccounts []readyKey `json:"testAccounts"`
}

type readyKey struct {
	Address     string  `json:"address"`
	USDCAccount *string `json:"usdcAccount"`
}

// Start starts the server and returns once it serves (it has printed its ready line and answers
// getHealth). The chain stops when ctx is done or Close is called. On error nothing is left
// running.
func Start(ctx context.Context, o Options) (*Chain, error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	dir := o.Dir
	if dir == "" {
		var err error
		if dir, err = PackageDir(); err != nil {
			return nil, err
		}
	}
	node := o.Node
	if node == "" {
		node = "node"
	}
	nodePath, err := exec.LookPath(node)
	if err != nil {
		return nil, fmt.Errorf("solana localnet: %w: %s (Node.js 20 or later) is not on PATH; install it (Debian: apt-get install nodejs npm), then run `make solana-deps`", ErrNotInstalled, node)
	}
	if !fileExists(filepath.Join(dir, "node_modules", "litesvm", "package.json")) {
		return nil, fmt.Errorf("solana localnet: %w: %s has no node_modules/litesvm; run `make solana-deps` (npm ci in devnet/svm)", ErrNotInstalled, dir)
	}
	host := o.Host
	if host == "" {
		host = "127.0.0.1"
	}
	args := []string{"server.mjs", "--host", host, "--port", strconv.Itoa(o.Port), "--quiet", "--watch-stdin"}
	if o.SlotTime > 0 {
		args = append(args, "--slot-ms", strconv.FormatFloat(float64(o.SlotTime)/float64(time.Millisecond), 'f', -1, 64))
	}
	cmd := exec.Command(nodePath, args...)
	cmd.Dir = dir
	// The server exits when this pipe closes (--watch-stdin): when Close closes it, and when
	// this process dies however it dies, so the chain never outlives its parent.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &Chain{cmd: cmd, stdin: stdin, done: make(chan struct{}), stderr: &tailBuffer{max: 64 << 10, log: log}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("solana localnet: start %s: %w", nodePath, err)
	}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.done)
	}()

	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if !sent && strings.HasPrefix(line, "ready ") {
				lines <- strings.TrimPrefix(line, "ready ")
				sent = true
				continue
			}
			log.Debug("solana localnet", "out", line)
		}
	}()

	fail := func(err error) (*Chain, error) {
		_ = c.Close()
		return nil, err
	}
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	var line string
	select {
	case line = <-lines:
	case <-c.done:
		return fail(fmt.Errorf("solana localnet: the server exited before it served (%v):\n%s", c.waitErr, c.stderr.String()))
	case <-timer.C:
		return fail(fmt.Errorf("solana localnet: the server did not serve within %s:\n%s", startTimeout, c.stderr.String()))
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	var r ready
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		return fail(fmt.Errorf("solana localnet: bad ready line %q: %w", line, err))
	}
	if err := r.check(); err != nil {
		return fail(fmt.Errorf("solana localnet: %w", err))
	}
	c.RPCURL = r.URL
	c.Litesvm = r.Litesvm
	c.SlotTime = time.Duration(r.SlotMs * float64(time.Millisecond))
	if c.GenesisHash, err = solana.HashFromBase58(r.GenesisHash); err != nil {
		return fail(fmt.Errorf("solana localnet: genesis hash %q: %w", r.GenesisHash, err))
	}
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if health, err := c.Client().GetHealth(hctx); err != nil || health != rpc.HealthOk {
		return fail(fmt.Errorf("solana localnet: getHealth at %s: %q, %v", c.RPCURL, health, err))
	}
	go func() {
		select {
		case <-ctx.Done():
			_ = c.Close()
		case <-c.done:
		}
	}()
	log.Info("solana localnet ready", "rpc", c.RPCURL, "slotTime", c.SlotTime, "litesvm", c.Litesvm)
	return c, nil
}

// check compares the server's keys with this package's: the two derive them independently, so
// configuration written from the Go values names what the chain really funded.
func (r ready) check() error {
	want := func(what, got string, key solana.PrivateKey) error {
		if got != key.PublicKey().String() {
			return fmt.Errorf("the server's %s is %s, keys.go derives %s", what, got, key.PublicKey())
		}
		return nil
	}
	errs := []error{
		want("deployer", r.Deployer.Address, DeployerKey()),
		want("solver", r.Solver.Address, SolverKey()),
		want("faucet", r.Faucet.Address, FaucetKey()),
		want("USDC mint", r.USDCMint, USDCMintKey()),
	}
	if r.USDCDecimals != USDCDecimals {
		errs = append(errs, fmt.Errorf("the server's USDC has %d decimals, want %d", r.USDCDecimals, USDCDecimals))
	}
	accts := TestAccounts()
	if len(r.TestAccounts) != len(accts) {
		errs = append(errs, fmt.Errorf("the server funds %d test keypairs, want %d", len(r.TestAccounts), len(accts)))
	} else {
		for i, a := range accts {
			errs = append(errs, want(fmt.Sprintf("test keypair %d", i), r.TestAccounts[i].Address, a.PrivateKey))
			if got := r.TestAccounts[i].USDCAccount; got == nil || *got != USDCAccount(a.PublicKey).String() {
				errs = append(errs, fmt.Errorf("the server's USDC account of test keypair %d differs from USDCAccount", i))
			}
		}
	}
	return errors.Join(errs...)
}

// Client returns a solana-go RPC client of the chain. The caller closes it when done.
func (c *Chain) Client() *rpc.Client { return rpc.New(c.RPCURL) }

// Done is closed once the server has exited.
func (c *Chain) Done() <-chan struct{} { return c.done }

// Close stops the server and waits for it to exit (5 seconds, then it is killed). It is safe
// to call more than once.
func (c *Chain) Close() error {
	c.closeOnce.Do(func() {
		_ = c.stdin.Close()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	})
	var exit *exec.ExitError
	if c.waitErr != nil && !errors.As(c.waitErr, &exit) {
		return c.waitErr
	}
	return nil
}

// Summary writes what `intentd-dev devnet` prints about the chain: where it serves, the mint and
// the funded addresses. Like the EVM devnet's, it names no key: the test keypairs' come from the
// test mnemonic and path it prints, the others from keys.go.
func (c *Chain) Summary(w io.Writer) {
	var b strings.Builder
	fmt.Fprintf(&b, "Solana (a local runtime: litesvm %s behind our JSON-RPC, not a validator; in memory, a slot every %s)\n", c.Litesvm, c.SlotTime)
	fmt.Fprintf(&b, "  RPC       %s\n", c.RPCURL)
	fmt.Fprintf(&b, "  USDC      %s  (SPL Token mint, %d decimals; mint and freeze authority: deployer)\n", USDCMint, USDCDecimals)
	fmt.Fprintf(&b, "  solver    %s  (%d SOL, %d USDC)\n", SolverAddress(), SolverSOL, SolverUSDC/1_000_000)
	fmt.Fprintf(&b, "  deployer  %s\n", DeployerAddress())
	fmt.Fprintf(&b, "  faucet    %s  (pays requestAirdrop)\n", FaucetAddress())
	fmt.Fprintf(&b, "Solana test keypairs, %d SOL and %d USDC each; their keys are the same test mnemonic's at\n", TestAccountSOL, TestAccountUSDC/1_000_000)
	b.WriteString("m/44'/501'/i'/0' (the path of Phantom and Solflare):\n")
	for i, a := range TestAddresses() {
		fmt.Fprintf(&b, "  (%d) %s\n", i, a)
	}
	_, _ = io.WriteString(w, b.String())
}

// tailBuffer keeps the last max bytes the server wrote to stderr, for error messages, and logs
// each line: with --quiet the server writes there only when something went wrong.
type tailBuffer struct {
	mu   sync.Mutex
	buf  []byte
	max  int
	part []byte
	log  *slog.Logger
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	t.part = append(t.part, p...)
	for {
		i := strings.IndexByte(string(t.part), '\n')
		if i < 0 {
			break
		}
		t.log.Warn("solana localnet", "stderr", string(t.part[:i]))
		t.part = t.part[i+1:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
