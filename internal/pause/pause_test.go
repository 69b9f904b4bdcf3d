package pause

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A pause lasts its duration, and ends with the context's error as soon as the context ends.
func TestAPauseEndsWithItsDurationOrItsContext(t *testing.T) {
	start := time.Now()
	if err := For(context.Background(), 20*time.Millisecond); err != nil || time.Since(start) < 20*time.Millisecond {
		t.Fatalf("a 20 ms pause: %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start = time.Now()
	if err := For(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("a pause in an ended context: %v after %v", err, time.Since(start))
	}
}
