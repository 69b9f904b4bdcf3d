package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/envconf"
	"github.com/intentd/intentd/internal/logging"
	"github.com/intentd/intentd/workflows"
)

// adminConfig is the configuration of `intentd admin refund`, loaded at its start: the few
// variables it needs of the engine's (it reaches the same Temporal).
type adminConfig struct {
	TemporalAddress   string // TEMPORAL_ADDRESS, as the engine's
	TemporalNamespace string // TEMPORAL_NAMESPACE, as the engine's
}

// loadAdminConfig reads the refund command's variables through lookup (os.LookupEnv).
func loadAdminConfig(lookup lookupFunc) (adminConfig, error) {
	v := envconf.New(lookup, nil)
	c := adminConfig{TemporalAddress: v.Get("TEMPORAL_ADDRESS", app.DefaultTemporalAddress),
		TemporalNamespace: v.Get("TEMPORAL_NAMESPACE", app.DefaultTemporalNamespace)}
	return c, v.Err()
}

// newAdminCmd is `intentd admin`: the support staff's tools.
func newAdminCmd(lookup lookupFunc) *cobra.Command {
	admin := &cobra.Command{
		Use:   "admin",
		Short: "support-staff tools: refunds by hand, integrators and their API keys, webhooks",
		Long: `Support-staff tools. Each command says who runs it (--operator, default $USER); every change is
recorded in admin_audit (the refund in the request's workflow history).

  admin refund       refunds an intent by hand and waits until the refund is mined (Temporal)
  admin keys         an integrator's API keys (DATABASE_URL)
  admin integrators  integrators, their profile and sponsorship balance (DATABASE_URL)
  admin webhooks     an API key's webhook (DATABASE_URL, WEBHOOK_SECRETS_KEY)`,
	}
	admin.AddCommand(newRefundCmd(lookup))
	admin.AddCommand(newKeysCmds(lookup)...)
	admin.AddCommand(newWebhooksCmd(lookup))
	return admin
}

type refundOptions struct {
	requestID string
	refund    intent.AdminRefund
	timeout   time.Duration
}

// newRefundCmd is `intentd admin refund <requestId> --reason … [--operator …] [--recipient …]`,
// the flags before or after the requestId.
func newRefundCmd(lookup lookupFunc) *cobra.Command {
	var o refundOptions
	cmd := &cobra.Command{
		Use:   `refund <requestId> --reason "…" [--operator NAME] [--recipient 0x…] [--timeout 10m]`,
		Short: "refund an intent by hand and wait until the refund is mined",
		Long: `Refunds an intent by hand (docs/operations.md, "Manual admin refunds"): sends the adminRefund
update to the request's workflow and waits until the refund transaction is mined. The workflow
accepts it only when the deposit is attested, nothing has been paid out and no refund is running.
Prints the request, status, chain, transaction hash, amount, currency and recipient; exits 1 when
the refund is not made.

Temporal: TEMPORAL_ADDRESS (default 127.0.0.1:7233), TEMPORAL_NAMESPACE (default "default").`,
		Example: `  intentd admin refund 0x6f2c…e41a --reason "fill stuck (ticket 4711)"
  intentd admin refund 0x6f2c…e41a --reason "refundTo reverts" --operator alice --recipient 0x7099…79C8 --timeout 15m`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return errors.New("the requestId is missing")
			case len(args) > 1:
				return fmt.Errorf("one requestId expected, got %q (quote a reason that has spaces)", args)
			}
			o.requestID = args[0]
			if strings.TrimSpace(o.refund.Reason) == "" {
				return errors.New("--reason is required")
			}
			if o.timeout <= 0 {
				return errors.New("--timeout must be positive")
			}
			return resolveOperator(cmd, &o.refund.Operator, lookup)
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRefund(cmd.Context(), o, lookup, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.refund.Reason, "reason", "", "why the request is refunded (required; kept in the audit table)")
	operatorFlag(cmd, &o.refund.Operator, "who asks for the refund")
	f.StringVar(&o.refund.Recipient, "recipient", "", "pay the refund to this `ADDRESS` (0x…) instead of the default")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "how long to wait for the refund to be mined")
	return cmd
}

// operatorFlag adds --operator NAME to cmd, into v; resolveOperator gives it its default.
func operatorFlag(cmd *cobra.Command, v *string, usage string) {
	cmd.Flags().StringVar(v, "operator", "", usage+" (default $USER; kept in the audit trail)")
}

// resolveOperator sets --operator to $USER (through lookup) when it was not given, and requires
// one: every change says who made it.
func resolveOperator(cmd *cobra.Command, v *string, lookup lookupFunc) error {
	if !cmd.Flags().Changed("operator") {
		*v, _ = lookup("USER")
	}
	if strings.TrimSpace(*v) == "" {
		return errors.New("--operator is required ($USER is not set)")
	}
	return nil
}

// runRefund checks the refund, then sends it to the request's workflow and waits for its result.
func runRefund(ctx context.Context, o refundOptions, lookup lookupFunc, stdout, stderr io.Writer) error {
	cfg, err := loadAdminConfig(lookup)
	if err != nil {
		return err
	}
	// Check the input before dialling Temporal.
	req, err := door.ValidateAdminRefund(o.requestID, o.refund)
	if err != nil {
		return err
	}
	// The SDK's own chatter stays out of the command's output unless something is wrong.
	sdkLogger, closeLog := logging.New(stderr, slog.LevelWarn)
	defer closeLog()
	tc, err := client.DialContext(ctx, client.Options{HostPort: cfg.TemporalAddress, Namespace: cfg.TemporalNamespace,
		Logger: sdklog.NewStructuredLogger(sdkLogger)})
	if err != nil {
		return fmt.Errorf("temporal at TEMPORAL_ADDRESS %s: %w", cfg.TemporalAddress, err)
	}
	defer tc.Close()

	fmt.Fprintf(stdout, "refunding %s (operator %s); waiting up to %s for the refund to be mined…\n", o.requestID, req.Operator, o.timeout)
	rctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	res, err := (&door.Door{Temporal: tc}).AdminRefund(rctx, o.requestID, req)
	if err != nil {
		return explainRefundError(o.requestID, err)
	}
	printRefund(stdout, res)
	return nil
}

// explainRefundError turns door.Refund's errors into what the operator should know.
func explainRefundError(requestID string, err error) error {
	var nr *door.NotRefundableError
	switch {
	case errors.As(err, &nr):
		return fmt.Errorf("refund of %s not made: %s", requestID, nr.Reason)
	case errors.Is(err, door.ErrNotFound):
		return fmt.Errorf("no intent workflow for %s: unknown requestId, or no deposit seen for it yet", requestID)
	case errors.Is(err, door.ErrTimeout):
		return fmt.Errorf("%w\nIf the workflow accepted the refund it goes on: follow GET /intents/status/v3?requestId=%s "+
			"or the workflow %s in the Temporal Web UI", err, requestID, workflows.IntentWorkflowID(requestID))
	default:
		return err
	}
}

func printRefund(w io.Writer, r *intent.AdminRefundResult) {
	fmt.Fprintf(w, `refund mined
  request    %s
  status     %s
  chain      %d
  tx hash    %s
  amount     %s (smallest unit of currency %s)
  recipient  %s
`, r.RequestID, r.Status, r.ChainID, r.TxHash, r.Amount, r.Currency, r.Recipient)
}
