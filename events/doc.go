// Package events tells clients about their requests without polling: it reads the outbox that
// every transition writes (store.ApplyTransition) and pushes request.status.updated by signed
// webhook, one endpoint per API key (Dispatcher), and by the websocket stream (Hub). It knows
// HTTP as a client only; the API mounts the stream and the admin routes.
//
// Delivery is at least once and in order per request: the outbox row is written in the
// transaction of the transition, a dispatcher fans it out to one delivery per webhook, and
// deliveries are leased, retried with exponential backoff and logged, so a killed dispatcher
// loses nothing and reorders nothing (docs/events.md).
package events
