package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/internal/envconf"
	"github.com/intentd/intentd/store"
)

const webhooksUsage = `usage: intentd admin webhooks <command> --integrator ID KEY_ID …

An API key's webhook (docs/events.md): every status change of the key's requests is POSTed to
its URL, signed with the webhook's secret.
  webhooks set        --integrator ID KEY_ID [--url https://…] [--enabled=true|false]
                      [--header "Name: value" …] [--no-headers]
                      creates the webhook (--url required; prints its signing secret once)
                      or changes it (--header replaces every custom header)
  webhooks show       --integrator ID KEY_ID
  webhooks disable    --integrator ID KEY_ID
  webhooks rotate     --integrator ID KEY_ID [--overlap 24h]
                      a new signing secret, printed once; the current one also signs, in
                      X-Signature-SHA256-Previous, for --overlap (0 ends it at once; at most 168h)
  webhooks deliveries --integrator ID KEY_ID [--state pending|delivered|dead] [--request-id 0x…] [--limit 50]
  webhooks resend     --integrator ID KEY_ID (--delivery N | --since 2026-11-24T00:00:00Z)
  webhooks reseal     seal every webhook's secrets and headers again under WEBHOOK_SECRETS_KEY
                      (after a key rotation, with the old key in WEBHOOK_SECRETS_PREVIOUS_KEYS,
                      and once for values sealed before they were bound to their key id)

Every command takes --operator NAME (default $USER) and --json. Every change is recorded in
admin_audit. Environment: DATABASE_URL and WEBHOOK_SECRETS_KEY, WEBHOOK_SECRETS_PREVIOUS_KEYS
and WEBHOOK_SECRETS_OPEN_UNVERSIONED (the api's and dispatcher's);
WEBHOOK_ALLOW_PRIVATE=true allows http and private addresses (development only: refused unless
ENVIRONMENT is dev, its default).
`

// webhooksConfig is the configuration of `intentd admin webhooks`, loaded at its start.
type webhooksConfig struct {
	adminDBConfig
	SecretsKey      []byte   // WEBHOOK_SECRETS_KEY (secret)
	PreviousKeys    [][]byte // WEBHOOK_SECRETS_PREVIOUS_KEYS (secret)
	OpenUnversioned bool     // WEBHOOK_SECRETS_OPEN_UNVERSIONED
	AllowPrivate    bool     // WEBHOOK_ALLOW_PRIVATE
}

// String never shows the database URL or the key.
func (c webhooksConfig) String() string {
	return fmt.Sprintf("{DatabaseURL:<set> SecretsKey:<set> Operator:%s AllowPrivate:%t}", c.Operator, c.AllowPrivate)
}

func loadWebhooksConfig(lookup func(string) (string, bool)) (webhooksConfig, error) {
	db, dbErr := loadAdminDBConfig(lookup)
	v := envconf.New(lookup, nil)
	c := webhooksConfig{adminDBConfig: db}
	if k := v.Get("WEBHOOK_SECRETS_KEY", ""); k != "" {
		var err error
		if c.SecretsKey, err = events.ParseSecretsKey(k); err != nil {
			v.Bad("WEBHOOK_SECRETS_KEY", "%v", err)
		}
	}
	var err error
	if c.PreviousKeys, err = events.ParseSecretsKeys(v.Get("WEBHOOK_SECRETS_PREVIOUS_KEYS", "")); err != nil {
		v.Bad("WEBHOOK_SECRETS_PREVIOUS_KEYS", "%v", err)
	}
	c.OpenUnversioned = v.Bool("WEBHOOK_SECRETS_OPEN_UNVERSIONED", "true")
	c.AllowPrivate = v.Bool("WEBHOOK_ALLOW_PRIVATE", "false")
	if env := v.Get("ENVIRONMENT", app.DevEnvironment); c.AllowPrivate && env != app.DevEnvironment {
		v.Bad("WEBHOOK_ALLOW_PRIVATE", "is for development only and is refused unless ENVIRONMENT=%s (ENVIRONMENT is %q)", app.DevEnvironment, env)
	}
	if dbErr != nil {
		return c, dbErr
	}
	return c, v.Err()
}

// webhooksFlags are one webhooks command's flags.
type webhooksFlags struct {
	fs                    *flag.FlagSet
	operator, reason      string
	json                  bool
	integrator, url       string
	enabled               bool
	headers               []string
	noHeaders             bool
	overlap               time.Duration
	state, requestID      string
	limit                 int
	delivery              int64
	since                 string
	setURL, setEnabled    bool
	setHeaders, setOverlp bool
}

func newWebhooksFlags(name string, stderr io.Writer, operator string) *webhooksFlags {
	f := &webhooksFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	f.fs.SetOutput(stderr)
	f.fs.Usage = func() { fmt.Fprint(stderr, webhooksUsage) }
	f.fs.StringVar(&f.operator, "operator", operator, "who makes the change (default $USER)")
	f.fs.StringVar(&f.reason, "reason", "", "why (kept in the audit trail)")
	f.fs.BoolVar(&f.json, "json", false, "print JSON")
	f.fs.StringVar(&f.integrator, "integrator", "", "the integrator's id")
	f.fs.StringVar(&f.url, "url", "", "the webhook's URL")
	f.fs.BoolVar(&f.enabled, "enabled", true, "deliveries on or off")
	f.fs.Func("header", `a custom header sent with every delivery, "Name: value" (repeatable)`, func(s string) error {
		f.headers = append(f.headers, s)
		return nil
	})
	f.fs.BoolVar(&f.noHeaders, "no-headers", false, "remove every custom header")
	f.fs.DurationVar(&f.overlap, "overlap", events.DefaultRotateOverlap, "how long the rotated-out secret goes on signing")
	f.fs.StringVar(&f.state, "state", "", "pending, delivered or dead")
	f.fs.StringVar(&f.requestID, "request-id", "", "one request's deliveries")
	f.fs.IntVar(&f.limit, "limit", 50, "how many deliveries (1–200)")
	f.fs.Int64Var(&f.delivery, "delivery", 0, "the delivery to send again")
	f.fs.StringVar(&f.since, "since", "", "send again every event since this RFC 3339 time")
	return f
}

// runAdminWebhooks runs `intentd admin webhooks <command> …`; args start with "webhooks".
func runAdminWebhooks(ctx context.Context, args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) error {
	if len(args) < 2 {
		fmt.Fprint(stderr, webhooksUsage)
		return errUsage
	}
	if args[1] == "-h" || args[1] == "--help" || args[1] == "help" {
		fmt.Fprint(stdout, webhooksUsage)
		return nil
	}
	command := args[1]
	cfg, cfgErr := loadWebhooksConfig(lookup)
	f := newWebhooksFlags("intentd admin webhooks "+command, stderr, cfg.Operator)
	pos, err := parseInterleaved(f.fs, args[2:])
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	f.fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "url":
			f.setURL = true
		case "enabled":
			f.setEnabled = true
		case "overlap":
			f.setOverlp = true
		}
	})
	f.setHeaders = len(f.headers) > 0 || f.noHeaders
	run, ok := webhooksCommands[command]
	if !ok && command != "reseal" {
		fmt.Fprintf(stderr, "intentd admin webhooks: unknown command %q\n\n%s", command, webhooksUsage)
		return errUsage
	}
	if command == "reseal" {
		if len(pos) > 0 {
			return fmt.Errorf("reseal takes no arguments, got %q", pos)
		}
	} else if err := want(pos, 1, "KEY_ID", "--integrator", f.integrator); err != nil {
		return err
	}
	if cfgErr != nil {
		return cfgErr
	}
	if strings.TrimSpace(f.operator) == "" {
		return errors.New("--operator is required ($USER is not set)")
	}
	pool, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		return errors.New("DATABASE_URL is not a valid Postgres URL")
	}
	defer pool.Close()
	st := store.New(pool)
	admin := &events.Admin{Store: st, Policy: events.URLPolicy{AllowPrivate: cfg.AllowPrivate}}
	if cfg.SecretsKey != nil {
		if admin.Sealer, err = events.NewSealer(cfg.SecretsKey, cfg.PreviousKeys...); err != nil {
			return err
		}
		admin.Sealer.OpenUnversioned = cfg.OpenUnversioned
	}
	c := &keysCmd{st: st, by: store.Actor{Name: f.operator, Via: store.ViaCLI, Reason: f.reason}, json: f.json, out: stdout, err: stderr}
	if command == "reseal" {
		return explainStoreError((&webhooksCmd{keysCmd: c, admin: admin}).reseal(ctx))
	}
	err = run(ctx, &webhooksCmd{keysCmd: c, admin: admin}, f, pos[0])
	if errors.Is(err, events.ErrInvalid) || errors.Is(err, events.ErrUnconfigured) {
		return err
	}
	return explainStoreError(err)
}

// webhooksCmd is one run of a webhooks command.
type webhooksCmd struct {
	*keysCmd
	admin *events.Admin
}

var webhooksCommands = map[string]func(context.Context, *webhooksCmd, *webhooksFlags, string) error{
	"set": func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
		var s events.Settings
		if f.setURL {
			s.URL = &f.url
		}
		if f.setEnabled {
			s.Enabled = &f.enabled
		}
		if f.setHeaders {
			h := map[string]string{}
			for _, line := range f.headers {
				name, value, ok := strings.Cut(line, ":")
				if !ok {
					return fmt.Errorf("--header %q is not \"Name: value\"", line)
				}
				h[strings.TrimSpace(name)] = strings.TrimSpace(value)
			}
			s.Headers = &h
		}
		w, secret, err := c.admin.Set(ctx, f.integrator, keyID, s, c.by)
		return c.webhook(w, secret, err)
	},
	"show": func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
		w, err := c.st.WebhookOf(ctx, f.integrator, keyID)
		return c.webhook(w, "", err)
	},
	"disable": func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
		w, err := c.admin.Disable(ctx, f.integrator, keyID, c.by)
		return c.webhook(w, "", err)
	},
	"rotate": func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
		w, secret, err := c.admin.Rotate(ctx, f.integrator, keyID, f.overlap, c.by)
		return c.webhook(w, secret, err)
	},
	"deliveries": func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
		list, err := c.st.WebhookDeliveries(ctx, f.integrator, keyID, store.DeliveryFilter{State: f.state,
			RequestID: f.requestID, Limit: f.limit})
		if err != nil {
			return err
		}
		if c.json {
			return c.printJSON(map[string]any{"deliveries": list})
		}
		w := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tEVENT\tREQUEST\tSTATE\tATTEMPTS\tLAST STATUS\tLAST LATENCY\tNEXT ATTEMPT\tLAST ERROR")
		for _, d := range list {
			fmt.Fprintf(w, "%d\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", d.ID, d.EventID, d.RequestID, d.State, d.Attempts,
				orDash(d.LastStatusCode), orDash(d.LastLatencyMs), timeOrDash(d.NextAttemptAt), strOrDash(d.LastError))
		}
		return w.Flush()
	},
	"resend": func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
		var since time.Time
		switch {
		case f.delivery > 0 && f.since != "", f.delivery == 0 && f.since == "":
			return errors.New("give one of --delivery N and --since TIME")
		case f.since != "":
			var err error
			if since, err = time.Parse(time.RFC3339, f.since); err != nil {
				return fmt.Errorf("--since %q is not an RFC 3339 time", f.since)
			}
		}
		n, err := c.st.ResendDeliveries(ctx, f.integrator, keyID, f.delivery, since, c.by)
		if err != nil {
			return err
		}
		if c.json {
			return c.printJSON(map[string]any{"queued": n})
		}
		fmt.Fprintf(c.out, "queued %d deliveries again\n", n)
		return nil
	},
}

// reseal seals every webhook's secrets and headers again under the current WEBHOOK_SECRETS_KEY
// and format (events.Reseal), and says how many it changed and which it could not open.
func (c *webhooksCmd) reseal(ctx context.Context) error {
	if c.admin.Sealer == nil {
		return events.ErrUnconfigured
	}
	res, err := events.Reseal(ctx, c.st, c.admin.Sealer, c.by)
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	fmt.Fprintf(c.out, "webhooks read %d, sealed again under the current key %d\n", res.Webhooks, res.Resealed)
	if len(res.Unopened) > 0 {
		fmt.Fprintf(c.out, "not opened by WEBHOOK_SECRETS_KEY or WEBHOOK_SECRETS_PREVIOUS_KEYS (left as they are; set the webhook again): %s\n",
			strings.Join(res.Unopened, ", "))
		return fmt.Errorf("%d webhooks could not be opened", len(res.Unopened))
	}
	return nil
}

// webhook prints a command's resulting webhook, and the secret when there is one.
func (c *webhooksCmd) webhook(w *store.Webhook, secret string, err error) error {
	if err != nil {
		return err
	}
	if c.json {
		out := map[string]any{"webhook": w.View()}
		if secret != "" {
			out["secret"] = secret
		}
		return c.printJSON(out)
	}
	if secret != "" {
		fmt.Fprintf(c.out, "signing secret %s\n\nThis is the only time the secret is shown: give it to the receiver now.\n\n", secret)
	}
	v := w.View()
	prev := "none"
	if v.PreviousSecretEnds != nil {
		prev = "signs until " + v.PreviousSecretEnds.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(c.out, `webhook of key %s
  url              %s
  enabled          %t
  custom headers   %s
  secret           %s…
  previous secret  %s
  updated          %s
`, v.APIKeyID, v.URL, v.Enabled, orNone(strings.Join(v.HeaderNames, ", ")), v.SecretPrefix, prev, v.UpdatedAt.UTC().Format(time.RFC3339))
	return nil
}

func orDash[T any](p *T) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func strOrDash(p *string) string {
	if p == nil || *p == "" {
		return "-"
	}
	return *p
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
