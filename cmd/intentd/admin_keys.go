package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/envconf"
	"github.com/intentd/intentd/store"
)

const keysUsage = `usage: intentd admin keys <command> --integrator ID …
       intentd admin integrators <command> …

API keys (an integrator's; a key's value is printed once, by create, and never stored):
  keys create  --integrator ID --label L [--environment production] [--tier default|elevated|custom] [--limit BUCKET=COUNT/PERIOD …]
  keys rename  --integrator ID KEY_ID --label L
  keys limits  --integrator ID KEY_ID --tier T [--limit BUCKET=COUNT/PERIOD …]
  keys revoke  --integrator ID KEY_ID [--reason "…"]   (every API process refuses it within 5 s)
  keys list    --integrator ID

Integrators:
  integrators create --name N [--business-verified] [--payout-address 0x…] [--sponsor-wallet 0x… --sponsor-chain-id C]
  integrators update ID [--name N] [--business-verified=true|false] [--payout-address 0x…] [--sponsor-wallet 0x… --sponsor-chain-id C]
  integrators list
  integrators show ID                                   (the profile and its keys)
  integrators sponsorship top-up ID --amount-usd 250.00 [--reason "wire 4711"]
  integrators sponsorship adjust ID --amount-usd -12.50 --reason "…"

Every command takes --operator NAME (default $USER: who makes the change, for the audit trail)
and --json (print the result as the admin API's JSON). Every change is recorded in admin_audit.
Database: DATABASE_URL, as the engine's.
`

// adminDBConfig is the configuration of `intentd admin keys|integrators`, loaded at its start:
// the engine's database and who runs the command.
type adminDBConfig struct {
	DatabaseURL string // DATABASE_URL, as the engine's (secret: it carries the password)
	Operator    string // USER: the default of --operator
}

// String never shows the database URL, which carries the password.
func (c adminDBConfig) String() string {
	return fmt.Sprintf("{DatabaseURL:<set> Operator:%s}", c.Operator)
}

// loadAdminDBConfig reads the keys and integrators commands' variables through lookup.
func loadAdminDBConfig(lookup func(string) (string, bool)) (adminDBConfig, error) {
	v := envconf.New(lookup, nil)
	c := adminDBConfig{DatabaseURL: v.Get("DATABASE_URL", ""), Operator: v.Get("USER", "")}
	if c.DatabaseURL == "" {
		v.Bad("DATABASE_URL", "is required (the engine's database)")
	}
	return c, v.Err()
}

// keysCmd is one run of a keys or integrators command.
type keysCmd struct {
	st       *store.Store
	by       store.Actor
	json     bool
	out, err io.Writer
}

// keysFlags are one command's flags and positional words.
type keysFlags struct {
	fs                 *flag.FlagSet
	operator, reason   string
	json               bool
	integrator, label  string
	environment, tier  string
	limits             map[string]auth.Rate
	name, payout, spon string
	chain              uint64
	verified           bool
	amount             string
}

func newKeysFlags(name string, stderr io.Writer, operator string) *keysFlags {
	f := &keysFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError), limits: map[string]auth.Rate{}}
	f.fs.SetOutput(stderr)
	f.fs.Usage = func() { fmt.Fprint(stderr, keysUsage) }
	f.fs.StringVar(&f.operator, "operator", operator, "who makes the change (default $USER)")
	f.fs.StringVar(&f.reason, "reason", "", "why (kept in the audit trail)")
	f.fs.BoolVar(&f.json, "json", false, "print JSON")
	f.fs.StringVar(&f.integrator, "integrator", "", "the integrator's id")
	f.fs.StringVar(&f.label, "label", "", "the key's label")
	f.fs.StringVar(&f.environment, "environment", "", "the key's environment (default production)")
	f.fs.StringVar(&f.tier, "tier", "", "default, elevated or custom")
	f.fs.Func("limit", "a limit of the key's own: BUCKET=COUNT/PERIOD, e.g. quote=600/1m (repeatable)", f.addLimit)
	f.fs.StringVar(&f.name, "name", "", "the integrator's name")
	f.fs.BoolVar(&f.verified, "business-verified", false, "business verification is completed")
	f.fs.StringVar(&f.payout, "payout-address", "", "EVM address revenue-share payouts go to")
	f.fs.StringVar(&f.spon, "sponsor-wallet", "", "EVM address sponsorship is paid from")
	f.fs.Uint64Var(&f.chain, "sponsor-chain-id", 0, "the sponsorship wallet's chain id")
	f.fs.StringVar(&f.amount, "amount-usd", "", "USD amount as a decimal, e.g. 250.00")
	return f
}

// addLimit reads BUCKET=COUNT/PERIOD.
func (f *keysFlags) addLimit(s string) error {
	bucket, rate, ok := strings.Cut(s, "=")
	count, period, ok2 := strings.Cut(rate, "/")
	n, err := strconv.Atoi(count)
	d, err2 := time.ParseDuration(period)
	if !ok || !ok2 || err != nil || err2 != nil {
		return fmt.Errorf("%q is not BUCKET=COUNT/PERIOD (e.g. quote=600/1m)", s)
	}
	f.limits[bucket] = auth.Rate{Count: n, Period: d}
	return nil
}

// set reports whether the flag name was given.
func (f *keysFlags) set(name string) bool {
	found := false
	f.fs.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
	return found
}

// runAdminKeys runs `intentd admin keys|integrators <command> …`; args start with "keys" or
// "integrators".
func runAdminKeys(ctx context.Context, args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) error {
	if len(args) < 2 {
		fmt.Fprint(stderr, keysUsage)
		return errUsage
	}
	if args[1] == "-h" || args[1] == "--help" || args[1] == "help" {
		fmt.Fprint(stdout, keysUsage)
		return nil
	}
	command := args[0] + " " + args[1]
	rest := args[2:]
	if command == "integrators sponsorship" {
		if len(rest) == 0 {
			fmt.Fprint(stderr, keysUsage)
			return errUsage
		}
		command, rest = command+" "+rest[0], rest[1:]
	}
	cfg, cfgErr := loadAdminDBConfig(lookup) // reported once the command line is understood
	f := newKeysFlags("intentd admin "+command, stderr, cfg.Operator)
	pos, err := parseInterleaved(f.fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	run, ok := keysCommands[command]
	if !ok {
		fmt.Fprintf(stderr, "intentd admin: unknown command %q\n\n%s", command, keysUsage)
		return errUsage
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
	defer pool.Close() // the pool connects on first use: a bad command line never dials
	c := &keysCmd{st: store.New(pool), by: store.Actor{Name: f.operator, Via: store.ViaCLI, Reason: f.reason},
		json: f.json, out: stdout, err: stderr}
	return explainStoreError(run(ctx, c, f, pos))
}

// keysCommands are the keys and integrators commands by their two or three words.
var keysCommands = map[string]func(context.Context, *keysCmd, *keysFlags, []string) error{
	"keys create": func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
		if err := want(pos, 0, "", "--integrator", f.integrator); err != nil {
			return err
		}
		tier := auth.Tier(f.tier)
		if tier == "" && len(f.limits) > 0 {
			tier = auth.TierCustom
		}
		value, k, err := c.st.CreateAPIKey(ctx, store.NewKey{IntegratorID: f.integrator, Label: f.label,
			Environment: f.environment, Tier: tier, Limits: f.limits}, c.by)
		if err != nil {
			return err
		}
		if c.json {
			return c.printJSON(map[string]any{"key": value, "apiKey": k.View()})
		}
		fmt.Fprintf(c.out, "key %s\n\nThis is the only time the key is shown: store it now (a secret manager, an environment variable).\n\n", value)
		c.printKeys([]*auth.Key{k})
		return nil
	},
	"keys rename": func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
		if err := want(pos, 1, "KEY_ID", "--integrator", f.integrator); err != nil {
			return err
		}
		if !f.set("label") {
			return errors.New("--label is required")
		}
		return c.key(c.st.RenameAPIKey(ctx, f.integrator, pos[0], f.label, c.by))
	},
	"keys limits": func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
		if err := want(pos, 1, "KEY_ID", "--integrator", f.integrator, "--tier", f.tier); err != nil {
			return err
		}
		return c.key(c.st.SetAPIKeyLimits(ctx, f.integrator, pos[0], auth.Tier(f.tier), f.limits, c.by))
	},
	"keys revoke": func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
		if err := want(pos, 1, "KEY_ID", "--integrator", f.integrator); err != nil {
			return err
		}
		return c.key(c.st.RevokeAPIKey(ctx, f.integrator, pos[0], c.by))
	},
	"keys list": func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
		if err := want(pos, 0, "", "--integrator", f.integrator); err != nil {
			return err
		}
		keys, err := c.st.APIKeys(ctx, f.integrator)
		if err != nil {
			return err
		}
		if c.json {
			return c.printJSON(map[string]any{"apiKeys": views(keys, (*auth.Key).View)})
		}
		c.printKeys(keys)
		return nil
	},
	"integrators create": func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
		if err := want(pos, 0, "", "--name", f.name); err != nil {
			return err
		}
		return c.integrator(c.st.CreateIntegrator(ctx, auth.Integrator{Name: f.name, BusinessVerified: f.verified,
			PayoutAddress: f.payout, SponsorWallet: f.spon, SponsorChainID: f.chain}, c.by))
	},
	"integrators update": func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
		if err := want(pos, 1, "ID"); err != nil {
			return err
		}
		var u store.IntegratorUpdate
		for flagName, apply := range map[string]func(){
			"name": func() { u.Name = &f.name }, "business-verified": func() { u.BusinessVerified = &f.verified },
			"payout-address": func() { u.PayoutAddress = &f.payout }, "sponsor-wallet": func() { u.SponsorWallet = &f.spon },
			"sponsor-chain-id": func() { u.SponsorChainID = &f.chain },
		} {
			if f.set(flagName) {
				apply()
			}
		}
		if u == (store.IntegratorUpdate{}) {
			return errors.New("nothing to change: give --name, --business-verified, --payout-address or --sponsor-wallet with --sponsor-chain-id")
		}
		return c.integrator(c.st.UpdateIntegrator(ctx, pos[0], u, c.by))
	},
	"integrators list": func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
		if err := want(pos, 0, ""); err != nil {
			return err
		}
		list, err := c.st.Integrators(ctx)
		if err != nil {
			return err
		}
		if c.json {
			return c.printJSON(map[string]any{"integrators": views(list, (*auth.Integrator).View)})
		}
		w := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tNAME\tVERIFIED\tSPONSOR BALANCE (USD)\tCREATED")
		for _, in := range list {
			fmt.Fprintf(w, "%s\t%s\t%t\t%s\t%s\n", in.ID, in.Name, in.BusinessVerified, in.SponsorBalanceUSD, in.CreatedAt.UTC().Format(time.RFC3339))
		}
		return w.Flush()
	},
	"integrators show": func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
		if err := want(pos, 1, "ID"); err != nil {
			return err
		}
		in, err := c.st.Integrator(ctx, pos[0])
		if err != nil {
			return err
		}
		keys, err := c.st.APIKeys(ctx, pos[0])
		if err != nil {
			return err
		}
		if c.json {
			return c.printJSON(map[string]any{"integrator": in.View(), "apiKeys": views(keys, (*auth.Key).View)})
		}
		c.printIntegrator(in)
		fmt.Fprintln(c.out)
		c.printKeys(keys)
		return nil
	},
	"integrators sponsorship top-up": func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
		return c.moveBalance(ctx, f, pos, c.st.TopUpSponsorBalance)
	},
	"integrators sponsorship adjust": func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
		return c.moveBalance(ctx, f, pos, c.st.AdjustSponsorBalance)
	},
}

func (c *keysCmd) moveBalance(ctx context.Context, f *keysFlags, pos []string,
	move func(context.Context, string, decimal.Decimal, store.Actor) (*auth.Integrator, error)) error {
	if err := want(pos, 1, "ID", "--amount-usd", f.amount); err != nil {
		return err
	}
	amount, err := decimal.NewFromString(f.amount)
	if err != nil {
		return fmt.Errorf("--amount-usd %q is not a decimal amount such as 250.00", f.amount)
	}
	return c.integrator(move(ctx, pos[0], amount, c.by))
}

// want checks a command's positional words (n of them, each a name) and its required flags,
// given as pairs of a flag's name and its value.
func want(pos []string, n int, name string, required ...string) error {
	switch {
	case len(pos) > 0 && n == 0:
		return fmt.Errorf("unexpected argument %q", pos[0])
	case len(pos) != n:
		return fmt.Errorf("one %s expected, got %d", name, len(pos))
	}
	for i := 0; i+1 < len(required); i += 2 {
		if required[i+1] == "" {
			return fmt.Errorf("%s is required", required[i])
		}
	}
	return nil
}

// explainStoreError says what a store error means to the operator.
func explainStoreError(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errors.New("not found: no such integrator, or the key is not that integrator's (check the ids with `intentd admin integrators list` and `keys list`)")
	case errors.Is(err, store.ErrBalanceTooLow):
		return errors.New("refused: the adjustment would leave a negative sponsorship balance")
	case errors.Is(err, intent.ErrUnavailable):
		return fmt.Errorf("the database at DATABASE_URL does not answer; nothing changed: %w", err)
	}
	return err
}

// key prints a command's resulting key.
func (c *keysCmd) key(k *auth.Key, err error) error {
	return result(c, k, err, func(k *auth.Key) any { return k.View() }, func(k *auth.Key) { c.printKeys([]*auth.Key{k}) })
}

// integrator prints a command's resulting integrator.
func (c *keysCmd) integrator(in *auth.Integrator, err error) error {
	return result(c, in, err, func(in *auth.Integrator) any { return in.View() }, c.printIntegrator)
}

// result prints a command's result, as view's JSON with --json, else as text; or returns err.
func result[T any](c *keysCmd, v *T, err error, view func(*T) any, text func(*T)) error {
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(view(v))
	}
	text(v)
	return nil
}

func (c *keysCmd) printJSON(v any) error {
	enc := json.NewEncoder(c.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (c *keysCmd) printIntegrator(in *auth.Integrator) {
	sponsor := "none"
	if in.SponsorWallet != "" {
		sponsor = fmt.Sprintf("%s on chain %d", in.SponsorWallet, in.SponsorChainID)
	}
	fmt.Fprintf(c.out, `integrator %s
  name               %s
  business verified  %t
  payout address     %s
  sponsor wallet     %s
  sponsor balance    USD %s
  created            %s
`, in.ID, in.Name, in.BusinessVerified, orNone(in.PayoutAddress), sponsor, in.SponsorBalanceUSD.StringFixed(2),
		in.CreatedAt.UTC().Format(time.RFC3339))
}

// printKeys prints keys as a table: never a value or hash, only the prefix.
func (c *keysCmd) printKeys(keys []*auth.Key) {
	w := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KEY ID\tPREFIX\tLABEL\tENVIRONMENT\tTIER\tLIMITS\tCREATED\tLAST USED\tREVOKED")
	for _, k := range keys {
		limits := make([]string, 0, len(k.Limits))
		for b, r := range k.Limits {
			limits = append(limits, fmt.Sprintf("%s=%d/%s", b, r.Count, r.Period))
		}
		sort.Strings(limits)
		if k.Unlimited {
			limits = []string{"unlimited"}
		}
		fmt.Fprintf(w, "%s\t%s…\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Prefix, k.Label, k.Environment, k.Tier,
			orNone(strings.Join(limits, ",")), k.CreatedAt.UTC().Format(time.RFC3339), when(k.LastUsedAt), when(k.RevokedAt))
	}
	_ = w.Flush()
}

func views[T, V any](list []*T, view func(*T) V) []V {
	out := make([]V, len(list))
	for i, x := range list {
		out[i] = view(x)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
