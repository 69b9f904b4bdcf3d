package devstack_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/intentd/intentd/devstack"
	"github.com/intentd/intentd/testkit/testenv"
)

// temporalDatabases returns a fresh test database's URL and name; the server's two databases
// beside it are dropped when the test ends.
func temporalDatabases(t *testing.T) (string, string) {
	dbURL := testenv.DatabaseURL(t)
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	db := strings.TrimPrefix(u.Path, "/")
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dbURL)
		if err != nil {
			return
		}
		defer func() { _ = conn.Close(context.Background()) }()
		for _, name := range []string{db + "_temporal", db + "_temporal_visibility"} {
			_, _ = conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		}
	})
	return dbURL, db
}

// TEMPORAL_PERSISTENCE=postgres: the server creates its two databases beside the URL's, sets up
// their schemas, registers the namespace and the search attributes, runs a workflow, and starts
// again on the same databases (the schemas already up to date).
func TestTemporalOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the Temporal server twice")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dbURL, db := temporalDatabases(t)
	attrs := map[string]enumspb.IndexedValueType{"IntentStatus": enumspb.INDEXED_VALUE_TYPE_KEYWORD}
	for round := range 2 {
		tmp, err := devstack.StartTemporal(ctx, devstack.TemporalOptions{PostgresURL: dbURL, FrontendPort: devstack.TestFreePort(t),
			DisableUI: true, SearchAttributes: attrs})
		require.NoError(t, err, "round %d", round)
		c := devstack.DialTest(t, tmp)
		sa, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: tmp.Namespace()})
		require.NoError(t, err)
		require.Equal(t, enumspb.INDEXED_VALUE_TYPE_KEYWORD, sa.GetCustomAttributes()["IntentStatus"])
		w := worker.New(c, "pg", worker.Options{})
		w.RegisterWorkflow(devstack.GreetWorkflow)
		require.NoError(t, w.Start())
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "pg"}, devstack.GreetWorkflow, "postgres")
		require.NoError(t, err)
		var got string
		require.NoError(t, run.Get(ctx, &got))
		require.Equal(t, "hello postgres", got)
		w.Stop()
		c.Close()
		tmp.Stop()
	}
	conn, err := pgx.Connect(ctx, dbURL)
	require.NoError(t, err)
	defer func() { _ = conn.Close(ctx) }()
	var n int
	require.NoError(t, conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = ANY($1)",
		[]string{db + "_temporal", db + "_temporal_visibility"}).Scan(&n))
	require.Equal(t, 2, n, "the server's two databases beside "+db)
}

// TEMPORAL_PERSISTENCE=sqlite-postgres-visibility: the state in a SQLite file, the visibility
// records in Postgres, where the Web UI's list finds a finished workflow by a search attribute.
func TestTemporalVisibilityOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the Temporal server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dbURL, db := temporalDatabases(t)
	tmp, err := devstack.StartTemporal(ctx, devstack.TemporalOptions{DatabaseFile: t.TempDir() + "/temporal.db",
		VisibilityPostgresURL: dbURL, FrontendPort: devstack.TestFreePort(t), DisableUI: true,
		SearchAttributes: map[string]enumspb.IndexedValueType{"IntentStatus": enumspb.INDEXED_VALUE_TYPE_KEYWORD}})
	require.NoError(t, err)
	defer tmp.Stop()
	c := devstack.DialTest(t, tmp)
	defer c.Close()
	w := worker.New(c, "pgvis", worker.Options{})
	w.RegisterWorkflow(devstack.GreetWorkflow)
	require.NoError(t, w.Start())
	defer w.Stop()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "pgvis-1", TaskQueue: "pgvis",
		TypedSearchAttributes: temporal.NewSearchAttributes(temporal.NewSearchAttributeKeyKeyword("IntentStatus").ValueSet("waiting"))},
		devstack.GreetWorkflow, "visibility")
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))
	require.Eventually(t, func() bool {
		res, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: tmp.Namespace(),
			Query: "IntentStatus = 'greeted' AND ExecutionStatus = 'Completed'"})
		return err == nil && len(res.GetExecutions()) == 1 && res.GetExecutions()[0].GetExecution().GetWorkflowId() == "pgvis-1"
	}, 30*time.Second, 200*time.Millisecond, "the finished workflow is listed from Postgres")
	pgVis, err := pgx.Connect(ctx, strings.Replace(dbURL, "/"+db, "/"+db+"_temporal_visibility", 1))
	require.NoError(t, err)
	defer func() { _ = pgVis.Close(ctx) }()
	var n int
	require.NoError(t, pgVis.QueryRow(ctx, "SELECT count(*) FROM executions_visibility WHERE workflow_id = 'pgvis-1'").Scan(&n))
	require.Equal(t, 1, n, "the visibility record is in Postgres")
}
