package ratelimit

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/intentd/intentd/auth"
)

var (
	now     = time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	defKey  = &auth.Key{ID: "k-default", Tier: auth.TierDefault}
	elevKey = &auth.Key{ID: "k-elevated", Tier: auth.TierElevated}
)

func rateOf(t *testing.T, p Policy, c Caller, bucket string) auth.Rate {
	t.Helper()
	checks := p.Checks(c, bucket, now)
	if len(checks) != 1 || checks[0].Bucket != bucket {
		t.Fatalf("%s: checks %+v, want one of bucket %s", bucket, checks, bucket)
	}
	return checks[0].Rate
}

// TestLimitsAreTheSpecsTable is the Limits table, bucket by bucket and tier by tier.
func TestLimitsAreTheSpecsTable(t *testing.T) {
	p := DefaultPolicy()
	minute, sec := time.Minute, time.Second
	for _, tc := range []struct {
		bucket        string
		def, elevated auth.Rate
	}{
		{Requests, auth.Rate{Count: 100, Period: minute}, auth.Rate{Count: 5, Period: sec}},
		{RequestsV3, auth.Rate{Count: 200, Period: minute}, auth.Rate{Count: 20, Period: sec}},
		{Authorize, auth.Rate{Count: 30, Period: minute}, auth.Rate{Count: 30, Period: minute}},
		{Quote, auth.Rate{Count: 50, Period: minute}, auth.Rate{Count: 10, Period: sec}},
		{Status, auth.Rate{Count: 200, Period: minute}, auth.Rate{Count: 200, Period: minute}},
		{Transactions, auth.Rate{Count: 200, Period: minute}, auth.Rate{Count: 200, Period: minute}},
		{Chains, auth.Rate{Count: 200, Period: minute}, auth.Rate{Count: 200, Period: minute}},
		{Metrics, auth.Rate{Count: 200, Period: minute}, auth.Rate{Count: 200, Period: minute}},
		{Config, auth.Rate{Count: 200, Period: minute}, auth.Rate{Count: 200, Period: minute}},
		{Catalog, auth.Rate{Count: 200, Period: minute}, auth.Rate{Count: 200, Period: minute}},
		{Withdrawals, auth.Rate{Count: 200, Period: minute}, auth.Rate{Count: 200, Period: minute}},
		{Integrators, auth.Rate{Count: 200, Period: minute}, auth.Rate{Count: 200, Period: minute}},
		{Other, auth.Rate{Count: 200, Period: minute}, auth.Rate{Count: 200, Period: minute}},
	} {
		if got := rateOf(t, p, Caller{Key: defKey}, tc.bucket); got != tc.def {
			t.Errorf("%s default: %+v, want %+v", tc.bucket, got, tc.def)
		}
		if got := rateOf(t, p, Caller{Key: elevKey}, tc.bucket); got != tc.elevated {
			t.Errorf("%s elevated: %+v, want %+v", tc.bucket, got, tc.elevated)
		}
		if got := rateOf(t, p, Caller{IP: "203.0.113.7"}, tc.bucket); got != tc.def {
			t.Errorf("%s anonymous: %+v, want the default tier's %+v", tc.bucket, got, tc.def)
		}
	}
}

func TestChecksNameTheirSubject(t *testing.T) {
	p := DefaultPolicy()
	if c := p.Checks(Caller{Key: defKey, IP: "203.0.113.7"}, Quote, now); c[0].Subject != "k:k-default" {
		t.Errorf("a key's requests count against the key, whatever its IP: %+v", c)
	}
	if c := p.Checks(Caller{IP: "203.0.113.7"}, Quote, now); c[0].Subject != "ip:203.0.113.7" {
		t.Errorf("no key: %+v", c)
	}
	if c := p.Checks(Caller{IP: "::ffff:203.0.113.7"}, Quote, now); c[0].Subject != "ip:203.0.113.7" {
		t.Errorf("an IPv4-mapped address is its IPv4 one: %+v", c)
	}
	a := p.Checks(Caller{IP: "2001:db8:1:2:aaaa::1"}, Quote, now)
	b := p.Checks(Caller{IP: "2001:db8:1:2:bbbb::2"}, Quote, now)
	if a[0].Subject != "ip:2001:db8:1:2::/64" || a[0].Subject != b[0].Subject {
		t.Errorf("IPv6 callers are limited per /64: %+v %+v", a, b)
	}
}

func TestAuthorizeCountsTheWalletFirstThenTheKeysCeiling(t *testing.T) {
	wantChecks(t, DefaultPolicy().Checks(Caller{Key: elevKey, Wallet: "0xAbC0000000000000000000000000000000000001"}, Authorize, now), []Check{
		{Bucket: AuthorizeWallet, Subject: "k:k-elevated:w:0xabc0000000000000000000000000000000000001", Rate: auth.Rate{Count: 5, Period: time.Minute}},
		{Bucket: Authorize, Subject: "k:k-elevated", Rate: auth.Rate{Count: 30, Period: time.Minute}},
	})
}

func wantChecks(t *testing.T, got, want []Check) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("checks %+v\nwant %+v", got, want)
	}
}

func TestUnlimitedKeyAndAnonymousOffHaveNoChecks(t *testing.T) {
	p := DefaultPolicy()
	if c := p.Checks(Caller{Key: &auth.Key{ID: "dev", Tier: auth.TierDefault, Unlimited: true}}, Quote, now); len(c) != 0 {
		t.Errorf("the unlimited key is limited: %+v", c)
	}
	p.Anonymous = nil
	if c := p.Checks(Caller{IP: "203.0.113.7"}, Quote, now); len(c) != 0 {
		t.Errorf("anonymous limits off, still limited: %+v", c)
	}
	if c := p.Checks(Caller{Key: defKey}, Quote, now); len(c) != 1 {
		t.Errorf("anonymous limits off turned a key's off: %+v", c)
	}
	c := p.Checks(Caller{IP: "203.0.113.7", UnknownKey: true}, Quote, now)
	if len(c) != 1 || c[0].Bucket != UnknownKey {
		t.Errorf("unknown keys are limited even with anonymous limits off: %+v", c)
	}
}

func TestUnknownKeyCountsAgainstItsOwnBucketAndTheIPs(t *testing.T) {
	wantChecks(t, DefaultPolicy().Checks(Caller{IP: "203.0.113.7", UnknownKey: true}, Chains, now), []Check{
		{Bucket: UnknownKey, Subject: "ip:203.0.113.7", Rate: auth.Rate{Count: 10, Period: time.Minute}},
		{Bucket: Chains, Subject: "ip:203.0.113.7", Rate: auth.Rate{Count: 200, Period: time.Minute}},
	})
}

func TestCustomLimitsOverrideTheirBucketsOnly(t *testing.T) {
	p := DefaultPolicy()
	custom := &auth.Key{ID: "k-custom", Tier: auth.TierCustom, Limits: map[string]auth.Rate{Quote: {Count: 7, Period: time.Second}}}
	if r := rateOf(t, p, Caller{Key: custom}, Quote); r != (auth.Rate{Count: 7, Period: time.Second}) {
		t.Errorf("custom quote limit: %+v", r)
	}
	if r := rateOf(t, p, Caller{Key: custom}, Status); r != (auth.Rate{Count: 200, Period: time.Minute}) {
		t.Errorf("a bucket the key does not name takes the default tier's: %+v", r)
	}
	elevatedPlus := &auth.Key{ID: "k-e", Tier: auth.TierElevated, Limits: map[string]auth.Rate{Status: {Count: 50, Period: time.Second}}}
	if r := rateOf(t, p, Caller{Key: elevatedPlus}, Quote); r != (auth.Rate{Count: 10, Period: time.Second}) {
		t.Errorf("an elevated key with limits of its own keeps its tier's for the rest: %+v", r)
	}
	if r := rateOf(t, p, Caller{Key: elevatedPlus}, Status); r != (auth.Rate{Count: 50, Period: time.Second}) {
		t.Errorf("an elevated key's own status limit: %+v", r)
	}
}

func TestRequestsScheduleOnlyLowersTheSharedV2Bucket(t *testing.T) {
	p := DefaultPolicy()
	var err error
	p.RequestsSchedule, err = ParseSchedule("2026-09-01 50/1m 3/1s; 2026-10-01 500/1m 50/1s; 2026-11-01 20/1m 1/1s")
	if err != nil {
		t.Fatal(err)
	}
	at := func(day string) time.Time { d, _ := time.Parse(time.DateOnly, day); return d.Add(time.Hour) }
	for _, tc := range []struct {
		day       string
		key       *auth.Key
		want      auth.Rate
		situation string
	}{
		{"2026-08-31", defKey, auth.Rate{Count: 100, Period: time.Minute}, "before the first step: the table"},
		{"2026-09-15", defKey, auth.Rate{Count: 50, Period: time.Minute}, "first step, default"},
		{"2026-09-15", elevKey, auth.Rate{Count: 3, Period: time.Second}, "first step, elevated"},
		{"2026-09-15", nil, auth.Rate{Count: 50, Period: time.Minute}, "first step, anonymous"},
		{"2026-10-15", defKey, auth.Rate{Count: 100, Period: time.Minute}, "a step above the table never raises it"},
		{"2026-11-02", elevKey, auth.Rate{Count: 1, Period: time.Second}, "last step"},
		{"2026-11-02", &auth.Key{ID: "c", Tier: auth.TierCustom, Limits: map[string]auth.Rate{Requests: {Count: 9, Period: time.Second}}},
			auth.Rate{Count: 9, Period: time.Second}, "a key's own limit is left alone"},
	} {
		c := p.Checks(Caller{Key: tc.key, IP: "203.0.113.7"}, Requests, at(tc.day))
		if len(c) != 1 || c[0].Rate != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.situation, c, tc.want)
		}
	}
	if c := p.Checks(Caller{Key: elevKey}, RequestsV3, at("2026-11-02")); c[0].Rate != (auth.Rate{Count: 20, Period: time.Second}) {
		t.Errorf("the schedule touched /requests/v3: %+v", c)
	}
}

func TestParsers(t *testing.T) {
	for in, want := range map[string]auth.Rate{"100/1m": {Count: 100, Period: time.Minute}, " 5 / s ": {Count: 5, Period: time.Second},
		"30/60s": {Count: 30, Period: time.Minute}} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %+v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "100", "0/1m", "-1/1m", "x/1m", "10/0s", "10/500ms", "10/soon"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%q) accepted", in)
		}
	}
	got, err := ParseLimits("quote=20/1m, status=100/1m,")
	if err != nil || len(got) != 2 || got[Quote] != (auth.Rate{Count: 20, Period: time.Minute}) {
		t.Errorf("ParseLimits: %+v %v", got, err)
	}
	for _, in := range []string{"quotes=20/1m", "quote", "quote=fast"} {
		if _, err := ParseLimits(in); err == nil {
			t.Errorf("ParseLimits(%q) accepted", in)
		}
	}
	for _, in := range []string{"2026-10-01 50/1m", "2026-13-01 50/1m 3/1s", "2026-10-01 50/1m 3/1s; 2026-10-01 40/1m 2/1s", "2026-10-01 fast 3/1s"} {
		if _, err := ParseSchedule(in); err == nil {
			t.Errorf("ParseSchedule(%q) accepted", in)
		}
	}
	if _, err := ParseLimits("nope=1/1m"); err == nil || !strings.Contains(err.Error(), Quote) {
		t.Errorf("an unknown bucket's error lists the buckets: %v", err)
	}
}
