package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/envconf"
	"github.com/intentd/intentd/store"
)

// adminDBConfig is the configuration of `intentd admin keys|integrators`, loaded at its start:
// the engine's database.
type adminDBConfig struct {
	DatabaseURL string // DATABASE_URL, as the engine's (secret: it carries the password)
}

// String never shows the database URL, which carries the password.
func (c adminDBConfig) String() string {
	return "{DatabaseURL:<set>}"
}

// loadAdminDBConfig reads the keys and integrators commands' variables through lookup.
func loadAdminDBConfig(lookup lookupFunc) (adminDBConfig, error) {
	v := envconf.New(lookup, nil)
	c := adminDBConfig{DatabaseURL: v.Get("DATABASE_URL", "")}
	if c.DatabaseURL == "" {
		v.Bad("DATABASE_URL", "is required (the engine's database)")
	}
	return c, v.Err()
}

// keysCmd is one run of a keys, integrators or webhooks command.
type keysCmd struct {
	st       *store.Store
	by       store.Actor
	json     bool
	out, err io.Writer
}

// adminFlags are the flags every keys, integrators and webhooks command takes.
type adminFlags struct {
	fs               *pflag.FlagSet
	operator, reason string
	json             bool
}

// add adds the common flags to cmd.
func (f *adminFlags) add(cmd *cobra.Command) {
	f.fs = cmd.Flags()
	operatorFlag(cmd, &f.operator, "who makes the change")
	f.fs.StringVar(&f.reason, "reason", "", "why (kept in the audit trail)")
	f.fs.BoolVar(&f.json, "json", false, "print the result as the admin API's JSON")
}

// open opens the database at url for one run of cmd: the pool connects on first use, so a
// command refused before it queries never dials. release releases it.
func (f *adminFlags) open(ctx context.Context, cmd *cobra.Command, url string) (c *keysCmd, release func(), err error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, nil, errors.New("DATABASE_URL is not a valid Postgres URL")
	}
	return &keysCmd{st: store.New(pool), by: store.Actor{Name: f.operator, Via: store.ViaCLI, Reason: f.reason}, json: f.json,
		out: cmd.OutOrStdout(), err: cmd.ErrOrStderr()}, pool.Close, nil
}

// keysFlags are one keys or integrators command's flags.
type keysFlags struct {
	adminFlags
	integrator, label  string
	environment, tier  string
	limits             map[string]auth.Rate
	name, payout, spon string
	chain              uint64
	verified           bool
	amount             string
}

// add adds the common flags and those named (each the name of a flag, as the commands share
// them) to cmd.
func (f *keysFlags) add(cmd *cobra.Command, names ...string) {
	f.adminFlags.add(cmd)
	f.limits = map[string]auth.Rate{}
	for _, name := range names {
		switch name {
		case "integrator":
			f.fs.StringVar(&f.integrator, name, "", "the integrator's id")
		case "label":
			f.fs.StringVar(&f.label, name, "", "the key's label")
		case "environment":
			f.fs.StringVar(&f.environment, name, "", "the key's environment (default production)")
		case "tier":
			f.fs.StringVar(&f.tier, name, "", "default, elevated or custom")
		case "limit":
			f.fs.Func(name, "a limit of the key's own: `BUCKET=COUNT/PERIOD`, e.g. quote=600/1m (repeatable)", f.addLimit)
		case "name":
			f.fs.StringVar(&f.name, name, "", "the integrator's name")
		case "business-verified":
			f.fs.BoolVar(&f.verified, name, false, "business verification is completed")
		case "payout-address":
			f.fs.StringVar(&f.payout, name, "", "EVM address revenue-share payouts go to")
		case "sponsor-wallet":
			f.fs.StringVar(&f.spon, name, "", "EVM address sponsorship is paid from")
		case "sponsor-chain-id":
			f.fs.Uint64Var(&f.chain, name, 0, "the sponsorship wallet's chain id")
		case "amount-usd":
			f.fs.StringVar(&f.amount, name, "", "USD amount as a decimal, e.g. 250.00")
		default:
			panic("keysFlags: no flag " + name)
		}
	}
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

// keysCommand is one command of `intentd admin keys|integrators`.
type keysCommand struct {
	path  string   // its words after "admin"
	args  string   // the rest of its synopsis: positional words and flags
	short string   // what it does
	flags []string // its flags but the common ones (keysFlags.add)
	// check checks the command line (positional words, required flags) before anything is
	// opened.
	check func(f *keysFlags, pos []string) error
	run   func(context.Context, *keysCmd, *keysFlags, []string) error
}

// newKeysCmds are `intentd admin keys` and `intentd admin integrators` with their commands.
func newKeysCmds(lookup lookupFunc) []*cobra.Command {
	const common = `Every command takes --operator NAME (default $USER: who makes the change, for the audit trail)
and --json (print the result as the admin API's JSON). Every change is recorded in admin_audit.
Database: DATABASE_URL, as the engine's.`
	keys := &cobra.Command{Use: "keys", Short: "an integrator's API keys: create, rename, limits, revoke, list",
		Long: "An integrator's API keys. A key's value is printed once, by create, and never stored; a revoked key is\n" +
			"refused by every API process within 5 s.\n\n" + common,
		Example: `  intentd admin keys create --integrator 3f0c… --label backend --environment production
  intentd admin keys limits --integrator 3f0c… 9b2e… --tier custom --limit quote=1200/1m
  intentd admin keys revoke --integrator 3f0c… 9b2e… --reason "leaked (ticket 4711)"`}
	integrators := &cobra.Command{Use: "integrators", Short: "integrators: create, update, list, show, sponsorship",
		Long: "Integrators: their profile, their keys (show) and their sponsorship balance.\n\n" + common,
		Example: `  intentd admin integrators create --name "Acme Wallet" --business-verified --payout-address 0x7099…79C8
  intentd admin integrators show 3f0c…
  intentd admin integrators sponsorship top-up 3f0c… --amount-usd 5000.00 --reason "wire 4711"`}
	sponsorship := &cobra.Command{Use: "sponsorship", Short: "move an integrator's sponsorship balance: top-up, adjust",
		Long: "An integrator's sponsorship balance (USD), which pays the fees it sponsors.\n\n" + common}
	integrators.AddCommand(sponsorship)
	parents := map[string]*cobra.Command{"keys": keys, "integrators": integrators, "integrators sponsorship": sponsorship}
	for _, kc := range keysCommands {
		parent, name := kc.path[:strings.LastIndex(kc.path, " ")], kc.path[strings.LastIndex(kc.path, " ")+1:]
		f := &keysFlags{}
		cmd := &cobra.Command{Use: strings.TrimSpace(name + " " + kc.args), Short: kc.short,
			Args: func(cmd *cobra.Command, pos []string) error {
				if err := kc.check(f, pos); err != nil {
					return err
				}
				return resolveOperator(cmd, &f.operator, lookup)
			},
			RunE: func(cmd *cobra.Command, pos []string) error {
				cfg, err := loadAdminDBConfig(lookup)
				if err != nil {
					return err
				}
				c, closeDB, err := f.open(cmd.Context(), cmd, cfg.DatabaseURL)
				if err != nil {
					return err
				}
				defer closeDB()
				return explainStoreError(kc.run(cmd.Context(), c, f, pos))
			}}
		f.add(cmd, kc.flags...)
		parents[parent].AddCommand(cmd)
	}
	return []*cobra.Command{keys, integrators}
}

// keysCommands are the keys and integrators commands, in the order of their help.
var keysCommands = []keysCommand{
	{path: "keys create", args: "--integrator ID --label L [--environment production] [--tier default|elevated|custom] [--limit BUCKET=COUNT/PERIOD …]",
		short: "create an API key; its value is printed this once", flags: []string{"integrator", "label", "environment", "tier", "limit"},
		check: func(f *keysFlags, pos []string) error { return want(pos, 0, "", "--integrator", f.integrator) },
		run: func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
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
		}},
	{path: "keys rename", args: "--integrator ID KEY_ID --label L", short: "rename a key",
		flags: []string{"integrator", "label"},
		check: func(f *keysFlags, pos []string) error {
			if err := want(pos, 1, "KEY_ID", "--integrator", f.integrator); err != nil {
				return err
			}
			if !f.fs.Changed("label") {
				return errors.New("--label is required")
			}
			return nil
		},
		run: func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
			return c.key(c.st.RenameAPIKey(ctx, f.integrator, pos[0], f.label, c.by))
		}},
	{path: "keys limits", args: "--integrator ID KEY_ID --tier T [--limit BUCKET=COUNT/PERIOD …]",
		short: "set a key's rate-limit tier, or its own limits (tier custom)", flags: []string{"integrator", "tier", "limit"},
		check: func(f *keysFlags, pos []string) error {
			return want(pos, 1, "KEY_ID", "--integrator", f.integrator, "--tier", f.tier)
		},
		run: func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
			return c.key(c.st.SetAPIKeyLimits(ctx, f.integrator, pos[0], auth.Tier(f.tier), f.limits, c.by))
		}},
	{path: "keys revoke", args: `--integrator ID KEY_ID [--reason "…"]`,
		short: "revoke a key: every API process refuses it within 5 s", flags: []string{"integrator"},
		check: func(f *keysFlags, pos []string) error { return want(pos, 1, "KEY_ID", "--integrator", f.integrator) },
		run: func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
			return c.key(c.st.RevokeAPIKey(ctx, f.integrator, pos[0], c.by))
		}},
	{path: "keys list", args: "--integrator ID", short: "list an integrator's keys (never a value: the prefix only)",
		flags: []string{"integrator"},
		check: func(f *keysFlags, pos []string) error { return want(pos, 0, "", "--integrator", f.integrator) },
		run: func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
			keys, err := c.st.APIKeys(ctx, f.integrator)
			if err != nil {
				return err
			}
			if c.json {
				return c.printJSON(map[string]any{"apiKeys": views(keys, (*auth.Key).View)})
			}
			c.printKeys(keys)
			return nil
		}},
	{path: "integrators create", args: "--name N [--business-verified] [--payout-address 0x…] [--sponsor-wallet 0x… --sponsor-chain-id C]",
		short: "create an integrator", flags: integratorFlags,
		check: func(f *keysFlags, pos []string) error { return want(pos, 0, "", "--name", f.name) },
		run: func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
			return c.integrator(c.st.CreateIntegrator(ctx, auth.Integrator{Name: f.name, BusinessVerified: f.verified,
				PayoutAddress: f.payout, SponsorWallet: f.spon, SponsorChainID: f.chain}, c.by))
		}},
	{path: "integrators update", args: "ID [--name N] [--business-verified=true|false] [--payout-address 0x…] [--sponsor-wallet 0x… --sponsor-chain-id C]",
		short: "change an integrator's profile: only the flags given", flags: integratorFlags,
		check: func(f *keysFlags, pos []string) error {
			if err := want(pos, 1, "ID"); err != nil {
				return err
			}
			if !slices.ContainsFunc(integratorFlags, f.fs.Changed) {
				return errors.New("nothing to change: give --name, --business-verified, --payout-address or --sponsor-wallet with --sponsor-chain-id")
			}
			return nil
		},
		run: func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
			var u store.IntegratorUpdate
			for flagName, apply := range map[string]func(){
				"name": func() { u.Name = &f.name }, "business-verified": func() { u.BusinessVerified = &f.verified },
				"payout-address": func() { u.PayoutAddress = &f.payout }, "sponsor-wallet": func() { u.SponsorWallet = &f.spon },
				"sponsor-chain-id": func() { u.SponsorChainID = &f.chain },
			} {
				if f.fs.Changed(flagName) {
					apply()
				}
			}
			return c.integrator(c.st.UpdateIntegrator(ctx, pos[0], u, c.by))
		}},
	{path: "integrators list", short: "list the integrators",
		check: func(f *keysFlags, pos []string) error { return want(pos, 0, "") },
		run: func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
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
		}},
	{path: "integrators show", args: "ID", short: "show an integrator's profile and its keys",
		check: func(f *keysFlags, pos []string) error { return want(pos, 1, "ID") },
		run: func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
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
		}},
	{path: "integrators sponsorship top-up", args: `ID --amount-usd 250.00 [--reason "wire 4711"]`,
		short: "add to an integrator's sponsorship balance", flags: []string{"amount-usd"},
		check: func(f *keysFlags, pos []string) error { return want(pos, 1, "ID", "--amount-usd", f.amount) },
		run: func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
			return c.moveBalance(ctx, f, pos, c.st.TopUpSponsorBalance)
		}},
	{path: "integrators sponsorship adjust", args: `ID --amount-usd -12.50 --reason "…"`,
		short: "correct an integrator's sponsorship balance, up or down (never below zero)", flags: []string{"amount-usd"},
		check: func(f *keysFlags, pos []string) error { return want(pos, 1, "ID", "--amount-usd", f.amount) },
		run: func(ctx context.Context, c *keysCmd, f *keysFlags, pos []string) error {
			return c.moveBalance(ctx, f, pos, c.st.AdjustSponsorBalance)
		}},
}

// integratorFlags are the profile's flags, of integrators create and update.
var integratorFlags = []string{"name", "business-verified", "payout-address", "sponsor-wallet", "sponsor-chain-id"}

func (c *keysCmd) moveBalance(ctx context.Context, f *keysFlags, pos []string,
	move func(context.Context, string, decimal.Decimal, store.Actor) (*auth.Integrator, error)) error {
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
