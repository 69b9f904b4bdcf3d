package devstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/persistence/sql/sqlplugin/postgresql"
	"go.temporal.io/server/tools/common/schema"
	sqltool "go.temporal.io/server/tools/sql"
	"google.golang.org/protobuf/types/known/durationpb"
)

// PostgresHistoryShards is the number of history shards of a server kept in Postgres. It is
// fixed when the databases are created: a server started later with another number refuses
// them. A single SQLite file has one writer, so one shard; Postgres takes concurrent writers.
const PostgresHistoryShards = 4

// postgresRetention is how long a closed workflow's history stays in a Postgres-kept server.
const postgresRetention = 30 * 24 * time.Hour

type postgresStores struct{ main, visibility *config.SQL }

// useVisibility makes conf keep its visibility records in the Postgres visibility store.
func (p *postgresStores) useVisibility(conf *config.Config) {
	conf.Persistence.VisibilityStore = "postgres-visibility"
	conf.Persistence.DataStores[conf.Persistence.VisibilityStore] = config.DataStore{SQL: p.visibility}
}

// preparePostgres creates the databases <db>_temporal and <db>_temporal_visibility (<db>: the
// database rawURL names, default postgres) on its server when they are missing and brings their
// schemas up to date (the embedded schemas of temporal-sql-tool's setup-schema and
// update-schema), and returns the stores' configuration; visibilityOnly leaves the first alone.
func preparePostgres(rawURL string, visibilityOnly bool, logger *slog.Logger) (*postgresStores, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("temporal postgres URL: %w", err)
	}
	password, _ := u.User.Password()
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "5432"
	}
	base := func(db string) *config.SQL {
		return &config.SQL{PluginName: postgresql.PluginNamePGX, DatabaseName: db, ConnectAddr: net.JoinHostPort(host, port),
			ConnectProtocol: "tcp", User: u.User.Username(), Password: password, MaxConns: 20, MaxIdleConns: 20}
	}
	admin := u.Path
	if len(admin) > 1 {
		admin = admin[1:]
	} else {
		admin = "postgres"
	}
	log := slogTemporalLogger{log: logger}
	stores := &postgresStores{main: base(admin + "_temporal"), visibility: base(admin + "_temporal_visibility")}
	type store struct {
		cfg  *config.SQL
		name string
	}
	todo := []store{{stores.main, "postgresql/v12/temporal"}, {stores.visibility, "postgresql/v12/visibility"}}
	if visibilityOnly {
		todo = todo[1:]
	}
	for _, s := range todo {
		create := *s.cfg // DoCreateDatabase points its configuration at the admin database
		if err := sqltool.DoCreateDatabase(&create, admin, log); err != nil && !isDuplicateDatabase(err) {
			return nil, fmt.Errorf("create database %s: %w", s.cfg.DatabaseName, err)
		}
		conn, err := sqltool.NewConnection(s.cfg, log)
		if err != nil {
			return nil, fmt.Errorf("connect to %s: %w", s.cfg.DatabaseName, err)
		}
		if v, err := conn.ReadSchemaVersion(); err != nil || v == "" {
			// A new database: the schema version tables at 0.0, which the update moves on.
			if err := schema.NewSetupSchemaTask(conn, &schema.SetupConfig{InitialVersion: "0.0"}, log).Run(); err != nil {
				conn.Close()
				return nil, fmt.Errorf("set up %s: %w", s.cfg.DatabaseName, err)
			}
		}
		err = schema.NewUpdateSchemaTask(conn, &schema.UpdateConfig{DBName: s.cfg.DatabaseName, SchemaName: s.name}, log).Run()
		conn.Close()
		if err != nil {
			return nil, fmt.Errorf("update the schema of %s: %w", s.cfg.DatabaseName, err)
		}
	}
	return stores, nil
}

// isDuplicateDatabase reports Postgres's "database already exists" (SQLSTATE 42P04).
func isDuplicateDatabase(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42P04"
}

// registerNamespace creates namespace on a Postgres-kept server (a SQLite file gets it before
// the server starts) and waits until the frontend serves it.
func registerNamespace(ctx context.Context, c client.Client, namespace string) error {
	_, err := c.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{Namespace: namespace,
		WorkflowExecutionRetentionPeriod: durationpb.New(postgresRetention)})
	var exists *serviceerror.NamespaceAlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("register temporal namespace %s: %w", namespace, err)
	}
	for {
		_, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("temporal namespace %s not served: %w (last error: %v)", namespace, ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
