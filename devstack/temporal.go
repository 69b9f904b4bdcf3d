package devstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uiserveroptions "github.com/temporalio/ui-server/v2/server/server_options"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/membership/static"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
)

// Defaults for TemporalOptions. They match the Temporal CLI's dev server so
// that tools (the `temporal` CLI, SDK defaults) find the server without
// configuration.
const (
	// DefaultTemporalIP keeps the server private to the machine.
	DefaultTemporalIP = "127.0.0.1"
	// DefaultTemporalPort is the port SDKs and the CLI dial by default.
	DefaultTemporalPort = 7233
	// DefaultTemporalUIPort is the dev server's usual Web UI port.
	DefaultTemporalUIPort = 8233
	// DefaultTemporalNamespace is the namespace SDKs use by default.
	DefaultTemporalNamespace = "default"
)

// temporalClusterName is the name of the single, local cluster. It is stored in
// the database's cluster metadata, so it must never change between versions.
const temporalClusterName = "active"

// defaultStartTimeout bounds how long StartTemporal waits for the server to
// answer when the caller's context has no deadline.
const defaultStartTimeout = time.Minute

// TemporalOptions configures StartTemporal. The zero value (apart from
// DatabaseFile) gives a server on the standard dev-server ports.
type TemporalOptions struct {
	// DatabaseFile is the SQLite file holding all Temporal state, so that
	// workflows survive a restart of the process. It (and its directory) is
	// created and the schema installed when it does not exist. Empty means an
	// in-memory database whose contents are lost on Stop.
	DatabaseFile string
	// IP is the address the frontend (and UI) listen on; default 127.0.0.1 so
	// that nothing is exposed beyond the machine.
	IP string
	// FrontendPort is the gRPC port of the frontend service; default 7233.
	FrontendPort int
	// UIPort is the HTTP port of the Web UI; default 8233.
	UIPort int
	// DisableUI turns the Web UI off (it is on by default because it is the
	// main way to inspect workflows during development).
	DisableUI bool
	// Namespace is created (idempotently) before the server starts; default
	// "default".
	Namespace string
	// SearchAttributes are the custom search attributes the application
	// needs. They are registered on Namespace both when the namespace is
	// created and, through the operator service, on every start, so that a
	// database created by an older version gains attributes added later.
	SearchAttributes map[string]enumspb.IndexedValueType
	// PostgresURL, when set, keeps the server's state in that Postgres instead of SQLite (the
	// production persistence): the databases <db>_temporal and <db>_temporal_visibility (<db>:
	// the URL's database) are created on its server when missing and their schemas brought up
	// to date, with PostgresHistoryShards history shards. DatabaseFile is then ignored.
	PostgresURL string
	// VisibilityPostgresURL, with a SQLite file (PostgresURL unset), keeps the visibility
	// records (what the Web UI lists and searches) in Postgres instead, in the database
	// <db>_temporal_visibility beside the URL's: SQLite's visibility table keeps 58 indexes and
	// two full-text tables by triggers on every write.
	VisibilityPostgresURL string
	// Logger receives the server's logs at Warn level and above only, because
	// the server logs a great deal at Info level. Default slog.Default().
	Logger *slog.Logger
}

// Temporal is a running in-process Temporal server (and optionally its Web
// UI). It exists so that the embedded default needs no separately installed
// Temporal; stop it with Stop.
type Temporal struct {
	server    temporal.Server
	ui        *uiserver.Server
	uiDone    chan struct{}
	hostPort  string
	uiURL     string
	namespace string
	logger    *slog.Logger
	// logLevel is the minimum level of server records passed to logger; Stop
	// raises it because shutdown produces a burst of spurious errors.
	logLevel *slog.LevelVar
	stopOnce sync.Once
}

// StartTemporal starts a Temporal server as configured by o and returns once
// its frontend answers and all of o.SearchAttributes are registered, so that
// callers can dial it and start workflows immediately. ctx bounds the time
// spent waiting for the server (one minute when ctx has no deadline); it does
// not control the lifetime of the server, which runs until Stop.
func StartTemporal(ctx context.Context, o TemporalOptions) (*Temporal, error) {
	if o.IP == "" {
		o.IP = DefaultTemporalIP
	}
	if o.FrontendPort == 0 {
		o.FrontendPort = DefaultTemporalPort
	}
	if o.UIPort == 0 && !o.DisableUI {
		o.UIPort = DefaultTemporalUIPort
	}
	if o.Namespace == "" {
		o.Namespace = DefaultTemporalNamespace
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultStartTimeout)
		defer cancel()
	}
	logger := o.Logger.With("component", "temporal")
	// Only Warn and above reach the caller's logger: the server and the UI
	// are very chatty at Info level.
	logLevel := new(slog.LevelVar)
	logLevel.Set(slog.LevelWarn)
	quiet := slog.New(minLevelHandler{min: logLevel, next: logger.Handler()})

	// Internal connections (our own client, the UI, the services among
	// themselves) need an address that can be dialled even when the frontend
	// listens on all interfaces.
	dialIP := o.IP
	if ip := net.ParseIP(o.IP); ip != nil && ip.IsUnspecified() {
		dialIP = "127.0.0.1"
	}
	frontendAddr := net.JoinHostPort(dialIP, strconv.Itoa(o.FrontendPort))

	// Fail early and clearly when a port is taken (typically another dev
	// server), instead of deep inside the server's startup; the UI server
	// would even exit the process on a bind failure.
	if err := checkPortFree(o.IP, o.FrontendPort); err != nil {
		return nil, fmt.Errorf("temporal frontend port: %w", err)
	}
	if !o.DisableUI {
		if err := checkPortFree(o.IP, o.UIPort); err != nil {
			return nil, fmt.Errorf("temporal UI port: %w", err)
		}
	}

	var conf *config.Config
	var err error
	if o.PostgresURL != "" {
		var stores *postgresStores
		if stores, err = preparePostgres(o.PostgresURL, false, quiet); err != nil {
			return nil, err
		}
		if conf, err = buildTemporalConfig(o, stores.main, dialIP); err != nil {
			return nil, err
		}
		stores.useVisibility(conf)
		conf.Persistence.NumHistoryShards = PostgresHistoryShards
	} else {
		sqlConf, err := prepareSQLite(o.DatabaseFile, o.Namespace, o.SearchAttributes)
		if err != nil {
			return nil, err
		}
		if conf, err = buildTemporalConfig(o, sqlConf, dialIP); err != nil {
			return nil, err
		}
		if o.VisibilityPostgresURL != "" {
			stores, err := preparePostgres(o.VisibilityPostgresURL, true, quiet)
			if err != nil {
				return nil, err
			}
			stores.useVisibility(conf)
		}
	}
	serverLogger := slogTemporalLogger{log: quiet}
	authorizer, err := authorization.GetAuthorizerFromConfig(&conf.Global.Authorization)
	if err != nil {
		return nil, fmt.Errorf("temporal authorizer: %w", err)
	}
	claimMapper, err := authorization.GetClaimMapperFromConfig(&conf.Global.Authorization, serverLogger)
	if err != nil {
		return nil, fmt.Errorf("temporal claim mapper: %w", err)
	}
	hosts := make(map[primitives.ServiceName]static.Hosts, len(conf.Services))
	for name, svc := range conf.Services {
		ip := "127.0.0.1"
		if name == string(primitives.FrontendService) {
			ip = dialIP
		}
		hosts[primitives.ServiceName(name)] = static.SingleLocalHost(net.JoinHostPort(ip, strconv.Itoa(svc.RPC.GRPCPort)))
	}
	server, err := temporal.NewServer(
		temporal.WithConfig(conf),
		temporal.ForServices(temporal.DefaultServices),
		// Static membership: no ringpop gossip ports, which a single
		// in-process server does not need.
		temporal.WithStaticHosts(hosts),
		temporal.WithLogger(serverLogger),
		temporal.WithAuthorizer(authorizer),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return claimMapper }),
		temporal.WithDynamicConfigClient(temporalDynamicConfig()),
	)
	if err != nil {
		return nil, fmt.Errorf("create temporal server: %w", err)
	}
	if err := server.Start(); err != nil {
		_ = server.Stop()
		return nil, fmt.Errorf("start temporal server: %w", err)
	}

	t := &Temporal{
		server:    server,
		hostPort:  frontendAddr,
		namespace: o.Namespace,
		logger:    logger,
		logLevel:  logLevel,
	}
	fail := func(err error) (*Temporal, error) {
		t.Stop()
		return nil, err
	}

	if !o.DisableUI {
		t.ui = uiserver.NewServer(uiserveroptions.WithConfigProvider(&uiconfig.Config{
			Host:                uiHost(o.IP),
			Port:                o.UIPort,
			TemporalGRPCAddress: frontendAddr,
			EnableUI:            true,
			DefaultNamespace:    o.Namespace,
			CORS:                uiconfig.CORS{CookieInsecure: true},
			HideLogs:            true,
			// The UI would otherwise fetch release news from the internet.
			DisableNewsFetch: true,
		}))
		t.uiDone = make(chan struct{})
		go func() {
			defer close(t.uiDone)
			// Start blocks until Stop; it returns nil after Stop.
			if err := t.ui.Start(); err != nil {
				logger.Error("temporal UI server failed", "error", err)
			}
		}()
		t.uiURL = "http://" + net.JoinHostPort(dialIP, strconv.Itoa(o.UIPort))
	}

	c, err := dialTemporal(ctx, frontendAddr, o.Namespace, quiet)
	if err != nil {
		return fail(err)
	}
	defer c.Close()
	if o.PostgresURL != "" {
		if err := registerNamespace(ctx, c, o.Namespace); err != nil {
			return fail(err)
		}
	}
	if err := ensureSearchAttributes(ctx, c, o.Namespace, o.SearchAttributes, logger); err != nil {
		return fail(err)
	}
	if t.ui != nil {
		if err := waitHTTP(ctx, t.uiURL+"/"); err != nil {
			return fail(fmt.Errorf("temporal UI did not come up: %w", err))
		}
	}
	logger.Info("temporal server started", "frontend", frontendAddr, "ui", t.uiURL, "namespace", o.Namespace, "database", o.DatabaseFile)
	return t, nil
}

// HostPort returns the frontend's gRPC host:port, for client.Options.HostPort.
func (t *Temporal) HostPort() string { return t.hostPort }

// UIURL returns the base URL of the Web UI (e.g. "http://127.0.0.1:8233"),
// or "" when the UI is disabled, so that it can be shown to the user.
func (t *Temporal) UIURL() string { return t.uiURL }

// Namespace returns the namespace that was created and prepared with the
// search attributes, for client.Options.Namespace.
func (t *Temporal) Namespace() string { return t.namespace }

// Stop shuts down the UI and the server and releases the database, so that a
// new server may be started on the same file. It is safe to call more than
// once.
func (t *Temporal) Stop() {
	t.stopOnce.Do(func() {
		// While shutting down, the services log failed polls and cancelled
		// calls of each other as warnings and errors; none of it is news.
		t.logLevel.Set(slog.LevelError + 100)
		if t.ui != nil {
			t.ui.Stop()
			<-t.uiDone
		}
		if err := t.server.Stop(); err != nil {
			t.logger.Warn("temporal server stop", "error", err)
		}
		t.logger.Info("temporal server stopped", "frontend", t.hostPort)
	})
}

// prepareSQLite returns the persistence configuration for file (or an
// in-memory database when file is empty), installing the schema into a new
// file and creating the namespace (a no-op when it exists).
func prepareSQLite(file, namespace string, sas map[string]enumspb.IndexedValueType) (*config.SQL, error) {
	conf := &config.SQL{PluginName: sqliteplugin.PluginName}
	if file == "" {
		conf.ConnectAttributes = map[string]string{"mode": "memory", "cache": "shared"}
		// Distinct in-memory databases for distinct servers in one process.
		// The plugin installs the schema when it opens an in-memory database.
		conf.DatabaseName = fmt.Sprintf("devstack-%d-%d", os.Getpid(), time.Now().UnixNano())
	} else {
		abs, err := filepath.Abs(file)
		if err != nil {
			return nil, fmt.Errorf("temporal database file: %w", err)
		}
		conf.ConnectAttributes = fileAttributes()
		conf.DatabaseName = abs
		if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				return nil, fmt.Errorf("temporal database directory: %w", err)
			}
			if err := sqliteschema.SetupSchema(conf); err != nil {
				// Do not leave a half-initialised file behind: the next
				// start would skip the schema setup.
				_ = os.Remove(abs)
				return nil, fmt.Errorf("set up temporal schema in %s: %w", abs, err)
			}
		} else if err != nil {
			return nil, fmt.Errorf("temporal database file: %w", err)
		}
	}
	ns, err := sqliteschema.NewNamespaceConfig(temporalClusterName, namespace, false, sas)
	if err != nil {
		return nil, fmt.Errorf("temporal namespace %q: %w", namespace, err)
	}
	if err := sqliteschema.CreateNamespaces(conf, ns); err != nil {
		return nil, fmt.Errorf("create temporal namespace %q: %w", namespace, err)
	}
	return conf, nil
}

// fileAttributes are the connection attributes of a database file. SQLite's defaults (a
// rollback journal, synchronous=FULL) cost several fsyncs per committed transaction, and the
// server commits a few dozen transactions per intent through its single connection: under a
// burst, the fsyncs were the engine's ceiling (BENCHMARKS.md, "Intents under load"). With the
// write-ahead log and synchronous=NORMAL a commit is an append to the log, synced at
// checkpoints: a transaction committed before the process dies (SIGKILL included) survives it;
// only an operating-system crash or power loss can take back the last commits before a
// checkpoint, which a development server accepts (the production topology runs Temporal on
// Postgres). The server keeps its one connection (the plugin's default): with WAL, writers
// on several connections would fail with SQLITE_BUSY_SNAPSHOT rather than wait.
func fileAttributes() map[string]string {
	return map[string]string{"mode": "rwc", "journal_mode": "wal", "synchronous": "normal", "busy_timeout": "10000"}
}

// buildTemporalConfig assembles the static server configuration: one
// history shard, SQLite for both stores, archival off, and free loopback
// ports for the internal services and the frontend's HTTP API. Metrics and
// pprof stay disabled (no listeners on fixed ports).
func buildTemporalConfig(o TemporalOptions, sqlConf *config.SQL, dialIP string) (*config.Config, error) {
	frontendAddr := net.JoinHostPort(dialIP, strconv.Itoa(o.FrontendPort))
	// The frontend's HTTP API (also used by Nexus) on a free port; without it
	// the server warns on every start.
	httpPort, err := freePort(o.IP)
	if err != nil {
		return nil, fmt.Errorf("free port for temporal HTTP API: %w", err)
	}
	var conf config.Config
	conf.Global.Membership.MaxJoinDuration = 30 * time.Second
	conf.Global.Membership.BroadcastAddress = "127.0.0.1"
	// Global.Metrics == nil selects the no-op metrics handler and
	// Global.PProf.Port == 0 disables pprof.

	const store = "sqlite-default"
	conf.Persistence.DefaultStore = store
	conf.Persistence.VisibilityStore = store
	conf.Persistence.NumHistoryShards = 1
	conf.Persistence.DataStores = map[string]config.DataStore{store: {SQL: sqlConf}}

	conf.ClusterMetadata = &cluster.Config{
		EnableGlobalNamespace:    false,
		FailoverVersionIncrement: 10,
		MasterClusterName:        temporalClusterName,
		CurrentClusterName:       temporalClusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{
			temporalClusterName: {
				Enabled:                true,
				InitialFailoverVersion: 1,
				RPCAddress:             frontendAddr,
				HTTPAddress:            net.JoinHostPort(dialIP, strconv.Itoa(httpPort)),
			},
		},
	}
	conf.DCRedirectionPolicy.Policy = "noop"

	conf.Services = map[string]config.Service{
		string(primitives.FrontendService): {RPC: config.RPC{GRPCPort: o.FrontendPort, HTTPPort: httpPort, BindOnIP: o.IP}},
	}
	for _, name := range []primitives.ServiceName{primitives.HistoryService, primitives.MatchingService, primitives.WorkerService} {
		port, err := freePort("127.0.0.1")
		if err != nil {
			return nil, fmt.Errorf("free port for temporal %s service: %w", name, err)
		}
		conf.Services[string(name)] = config.Service{RPC: config.RPC{GRPCPort: port, BindOnIP: "127.0.0.1"}}
	}

	conf.Archival.History.State = "disabled"
	conf.Archival.Visibility.State = "disabled"
	conf.NamespaceDefaults.Archival.History.State = "disabled"
	conf.NamespaceDefaults.Archival.Visibility.State = "disabled"
	// The worker service talks to the frontend through this address.
	conf.PublicClient.HostPort = frontendAddr
	return &conf, nil
}

// temporalDynamicConfig returns the dynamic configuration: that of the
// Temporal CLI's dev server, which suits a single-user development server,
// plus no version check.
func temporalDynamicConfig() dynamicconfig.StaticClient {
	return dynamicconfig.StaticClient{
		// Smaller mutable-state cache than the production default.
		dynamicconfig.HistoryCacheHostLevelMaxSize.Key(): 8096,
		// The UI lists workflows often; the default of 10 rps throttles it.
		dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key(): 100,
		// On by default: the frontend would report to and query
		// updates.temporal.io. The embedded server must not reach out.
		dynamicconfig.EnableServerVersionCheck.Key(): false,
		// Timer tasks due sooner than this are held back to it: with the
		// default of 1 s, a retry or a timer of 300 ms fired after 1.008 s.
		// One host has no clock skew between writers of timers to allow for.
		dynamicconfig.TimerProcessorMaxTimeShift.Key(): 100 * time.Millisecond,
		// One partition per task queue: the default four spread a queue's polls and tasks over
		// partitions that forward to each other, which a server of one host with a worker or
		// two does not need; at 50 intents a second it took a tenth of a core
		// (BENCHMARKS.md). A production cluster keeps Temporal's default, or more.
		dynamicconfig.MatchingNumTaskqueueReadPartitions.Key():  1,
		dynamicconfig.MatchingNumTaskqueueWritePartitions.Key(): 1,
		// Payloads kept outside the history (the SDK's external storage) are not used here: on,
		// the history service walked every new event's payloads at each write to size them, on
		// a fresh goroutine's growing stack (2% of dev's CPU at 40 intents a second).
		dynamicconfig.ExternalPayloadsEnabled.Key(): false,
	}
}

// dialTemporal connects a client to the frontend, retrying until the server
// answers a health check or ctx ends.
func dialTemporal(ctx context.Context, hostPort, namespace string, logger *slog.Logger) (client.Client, error) {
	var lastErr error
	for {
		attemptCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		c, err := client.DialContext(attemptCtx, client.Options{
			HostPort:  hostPort,
			Namespace: namespace,
			Logger:    sdklog.NewStructuredLogger(logger),
		})
		if err == nil {
			_, err = c.CheckHealth(attemptCtx, &client.CheckHealthRequest{})
			if err == nil {
				cancel()
				return c, nil
			}
			c.Close()
		}
		cancel()
		lastErr = err
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("temporal frontend %s did not answer: %w (last error: %v)", hostPort, ctx.Err(), lastErr)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ensureSearchAttributes registers every attribute in want that namespace
// lacks and waits until all are listed. A database created by an older
// version may lack attributes added since; CreateNamespaces does not touch an
// existing namespace, so this is the only place they get added.
func ensureSearchAttributes(ctx context.Context, c client.Client, namespace string, want map[string]enumspb.IndexedValueType, logger *slog.Logger) error {
	if len(want) == 0 {
		return nil
	}
	op := c.OperatorService()
	added := false
	for {
		resp, err := op.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
		if err != nil {
			return fmt.Errorf("list temporal search attributes: %w", err)
		}
		missing := map[string]enumspb.IndexedValueType{}
		for name, typ := range want {
			have, ok := resp.GetCustomAttributes()[name]
			if !ok {
				have, ok = resp.GetSystemAttributes()[name]
			}
			switch {
			case !ok:
				missing[name] = typ
			case have != typ:
				return fmt.Errorf("temporal search attribute %s is registered as %s, want %s", name, have, typ)
			}
		}
		if len(missing) == 0 {
			return nil
		}
		if !added {
			logger.Info("registering temporal search attributes", "namespace", namespace, "attributes", fmt.Sprint(missing))
			if _, err := op.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
				Namespace:        namespace,
				SearchAttributes: missing,
			}); err != nil {
				return fmt.Errorf("add temporal search attributes: %w", err)
			}
			added = true
			continue
		}
		// Added, but the namespace cache has not caught up yet.
		select {
		case <-ctx.Done():
			return fmt.Errorf("temporal search attributes %v not visible after adding: %w", missing, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitHTTP polls url until it answers with a non-5xx status or ctx ends.
func waitHTTP(ctx context.Context, url string) error {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
			err = fmt.Errorf("status %s", resp.Status)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last error: %v)", url, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// uiHost brackets an IPv6 address, because the UI server appends ":port"
// to its host itself.
func uiHost(ip string) string {
	if strings.Contains(ip, ":") {
		return "[" + ip + "]"
	}
	return ip
}

// freePort asks the kernel for a currently unused TCP port on ip.
func freePort(ip string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// checkPortFree reports an error when ip:port cannot be bound.
func checkPortFree(ip string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return l.Close()
}
