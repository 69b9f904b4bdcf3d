package e2e

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// nodeFor returns the Node.js executable a suite runs on, failing t with what to install when
// node is not on the PATH or the suite's package pkg (a path under node_modules, say
// "viem") is not installed.
func nodeFor(t *testing.T, pkg string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on the PATH: the e2e suite needs Node.js 20 or later")
	}
	if _, err := os.Stat(filepath.Join("node_modules", pkg, "package.json")); err != nil {
		t.Fatal("the e2e suite's packages are not installed: run `make e2e-deps` (npm ci in e2e/)")
	}
	return node
}

// runNode runs node with args in this directory, env added to the process's (and NO_COLOR),
// logging each line it writes to t; it fails t, naming the suite (what) and how long it ran,
// when the run fails, and logs its time otherwise.
func runNode(t *testing.T, ctx context.Context, node, what string, args []string, env ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(append(os.Environ(), env...), "NO_COLOR=1")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			t.Log(sc.Text())
		}
	}()
	start := time.Now()
	err := cmd.Run()
	_ = pw.Close()
	<-done
	if err != nil {
		t.Fatalf("%s failed after %s: %v", what, time.Since(start).Round(time.Millisecond), err)
	}
	t.Log(what + " passed in " + strconv.FormatFloat(time.Since(start).Seconds(), 'f', 1, 64) + " s")
}
