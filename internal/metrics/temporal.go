package metrics

import (
	"slices"
	"sync"

	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
)

// temporalScope is the OpenTelemetry scope of the SDK's metrics.
const temporalScope = "temporal-sdk"

// temporalLatencyBuckets are the buckets of the SDK's latencies, which it records in seconds:
// the HTTP latencies' (1 ms to 10 s) and 30 s and a minute (schedule-to-start under a backlog
// runs to tens of seconds). OpenTelemetry's default buckets (0, 5, 10, 25 … 10000) are meant for
// milliseconds: in seconds every latency of a healthy worker fell in the first one, and the
// histograms said nothing.
var temporalLatencyBuckets = append(slices.Clone(latencyBuckets), 30, 60)

var (
	temporalOnce    sync.Once
	temporalHandler client.MetricsHandler
)

// TemporalHandler is the Temporal SDK's metrics handler for the process's clients and workers:
// the SDK's own metrics (temporal_request, temporal_workflow_task_schedule_to_start_latency,
// temporal_activity_execution_latency, temporal_worker_task_slots_available, pollers, …)
// through OpenTelemetry into Registry, so /metrics serves them beside the engine's. It is
// built once per process; nil (the SDK's no-op) if the exporter cannot be made.
func TemporalHandler() client.MetricsHandler {
	temporalOnce.Do(func() {
		exp, err := otelprom.New(otelprom.WithRegisterer(Registry), otelprom.WithoutScopeInfo())
		if err != nil {
			return
		}
		provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithView(sdkmetric.NewView(
			sdkmetric.Instrument{Kind: sdkmetric.InstrumentKindHistogram, Unit: "s", Scope: instrumentation.Scope{Name: temporalScope}},
			sdkmetric.Stream{Aggregation: sdkmetric.AggregationExplicitBucketHistogram{Boundaries: temporalLatencyBuckets}})))
		temporalHandler = temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{Meter: provider.Meter(temporalScope)})
	})
	return temporalHandler
}
