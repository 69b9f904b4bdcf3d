package events

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/internal/pause"
	"github.com/intentd/intentd/store"
)

// Store is what the dispatcher needs of the database.
type Store interface {
	FanOutEvents(ctx context.Context, limit int, body func(store.OutboxEvent) ([]byte, error)) (int, error)
	ClaimDeliveries(ctx context.Context, owner string, limit, perKey int, lease time.Duration) ([]store.Delivery, error)
	FinishAttempt(ctx context.Context, owner string, d store.Delivery, a store.Attempt, state string, next time.Time) (bool, error)
	PruneEvents(ctx context.Context, outboxBefore, deliveriesBefore time.Time, limit int) (int64, error)
	ListenStatus(ctx context.Context, connected func(), notice func(store.StatusNotice)) error
}

// Options tune a Dispatcher; zero fields take DefaultOptions'.
type Options struct {
	// Workers is how many deliveries one dispatcher sends at once; PerKey is how many of one
	// key's deliveries all dispatchers send at once, so a slow receiver holds only PerKey slots.
	Workers int
	PerKey  int
	// Timeout bounds one delivery (connect, send, answer); a lease is Timeout + LeaseMargin.
	Timeout     time.Duration
	LeaseMargin time.Duration
	// MaxRetries is how many times a failed delivery is retried before it is dead; the waits
	// between attempts grow from RetryInitial by RetryMultiplier up to RetryMax, each randomised
	// by ±RetryJitter.
	MaxRetries      int
	RetryInitial    time.Duration
	RetryMultiplier float64
	RetryMax        time.Duration
	RetryJitter     float64
	// Poll is how often an idle dispatcher looks for work it was not woken for (retries coming
	// due, leases running out); FanOutBatch is how many outbox events one fan-out moves.
	Poll        time.Duration
	FanOutBatch int
	// OutboxRetention keeps fanned-out outbox rows (the websocket stream catches up from them),
	// DeliveryRetention finished deliveries (the delivery log); pruning runs every PruneEvery.
	OutboxRetention   time.Duration
	DeliveryRetention time.Duration
	PruneEvery        time.Duration
}

// DefaultOptions: 32 deliveries at once, 4 per key, 10 s per delivery, 10 retries over about
// 21 hours (90 s, 3 min, 6 min, … capped at 8 h).
var DefaultOptions = Options{
	Workers: 32, PerKey: 4, Timeout: 10 * time.Second, LeaseMargin: 20 * time.Second,
	MaxRetries: 10, RetryInitial: 90 * time.Second, RetryMultiplier: 2, RetryMax: 8 * time.Hour, RetryJitter: 0.2,
	Poll: time.Second, FanOutBatch: 500,
	OutboxRetention: time.Hour, DeliveryRetention: 14 * 24 * time.Hour, PruneEvery: 10 * time.Minute,
}

func (o Options) withDefaults() Options {
	d := DefaultOptions
	set := func(dst *time.Duration, v time.Duration) {
		if v > 0 {
			*dst = v
		}
	}
	seti := func(dst *int, v int) {
		if v > 0 {
			*dst = v
		}
	}
	seti(&d.Workers, o.Workers)
	seti(&d.PerKey, o.PerKey)
	set(&d.Timeout, o.Timeout)
	set(&d.LeaseMargin, o.LeaseMargin)
	seti(&d.MaxRetries, o.MaxRetries)
	set(&d.RetryInitial, o.RetryInitial)
	if o.RetryMultiplier >= 1 {
		d.RetryMultiplier = o.RetryMultiplier
	}
	set(&d.RetryMax, o.RetryMax)
	if o.RetryJitter > 0 {
		d.RetryJitter = o.RetryJitter
	}
	set(&d.Poll, o.Poll)
	seti(&d.FanOutBatch, o.FanOutBatch)
	set(&d.OutboxRetention, o.OutboxRetention)
	set(&d.DeliveryRetention, o.DeliveryRetention)
	set(&d.PruneEvery, o.PruneEvery)
	return d
}

// RetryDelay is the wait after failed attempt n (from 1) under o's schedule.
func (o Options) RetryDelay(n int) time.Duration {
	o = o.withDefaults()
	b := &backoff.ExponentialBackOff{InitialInterval: o.RetryInitial, RandomizationFactor: o.RetryJitter,
		Multiplier: o.RetryMultiplier, MaxInterval: o.RetryMax, MaxElapsedTime: 0, Stop: backoff.Stop, Clock: backoff.SystemClock}
	b.Reset()
	d := b.NextBackOff()
	for i := 1; i < n; i++ {
		d = b.NextBackOff()
	}
	return d
}

// Dispatcher delivers the outbox's events to webhooks: it fans events out to one delivery per
// enabled webhook of the request's key, then sends due deliveries, each the oldest pending one
// of its request and key, signed, with retries, and logs every attempt. Several dispatchers
// (processes) share the work through leases in Postgres; none holds a row lock while it waits
// for a receiver.
type Dispatcher struct {
	Store  Store
	Sealer *Sealer
	Policy URLPolicy
	Logger *slog.Logger
	Opts   Options
	// Client sends deliveries; nil builds one that refuses blocked addresses (Policy) and
	// follows no redirects.
	Client *http.Client
	// Owner names this dispatcher in leases; empty: host, pid and a random suffix.
	Owner string

	wake chan struct{}
}

// Run dispatches until ctx ends, then waits for the deliveries in flight (each bounded by the
// timeout) so their outcome is recorded rather than left to a lease running out.
func (d *Dispatcher) Run(ctx context.Context) error {
	o := d.Opts.withDefaults()
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Owner == "" {
		d.Owner = defaultOwner()
	}
	if d.Client == nil {
		d.Client = NewClient(d.Policy, o.Timeout)
	}
	d.wake = make(chan struct{}, 1)
	lctx, stopListen := context.WithCancel(ctx)
	defer stopListen()
	go func() {
		_ = d.Store.ListenStatus(lctx, d.poke, func(store.StatusNotice) { d.poke() })
	}()
	slots := make(chan struct{}, o.Workers)
	var inflight sync.WaitGroup
	defer inflight.Wait()
	lastPrune, lastPass := time.Time{}, time.Time{}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-d.wake:
		case <-timer.C:
		}
		// Under a stream of events, one pass every passInterval at most: the events and
		// finished deliveries of that time are fanned out and claimed together.
		if wait := passInterval - time.Since(lastPass); wait > 0 {
			_ = pause.For(ctx, wait) // an ended ctx ends the loop at its next check
		}
		lastPass = time.Now()
		d.fanOut(ctx, o)
		if free := o.Workers - len(slots); free > 0 {
			claimed, err := d.Store.ClaimDeliveries(ctx, d.Owner, free, o.PerKey, o.Timeout+o.LeaseMargin)
			if err != nil && ctx.Err() == nil {
				d.Logger.Warn("webhook deliveries could not be claimed; retrying", "error", err)
			}
			for _, dl := range claimed {
				slots <- struct{}{}
				inflight.Add(1)
				go func() {
					defer func() {
						<-slots
						inflight.Done()
						// Claiming costs a query over the pending deliveries: wake for it when
						// a quarter of the slots are free or none is busy, not after every
						// delivery.
						if free := o.Workers - len(slots); free >= max(1, o.Workers/4) || free == o.Workers {
							d.poke()
						}
					}()
					d.deliver(context.WithoutCancel(ctx), o, dl)
				}()
			}
			if len(claimed) == free {
				d.poke() // there may be more due
			}
		}
		if time.Since(lastPrune) >= o.PruneEvery {
			lastPrune = time.Now()
			d.prune(ctx, o)
		}
		timer.Reset(o.Poll)
	}
}

// passInterval is the shortest time between two passes of the dispatcher's loop.
const passInterval = 10 * time.Millisecond

// poke wakes the loop (a new event, a finished delivery).
func (d *Dispatcher) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *Dispatcher) fanOut(ctx context.Context, o Options) {
	for ctx.Err() == nil {
		n, err := d.Store.FanOutEvents(ctx, o.FanOutBatch, WebhookBody)
		if err != nil {
			if ctx.Err() == nil {
				d.Logger.Warn("outbox fan-out failed; retrying", "error", err)
			}
			return
		}
		if n < o.FanOutBatch {
			return
		}
	}
}

func (d *Dispatcher) prune(ctx context.Context, o Options) {
	now := time.Now()
	for ctx.Err() == nil {
		n, err := d.Store.PruneEvents(ctx, now.Add(-o.OutboxRetention), now.Add(-o.DeliveryRetention), 5000)
		if err != nil {
			d.Logger.Warn("pruning delivered events failed", "error", err)
			return
		}
		if n == 0 {
			return
		}
	}
}

// deliver sends one delivery and records its outcome.
func (d *Dispatcher) deliver(ctx context.Context, o Options, dl store.Delivery) {
	a := d.send(ctx, o, dl)
	state, next := store.DeliveryDelivered, time.Now()
	switch {
	case a.StatusCode >= 200 && a.StatusCode < 300:
	case dl.Attempt > o.MaxRetries:
		state = store.DeliveryDead
	default:
		state, next = store.DeliveryPending, time.Now().Add(o.RetryDelay(dl.Attempt))
	}
	held, err := d.Store.FinishAttempt(ctx, d.Owner, dl, a, state, next)
	outcome := map[string]string{store.DeliveryDelivered: "delivered", store.DeliveryDead: "dead", store.DeliveryPending: "failed"}[state]
	metrics.WebhookAttempts.WithLabelValues(outcome).Inc()
	metrics.WebhookLatency.Observe(a.Latency.Seconds())
	log := d.Logger.With("deliveryId", dl.ID, "apiKeyId", dl.APIKeyID, "requestId", dl.RequestID, "attempt", dl.Attempt,
		"statusCode", a.StatusCode, "latency", a.Latency)
	switch {
	case err != nil:
		// The lease runs out and the delivery is sent again: at least once.
		log.Warn("webhook delivery outcome not recorded; it will be sent again", "error", err)
	case !held:
		log.Info("webhook delivery taken over by another dispatcher while it was sent")
	case state == store.DeliveryDead:
		log.Warn("webhook delivery dead after its last retry", "error", a.Error)
	case state == store.DeliveryPending:
		log.Debug("webhook delivery failed; retrying", "next", next, "error", a.Error)
	default:
		log.Debug("webhook delivered")
	}
}

// send makes one attempt.
func (d *Dispatcher) send(ctx context.Context, o Options, dl store.Delivery) store.Attempt {
	start := time.Now()
	a := store.Attempt{StartedAt: start}
	fail := func(format string, args ...any) store.Attempt {
		a.Error, a.Latency = fmt.Sprintf(format, args...), time.Since(start)
		return a
	}
	if err := d.Policy.CheckURL(ctx, dl.Webhook.URL); err != nil {
		return fail("%v", err)
	}
	secret, err := d.Sealer.OpenSecret(dl.APIKeyID, dl.Webhook.Secret)
	if err != nil {
		d.Logger.Error("webhook secret cannot be opened", "apiKeyId", dl.APIKeyID, "error", err)
		return fail("signing secret unavailable")
	}
	rctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, dl.Webhook.URL, bytes.NewReader(dl.Body))
	if err != nil {
		return fail("%v", err)
	}
	if dl.Webhook.Headers != nil {
		headers, err := d.Sealer.OpenHeaders(dl.APIKeyID, dl.Webhook.Headers)
		if err != nil {
			d.Logger.Error("webhook custom headers cannot be opened", "apiKeyId", dl.APIKeyID, "error", err)
			return fail("custom headers unavailable")
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
	}
	ts := time.Now().UnixMilli()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "intentd-webhooks/1")
	req.Header.Set(HeaderEvent, dl.Event)
	req.Header.Set(HeaderDelivery, strconv.FormatInt(dl.ID, 10))
	req.Header.Set(HeaderEventID, strconv.FormatInt(dl.OutboxID, 10))
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, Sign(secret, ts, dl.Body))
	req.Header.Del(HeaderSignaturePrevious)
	if dl.Webhook.PreviousSecret != nil && dl.Webhook.PreviousExpiresAt != nil && time.Now().Before(*dl.Webhook.PreviousExpiresAt) {
		if prev, err := d.Sealer.OpenSecret(dl.APIKeyID, dl.Webhook.PreviousSecret); err == nil {
			req.Header.Set(HeaderSignaturePrevious, Sign(prev, ts, dl.Body))
		}
	}
	resp, err := d.Client.Do(req)
	if err != nil {
		return fail("%s", deliveryError(err))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	a.StatusCode, a.Latency = resp.StatusCode, time.Since(start)
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		a.Error = "receiver answered " + resp.Status
	}
	return a
}

// deliveryError is what the delivery log says of a failed request: the cause, without the
// URL (it may carry a token in its query).
func deliveryError(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		err = ue.Unwrap()
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded), os.IsTimeout(err):
		return "timed out"
	case errors.Is(err, ErrBlockedAddress):
		return err.Error()
	}
	var op *net.OpError
	if errors.As(err, &op) {
		if errors.Is(op.Err, ErrBlockedAddress) {
			return op.Err.Error()
		}
		return op.Op + ": " + op.Err.Error()
	}
	return strings.TrimSpace(err.Error())
}

// NewClient is the delivery client: it connects only to addresses the policy allows (checked
// on the address actually dialled), follows no redirect (a 3xx is a failed delivery: a
// redirect could lead anywhere), uses no proxy from the environment and gives up after timeout.
func NewClient(p URLPolicy, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, Control: p.DialControl()}
	tr := &http.Transport{
		Proxy: nil, DialContext: dialer.DialContext, ForceAttemptHTTP2: true,
		MaxIdleConns: 256, MaxIdleConnsPerHost: 8, IdleConnTimeout: 90 * time.Second,
		TLSHandshakeTimeout: timeout, ResponseHeaderTimeout: timeout,
	}
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func defaultOwner() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}
