package events

import "github.com/prometheus/client_golang/prometheus"

var (
	streamConnDesc = prometheus.NewDesc("intentd_stream_connections", "Open websocket connections of this API process.", nil, nil)
	streamSubsDesc = prometheus.NewDesc("intentd_stream_subscriptions", "Subscriptions held by this API process's websocket connections.", nil, nil)
	streamSentDesc = prometheus.NewDesc("intentd_stream_events_sent_total", "Events queued to websocket subscribers.", nil, nil)
	streamSlowDesc = prometheus.NewDesc("intentd_stream_slow_consumers_total",
		"Websocket connections closed because they could not keep up (1008).", nil, nil)
	streamCatchDesc = prometheus.NewDesc("intentd_stream_catchups_total",
		"Catch-ups from the outbox after the stream's listener (re)connected.", nil, nil)
	streamAnonDesc = prometheus.NewDesc("intentd_stream_anonymous_connections",
		"Open websocket connections without an API key of this API process.", nil, nil)
	streamRefusedDesc = prometheus.NewDesc("intentd_stream_anonymous_refused_total",
		"Websocket connections without an API key refused because the per-process or the global cap was reached.", nil, nil)
)

// Collector exposes the hub's counts (HubStats) to Prometheus.
func (h *Hub) Collector() prometheus.Collector { return hubCollector{h} }

type hubCollector struct{ h *Hub }

func (c hubCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{streamConnDesc, streamSubsDesc, streamSentDesc, streamSlowDesc, streamCatchDesc, streamAnonDesc, streamRefusedDesc} {
		ch <- d
	}
}

func (c hubCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.h.Stats()
	ch <- prometheus.MustNewConstMetric(streamConnDesc, prometheus.GaugeValue, float64(s.Connections.Load()))
	ch <- prometheus.MustNewConstMetric(streamSubsDesc, prometheus.GaugeValue, float64(s.Subscriptions.Load()))
	ch <- prometheus.MustNewConstMetric(streamSentDesc, prometheus.CounterValue, float64(s.Sent.Load()))
	ch <- prometheus.MustNewConstMetric(streamSlowDesc, prometheus.CounterValue, float64(s.SlowConsumers.Load()))
	ch <- prometheus.MustNewConstMetric(streamCatchDesc, prometheus.CounterValue, float64(s.CatchUps.Load()))
	ch <- prometheus.MustNewConstMetric(streamAnonDesc, prometheus.GaugeValue, float64(s.Anonymous.Load()))
	ch <- prometheus.MustNewConstMetric(streamRefusedDesc, prometheus.CounterValue, float64(s.Refused.Load()))
}
