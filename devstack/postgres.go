package devstack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Defaults for PostgresOptions.
const (
	// DefaultPostgresPort is not 5432 because a system-wide server often
	// occupies that port.
	DefaultPostgresPort = 5433
	// DefaultPostgresDatabase is the database created in the private cluster.
	DefaultPostgresDatabase = "intentd"
)

// postgresSuperuser is the superuser created by initdb; trust authentication
// means it needs no password.
const postgresSuperuser = "postgres"

// urlProbeTimeout bounds the reachability check of a configured URL, so that
// a missing server costs at most this long at startup.
const urlProbeTimeout = 2 * time.Second

// privateMaxConnections is the private cluster's max_connections.
const privateMaxConnections = 300

// PostgresOptions configures EnsurePostgres.
type PostgresOptions struct {
	// URL is the configured DATABASE_URL. When it is set and a connection
	// succeeds within about two seconds it is used as is and nothing is
	// started; otherwise (unset, unreachable, or refusing the connection) a
	// private cluster is used so that development works without setup.
	URL string
	// DataDir is the private cluster's data directory (e.g. .data/pg). It is
	// created and initialised on first use and reused afterwards. Required
	// unless URL is reachable.
	DataDir string
	// Port is the TCP port of the private cluster on 127.0.0.1; default 5433
	// because 5432 is often taken by a system server.
	Port int
	// Database is created in the private cluster when missing; default
	// "intentd".
	Database string
	// Logger receives progress and problems; default slog.Default().
	Logger *slog.Logger
}

// Postgres is the database selected by EnsurePostgres: either the configured
// server or a private cluster. It tells the caller which URL to use and
// whether there is a server to stop on shutdown.
type Postgres struct {
	url     string
	started bool
	dataDir string
	pgCtl   string
	runAs   *osUser
	logger  *slog.Logger

	stopOnce sync.Once
	stopErr  error
}

// osUser is the account the PostgreSQL binaries are run as when we are root
// (initdb and postgres refuse to run as root).
type osUser struct {
	name     string
	uid, gid uint32
	home     string
}

// EnsurePostgres returns a usable PostgreSQL: o.URL when it is reachable,
// otherwise a private cluster in o.DataDir, initialising it (initdb) when
// needed, starting it unless a postmaster from that directory already
// answers, and creating o.Database. When running as root the PostgreSQL
// binaries are run as the "postgres" OS user, which is given ownership of the
// data directory. The private cluster uses trust authentication and listens
// on 127.0.0.1 only.
func EnsurePostgres(ctx context.Context, o PostgresOptions) (*Postgres, error) {
	if o.Port == 0 {
		o.Port = DefaultPostgresPort
	}
	if o.Database == "" {
		o.Database = DefaultPostgresDatabase
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	logger := o.Logger.With("component", "postgres")

	if o.URL != "" {
		err := pingURL(ctx, o.URL, urlProbeTimeout)
		if err == nil {
			logger.Info("using configured database", "url", redactURL(o.URL))
			return &Postgres{url: o.URL, logger: logger}, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		logger.Warn("configured database not reachable; using a private cluster", "url", redactURL(o.URL), "error", err, "data_dir", o.DataDir)
	}
	if o.DataDir == "" {
		return nil, errors.New("postgres: no reachable DATABASE_URL and no DataDir for a private cluster")
	}
	return startPrivate(ctx, o, logger)
}

// URL returns the connection URL to use, e.g.
// postgres://postgres@127.0.0.1:5433/intentd?sslmode=disable for the private
// cluster.
func (p *Postgres) URL() string { return p.url }

// Started reports whether EnsurePostgres started a private cluster (and Stop
// will therefore stop it). It is false when the configured URL is used and
// also when a private cluster left running by an earlier process was reused,
// which is left running for whoever started it.
func (p *Postgres) Started() bool { return p.started }

// Stop stops the private cluster (pg_ctl stop -m fast) when this Postgres
// started it, so that no server outlives the process; otherwise it does
// nothing. It is safe to call more than once.
func (p *Postgres) Stop() error {
	if !p.started {
		return nil
	}
	p.stopOnce.Do(func() {
		out, err := p.run(p.pgCtl, "-D", p.dataDir, "-m", "fast", "-w", "-t", "60", "stop")
		if err != nil {
			p.stopErr = fmt.Errorf("pg_ctl stop: %w: %s", err, bytes.TrimSpace(out))
			return
		}
		p.logger.Info("private postgres stopped", "data_dir", p.dataDir)
	})
	return p.stopErr
}

func startPrivate(ctx context.Context, o PostgresOptions, logger *slog.Logger) (*Postgres, error) {
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("postgres data dir: %w", err)
	}
	p := &Postgres{dataDir: dataDir, logger: logger}
	if os.Geteuid() == 0 {
		u, err := lookupOSUser(postgresSuperuser)
		if err != nil {
			return nil, fmt.Errorf("running as root, the PostgreSQL binaries must run as another user: %w", err)
		}
		p.runAs = u
	}
	if err := p.prepareDataDir(); err != nil {
		return nil, err
	}

	version := readPGVersion(dataDir)
	initdb, pgCtl, err := findPGBinaries(version)
	if err != nil {
		return nil, err
	}
	p.pgCtl = pgCtl

	if version == "" {
		if err := p.initdb(initdb); err != nil {
			return nil, err
		}
	}

	port := o.Port
	running, err := p.checkRunning(ctx)
	if err != nil {
		return nil, err
	}
	if running != 0 {
		port = running
		if port != o.Port {
			logger.Warn("reusing private postgres already running on another port", "data_dir", dataDir, "port", port, "configured_port", o.Port)
		} else {
			logger.Info("reusing running private postgres", "data_dir", dataDir, "port", port)
		}
	} else {
		if err := p.start(ctx, port); err != nil {
			return nil, err
		}
		p.started = true
		logger.Info("private postgres started", "data_dir", dataDir, "port", port)
	}

	admin := privateURL(port, "postgres")
	if err := createDatabase(ctx, admin, o.Database); err != nil {
		_ = p.Stop()
		return nil, err
	}
	p.url = privateURL(port, o.Database)
	return p, nil
}

// prepareDataDir creates the data directory and, when running as root, hands
// it to the postgres user and makes sure that user can reach it.
func (p *Postgres) prepareDataDir() error {
	if err := os.MkdirAll(p.dataDir, 0o700); err != nil {
		return fmt.Errorf("postgres data dir: %w", err)
	}
	if p.runAs == nil {
		return nil
	}
	fi, err := os.Stat(p.dataDir)
	if err != nil {
		return fmt.Errorf("postgres data dir: %w", err)
	}
	if owner, ok := fileOwner(fi); !ok || owner != p.runAs.uid {
		uid, gid := int(p.runAs.uid), int(p.runAs.gid)
		err := filepath.WalkDir(p.dataDir, func(path string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, uid, gid)
		})
		if err != nil {
			return fmt.Errorf("give postgres data dir to user %s: %w", p.runAs.name, err)
		}
	}
	if fi.Mode().Perm()&0o077 != 0 {
		// The server refuses group/world-writable data directories.
		if err := os.Chmod(p.dataDir, 0o700); err != nil {
			return fmt.Errorf("postgres data dir: %w", err)
		}
	}
	// Every ancestor must be searchable by the postgres user.
	for dir := filepath.Dir(p.dataDir); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("postgres data dir parent: %w", err)
		}
		if !searchableBy(fi, p.runAs) {
			mode := fi.Mode().Perm() | 0o001
			p.logger.Warn("making directory traversable for the postgres user", "dir", dir, "mode", fmt.Sprintf("%#o", mode))
			if err := os.Chmod(dir, mode); err != nil {
				return fmt.Errorf("make %s traversable for user %s: %w", dir, p.runAs.name, err)
			}
		}
		if parent := filepath.Dir(dir); parent == dir {
			break
		}
	}
	return nil
}

// initdb creates a new cluster in the (empty) data directory.
func (p *Postgres) initdb(initdb string) error {
	entries, err := os.ReadDir(p.dataDir)
	if err != nil {
		return fmt.Errorf("postgres data dir: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("postgres data dir %s is not empty but has no PG_VERSION; move it away to let a new cluster be created", p.dataDir)
	}
	p.logger.Info("initialising private postgres cluster", "data_dir", p.dataDir, "initdb", initdb)
	out, err := p.run(initdb, "-D", p.dataDir, "-U", postgresSuperuser, "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync")
	if err != nil {
		return fmt.Errorf("initdb %s: %w: %s", p.dataDir, err, bytes.TrimSpace(out))
	}
	return nil
}

// checkRunning looks at postmaster.pid. It returns the port of a postmaster
// from this data directory that answers, or 0 when none does, after removing
// a pid file left by a killed server whose process is gone (its pid may have
// been reused by an unrelated process, which would make postgres refuse to
// start).
func (p *Postgres) checkRunning(ctx context.Context) (int, error) {
	pidFile := filepath.Join(p.dataDir, "postmaster.pid")
	data, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, fmt.Errorf("postgres pid file: %w", err)
	}
	lines := strings.Split(string(data), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(lines[0]))
	port := 0
	if len(lines) > 3 {
		port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	}
	if pid <= 0 || !isPostgresProcess(pid) {
		p.logger.Warn("removing stale postgres pid file", "file", pidFile, "pid", pid)
		if err := os.Remove(pidFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, fmt.Errorf("remove stale postgres pid file: %w", err)
		}
		// The socket lock files name the same dead process; postgres would
		// honour them while it is an unreaped zombie.
		locks, _ := filepath.Glob(filepath.Join(p.dataDir, ".s.PGSQL.*.lock"))
		for _, lock := range locks {
			if b, err := os.ReadFile(lock); err == nil {
				if lockPID, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])); !isPostgresProcess(lockPID) {
					_ = os.Remove(lock)
				}
			}
		}
		return 0, nil
	}
	if port == 0 {
		// Still starting up (the port line is written later); let pg_ctl
		// start report the conflict if it persists.
		return 0, nil
	}
	// The process may still be starting or recovering: give it a moment.
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := pingURL(ctx, privateURL(port, "postgres"), time.Second)
		if err == nil {
			return port, nil
		}
		if !isPostgresProcess(pid) {
			// It died meanwhile (e.g. shutting down); start a new one.
			return 0, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return 0, fmt.Errorf("a postgres process (pid %d) runs on %s but does not answer on port %d: %w", pid, p.dataDir, port, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// start runs pg_ctl start and waits until the server accepts connections.
// After a kill -9 the old server's children may still hold the shared memory
// for a moment, so a failed start is retried.
func (p *Postgres) start(ctx context.Context, port int) error {
	// max_connections covers the pools of the whole shape on one machine: Temporal's
	// persistence and visibility, the API, and several worker processes of 16 each
	// (bench-intents-scale with three workers passed Postgres's default of 100).
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c max_connections=%d", port, privateMaxConnections)
	// Unix socket paths are limited to about 107 bytes; without a socket the
	// server is still reachable over TCP, which is all we use.
	if len(p.dataDir)+len("/.s.PGSQL.65535.lock") < 100 {
		opts += " -k " + shellQuote(p.dataDir)
	} else {
		opts += " -c unix_socket_directories=''"
	}
	logFile := filepath.Join(p.dataDir, "server.log")
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return fmt.Errorf("start postgres: %w (last error: %v)", ctx.Err(), lastErr)
			case <-time.After(time.Second):
			}
			p.logger.Warn("retrying postgres start", "error", lastErr)
		}
		out, err := p.run(p.pgCtl, "-D", p.dataDir, "-l", logFile, "-o", opts, "-w", "-t", "60", "start")
		if err == nil {
			break
		}
		lastErr = fmt.Errorf("pg_ctl start: %w: %s\n%s", err, bytes.TrimSpace(out), tailFile(logFile, 2000))
		if attempt == 2 {
			return lastErr
		}
	}
	// pg_ctl -w returns when the server is ready; confirm over TCP.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := pingURL(ctx, privateURL(port, "postgres"), time.Second)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("private postgres started but does not answer on port %d: %w\n%s", port, err, tailFile(logFile, 2000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// run executes a PostgreSQL binary, as the postgres user when we are root,
// and returns its combined output.
func (p *Postgres) run(bin string, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	// The binaries must not inherit a working directory the postgres user
	// cannot enter.
	cmd.Dir = "/"
	if p.runAs != nil {
		setCredential(cmd, p.runAs)
		env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
			return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "USER=") || strings.HasPrefix(kv, "LOGNAME=")
		})
		cmd.Env = append(env, "HOME="+p.runAs.home, "USER="+p.runAs.name, "LOGNAME="+p.runAs.name)
	}
	// pg_ctl's postmaster redirects its output to the log file, so the
	// pipes close when pg_ctl exits.
	return cmd.CombinedOutput()
}

// createDatabase creates db through adminURL unless it exists.
func createDatabase(ctx context.Context, adminURL, db string) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, adminURL)
	if err != nil {
		return fmt.Errorf("connect to private postgres: %w", err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	var exists bool
	if err := conn.QueryRow(cctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %q: %w", db, err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(cctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
		return fmt.Errorf("create database %q: %w", db, err)
	}
	return nil
}

// pingURL connects to connURL and pings, within timeout.
func pingURL(ctx context.Context, connURL string, timeout time.Duration) error {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cfg, err := pgx.ParseConfig(connURL)
	if err != nil {
		return err
	}
	cfg.ConnectTimeout = timeout
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	return conn.Ping(cctx)
}

// privateURL is the URL of database db in the private cluster on port.
func privateURL(port int, db string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(postgresSuperuser),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// redactURL hides a password in connURL so that it can be logged.
func redactURL(connURL string) string {
	u, err := url.Parse(connURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// readPGVersion returns the major version recorded in dataDir, or "" when
// the directory holds no cluster.
func readPGVersion(dataDir string) string {
	b, err := os.ReadFile(filepath.Join(dataDir, "PG_VERSION"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// pgLibDir is where Debian and Ubuntu install the binaries of each major
// version (they are not on PATH there).
const pgLibDir = "/usr/lib/postgresql"

// findPGBinaries locates initdb and pg_ctl: those of the data directory's
// major version when installed under pgLibDir, else those on PATH, else
// those of the highest version under pgLibDir.
func findPGBinaries(version string) (initdb, pgCtl string, err error) {
	both := func(dir string) (string, string, bool) {
		i, p := filepath.Join(dir, "initdb"), filepath.Join(dir, "pg_ctl")
		return i, p, isExecutable(i) && isExecutable(p)
	}
	if version != "" {
		if i, p, ok := both(filepath.Join(pgLibDir, version, "bin")); ok {
			return i, p, nil
		}
	}
	i, errI := exec.LookPath("initdb")
	p, errP := exec.LookPath("pg_ctl")
	if errI == nil && errP == nil {
		return i, p, nil
	}
	dirs, _ := filepath.Glob(filepath.Join(pgLibDir, "*", "bin"))
	best, bestVer := "", -1.0
	for _, dir := range dirs {
		v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
		if err != nil {
			continue
		}
		if _, _, ok := both(dir); ok && v > bestVer {
			best, bestVer = dir, v
		}
	}
	if best == "" {
		return "", "", fmt.Errorf("postgres: initdb and pg_ctl not found on PATH or under %s/*/bin; install PostgreSQL or set DATABASE_URL", pgLibDir)
	}
	i, p, _ = both(best)
	return i, p, nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode().Perm()&0o111 != 0
}

// isPostgresProcess reports whether pid is alive and (where /proc tells) a
// postgres process.
func isPostgresProcess(pid int) bool {
	if !processAlive(pid) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		// No /proc: trust the liveness check.
		return true
	}
	// "pid (comm) state ...": a killed postmaster whose parent does not
	// reap it lingers as a zombie, which is not a running server.
	s := string(stat)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open || len(s) < closing+3 {
		return true
	}
	name, state := s[open+1:closing], s[closing+2]
	if state == 'Z' || state == 'X' {
		return false
	}
	return name == "postgres" || name == "postmaster"
}

func lookupOSUser(name string) (*osUser, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %s: uid %q: %w", name, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %s: gid %q: %w", name, u.Gid, err)
	}
	return &osUser{name: name, uid: uint32(uid), gid: uint32(gid), home: u.HomeDir}, nil
}

// shellQuote quotes s for the shell through which pg_ctl passes -o.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tailFile returns up to the last n bytes of path, for error messages.
func tailFile(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(fi.Size()-n, 0)
	b := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil {
		return ""
	}
	return string(b)
}
