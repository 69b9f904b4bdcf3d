// Command statusbaseline is the ceiling the status endpoint is measured against
// (BENCHMARKS.md, "Request records"): a bare Gin server that answers
// GET /intents/status/v3?requestId= with one pgx primary-key lookup of the same columns and
// nothing else (no key, limits, usage, logging or batching). Run beside the engine's API on the
// same database, under the same load generator, it tells how much of the gap to the target is
// the API's own cost and how much is the machine.
//
//	go run ./bench/statusbaseline -database-url postgres://…/intentd -addr 127.0.0.1:8090
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	dbURL := flag.String("database-url", "", "the seeded database")
	addr := flag.String("addr", "127.0.0.1:8090", "where to listen")
	flag.Parse()
	pool, err := pgxpool.New(context.Background(), *dbURL)
	if err != nil {
		log.Fatal(err)
	}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.GET("/intents/status/v3", func(c *gin.Context) {
		var status, fail, refundFail string
		var in, out []string
		var updated, created time.Time
		var origin, dest int64
		err := pool.QueryRow(c.Request.Context(), `SELECT status, in_tx_hashes, out_tx_hashes, updated_at, origin_chain_id,
			destination_chain_id, fail_reason, refund_fail_reason, created_at FROM requests WHERE id = $1`, c.Query("requestId")).
			Scan(&status, &in, &out, &updated, &origin, &dest, &fail, &refundFail, &created)
		if err != nil {
			c.JSON(http.StatusNotFound, gin.H{"message": "not found"})
			return
		}
		c.JSON(http.StatusOK, gin.H{"status": status, "inTxHashes": in, "txHashes": out, "updatedAt": updated.UnixMilli(),
			"originChainId": origin, "destinationChainId": dest, "failReason": fail, "refundFailReason": refundFail,
			"quoteCreatedAt": created.UnixMilli()})
	})
	log.Fatal(http.ListenAndServe(*addr, r))
}
