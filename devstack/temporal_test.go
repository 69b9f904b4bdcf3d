package devstack

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.temporal.io/server/common/dynamicconfig"
)

var testSearchAttributes = map[string]enumspb.IndexedValueType{
	"IntentStatus":  enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	"OriginChainId": enumspb.INDEXED_VALUE_TYPE_INT,
}

// greetWorkflow also upserts a custom search attribute, proving that the
// registered attributes are usable.
func greetWorkflow(ctx workflow.Context, name string) (string, error) {
	err := workflow.UpsertTypedSearchAttributes(ctx,
		temporal.NewSearchAttributeKeyKeyword("IntentStatus").ValueSet("greeted"))
	if err != nil {
		return "", err
	}
	return "hello " + name, nil
}

func dialTest(t *testing.T, tmp *Temporal) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{
		HostPort:  tmp.HostPort(),
		Namespace: tmp.Namespace(),
		Logger:    sdklog.NewStructuredLogger(quietTestLogger()),
	})
	require.NoError(t, err)
	return c
}

func requireSearchAttributes(t *testing.T, ctx context.Context, c client.Client, ns string, want map[string]enumspb.IndexedValueType) {
	t.Helper()
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: ns})
	require.NoError(t, err)
	for name, typ := range want {
		require.Equal(t, typ, resp.GetCustomAttributes()[name], "search attribute %s", name)
	}
}

func TestTemporalPersistsAcrossRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dbFile := filepath.Join(t.TempDir(), "data", "temporal.db")
	opts := TemporalOptions{
		DatabaseFile: dbFile,
		FrontendPort: testFreePort(t),
		DisableUI:    true,
		Namespace:    "devstack-test",
		// An "older version": only one of the attributes.
		SearchAttributes: map[string]enumspb.IndexedValueType{"IntentStatus": enumspb.INDEXED_VALUE_TYPE_KEYWORD},
		Logger:           quietTestLogger(),
	}

	tmp, err := StartTemporal(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(tmp.Stop)
	require.Empty(t, tmp.UIURL())
	require.Equal(t, "devstack-test", tmp.Namespace())
	require.FileExists(t, dbFile)

	c := dialTest(t, tmp)
	requireSearchAttributes(t, ctx, c, tmp.Namespace(), opts.SearchAttributes)
	w := worker.New(c, "devstack-test", worker.Options{})
	w.RegisterWorkflow(greetWorkflow)
	require.NoError(t, w.Start())
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "greet-1", TaskQueue: "devstack-test"}, greetWorkflow, "devstack")
	require.NoError(t, err)
	var got string
	require.NoError(t, run.Get(ctx, &got))
	require.Equal(t, "hello devstack", got)
	w.Stop()
	c.Close()
	tmp.Stop()
	tmp.Stop() // idempotent

	// Restart on the same file, now with an added attribute.
	opts.SearchAttributes = testSearchAttributes
	opts.FrontendPort = testFreePort(t)
	tmp2, err := StartTemporal(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(tmp2.Stop)
	c2 := dialTest(t, tmp2)
	defer c2.Close()
	requireSearchAttributes(t, ctx, c2, tmp2.Namespace(), testSearchAttributes)
	desc, err := c2.DescribeWorkflowExecution(ctx, "greet-1", run.GetRunID())
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.GetWorkflowExecutionInfo().GetStatus())
	require.Equal(t, "greetWorkflow", desc.GetWorkflowExecutionInfo().GetType().GetName())
}

func TestTemporalWithUI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp, err := StartTemporal(ctx, TemporalOptions{
		DatabaseFile:     filepath.Join(t.TempDir(), "temporal.db"),
		FrontendPort:     testFreePort(t),
		UIPort:           testFreePort(t),
		SearchAttributes: testSearchAttributes,
		Logger:           quietTestLogger(),
	})
	require.NoError(t, err)
	t.Cleanup(tmp.Stop)
	require.Equal(t, DefaultTemporalNamespace, tmp.Namespace())
	require.Regexp(t, `^http://127\.0\.0\.1:\d+$`, tmp.UIURL())

	resp, err := http.Get(tmp.UIURL() + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	c := dialTest(t, tmp)
	defer c.Close()
	requireSearchAttributes(t, ctx, c, tmp.Namespace(), testSearchAttributes)

	// The frontend port is taken now: a second server must fail cleanly.
	_, err = StartTemporal(ctx, TemporalOptions{
		DatabaseFile: filepath.Join(t.TempDir(), "other.db"),
		FrontendPort: portOf(t, tmp.HostPort()),
		DisableUI:    true,
		Logger:       quietTestLogger(),
	})
	require.Error(t, err)

	tmp.Stop()
	_, err = http.Get(tmp.UIURL() + "/")
	require.Error(t, err, "UI still answering after Stop")
}

func TestTemporalInMemory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tmp, err := StartTemporal(ctx, TemporalOptions{
		FrontendPort:     testFreePort(t),
		DisableUI:        true,
		SearchAttributes: testSearchAttributes,
		Logger:           quietTestLogger(),
	})
	require.NoError(t, err)
	t.Cleanup(tmp.Stop)
	c := dialTest(t, tmp)
	defer c.Close()
	requireSearchAttributes(t, ctx, c, tmp.Namespace(), testSearchAttributes)
}

// The embedded server does not size external payloads (the SDK's external storage, unused
// here) at every history write: history.externalPayloadsEnabled is off in its dynamic
// configuration, where Temporal's default is on.
func TestTheEmbeddedServerDoesNotSizeExternalPayloads(t *testing.T) {
	v, ok := temporalDynamicConfig()[dynamicconfig.ExternalPayloadsEnabled.Key()]
	require.True(t, ok, "history.externalPayloadsEnabled is not set")
	require.Equal(t, false, v)
}
