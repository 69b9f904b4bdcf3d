package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/internal/envconf"
	"github.com/intentd/intentd/store"
)

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
	return fmt.Sprintf("{DatabaseURL:<set> SecretsKey:<set> AllowPrivate:%t}", c.AllowPrivate)
}

func loadWebhooksConfig(lookup lookupFunc) (webhooksConfig, error) {
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
	adminFlags
	integrator, url  string
	enabled          bool
	headers          []string
	noHeaders        bool
	overlap          time.Duration
	state, requestID string
	limit            int
	delivery         int64
	since            string
}

// add adds the common flags, --integrator but to reseal, and those named to cmd.
func (f *webhooksFlags) add(cmd *cobra.Command, names ...string) {
	f.adminFlags.add(cmd)
	if cmd.Name() != "reseal" {
		f.fs.StringVar(&f.integrator, "integrator", "", "the integrator's id")
	}
	for _, name := range names {
		switch name {
		case "url":
			f.fs.StringVar(&f.url, name, "", "the webhook's URL")
		case "enabled":
			f.fs.BoolVar(&f.enabled, name, true, "deliveries on or off")
		case "header":
			f.fs.StringArrayVar(&f.headers, name, nil, "a custom header sent with every delivery, `\"Name: value\"` (repeatable; replaces every custom header)")
		case "no-headers":
			f.fs.BoolVar(&f.noHeaders, name, false, "remove every custom header")
		case "overlap":
			f.fs.DurationVar(&f.overlap, name, events.DefaultRotateOverlap, "how long the rotated-out secret goes on signing (0 ends it at once; at most 168h)")
		case "state":
			f.fs.StringVar(&f.state, name, "", "pending, delivered or dead")
		case "request-id":
			f.fs.StringVar(&f.requestID, name, "", "one request's deliveries")
		case "limit":
			f.fs.IntVar(&f.limit, name, 50, "how many deliveries (1–200)")
		case "delivery":
			f.fs.Int64Var(&f.delivery, name, 0, "the delivery to send again")
		case "since":
			f.fs.StringVar(&f.since, name, "", "send again every event since this RFC 3339 time")
		default:
			panic("webhooksFlags: no flag " + name)
		}
	}
}

// webhooksCommand is one command of `intentd admin webhooks`.
type webhooksCommand struct {
	name, args  string   // its word and the rest of its synopsis
	short, long string   // what it does
	flags       []string // its flags but the common ones (webhooksFlags.add)
	run         func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error
}

// newWebhooksCmd is `intentd admin webhooks` and its commands.
func newWebhooksCmd(lookup lookupFunc) *cobra.Command {
	webhooks := &cobra.Command{Use: "webhooks", Short: "an API key's webhook: set, show, disable, rotate, deliveries, resend, reseal",
		Long: `An API key's webhook (docs/events.md): every status change of the key's requests is POSTed to
its URL, signed with the webhook's secret.

Every command takes --operator NAME (default $USER) and --json. Every change is recorded in
admin_audit. Environment: DATABASE_URL and WEBHOOK_SECRETS_KEY, WEBHOOK_SECRETS_PREVIOUS_KEYS
and WEBHOOK_SECRETS_OPEN_UNVERSIONED (the api's and dispatcher's);
WEBHOOK_ALLOW_PRIVATE=true allows http and private addresses (development only: refused unless
ENVIRONMENT is dev, its default).`,
		Example: `  intentd admin webhooks set --integrator $INTEGRATOR $KEY --url https://hooks.example.com/intents \
      --header "Authorization: Bearer receiver-token"
  intentd admin webhooks rotate --integrator $INTEGRATOR $KEY --overlap 24h
  intentd admin webhooks resend --integrator $INTEGRATOR $KEY --since 2026-11-24T00:00:00Z`}
	for _, wc := range webhooksCommands {
		f := &webhooksFlags{}
		cmd := &cobra.Command{Use: strings.TrimSpace(wc.name + " " + wc.args), Short: wc.short, Long: wc.long,
			Args: func(cmd *cobra.Command, pos []string) error {
				if wc.name == "reseal" {
					if len(pos) > 0 {
						return fmt.Errorf("reseal takes no arguments, got %q", pos)
					}
				} else if err := want(pos, 1, "KEY_ID", "--integrator", f.integrator); err != nil {
					return err
				}
				return resolveOperator(cmd, &f.operator, lookup)
			},
			RunE: func(cmd *cobra.Command, pos []string) error {
				return runWebhooks(cmd, lookup, wc, f, append(pos, "")[0])
			}}
		f.add(cmd, wc.flags...)
		webhooks.AddCommand(cmd)
	}
	return webhooks
}

// runWebhooks runs one webhooks command on the key keyID ("" for reseal).
func runWebhooks(cmd *cobra.Command, lookup lookupFunc, wc webhooksCommand, f *webhooksFlags, keyID string) error {
	cfg, err := loadWebhooksConfig(lookup)
	if err != nil {
		return err
	}
	c, closeDB, err := f.open(cmd.Context(), cmd, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer closeDB()
	admin := &events.Admin{Store: c.st, Policy: events.URLPolicy{AllowPrivate: cfg.AllowPrivate}}
	if cfg.SecretsKey != nil {
		if admin.Sealer, err = events.NewSealer(cfg.SecretsKey, cfg.PreviousKeys...); err != nil {
			return err
		}
		admin.Sealer.OpenUnversioned = cfg.OpenUnversioned
	}
	err = wc.run(cmd.Context(), &webhooksCmd{keysCmd: c, admin: admin}, f, keyID)
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

// webhooksCommands are the webhooks commands, in the order of their help.
var webhooksCommands = []webhooksCommand{
	{name: "set", args: `--integrator ID KEY_ID [--url https://…] [--enabled=true|false] [--header "Name: value" …] [--no-headers]`,
		short: "create a key's webhook (prints its signing secret once) or change it",
		long: `Creates the key's webhook (--url required; prints its signing secret once) or changes it: only
the flags given (--header replaces every custom header, --no-headers removes them).`,
		flags: []string{"url", "enabled", "header", "no-headers"}, run: func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
			var s events.Settings
			if f.fs.Changed("url") {
				s.URL = &f.url
			}
			if f.fs.Changed("enabled") {
				s.Enabled = &f.enabled
			}
			if len(f.headers) > 0 || f.noHeaders {
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
		}},
	{name: "show", args: "--integrator ID KEY_ID", short: "show a key's webhook (never its secret or header values)",
		run: func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
			w, err := c.st.WebhookOf(ctx, f.integrator, keyID)
			return c.webhook(w, "", err)
		}},
	{name: "disable", args: "--integrator ID KEY_ID", short: "stop a key's deliveries",
		run: func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
			w, err := c.admin.Disable(ctx, f.integrator, keyID, c.by)
			return c.webhook(w, "", err)
		}},
	{name: "rotate", args: "--integrator ID KEY_ID [--overlap 24h]", short: "a new signing secret, printed once",
		long: `A new signing secret, printed once; the current one also signs, in X-Signature-SHA256-Previous,
for --overlap (0 ends it at once; at most 168h).`,
		flags: []string{"overlap"}, run: func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
			w, secret, err := c.admin.Rotate(ctx, f.integrator, keyID, f.overlap, c.by)
			return c.webhook(w, secret, err)
		}},
	{name: "deliveries", args: "--integrator ID KEY_ID [--state pending|delivered|dead] [--request-id 0x…] [--limit 50]",
		short: "list a key's deliveries, newest first", flags: []string{"state", "request-id", "limit"},
		run: func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
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
		}},
	{name: "resend", args: "--integrator ID KEY_ID (--delivery N | --since 2026-11-24T00:00:00Z)",
		short: "send a delivery again, or every event since a time, in order", flags: []string{"delivery", "since"},
		run: func(ctx context.Context, c *webhooksCmd, f *webhooksFlags, keyID string) error {
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
		}},
	{name: "reseal", short: "seal every webhook's secrets and headers again under WEBHOOK_SECRETS_KEY",
		long: `Seals every webhook's secrets and headers again under WEBHOOK_SECRETS_KEY: after a key rotation,
with the old key in WEBHOOK_SECRETS_PREVIOUS_KEYS, and once for values sealed before they were
bound to their key id. Takes no KEY_ID and no --integrator.`,
		run: func(ctx context.Context, c *webhooksCmd, _ *webhooksFlags, _ string) error { return c.reseal(ctx) }},
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
