package events_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/intentd/intentd/events"
)

// Review L15 (issue 33, point 7): "existing sealed values must still open — a migration or a
// read-old/write-new path; test both". The migration: a webhook sealed before the format named
// its key (one constant associated data), and one sealed in the current format under the key
// being rotated out, are delivered while both keys are configured (read-old), then `intentd admin
// webhooks reseal` (events.Reseal) seals every value again under the new key, after which the
// new key alone, with unversioned values refused, opens them all and the deliveries go on signed
// with the same secrets. A second run has nothing left to do; each change is audited.
func TestResealSealsEveryWebhookAgainUnderTheCurrentKey(t *testing.T) {
	ctx := context.Background()
	r := newHookRig(t) // its sealer's key is the one being rotated out
	oldKey, _ := hex.DecodeString("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")
	newKey := bytes.Repeat([]byte{0x42}, 32)

	rcA, rcB := newReceiver(t, nil), newReceiver(t, nil)
	keyA, secretA := r.key(rcA.URL)
	rcA.setSecret(secretA)
	headers := map[string]string{"X-Receiver-Token": "t0k3n"}
	if _, _, err := r.admin.Set(ctx, r.integ, keyA, events.Settings{Headers: &headers}, operator); err != nil {
		t.Fatal(err)
	}
	keyB, _ := r.key(rcB.URL)
	const secretB = "whsec_sealed_before_the_format_had_a_version"
	block, _ := aes.NewCipher(oldKey)
	aead, _ := cipher.NewGCM(block)
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	unversioned := aead.Seal(nonce, nonce, []byte(secretB), []byte("intentd webhook secret"))
	if _, err := r.pool.Exec(ctx, `UPDATE webhooks SET secret = $2 WHERE api_key_id = $1`, keyB, unversioned); err != nil {
		t.Fatal(err)
	}
	rcB.setSecret(secretB)

	deliver := func(s *events.Sealer, v int) {
		t.Helper()
		r.sealer = s
		stop := run(t, r.dispatcher(nil))
		defer stop()
		reqA, reqB := r.request(keyA), r.request(keyB)
		a, b := rcA.count(), rcB.count()
		for i := 1; i <= v; i++ {
			r.transition(reqA, i)
			r.transition(reqB, i)
		}
		waitFor(t, "both webhooks' deliveries", 20*time.Second, func() bool { return rcA.count() >= a+v && rcB.count() >= b+v })
	}
	// Read old: the new key seals, the old one still opens (WEBHOOK_SECRETS_PREVIOUS_KEYS).
	rotated, err := events.NewSealer(newKey, oldKey)
	if err != nil {
		t.Fatal(err)
	}
	deliver(rotated, 1)

	res, err := events.Reseal(ctx, r.st, rotated, operator)
	if err != nil || res.Webhooks != 2 || res.Resealed != 2 || len(res.Unopened) != 0 {
		t.Fatalf("reseal: %+v %v, want both webhooks sealed again", res, err)
	}
	strict, err := events.NewSealer(newKey)
	if err != nil {
		t.Fatal(err)
	}
	strict.OpenUnversioned = false
	rows, err := r.st.SealedWebhooks(ctx, "", 10)
	if err != nil || len(rows) != 2 {
		t.Fatalf("sealed webhooks: %v %v", rows, err)
	}
	for _, w := range rows {
		want := map[string]string{keyA: secretA, keyB: secretB}[w.APIKeyID]
		if got, err := strict.OpenSecret(w.APIKeyID, w.Secret); err != nil || got != want {
			t.Errorf("%s's secret after reseal: %q %v, want %q under the new key alone", w.APIKeyID, got, err, want)
		}
		if w.APIKeyID == keyA {
			if h, err := strict.OpenHeaders(keyA, w.Headers); err != nil || h["X-Receiver-Token"] != "t0k3n" {
				t.Errorf("A's headers after reseal: %v %v", h, err)
			}
		}
	}
	if again, err := events.Reseal(ctx, r.st, strict, operator); err != nil || again.Resealed != 0 || again.Webhooks != 2 {
		t.Errorf("second reseal: %+v %v, want nothing left to do", again, err)
	}
	var audited int
	if err := r.pool.QueryRow(ctx, `SELECT count(*) FROM admin_audit WHERE action = 'webhook.reseal'`).Scan(&audited); err != nil || audited != 2 {
		t.Errorf("webhook.reseal audit rows: %d %v, want 2", audited, err)
	}
	// Written new: deliveries go on, signed with the same secrets, under the new key alone.
	deliver(strict, 2)
	for name, rc := range map[string]*receiver{"A": rcA, "B": rcB} {
		if len(rc.bad) > 0 {
			t.Errorf("webhook %s: %d deliveries failed signature verification", name, len(rc.bad))
		}
	}
}
