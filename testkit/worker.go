package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/internal/process"
	"github.com/intentd/intentd/worker"
)

// StartWorker runs a worker (and its deposit scanner) of the stack's engine until StopWorker or
// the end of the test: in the test process, or as a new start of the worker process.
func (s *Stack) StartWorker(t testing.TB) {
	t.Helper()
	if s.WorkerProcess != nil {
		if err := s.WorkerProcess.Start(); err != nil {
			t.Fatal(err)
		}
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = worker.Run(ctx, s.workerSys.WorkerDeps()) }()
	s.stopWorker = func() { cancel(); <-done }
	t.Cleanup(s.stopWorker)
}

// StopWorker stops the worker started last, gracefully, as on a deploy.
func (s *Stack) StopWorker() {
	if s.WorkerProcess != nil {
		s.WorkerProcess.Stop(10 * time.Second)
		return
	}
	s.stopWorker()
}

// environment is what app.Load reads from vars over defaults, as a process environment: a
// variable set to "" in vars falls back to its default, as in app.Load.
func environment(defaults, vars map[string]string) map[string]string {
	env := maps.Clone(defaults)
	for k, v := range vars {
		if v != "" {
			env[k] = v
		}
	}
	return env
}

// startWorkerProcess runs `intentd worker` under a supervisor, configured through its
// environment only, as in production: the stack's variables, and a chain file with the chains
// at rpcs in o.LogDir.
func (s *Stack) startWorkerProcess(t *testing.T, o Options, rpcs map[uint64]string, vars map[string]string) {
	vars = maps.Clone(vars)
	s.withMetrics(t, "worker", vars)
	s.workerRPCs = rpcs
	s.WorkerProcess = startProcess(t, o.WorkerBinary, "worker", o.LogDir, rpcs, vars)
}

// StartWorkerProcess runs one more `intentd worker` from bin beside the stack's worker, with
// the same configuration and extra: workers share the task queue (and scan deposits side by
// side), as replicas of a deployment do.
func (s *Stack) StartWorkerProcess(t *testing.T, bin string, extra map[string]string) *process.Supervisor {
	t.Helper()
	vars := maps.Clone(s.processEnv)
	maps.Copy(vars, extra)
	s.workers++
	name := fmt.Sprintf("worker%d", s.workers+1)
	s.withMetrics(t, name, vars)
	rpcs := s.workerRPCs
	if rpcs == nil {
		rpcs = s.apiRPCs
	}
	return startProcess(t, bin, name, filepath.Join(s.logDir, name), rpcs, vars)
}

// StartAPIProcess runs `intentd api` from bin (process.BuildIntentd) as a process of its own
// beside the stack's in-process API, configured as production configures it: the stack's
// database, Temporal and oracle, the solver's address (never its key), the chains the stack's
// API reads, and extra (REDIS_URL, say). It returns the process's base URL once it answers.
func (s *Stack) StartAPIProcess(t *testing.T, bin string, extra map[string]string) string {
	t.Helper()
	port := freePort(t)
	vars := maps.Clone(s.processEnv)
	delete(vars, "SOLVER_PRIVATE_KEY")
	delete(vars, "SOLVER_SOLANA_KEY")
	delete(vars, "RELAYER_PRIVATE_KEY")
	delete(vars, "SOLANA_VAULT_KEY")
	delete(vars, "PERPS_DEPOSITORY_KEY")
	vars["SOLVER_ADDRESS"] = devnet.SolverAddress().Hex()
	vars["SOLVER_SOLANA_ADDRESS"] = svm.SolverAddress().String()
	vars["API_ADDR"] = fmt.Sprintf("127.0.0.1:%d", port)
	// Its admin API on a free port of its own too: processes beside each other (and beside a
	// `make run` on the machine) never share the default 127.0.0.1:8081.
	vars["ADMIN_ADDR"] = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	maps.Copy(vars, extra)
	s.apiProcesses++
	name := fmt.Sprintf("api%d", s.apiProcesses)
	s.withMetrics(t, name, vars)
	s.apiSupervisors = append(s.apiSupervisors, startProcess(t, bin, name, filepath.Join(s.logDir, name), s.apiRPCs, vars))
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	// A minute: on a loaded 2-core machine (make test beside other builds) a process's start,
	// migrations checked and prices warmed, has taken over 30 s.
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(base + "/lives")
		status := 0
		if err == nil {
			_ = resp.Body.Close()
			if status = resp.StatusCode; status == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer 200 on %s/lives: status %d, %v (logs in %s)", name, base, status, err, filepath.Join(s.logDir, name))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startProcess runs `intentd <role>` from bin under a supervisor, with vars as its only
// configuration and a chain file of the chains at rpcs in logDir/configs.
func startProcess(t *testing.T, bin, role, logDir string, rpcs map[uint64]string, vars map[string]string) *process.Supervisor {
	chainsDir := filepath.Join(logDir, "configs")
	if err := os.MkdirAll(chainsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	doc, err := json.MarshalIndent(map[string]any{"chains": chainConfigs(rpcs)}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// The environment names the chain file, and the oracles' signing domain (which must be the
	// same for the oracles and the worker): the stack's, "dev" unless vars say otherwise.
	vars = maps.Clone(vars)
	if vars["ENVIRONMENT"] == "" {
		vars["ENVIRONMENT"] = "dev"
	}
	if err := os.WriteFile(filepath.Join(chainsDir, "chains."+vars["ENVIRONMENT"]+".json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	vars["CHAINS_CONFIG_DIR"] = chainsDir
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	sup := &process.Supervisor{Name: role, Bin: bin, Args: []string{strings.TrimRight(role, "0123456789")}, Env: env,
		LogDir: logDir, RestartDelay: time.Second}
	if err := sup.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Close(10 * time.Second) })
	return sup
}

// StopAPIProcesses stops the processes StartAPIProcess started, gracefully (SIGTERM, then
// SIGKILL after grace), and waits for them to exit.
func (s *Stack) StopAPIProcesses(grace time.Duration) {
	for _, sup := range s.apiSupervisors {
		sup.Close(grace)
	}
}
