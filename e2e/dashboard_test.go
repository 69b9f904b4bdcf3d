package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/testkit"
)

// TestDashboard runs dashboard.test.mjs, the integrator dashboard in headless Chromium (issue 39:
// "Done when: an integrator signs in, creates a key, sees a request made with it, saves a view
// and configures a webhook, all in headless Chromium in `make test`; a support user cannot see
// keys"), against a stack of its own: the real API with the web app it embeds, Postgres, the
// in-process Temporal server, the devnet chains and a webhook dispatcher. The integrator and its
// owner and support users are made through the admin API, each with a one-time sign-in link, as
// an operator makes them; everything after that happens in the browser.
func TestDashboard(t *testing.T) {
	node := nodeFor(t, "playwright-core")
	s := testkit.Start(t, testkit.Options{})
	s.StartDispatcher(t, func(o *events.Options) { o.Poll = 100 * time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	var in struct {
		ID string `json:"id"`
	}
	if code, err := s.Admin.Do(ctx, "POST", "/admin/integrators", map[string]any{"operator": "e2e", "name": "Dashboard suite"}, &in); err != nil || code != 201 {
		t.Fatalf("create the integrator: %d %v", code, err)
	}
	link := func(email, role string) string {
		var user struct {
			ID string `json:"id"`
		}
		users := "/admin/integrators/" + in.ID + "/dashboard-users"
		if code, err := s.Admin.Do(ctx, "POST", users, map[string]any{"operator": "e2e", "email": email, "role": role}, &user); err != nil || code != 201 {
			t.Fatalf("create the %s: %d %v", role, code, err)
		}
		var l struct {
			Path string `json:"path"`
		}
		if code, err := s.Admin.Do(ctx, "POST", users+"/"+user.ID+"/links", map[string]any{"operator": "e2e"}, &l); err != nil || code != 201 {
			t.Fatalf("the %s's link: %d %v", role, code, err)
		}
		return l.Path
	}
	ownerLink, supportLink := link("owner@dashboard.test", "owner"), link("support@dashboard.test", "support")

	chromium, err := filepath.Abs(filepath.Join("..", "scripts", "chromium.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(ctx, chromium).CombinedOutput(); err != nil {
		t.Fatalf("scripts/chromium.sh: %v\n%s", err, out)
	}
	// The observability page reads the usage counts, which `intentd api` writes every few seconds:
	// the stack's API writes them when told, so the suite's calls are written as they would be.
	flushing, stopFlushing := context.WithCancel(ctx)
	flushed := make(chan struct{})
	defer func() { stopFlushing(); <-flushed }()
	go func() {
		defer close(flushed)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-flushing.Done():
				return
			case <-tick.C:
				if err := s.FlushUsage(flushing); err != nil && flushing.Err() == nil {
					t.Logf("flush the usage counts: %v", err)
				}
			}
		}
	}()
	runNode(t, ctx, node, "the dashboard suite", []string{"--test", "--test-reporter=spec", "--test-concurrency=1", "dashboard.test.mjs"},
		"INTENTD_API_URL="+s.API.BaseURL,
		"INTENTD_CHROMIUM=/usr/bin/chromium",
		"INTENTD_OWNER_EMAIL=owner@dashboard.test",
		"INTENTD_OWNER_LINK="+ownerLink,
		"INTENTD_SUPPORT_LINK="+supportLink,
		"INTENTD_USER="+devnet.TestAccounts()[1].Address.Hex(),
		"INTENTD_USDC="+devnet.USDCAddress.Hex(),
	)
}
