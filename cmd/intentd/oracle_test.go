package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/devnet"
)

// TestOracleProcess is `intentd oracle` itself when the startup tests run this test binary
// with INTENTD_ORACLE_PROCESS=1; otherwise it does nothing.
func TestOracleProcess(t *testing.T) {
	if os.Getenv("INTENTD_ORACLE_PROCESS") != "1" {
		t.Skip("the oracle process of TestOracleStartupValidation")
	}
	os.Args = []string{"intentd", "oracle"}
	main()
}

// oracleProcess starts this test binary as `intentd oracle` with env only (nothing of the test
// process's environment but PATH), its secrets folder empty unless env names another.
func oracleProcess(t *testing.T, env map[string]string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOracleProcess$")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "INTENTD_ORACLE_PROCESS=1", "VAULT_SECRETS_DIR=" + t.TempDir(),
		"CHAINS_CONFIG_DIR=" + filepath.Join("..", "..", "configs")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The spec's Authentication rule 5, each case a process that must exit non-zero with a message
// naming the variable: "the service fails to start when ORACLE_SIGNERS_THRESHOLD is not an
// integer or is below 1. When ORACLE_SIGNERS is set it also fails if the threshold exceeds the
// number of unique entries, if any entry is not a valid nonzero address, or if the local signer
// address is not in the list."
func TestOracleStartupValidation(t *testing.T) {
	key := devnet.OracleKeys()[0]
	self := crypto.PubkeyToAddress(key.PublicKey).Hex()
	other := devnet.OracleAddresses()[1].Hex()
	base := map[string]string{"ENVIRONMENT": "dev", "ECDSA_PRIVATE_KEY": hex.EncodeToString(crypto.FromECDSA(key))}
	cases := map[string]struct {
		env  map[string]string
		want []string
	}{
		"threshold not an integer": {map[string]string{"ORACLE_SIGNERS_THRESHOLD": "two"}, []string{"ORACLE_SIGNERS_THRESHOLD", "not an integer"}},
		"threshold below 1":        {map[string]string{"ORACLE_SIGNERS_THRESHOLD": "0"}, []string{"ORACLE_SIGNERS_THRESHOLD", "below 1"}},
		"threshold above the unique entries": {map[string]string{"ORACLE_SIGNERS": self + ";" + other + ";" + strings.ToLower(other),
			"ORACLE_SIGNERS_THRESHOLD": "3"}, []string{"ORACLE_SIGNERS_THRESHOLD", "exceeds the 2 unique"}},
		"entry not an address": {map[string]string{"ORACLE_SIGNERS": self + ";0x1234"}, []string{"ORACLE_SIGNERS", "not an address"}},
		"entry the zero address": {map[string]string{"ORACLE_SIGNERS": self + ";0x0000000000000000000000000000000000000000"},
			[]string{"ORACLE_SIGNERS", "zero address"}},
		"local signer not in the list": {map[string]string{"ORACLE_SIGNERS": other}, []string{"ORACLE_SIGNERS", "does not list this oracle's signer " + self}},
		"no ENVIRONMENT":               {map[string]string{"ENVIRONMENT": ""}, []string{"ENVIRONMENT", "is required"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range base {
				env[k] = v
			}
			for k, v := range c.env {
				env[k] = v
			}
			cmd, out := oracleProcess(t, env)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if cmd.ProcessState.ExitCode() == 0 {
					t.Fatalf("exited 0: %v\n%s", err, out)
				}
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running:\n%s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out.String(), env["ECDSA_PRIVATE_KEY"]) {
				t.Error("the private key reached the output")
			}
		})
	}
}

// "A threshold set without an allowlist only logs a warning": the process starts and serves,
// and says so at WARN. Its key comes from the secrets folder only (the spec: "The container
// entrypoint also loads secrets from /vault/secrets when present").
func TestOracleThresholdWithoutAllowlistOnlyWarns(t *testing.T) {
	secrets := t.TempDir()
	key := hex.EncodeToString(crypto.FromECDSA(devnet.OracleKeys()[2]))
	if err := os.WriteFile(filepath.Join(secrets, "oracle.env"), []byte("# written by the Vault agent\nexport ECDSA_PRIVATE_KEY=\""+key+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	_ = l.Close()
	cmd, out := oracleProcess(t, map[string]string{"ENVIRONMENT": "dev", "ORACLE_SIGNERS_THRESHOLD": "2", "HTTP_PORT": port,
		"VAULT_SECRETS_DIR": secrets})
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+port+"/lives/v1", nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the oracle did not start:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	got := out.String()
	if !strings.Contains(got, "level=WARN") || !strings.Contains(got, "ORACLE_SIGNERS_THRESHOLD is set without ORACLE_SIGNERS") {
		t.Errorf("no warning:\n%s", got)
	}
	if !strings.Contains(got, devnet.OracleAddresses()[2].Hex()) {
		t.Errorf("not signing with the key of the secrets file:\n%s", got)
	}
	if strings.Contains(got, key) {
		t.Error("the private key reached the output")
	}
}
