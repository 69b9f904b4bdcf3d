package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// The signature headers of a webhook delivery (docs/events.md). X-Signature-SHA256 is the
// lowercase hex HMAC-SHA256 of timestamp + "." + body, keyed with the key's webhook secret;
// while a rotated-out secret is still valid, X-Signature-SHA256-Previous carries its signature
// of the same message, so a receiver can switch secrets at its own pace.
const (
	HeaderTimestamp         = "X-Signature-Timestamp"
	HeaderSignature         = "X-Signature-SHA256"
	HeaderSignaturePrevious = "X-Signature-SHA256-Previous"
	HeaderEvent             = "X-Event-Type"
	// HeaderEventID names the event (the same in every delivery and re-send of it, increasing
	// per request in the order of the request's events): a receiver de-duplicates by it.
	HeaderEventID  = "X-Event-Id"
	HeaderDelivery = "X-Delivery-Id"
)

// Sign is the signature of body sent at timestamp (Unix milliseconds) under secret.
func Sign(secret string, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(timestamp, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether signature is Sign(secret, timestamp, body), in constant time: what a
// receiver does (the README shows it in a few lines of JavaScript).
func Verify(secret string, timestamp int64, body []byte, signature string) bool {
	return hmac.Equal([]byte(Sign(secret, timestamp, body)), []byte(signature))
}
