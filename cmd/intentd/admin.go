package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/intents"
	"github.com/intentd/intentd/internal/envconf"
	"github.com/intentd/intentd/internal/logging"
	"github.com/intentd/intentd/workflows"
)

const adminUsage = `usage: intentd admin refund <requestId> --reason "…" [--operator NAME] [--recipient 0x…] [--timeout 10m]
       intentd admin keys|integrators <command> …   (see intentd admin keys --help)
       intentd admin webhooks <command> …            (see intentd admin webhooks --help)

Refunds an intent by hand (docs/operations.md, "Manual admin refunds"): sends the adminRefund
update to the request's workflow and waits until the refund transaction is mined. The workflow
accepts it only when the deposit is attested, nothing has been paid out and no refund is running.

Temporal: TEMPORAL_ADDRESS (default 127.0.0.1:7233), TEMPORAL_NAMESPACE (default "default").
`

// errUsage marks a command line that could not be understood; the usage text has been printed.
var errUsage = errors.New("see usage above")

// adminConfig is the configuration of `intentd admin`, loaded at its start: the few variables
// it needs of the engine's (it reaches the same Temporal) and who runs it.
type adminConfig struct {
	TemporalAddress   string // TEMPORAL_ADDRESS, as the engine's
	TemporalNamespace string // TEMPORAL_NAMESPACE, as the engine's
	Operator          string // USER: the default of --operator
}

// loadAdminConfig reads the admin command's variables through lookup (os.LookupEnv).
func loadAdminConfig(lookup func(string) (string, bool)) (adminConfig, error) {
	v := envconf.New(lookup, nil)
	c := adminConfig{TemporalAddress: v.Get("TEMPORAL_ADDRESS", app.DefaultTemporalAddress),
		TemporalNamespace: v.Get("TEMPORAL_NAMESPACE", app.DefaultTemporalNamespace), Operator: v.Get("USER", "")}
	return c, v.Err()
}

// runAdmin runs `intentd admin <subcommand> …`; args are the words after "admin" and lookup
// reads the environment (os.LookupEnv).
func runAdmin(ctx context.Context, args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, adminUsage)
		return errUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, adminUsage)
		return nil
	}
	if args[0] == "keys" || args[0] == "integrators" {
		return runAdminKeys(ctx, args, lookup, stdout, stderr)
	}
	if args[0] == "webhooks" {
		return runAdminWebhooks(ctx, args, lookup, stdout, stderr)
	}
	if args[0] != "refund" {
		fmt.Fprintf(stderr, "intentd admin: unknown subcommand %q\n\n%s", args[0], adminUsage)
		return errUsage
	}
	cfg, err := loadAdminConfig(lookup)
	if err != nil {
		return err
	}
	opts, err := parseRefundArgs(args[1:], cfg.Operator, stderr)
	if errors.Is(err, flag.ErrHelp) { // the flag set has printed the usage
		return nil
	}
	if err != nil {
		return err
	}
	// Check the input before dialling Temporal.
	req, err := intents.ValidateAdminRefund(opts.requestID, opts.refund)
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

	fmt.Fprintf(stdout, "refunding %s (operator %s); waiting up to %s for the refund to be mined…\n", opts.requestID, req.Operator, opts.timeout)
	rctx, cancel := context.WithTimeout(ctx, opts.timeout)
	defer cancel()
	res, err := (&intents.Door{Temporal: tc}).AdminRefund(rctx, opts.requestID, req)
	if err != nil {
		return explainRefundError(opts.requestID, err)
	}
	printRefund(stdout, res)
	return nil
}

type refundOptions struct {
	requestID string
	refund    intent.AdminRefund
	timeout   time.Duration
}

// parseRefundArgs reads `<requestId> --reason … [--operator …] [--recipient …]` with the flags
// before or after the requestId. defaultOperator is $USER.
func parseRefundArgs(args []string, defaultOperator string, stderr io.Writer) (refundOptions, error) {
	var o refundOptions
	fs := flag.NewFlagSet("intentd admin refund", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, adminUsage) }
	fs.StringVar(&o.refund.Reason, "reason", "", "why the request is refunded (required; kept in the audit table)")
	fs.StringVar(&o.refund.Operator, "operator", defaultOperator, "who asks for the refund (default $USER)")
	fs.StringVar(&o.refund.Recipient, "recipient", "", "pay the refund to this 0x address instead of the default")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "how long to wait for the refund to be mined")
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return o, err
	}
	switch {
	case len(positional) == 0:
		fmt.Fprint(stderr, adminUsage)
		return o, errors.New("the requestId is missing")
	case len(positional) > 1:
		return o, fmt.Errorf("one requestId expected, got %q (quote a reason that has spaces)", positional)
	}
	o.requestID = positional[0]
	if strings.TrimSpace(o.refund.Reason) == "" {
		return o, errors.New("--reason is required")
	}
	if strings.TrimSpace(o.refund.Operator) == "" {
		return o, errors.New("--operator is required ($USER is not set)")
	}
	if o.timeout <= 0 {
		return o, errors.New("--timeout must be positive")
	}
	return o, nil
}

// parseInterleaved parses args with fs, flags before or after the positional words, and returns
// the positional words: the flag package stops at the first non-flag word, so parsing resumes
// after each one. A bad flag is errUsage (fs has printed why); -h is flag.ErrHelp.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// explainRefundError turns intents.Refund's errors into what the operator should know.
func explainRefundError(requestID string, err error) error {
	var nr *intents.NotRefundableError
	switch {
	case errors.As(err, &nr):
		return fmt.Errorf("refund of %s not made: %s", requestID, nr.Reason)
	case errors.Is(err, intents.ErrNotFound):
		return fmt.Errorf("no intent workflow for %s: unknown requestId, or no deposit seen for it yet", requestID)
	case errors.Is(err, intents.ErrTimeout):
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
