package metrics

import (
	"sync"

	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
)

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
		provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
		temporalHandler = temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{Meter: provider.Meter("temporal-sdk")})
	})
	return temporalHandler
}
