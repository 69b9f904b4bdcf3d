package store

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/intentd/intentd/intent"
)

// Gauges are the read model's operational gauges (docs/operations.md, Metrics), read from
// Postgres when Prometheus scrapes, at most every 10 s: requests in flight by status, those not
// updated for stuckAfter (stuck), refunds waiting for an operator, and the events backlog.
type Gauges struct {
	st         *Store
	stuckAfter time.Duration

	mu   sync.Mutex
	at   time.Time
	last []prometheus.Metric
}

// NewGauges makes the gauges of st; register them with the process's metrics registry.
func (s *Store) NewGauges(stuckAfter time.Duration) *Gauges {
	return &Gauges{st: s, stuckAfter: stuckAfter}
}

var (
	inFlightDesc = prometheus.NewDesc("intentd_requests_in_flight", "Requests between their deposit and their end, by status.",
		[]string{"status"}, nil)
	stuckDesc = prometheus.NewDesc("intentd_requests_stuck", "Requests in flight not updated for longer than STUCK_AFTER, by status.",
		[]string{"status"}, nil)
	operatorDesc = prometheus.NewDesc("intentd_refunds_awaiting_operator",
		"Requests whose refund failed with MANUAL_REFUND_REQUIRED or REFUND_RECIPIENT_IS_BLOCKED and that are not refunded yet (held refunds not counted).", nil, nil)
	heldDesc = prometheus.NewDesc("intentd_refunds_held",
		"Refunds of deposits no order can take held for an operator and not refunded yet, by reason (UNLISTED_CURRENCY, REFUND_BUDGET_EXCEEDED).",
		[]string{"reason"}, nil)
	outboxDesc   = prometheus.NewDesc("intentd_outbox_pending", "Status events written and not yet fanned out to webhooks.", nil, nil)
	webhooksDesc = prometheus.NewDesc("intentd_webhook_deliveries", "Webhook deliveries by state (pending, dead).", []string{"state"}, nil)
	scrapeDesc   = prometheus.NewDesc("intentd_read_model_up", "Whether the last read of these gauges succeeded (1) or not (0).", nil, nil)
)

// Describe implements prometheus.Collector.
func (g *Gauges) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{inFlightDesc, stuckDesc, operatorDesc, heldDesc, outboxDesc, webhooksDesc, scrapeDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (g *Gauges) Collect(ch chan<- prometheus.Metric) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if time.Since(g.at) > 10*time.Second {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		g.last = g.read(ctx)
		cancel()
		g.at = time.Now()
	}
	for _, m := range g.last {
		ch <- m
	}
}

// inFlightStatuses are the statuses between a deposit and a request's end.
var inFlightStatuses = []string{"depositing", "pending", "submitted", "delayed"}

func (g *Gauges) read(ctx context.Context) []prometheus.Metric {
	up := func(v float64) prometheus.Metric {
		return prometheus.MustNewConstMetric(scrapeDesc, prometheus.GaugeValue, v)
	}
	var out []prometheus.Metric
	counts := map[string][2]float64{}
	rows, err := g.st.pool.Query(ctx, `SELECT status, count(*), count(*) FILTER (WHERE updated_at < now() - make_interval(secs => $2))
		FROM requests WHERE status = ANY($1) GROUP BY status`, inFlightStatuses, g.stuckAfter.Seconds())
	if err != nil {
		return []prometheus.Metric{up(0)}
	}
	for rows.Next() {
		var s string
		var n, stuck float64
		if err := rows.Scan(&s, &n, &stuck); err != nil {
			rows.Close()
			return []prometheus.Metric{up(0)}
		}
		counts[s] = [2]float64{n, stuck}
	}
	rows.Close()
	for _, s := range inFlightStatuses {
		out = append(out, prometheus.MustNewConstMetric(inFlightDesc, prometheus.GaugeValue, counts[s][0], s),
			prometheus.MustNewConstMetric(stuckDesc, prometheus.GaugeValue, counts[s][1], s))
	}
	// A held refund waits for an operator too, but anyone can make junk deposits: they are
	// counted apart (intentd_refunds_held), so that they page no one.
	var operator float64
	if err := g.st.pool.QueryRow(ctx, `SELECT count(*) FROM requests r WHERE refund_fail_reason IN
		('MANUAL_REFUND_REQUIRED', 'REFUND_RECIPIENT_IS_BLOCKED') AND status <> 'refund'
		AND NOT EXISTS (SELECT 1 FROM refund_holds h WHERE h.request_id = r.id)`).Scan(&operator); err != nil {
		return append(out, up(0))
	}
	held := map[intent.RefundHold]float64{}
	rows, err = g.st.pool.Query(ctx, `SELECT h.reason, count(*) FROM refund_holds h JOIN requests r ON r.id = h.request_id
		WHERE r.status <> 'refund' GROUP BY h.reason`)
	if err != nil {
		return append(out, up(0))
	}
	for rows.Next() {
		var reason string
		var n float64
		if err := rows.Scan(&reason, &n); err != nil {
			rows.Close()
			return append(out, up(0))
		}
		held[intent.RefundHold(reason)] = n
	}
	rows.Close()
	for _, reason := range []intent.RefundHold{intent.RefundHoldUnlistedCurrency, intent.RefundHoldBudgetExceeded} {
		out = append(out, prometheus.MustNewConstMetric(heldDesc, prometheus.GaugeValue, held[reason], string(reason)))
	}
	b, err := g.st.EventBacklog(ctx)
	if err != nil {
		return append(out, up(0))
	}
	return append(out, prometheus.MustNewConstMetric(operatorDesc, prometheus.GaugeValue, operator),
		prometheus.MustNewConstMetric(outboxDesc, prometheus.GaugeValue, float64(b.Outbox)),
		prometheus.MustNewConstMetric(webhooksDesc, prometheus.GaugeValue, float64(b.Pending), "pending"),
		prometheus.MustNewConstMetric(webhooksDesc, prometheus.GaugeValue, float64(b.Dead), "dead"),
		up(1))
}
