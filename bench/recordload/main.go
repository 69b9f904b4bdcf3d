// Command recordload measures the read paths of the request records at scale (BENCHMARKS.md,
// "Request records"). It has two parts:
//
//	recordload seed -database-url URL [-requests 1000000]
//	recordload run  -database-url URL -url http://127.0.0.1:8080 [-duration 20s] [-clients 32]
//
// `seed` migrates the database, creates integrators and API keys, and COPYs a realistic spread of
// requests: users drawn from a Zipf distribution (a few wallets make thousands of requests, most
// a handful), seven chains, two currencies per chain, 84% success and the rest waiting, refund,
// failure, pending and submitted, 70% quoted with one of twenty keys of five integrators, created
// over 180 days, each with its deposit and fill or refund transactions. The keys' values go to
// -keys (0600, under .data/, never committed).
//
// `run` then loads a running API with each scenario in turn, closed loop (each client sends its
// next request when the previous one answered) through github.com/tsenart/vegeta, and prints
// throughput and latency percentiles per scenario, followed by the EXPLAIN (ANALYZE) plan of the
// query behind each: status by requestId, /requests/v3 by user, a filtered includeTotal query, and
// paging ten pages deep (page 1 against page 10).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"
)

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "seed" && args[0] != "run") {
		fmt.Fprintln(stderr, "usage: recordload seed|run [flags]")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fs := flag.NewFlagSet("recordload "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "Postgres holding the requests")
	keys := fs.String("keys", ".data/recordload-keys.json", "where seed writes the seeded keys and run reads them")
	requests := fs.Int("requests", 1_000_000, "seed: how many requests")
	seed := fs.Uint64("seed", 1, "seed: the random seed (the same population for the same seed)")
	apiURL := fs.String("url", "http://127.0.0.1:8080", "run: the API")
	duration := fs.Duration("duration", 20*time.Second, "run: how long each scenario is measured")
	clients := fs.Int("clients", 32, "run: concurrent clients")
	only := fs.String("scenario", "", "run: one scenario only (status, v3-user, v3-filtered-total, v3-paging)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if *dbURL == "" {
		fmt.Fprintln(stderr, "recordload: -database-url (or DATABASE_URL) is required")
		return 2
	}
	var err error
	switch args[0] {
	case "seed":
		err = seedDB(ctx, seedConfig{databaseURL: *dbURL, requests: *requests, keysFile: *keys, seed: *seed}, stdout)
	case "run":
		err = runAll(ctx, runConfig{databaseURL: *dbURL, api: *apiURL, keysFile: *keys, duration: *duration,
			clients: *clients, only: *only}, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "recordload %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
